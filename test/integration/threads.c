/* MPI_THREAD_MULTIPLE: several threads per rank calling MPI at once (threads.sh runs it at 1 to
 * 7 ranks, with each VBT_THREAD_CS mode). Every rank pairs with a partner (rank ^ 1; itself for
 * the last rank of an odd count and at 1 rank), and every thread of a rank with the thread of
 * the same number at the partner: its own tag, or its own communicator. Payloads are checked
 * byte for byte; messages of one thread carry sequence numbers, which must arrive in order (MPI
 * orders messages of one thread on one communicator and tag). THREADS_NT sets the threads per
 * rank (default 4). */
#define MPITEST_NAME "threads"
#include "mpitest.h"

#include <pthread.h>
#include <stdint.h>

#define MAXT 16

static int nt = 4;
static int partner;
static MPI_Comm tcomm[MAXT]; /* one dup of MPI_COMM_WORLD per thread */

/* A message: its sequence number and the payload seeded by (thread, sequence). */
static void make_msg(unsigned char *buf, size_t len, int t, int seq)
{
    fill(buf, len, (unsigned)(t * 100003 + seq));
    if (len >= sizeof(int))
        memcpy(buf, &seq, sizeof(int));
}

static void check_msg(const unsigned char *buf, size_t len, int t, int seq, const char *what)
{
    unsigned char *want = xmalloc(len);
    int got;

    if (len >= sizeof(int)) {
        memcpy(&got, buf, sizeof(int));
        if (got != seq)
            FAIL("%s: thread %d: message %d arrived where message %d was due (overtaken)", what, t,
                 got, seq);
    }
    make_msg(want, len, t, seq);
    for (size_t i = 0; i < len; i++)
        if (buf[i] != want[i])
            FAIL("%s: thread %d message %d: %zu-byte payload wrong at byte %zu (0x%02x, "
                 "expected 0x%02x)",
                 what, t, seq, len, i, buf[i], want[i]);
    free(want);
}

/* Run fn(t) in nt threads (thread 0 too is a new thread, so MPI_Is_thread_main is false in all). */
static void run_threads(void *(*fn)(void *))
{
    pthread_t th[MAXT];

    for (intptr_t t = 0; t < nt; t++)
        if (pthread_create(&th[t], NULL, fn, (void *)t) != 0)
            FAIL("pthread_create failed");
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
}

static const size_t sizes[] = {0, 1, 8, 100, 4000, 20000, 150000};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Tagged ping-pongs: bursts of nonblocking sends on the thread's tag, then the partner's burst
 * received in order. */
static void *pingpong_thread(void *arg)
{
    int t = (int)(intptr_t)arg, flag;
    enum { BURST = 4, ROUNDS = 6 };

    MPI_Is_thread_main(&flag);
    CHECK(!flag);
    for (int r = 0; r < ROUNDS; r++) {
        for (size_t s = 0; s < NSIZES; s++) {
            size_t len = sizes[s];
            unsigned char *out[BURST], *in = xmalloc(len);
            MPI_Request req[BURST];
            for (int b = 0; b < BURST; b++) {
                int seq = (r * (int)NSIZES + (int)s) * BURST + b;
                out[b] = xmalloc(len);
                make_msg(out[b], len, t, seq);
                MPI_Isend(out[b], (int)len, MPI_BYTE, partner, t, MPI_COMM_WORLD, &req[b]);
            }
            for (int b = 0; b < BURST; b++) {
                int seq = (r * (int)NSIZES + (int)s) * BURST + b, n;
                MPI_Status st;
                memset(in, 0, len);
                MPI_Recv(in, (int)len, MPI_BYTE, partner, t, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &n);
                CHECK(n == (int)len && st.MPI_TAG == t && st.MPI_SOURCE == partner);
                check_msg(in, len, t, seq, "pingpong");
            }
            MPI_Waitall(BURST, req, MPI_STATUSES_IGNORE);
            for (int b = 0; b < BURST; b++)
                free(out[b]);
            free(in);
        }
    }
    return NULL;
}

static void test_pingpong(void)
{
    run_threads(pingpong_thread);
}

/* Collectives on a communicator per thread, all at once. */
static void *coll_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm c = tcomm[t];

    for (int i = 0; i < 20; i++) {
        long v = (long)(rank + 1) * (t + 1) + i, sum = 0, root_val;
        int buf[64];
        MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c);
        if (sum != (long)size * (size + 1) / 2 * (t + 1) + (long)size * i)
            FAIL("coll: thread %d round %d: allreduce gave %ld", t, i, sum);
        root_val = rank == i % size ? 1000L * t + i : -1;
        MPI_Bcast(&root_val, 1, MPI_LONG, i % size, c);
        CHECK(root_val == 1000L * t + i);
        for (int k = 0; k < 64; k++)
            buf[k] = rank == 0 ? t * 7 + i + k : -1;
        MPI_Bcast(buf, 64, MPI_INT, 0, c);
        for (int k = 0; k < 64; k++)
            if (buf[k] != t * 7 + i + k)
                FAIL("coll: thread %d round %d: bcast element %d is %d", t, i, k, buf[k]);
        MPI_Barrier(c);
    }
    return NULL;
}

static void test_coll(void)
{
    run_threads(coll_thread);
}

/* Thread 0 blocks in MPI_Recv on a tag the partner sends only after its other threads finished
 * their ping-pongs: a blocked receiver must not hold the others up. */
#define BLOCKED_TAG 30000
static void *blocked_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char buf[256];

    if (t == 0) {
        MPI_Status st;
        MPI_Recv(buf, sizeof(buf), MPI_BYTE, partner, BLOCKED_TAG, MPI_COMM_WORLD, &st);
        check_msg(buf, sizeof(buf), 99, 7, "blocked");
        return NULL;
    }
    return pingpong_thread(arg);
}

static void *blocked_sender(void *arg)
{
    unsigned char buf[256];
    (void)arg;
    make_msg(buf, sizeof(buf), 99, 7);
    MPI_Send(buf, sizeof(buf), MPI_BYTE, partner, BLOCKED_TAG, MPI_COMM_WORLD);
    return NULL;
}

static void test_blocked(void)
{
    pthread_t th[MAXT], s;

    for (intptr_t t = 0; t < nt; t++)
        if (pthread_create(&th[t], NULL, blocked_thread, (void *)t) != 0)
            FAIL("pthread_create failed");
    for (int t = 1; t < nt; t++)
        pthread_join(th[t], NULL);
    /* Our ping-pong threads are done (so the partner's got all their replies): now free the
     * partner's blocked thread. */
    pthread_create(&s, NULL, blocked_sender, NULL);
    pthread_join(s, NULL);
    pthread_join(th[0], NULL);
}

/* Matched probes from several threads with MPI_ANY_TAG: each message goes to exactly one
 * thread, whatever thread probes it. */
#define MPROBE_N 40
static int mprobe_count[MAXT];
static pthread_mutex_t mprobe_mutex = PTHREAD_MUTEX_INITIALIZER;

static void *mprobe_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Request req[MPROBE_N];
    unsigned char out[MPROBE_N][300];

    for (int i = 0; i < MPROBE_N; i++) {
        make_msg(out[i], 100 + (size_t)i, t, i);
        MPI_Isend(out[i], 100 + i, MPI_BYTE, partner, t, tcomm[0], &req[i]);
    }
    for (int i = 0; i < MPROBE_N; i++) {
        MPI_Message msg;
        MPI_Status st;
        int flag = 0, n, seq;
        unsigned char in[300];
        if (i % 2 == 0) {
            while (!flag)
                MPI_Improbe(partner, MPI_ANY_TAG, tcomm[0], &flag, &msg, &st);
        } else {
            MPI_Mprobe(partner, MPI_ANY_TAG, tcomm[0], &msg, &st);
        }
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(st.MPI_TAG >= 0 && st.MPI_TAG < nt && n >= 100 && n < 100 + MPROBE_N);
        memset(in, 0, sizeof(in));
        MPI_Mrecv(in, n, MPI_BYTE, &msg, &st);
        CHECK(msg == MPI_MESSAGE_NULL);
        seq = n - 100;
        check_msg(in, (size_t)n, st.MPI_TAG, seq, "mprobe");
        pthread_mutex_lock(&mprobe_mutex);
        mprobe_count[st.MPI_TAG]++;
        pthread_mutex_unlock(&mprobe_mutex);
    }
    MPI_Waitall(MPROBE_N, req, MPI_STATUSES_IGNORE);
    return NULL;
}

static void test_mprobe(void)
{
    memset(mprobe_count, 0, sizeof(mprobe_count));
    run_threads(mprobe_thread);
    for (int t = 0; t < nt; t++)
        if (mprobe_count[t] != MPROBE_N)
            FAIL("mprobe: %d messages of tag %d received, %d sent", mprobe_count[t], t, MPROBE_N);
}

/* MPI_Iprobe loops on the thread's tag, then MPI_Recv of what was probed. */
static void *iprobe_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    enum { N = 30 };
    unsigned char out[N][64], in[64];
    MPI_Request req[N];

    for (int i = 0; i < N; i++) {
        make_msg(out[i], sizeof(out[i]), t, i);
        MPI_Isend(out[i], 64, MPI_BYTE, partner, t, tcomm[1 % nt], &req[i]);
    }
    for (int i = 0; i < N; i++) {
        int flag = 0;
        MPI_Status st;
        while (!flag)
            MPI_Iprobe(partner, t, tcomm[1 % nt], &flag, &st);
        CHECK(st.MPI_TAG == t);
        MPI_Recv(in, 64, MPI_BYTE, partner, t, tcomm[1 % nt], MPI_STATUS_IGNORE);
        check_msg(in, 64, t, i, "iprobe");
    }
    MPI_Waitall(N, req, MPI_STATUSES_IGNORE);
    return NULL;
}

static void test_iprobe(void)
{
    run_threads(iprobe_thread);
}

/* Thread 0 posts receives nobody sends to and cancels them (and posts and frees some) while the
 * others ping-pong. */
static void *cancel_thread(void *arg)
{
    int t = (int)(intptr_t)arg;

    if (t == 0 && nt > 1) {
        for (int i = 0; i < 200; i++) {
            MPI_Request r;
            MPI_Status st;
            int cancelled = 0;
            char b[16];
            MPI_Irecv(b, 16, MPI_BYTE, MPI_ANY_SOURCE, 31000, MPI_COMM_WORLD, &r);
            MPI_Cancel(&r);
            MPI_Wait(&r, &st);
            MPI_Test_cancelled(&st, &cancelled);
            CHECK(cancelled && r == MPI_REQUEST_NULL);
        }
        return NULL;
    }
    return pingpong_thread(arg);
}

static void test_cancel(void)
{
    run_threads(cancel_thread);
}

/* MPI_Comm_dup and MPI_Comm_free from every thread at once, each on its own parent: context
 * ids must come out distinct, which the traffic on the new communicators checks. */
static void *dup_thread(void *arg)
{
    int t = (int)(intptr_t)arg;

    for (int i = 0; i < 8; i++) {
        MPI_Comm c, c2;
        int v = t * 1000 + i, got = -1, cmp;
        MPI_Comm_dup(tcomm[t], &c);
        MPI_Comm_dup(c, &c2);
        MPI_Comm_compare(c, tcomm[t], &cmp);
        CHECK(cmp == MPI_CONGRUENT);
        MPI_Sendrecv(&v, 1, MPI_INT, partner, 5, &got, 1, MPI_INT, partner, 5, c,
                     MPI_STATUS_IGNORE);
        CHECK(got == v);
        got = -1;
        v = -v;
        MPI_Sendrecv(&v, 1, MPI_INT, partner, 5, &got, 1, MPI_INT, partner, 5, c2,
                     MPI_STATUS_IGNORE);
        CHECK(got == v);
        MPI_Comm_free(&c2);
        MPI_Comm_free(&c);
    }
    return NULL;
}

static void test_dup(void)
{
    run_threads(dup_thread);
}

/* RMA on a window per thread, created, used and freed by threads at once. */
static void *rma_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    enum { N = 128 };
    int *base, out[N];
    MPI_Win win;

    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, tcomm[t], &base, &win);
    for (int i = 0; i < N; i++)
        base[i] = -1;
    for (int round = 0; round < 3; round++) {
        MPI_Win_fence(0, win);
        for (int i = 0; i < N; i++)
            out[i] = (rank * 7 + t) * 10000 + round * 1000 + i;
        MPI_Put(out, N, MPI_INT, partner, 0, N, MPI_INT, win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < N; i++)
            if (base[i] != (partner * 7 + t) * 10000 + round * 1000 + i)
                FAIL("rma: thread %d round %d: element %d is %d", t, round, i, base[i]);
    }
    MPI_Win_lock(MPI_LOCK_SHARED, partner, 0, win);
    memset(out, 0, sizeof(out));
    MPI_Get(out, N, MPI_INT, partner, 0, N, MPI_INT, win);
    MPI_Win_unlock(partner, win);
    for (int i = 0; i < N; i++)
        if (out[i] != (rank * 7 + t) * 10000 + 2000 + i)
            FAIL("rma: thread %d: got element %d as %d", t, i, out[i]);
    MPI_Win_free(&win);
    return NULL;
}

static void test_rma(void)
{
    run_threads(rma_thread);
}

/* The library's objects from every thread at once: Info objects, derived datatypes, attribute
 * keyvals and their callbacks, error handlers and user operations are created, used and freed
 * by all threads concurrently, each checked through what it must give back. Their handle tables
 * and free lists are shared by the threads, so a race shows as a wrong value, a handle given
 * twice, or (under ThreadSanitizer) a report. */
static int objs_deleted[MAXT];
static __thread int objs_errh_calls;

static int objs_delete_fn(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    objs_deleted[(int)(intptr_t)extra] += (int)(intptr_t)attr;
    return MPI_SUCCESS;
}

static void objs_errh(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    if (*code == MPI_ERR_OTHER)
        objs_errh_calls++;
}

/* A user reduction: inout[i] = 3 * inout[i] + in[i]. */
static void objs_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = 3 * ((int *)inout)[i] + ((int *)in)[i];
}

static void *objs_thread(void *arg)
{
    int t = (int)(intptr_t)arg;

    for (int it = 0; it < 40; it++) {
        int seed = (rank * MAXT + t) * 1000 + it, flag, nkeys, vlen;
        char key[32], val[64], got[64];

        /* Info: set, dup, read back from the dup, delete. */
        MPI_Info info, dup;
        MPI_Info_create(&info);
        for (int k = 0; k < 8; k++) {
            snprintf(key, sizeof(key), "key%d", k);
            snprintf(val, sizeof(val), "%d-%d", seed, k);
            MPI_Info_set(info, key, val);
        }
        MPI_Info_dup(info, &dup);
        MPI_Info_free(&info);
        CHECK(info == MPI_INFO_NULL);
        MPI_Info_delete(dup, "key3");
        MPI_Info_get_nkeys(dup, &nkeys);
        if (nkeys != 7)
            FAIL("objs: thread %d: info has %d keys after a delete, expected 7", t, nkeys);
        for (int k = 0; k < 8; k++) {
            snprintf(key, sizeof(key), "key%d", k);
            snprintf(val, sizeof(val), "%d-%d", seed, k);
            vlen = (int)sizeof(got);
            MPI_Info_get_string(dup, key, &vlen, got, &flag);
            if (k == 3 ? flag : !flag || strcmp(got, val) != 0)
                FAIL("objs: thread %d: info %s is %s, expected %s", t, key, flag ? got : "(unset)",
                     k == 3 ? "(unset)" : val);
        }
        MPI_Info_free(&dup);

        /* A derived datatype: built, named, committed, packed, duplicated and freed. */
        MPI_Datatype vec, rs, tdup;
        int src[12], packed[6], pos = 0;
        for (int i = 0; i < 12; i++)
            src[i] = seed * 16 + i;
        MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
        MPI_Type_create_resized(vec, 0, 12 * (MPI_Aint)sizeof(int), &rs);
        MPI_Type_free(&vec);
        snprintf(val, sizeof(val), "vec-%d", seed);
        MPI_Type_set_name(rs, val);
        MPI_Type_commit(&rs);
        MPI_Type_dup(rs, &tdup);
        MPI_Type_free(&rs);
        MPI_Pack(src, 1, tdup, packed, (int)sizeof(packed), &pos, MPI_COMM_SELF);
        CHECK(pos == (int)sizeof(packed));
        for (int b = 0, j = 0; b < 3; b++)
            for (int e = 0; e < 2; e++, j++)
                if (packed[j] != src[b * 4 + e])
                    FAIL("objs: thread %d: packed element %d is %d, expected %d", t, j, packed[j],
                         src[b * 4 + e]);
        vlen = 0;
        MPI_Type_get_name(tdup, got, &vlen);
        CHECK(vlen == 0); /* a duplicate has no name (MPI-4.1 Sec. 7.2) */
        MPI_Type_free(&tdup);
        CHECK(tdup == MPI_DATATYPE_NULL);

        /* An attribute on the thread's communicator: its delete callback runs on delete. */
        int kv, *attr;
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, objs_delete_fn, &kv, (void *)(intptr_t)t);
        MPI_Comm_set_attr(tcomm[t], kv, (void *)(intptr_t)(it + 1));
        MPI_Comm_get_attr(tcomm[t], kv, &attr, &flag);
        CHECK(flag && (intptr_t)attr == it + 1);
        MPI_Comm_delete_attr(tcomm[t], kv);
        MPI_Comm_free_keyval(&kv);
        CHECK(kv == MPI_KEYVAL_INVALID);

        /* An error handler on the thread's communicator, called through MPI. */
        MPI_Errhandler eh, old, cur;
        MPI_Comm_create_errhandler(objs_errh, &eh);
        MPI_Comm_get_errhandler(tcomm[t], &old);
        MPI_Comm_set_errhandler(tcomm[t], eh);
        MPI_Comm_call_errhandler(tcomm[t], MPI_ERR_OTHER);
        MPI_Comm_get_errhandler(tcomm[t], &cur);
        CHECK(cur == eh);
        MPI_Errhandler_free(&cur);
        MPI_Comm_set_errhandler(tcomm[t], old);
        MPI_Errhandler_free(&old);
        MPI_Errhandler_free(&eh);

        /* A user operation, applied locally. */
        MPI_Op op;
        int in[5], inout[5];
        MPI_Op_create(objs_op, 0, &op);
        for (int i = 0; i < 5; i++) {
            in[i] = seed + i;
            inout[i] = t - i;
        }
        MPI_Reduce_local(in, inout, 5, MPI_INT, op);
        for (int i = 0; i < 5; i++)
            if (inout[i] != 3 * (t - i) + seed + i)
                FAIL("objs: thread %d: user op element %d is %d, expected %d", t, i, inout[i],
                     3 * (t - i) + seed + i);
        MPI_Op_free(&op);
        CHECK(op == MPI_OP_NULL);
    }
    if (objs_errh_calls != 40)
        FAIL("objs: thread %d: the error handler ran %d times, expected 40", t, objs_errh_calls);
    return NULL;
}

static void test_objs(void)
{
    memset(objs_deleted, 0, sizeof(objs_deleted));
    run_threads(objs_thread);
    for (int t = 0; t < nt; t++)
        if (objs_deleted[t] != 40 * 41 / 2)
            FAIL("objs: thread %d's delete callbacks saw %d, expected %d", t, objs_deleted[t],
                 40 * 41 / 2);
}

/* Sessions from every thread at once (the library is already up, at MULTIPLE): each thread
 * opens its own, queries its process sets, makes the world's group and checks it, and
 * finalizes it. */
static void *session_thread(void *arg)
{
    int t = (int)(intptr_t)arg;

    for (int it = 0; it < 10; it++) {
        MPI_Session ses;
        MPI_Group g, wg;
        int n, gsize, cmp, len;
        char name[64];

        if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses) != MPI_SUCCESS)
            FAIL("session: thread %d: MPI_Session_init failed", t);
        MPI_Session_get_num_psets(ses, MPI_INFO_NULL, &n);
        CHECK(n >= 2);
        len = (int)sizeof(name);
        MPI_Session_get_nth_pset(ses, MPI_INFO_NULL, 0, &len, name);
        if (strncmp(name, "mpi://", 6) != 0)
            FAIL("session: thread %d: the first process set is \"%s\"", t, name);
        MPI_Group_from_session_pset(ses, "mpi://WORLD", &g);
        MPI_Group_size(g, &gsize);
        if (gsize != size)
            FAIL("session: thread %d: mpi://WORLD has %d processes, expected %d", t, gsize, size);
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Group_compare(g, wg, &cmp);
        CHECK(cmp == MPI_IDENT);
        MPI_Group_free(&wg);
        MPI_Group_free(&g);
        if (MPI_Session_finalize(&ses) != MPI_SUCCESS || ses != MPI_SESSION_NULL)
            FAIL("session: thread %d: MPI_Session_finalize failed", t);
    }
    return NULL;
}

static void test_session(void)
{
    run_threads(session_thread);
}

/* The thread level as the library reports it. */
static void test_level(void)
{
    int provided, flag, vlen;
    char v[64];

    MPI_Query_thread(&provided);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    MPI_Is_thread_main(&flag);
    CHECK(flag);
    vlen = (int)sizeof(v);
    MPI_Info_get_string(MPI_INFO_ENV, "thread_level", &vlen, v, &flag);
    if (!flag || strcmp(v, "MPI_THREAD_MULTIPLE") != 0)
        FAIL("MPI_INFO_ENV thread_level is %s", flag ? v : "(not set)");
}

static const mpitest_t tests[] = {
    {"level", test_level},     {"pingpong", test_pingpong}, {"coll", test_coll},
    {"blocked", test_blocked}, {"mprobe", test_mprobe},     {"iprobe", test_iprobe},
    {"cancel", test_cancel},   {"dup", test_dup},           {"rma", test_rma},
    {"objs", test_objs},       {"session", test_session},
};

int main(int argc, char **argv)
{
    int provided;
    const char *e = getenv("THREADS_NT");

    if (e != NULL)
        nt = atoi(e);
    if (nt < 1 || nt > MAXT)
        nt = 4;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE)
        FAIL("MPI_Init_thread(MPI_THREAD_MULTIPLE) provided %d", provided);
    partner = size == 1 ? 0 : (rank ^ 1) < size ? rank ^ 1 : rank;
    for (int t = 0; t < nt; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]);
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    if (argc < 2)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), "all");
    for (int t = 0; t < nt; t++)
        MPI_Comm_free(&tcomm[t]);
    MPI_Finalize();
    return 0;
}
