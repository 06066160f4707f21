/* The buffers of buffered-mode sends (MPI-4.1 Sec. 3.6): the process's (MPI_Buffer_*), a
 * communicator's (MPI_Comm_*_buffer) and a session's (MPI_Session_*_buffer), each as the user's
 * memory or MPI_BUFFER_AUTOMATIC. Every subtest sends around the ring (rank r to r + 1), so it
 * runs at any size, and checks each payload element by element:
 *   process   odd sizes and derived types through the process's buffer; detach gives back the
 *             address and size attached; a full buffer fails with MPI_ERR_BUFFER and loses
 *             nothing (the failed message is sent again after a flush)
 *   flush     a flush completes only once the messages are delivered: MPI_Buffer_iflush stays
 *             incomplete while the receiver cannot have posted its receive, MPI_Buffer_flush
 *             waits for a receiver that sleeps first
 *   comm      a communicator's buffer is used before the process's (none attached then);
 *             automatic buffers with many outstanding messages; MPI_Comm_free detaches (and
 *             delivers) first; Comm_flush/iflush
 *   session   a session's buffer is used by its communicators before the process's, and a
 *             communicator's before the session's; Session_flush/iflush/detach
 *   persist   MPI_Bsend_init and MPI_Ibsend take the communicator's or session's buffer
 *   errors    double attach, detach with none attached, negative size, NULL arguments, bad
 *             handles, and the large-count (_c) calls: the right error class and nothing changed */
#define MPITEST_NAME "bsend_buf"
#include "mpitest.h"

#include <stddef.h>
#include <stdint.h>

#define BIG (200 * 1000 + 3) /* above every rendezvous threshold: stays buffered until matched */

static int right(void)
{
    return (rank + 1) % size;
}

static int left(void)
{
    return (rank + size - 1) % size;
}

/* The same in communicator c, whose ranks may be ordered otherwise. */
static int me_in(MPI_Comm c)
{
    int r;
    MPI_Comm_rank(c, &r);
    return r;
}

static int right_in(MPI_Comm c)
{
    int n;
    MPI_Comm_size(c, &n);
    return (me_in(c) + 1) % n;
}

static int left_in(MPI_Comm c)
{
    int n;
    MPI_Comm_size(c, &n);
    return (me_in(c) + n - 1) % n;
}

/* The messages of a ring exchange: bytes of odd sizes, then a vector of doubles (every other
 * block of 3 of 7) and a struct of int + double. */
static const int byte_sizes[] = {0, 1, 13, 4099, 65537, BIG};
#define NBYTES   ((int)(sizeof(byte_sizes) / sizeof(byte_sizes[0])))
#define VEC_N    333 /* vector blocks */
#define STRUCT_N 101

typedef struct {
    int i;
    double d;
} pair_t;

static MPI_Datatype vec_type(void)
{
    MPI_Datatype t;
    MPI_Type_vector(VEC_N, 3, 7, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    return t;
}

static MPI_Datatype pair_type(void)
{
    MPI_Datatype t, r;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(pair_t, i), offsetof(pair_t, d)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(pair_t), &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

/* Bytes a buffer needs for one exchange (every message outstanding at once). */
static int exchange_room(MPI_Comm c)
{
    MPI_Datatype v = vec_type(), p = pair_type();
    int room = 0, s;

    for (int k = 0; k < NBYTES; k++)
        room += byte_sizes[k] + MPI_BSEND_OVERHEAD;
    MPI_Pack_size(1, v, c, &s);
    room += s + MPI_BSEND_OVERHEAD;
    MPI_Pack_size(STRUCT_N, p, c, &s);
    room += s + MPI_BSEND_OVERHEAD;
    MPI_Type_free(&v);
    MPI_Type_free(&p);
    return room;
}

/* Bsend every message of the exchange to the right (all before any receive: all are in the
 * buffer at once), then receive the left's and check each element. */
static void exchange(MPI_Comm c, unsigned seed)
{
    int rank = me_in(c), r_ = right_in(c), l_ = left_in(c);
    MPI_Datatype v = vec_type(), p = pair_type();
    double *vs = xmalloc(VEC_N * 7 * sizeof(double)), *vr = xmalloc(VEC_N * 7 * sizeof(double));
    pair_t *ps = xmalloc(STRUCT_N * sizeof(pair_t)), *pr = xmalloc(STRUCT_N * sizeof(pair_t));
    unsigned char *b = xmalloc(BIG);

    for (int k = 0; k < NBYTES; k++) {
        fill(b, (size_t)byte_sizes[k], seed + (unsigned)rank * 16 + (unsigned)k);
        CHECK(MPI_Bsend(b, byte_sizes[k], MPI_BYTE, r_, k, c) == MPI_SUCCESS);
    }
    /* The send buffers change at once: the messages are in MPI's buffer. */
    memset(b, 0xee, BIG);
    for (int i = 0; i < VEC_N * 7; i++)
        vs[i] = seed * 1000.0 + rank * 100000.0 + i;
    CHECK(MPI_Bsend(vs, 1, v, r_, 100, c) == MPI_SUCCESS);
    for (int i = 0; i < VEC_N * 7; i++)
        vs[i] = -1;
    for (int i = 0; i < STRUCT_N; i++)
        ps[i] = (pair_t){(int)seed + rank * 7 + i, i * 0.5 + rank};
    CHECK(MPI_Bsend(ps, STRUCT_N, p, r_, 101, c) == MPI_SUCCESS);
    memset(ps, 0, STRUCT_N * sizeof(pair_t));

    for (int k = 0; k < NBYTES; k++) {
        MPI_Status st;
        int n;
        memset(b, 0, BIG);
        CHECK(MPI_Recv(b, BIG, MPI_BYTE, l_, k, c, &st) == MPI_SUCCESS);
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(n == byte_sizes[k]);
        verify(b, (size_t)n, seed + (unsigned)l_ * 16 + (unsigned)k, "bytes");
    }
    for (int i = 0; i < VEC_N * 7; i++)
        vr[i] = -7;
    CHECK(MPI_Recv(vr, 1, v, l_, 100, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < VEC_N * 7; i++) {
        double want = i % 7 < 3 ? seed * 1000.0 + l_ * 100000.0 + i : -7;
        if (vr[i] != want)
            FAIL("vector element %d: %g, expected %g", i, vr[i], want);
    }
    CHECK(MPI_Recv(pr, STRUCT_N, p, l_, 101, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < STRUCT_N; i++)
        if (pr[i].i != (int)seed + l_ * 7 + i || pr[i].d != i * 0.5 + l_)
            FAIL("struct element %d: {%d, %g}", i, pr[i].i, pr[i].d);
    MPI_Type_free(&v);
    MPI_Type_free(&p);
    free(vs);
    free(vr);
    free(ps);
    free(pr);
    free(b);
}

/* buf/size attached to the process, detached again: what detach gives back. */
static void detach_process(void *buf, int bsize)
{
    void *got = NULL;
    int gsize = -1;
    CHECK(MPI_Buffer_detach(&got, &gsize) == MPI_SUCCESS);
    CHECK(got == buf);
    CHECK(gsize == bsize);
}

/* A buffer with room for one BIG message only, to the right: the second fails with
 * MPI_ERR_BUFFER while the first waits for its receiver; after a flush it goes. c's error
 * handler returns. flush is how the buffer in use is flushed. */
static void exhaust(MPI_Comm c, unsigned seed, int (*flush)(MPI_Comm))
{
    int rank = me_in(c), r_ = right_in(c), l_ = left_in(c);
    unsigned char *b = xmalloc(BIG), *r = xmalloc(BIG);
    int go = 1, n, flag, rc, cls;
    MPI_Request goreq;
    MPI_Status st;

    fill(b, BIG, seed + (unsigned)rank);
    CHECK(MPI_Bsend(b, BIG, MPI_BYTE, r_, 1, c) == MPI_SUCCESS);
    if (size > 1) { /* to ourselves, the first may be delivered already */
        fill(b, BIG, seed + 100 + (unsigned)rank);
        rc = MPI_Bsend(b, BIG, MPI_BYTE, r_, 2, c);
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_BUFFER)
            FAIL("a second message in a full buffer: error class %d, expected MPI_ERR_BUFFER", cls);
    }
    /* Nothing of the failed one went out: only message 1 is there once the right may receive. */
    CHECK(MPI_Isend(&go, 1, MPI_INT, r_, 3, c, &goreq) == MPI_SUCCESS);
    CHECK(MPI_Recv(&go, 1, MPI_INT, l_, 3, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Recv(r, BIG, MPI_BYTE, l_, 1, c, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == BIG);
    verify(r, BIG, seed + (unsigned)l_, "first message");
    CHECK(MPI_Wait(&goreq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(flush(c) == MPI_SUCCESS);
    if (size > 1) {
        fill(b, BIG, seed + 100 + (unsigned)rank);
        CHECK(MPI_Bsend(b, BIG, MPI_BYTE, r_, 2, c) == MPI_SUCCESS);
        CHECK(MPI_Recv(r, BIG, MPI_BYTE, l_, 2, c, &st) == MPI_SUCCESS);
        verify(r, BIG, seed + 100 + (unsigned)l_, "message sent again");
        CHECK(flush(c) == MPI_SUCCESS);
        /* Everyone's messages have left: the failed one is not there a second time. */
        MPI_Barrier(c);
        CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(!flag);
        MPI_Barrier(c);
    }
    free(b);
    free(r);
}

static int flush_process(MPI_Comm c)
{
    (void)c;
    return MPI_Buffer_flush();
}

static int flush_comm(MPI_Comm c)
{
    return MPI_Comm_flush_buffer(c);
}

static void test_process(void)
{
    MPI_Comm c;
    int room = exchange_room(MPI_COMM_WORLD), one = BIG + MPI_BSEND_OVERHEAD;
    char *buf = xmalloc((size_t)room + 5);

    /* An odd address and size: the library aligns inside. */
    CHECK(MPI_Buffer_attach(buf + 5, room) == MPI_SUCCESS);
    exchange(MPI_COMM_WORLD, 1);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    exchange(c, 2); /* another communicator, the same buffer */
    detach_process(buf + 5, room);

    /* Automatic: no size to compute. */
    CHECK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    exchange(c, 3);
    detach_process(MPI_BUFFER_AUTOMATIC, 0);

    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    CHECK(MPI_Buffer_attach(buf, one) == MPI_SUCCESS);
    exhaust(c, 4, flush_process);
    detach_process(buf, one);
    MPI_Comm_free(&c);
    free(buf);
}

static void test_flush(void)
{
    unsigned char *b = xmalloc(BIG), *r = xmalloc(BIG);
    int go = 1, flag = 1;
    MPI_Request req, goreq;
    double t0, dt;

    CHECK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    /* iflush: the right neighbour receives only after our go, so it cannot be done before. */
    fill(b, BIG, 11 + (unsigned)rank);
    CHECK(MPI_Bsend(b, BIG, MPI_BYTE, right(), 1, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Buffer_iflush(&req) == MPI_SUCCESS);
    for (int i = 0; i < 50 && size > 1; i++) {
        CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        if (flag)
            FAIL("MPI_Buffer_iflush complete before the receiver could receive");
        sleep_ms(1);
    }
    CHECK(MPI_Isend(&go, 1, MPI_INT, right(), 2, MPI_COMM_WORLD, &goreq) == MPI_SUCCESS);
    CHECK(MPI_Recv(&go, 1, MPI_INT, left(), 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Recv(r, BIG, MPI_BYTE, left(), 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    verify(r, BIG, 11 + (unsigned)left(), "iflush message");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(req == MPI_REQUEST_NULL);
    CHECK(MPI_Wait(&goreq, MPI_STATUS_IGNORE) == MPI_SUCCESS);

    /* An iflush freed before it completes still lets detach finish. */
    CHECK(MPI_Bsend(b, BIG, MPI_BYTE, right(), 4, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Buffer_iflush(&req) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
    CHECK(MPI_Recv(r, BIG, MPI_BYTE, left(), 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    verify(r, BIG, 11 + (unsigned)left(), "message of a freed iflush");

    /* flush: even ranks send to odd ones, which sleep before receiving. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank % 2 == 0 && rank + 1 < size) {
        fill(b, BIG, 21 + (unsigned)rank);
        CHECK(MPI_Bsend(b, BIG, MPI_BYTE, rank + 1, 3, MPI_COMM_WORLD) == MPI_SUCCESS);
        t0 = MPI_Wtime();
        CHECK(MPI_Buffer_flush() == MPI_SUCCESS);
        dt = MPI_Wtime() - t0;
        if (dt < 0.25)
            FAIL("MPI_Buffer_flush returned after %.3f s; the receiver sleeps 0.3 s first", dt);
    } else if (rank % 2 == 1) {
        sleep_ms(300);
        CHECK(MPI_Recv(r, BIG, MPI_BYTE, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        verify(r, BIG, 21 + (unsigned)rank - 1, "flush message");
    }
    /* Nothing outstanding: both complete at once. */
    CHECK(MPI_Buffer_flush() == MPI_SUCCESS);
    CHECK(MPI_Buffer_iflush(&req) == MPI_SUCCESS);
    CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag);
    detach_process(MPI_BUFFER_AUTOMATIC, 0);
    /* None attached: flush has nothing to wait for. */
    CHECK(MPI_Buffer_flush() == MPI_SUCCESS);
    free(b);
    free(r);
}

static void test_comm(void)
{
    MPI_Comm c1, c2, c3;
    int room = exchange_room(MPI_COMM_WORLD), one = BIG + MPI_BSEND_OVERHEAD, rc, cls, gsize;
    char *buf = xmalloc((size_t)room), *small = xmalloc((size_t)one);
    unsigned char *b = xmalloc(BIG), *r = xmalloc(BIG);
    void *got;
    enum { MANY = 300 };
    MPI_Request reqs[MANY], freq;

    MPI_Comm_dup(MPI_COMM_WORLD, &c1);
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_attach_buffer(c1, buf, room) == MPI_SUCCESS);
    exchange(c1, 31);
    /* The process has no buffer: a bsend on another communicator fails. */
    rc = MPI_Bsend(b, 10, MPI_BYTE, right(), 0, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_BUFFER);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(MPI_Comm_detach_buffer(c1, &got, &gsize) == MPI_SUCCESS);
    CHECK(got == buf && gsize == room);

    /* The communicator's buffer is used before the process's: the communicator's is full. */
    MPI_Comm_set_errhandler(c1, MPI_ERRORS_RETURN);
    CHECK(MPI_Buffer_attach(buf, room) == MPI_SUCCESS);
    CHECK(MPI_Comm_attach_buffer(c1, small, one) == MPI_SUCCESS);
    exhaust(c1, 32, flush_comm);
    CHECK(MPI_Comm_detach_buffer(c1, &got, &gsize) == MPI_SUCCESS);
    CHECK(got == small && gsize == one);
    detach_process(buf, room);

    /* Automatic, many outstanding messages of many sizes; the receives come late. */
    CHECK(MPI_Comm_attach_buffer(c2, MPI_BUFFER_AUTOMATIC, -1) == MPI_SUCCESS);
    for (int i = 0; i < MANY; i++) {
        int n = (i * 7919) % (i % 10 == 0 ? BIG : 3001);
        fill(b, (size_t)n, 41 + (unsigned)(rank * MANY + i));
        CHECK(MPI_Bsend(b, n, MPI_BYTE, right(), i, c2) == MPI_SUCCESS);
    }
    CHECK(MPI_Comm_iflush_buffer(c2, &freq) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = MANY - 1; i >= 0; i--) { /* backwards: the earlier ones wait */
        int n = (i * 7919) % (i % 10 == 0 ? BIG : 3001), got_n;
        MPI_Status st;
        CHECK(MPI_Recv(r, BIG, MPI_BYTE, left(), i, c2, &st) == MPI_SUCCESS);
        MPI_Get_count(&st, MPI_BYTE, &got_n);
        CHECK(got_n == n);
        verify(r, (size_t)n, 41 + (unsigned)(left() * MANY + i), "automatic");
    }
    CHECK(MPI_Wait(&freq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Comm_flush_buffer(c2) == MPI_SUCCESS);
    CHECK(MPI_Comm_detach_buffer(c2, &got, &gsize) == MPI_SUCCESS);
    CHECK(got == MPI_BUFFER_AUTOMATIC);

    /* MPI_Comm_free with a buffer attached: the message is delivered before it returns, so
     * the buffer may be overwritten at once. */
    MPI_Comm_dup(MPI_COMM_WORLD, &c3);
    CHECK(MPI_Comm_attach_buffer(c3, small, one) == MPI_SUCCESS);
    fill(b, BIG, 51 + (unsigned)rank);
    CHECK(MPI_Bsend(b, BIG, MPI_BYTE, right(), 5, c3) == MPI_SUCCESS);
    CHECK(MPI_Irecv(r, BIG, MPI_BYTE, left(), 5, c3, &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&c3) == MPI_SUCCESS);
    memset(small, 0x5a, (size_t)one);
    CHECK(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    verify(r, BIG, 51 + (unsigned)left(), "message of a freed communicator");
    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    free(buf);
    free(small);
    free(b);
    free(r);
}

/* A communicator of a new session, over every process. */
static void session_comm(MPI_Session *s, MPI_Comm *c, const char *tag)
{
    MPI_Group g;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, s) == MPI_SUCCESS);
    CHECK(MPI_Group_from_session_pset(*s, "mpi://WORLD", &g) == MPI_SUCCESS);
    CHECK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, c) == MPI_SUCCESS);
    MPI_Group_free(&g);
}

static MPI_Session flush_target;
static int flush_session(MPI_Comm c)
{
    (void)c;
    return MPI_Session_flush_buffer(flush_target);
}

static void test_session(void)
{
    MPI_Session s;
    MPI_Comm sc, sub;
    MPI_Group g, g2;
    int room = exchange_room(MPI_COMM_WORLD), one = BIG + MPI_BSEND_OVERHEAD, gsize;
    char *buf = xmalloc((size_t)room), *small = xmalloc((size_t)one);
    void *got;
    MPI_Request req;

    session_comm(&s, &sc, "org.verbatim.test.bsend_buf");
    flush_target = s;
    /* The session's buffer, with the process's big one there too: the session's is used. */
    CHECK(MPI_Buffer_attach(buf, room) == MPI_SUCCESS);
    CHECK(MPI_Session_attach_buffer(s, small, one) == MPI_SUCCESS);
    exhaust(sc, 61, flush_session);
    /* A communicator of a group derived from the session's group uses it too. */
    MPI_Comm_group(sc, &g);
    {
        int all[64];
        for (int i = 0; i < size; i++)
            all[i] = size - 1 - i;
        MPI_Group_incl(g, size, all, &g2); /* reversed: rank r is size - 1 - r here */
    }
    CHECK(MPI_Comm_create_from_group(g2, "org.verbatim.test.bsend_buf.sub", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &sub) == MPI_SUCCESS);
    MPI_Group_free(&g);
    MPI_Group_free(&g2);
    {
        int sr;
        MPI_Comm_rank(sub, &sr);
        CHECK(sr == size - 1 - rank);
    }
    detach_process(buf, room);
    /* The process has none now; sub's bsends use the session's. */
    {
        unsigned char *b = xmalloc(1000), *r = xmalloc(1000);
        int sr, ss;
        MPI_Comm_rank(sub, &sr);
        MPI_Comm_size(sub, &ss);
        fill(b, 1000, 71 + (unsigned)sr);
        CHECK(MPI_Bsend(b, 1000, MPI_BYTE, (sr + 1) % ss, 0, sub) == MPI_SUCCESS);
        CHECK(MPI_Session_iflush_buffer(s, &req) == MPI_SUCCESS);
        CHECK(MPI_Recv(r, 1000, MPI_BYTE, (sr + ss - 1) % ss, 0, sub, MPI_STATUS_IGNORE) ==
              MPI_SUCCESS);
        verify(r, 1000, 71 + (unsigned)((sr + ss - 1) % ss), "session sub-communicator");
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        free(b);
        free(r);
    }
    CHECK(MPI_Session_detach_buffer(s, &got, &gsize) == MPI_SUCCESS);
    CHECK(got == small && gsize == one);

    /* Session automatic, and a communicator buffer before the session's. */
    CHECK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    exchange(sc, 62);
    CHECK(MPI_Comm_attach_buffer(sc, small, one) == MPI_SUCCESS);
    exhaust(sc, 63, flush_comm); /* fails at the second: the communicator's buffer is used */
    CHECK(MPI_Comm_detach_buffer(sc, &got, &gsize) == MPI_SUCCESS);
    CHECK(got == small && gsize == one);
    CHECK(MPI_Session_flush_buffer(s) == MPI_SUCCESS);
    CHECK(MPI_Session_iflush_buffer(s, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Session_detach_buffer(s, &got, &gsize) == MPI_SUCCESS);
    CHECK(got == MPI_BUFFER_AUTOMATIC);

    /* Finalized with a buffer attached (and messages in it, received before): detached. */
    CHECK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    exchange(sub, 64);
    CHECK(MPI_Comm_free(&sub) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&sc) == MPI_SUCCESS);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS);
    /* A new session starts with no buffer. */
    session_comm(&s, &sc, "org.verbatim.test.bsend_buf.again");
    {
        int rc = MPI_Session_detach_buffer(s, &got, &gsize), cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_BUFFER);
    }
    MPI_Comm_free(&sc);
    MPI_Session_finalize(&s);
    free(buf);
    free(small);
}

static void test_persist(void)
{
    MPI_Comm c;
    MPI_Session s;
    MPI_Comm sc;
    MPI_Request req, rr;
    unsigned char *b = xmalloc(BIG), *r = xmalloc(BIG);
    MPI_Datatype v = vec_type();
    double *vs = xmalloc(VEC_N * 7 * sizeof(double)), *vr = xmalloc(VEC_N * 7 * sizeof(double));

    /* No process buffer: these work only with the communicator's. */
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK(MPI_Comm_attach_buffer(c, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    CHECK(MPI_Bsend_init(b, BIG, MPI_BYTE, right(), 1, c, &req) == MPI_SUCCESS);
    for (int it = 0; it < 3; it++) {
        fill(b, BIG, 81 + (unsigned)(rank * 3 + it));
        CHECK(MPI_Start(&req) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        memset(b, 0, BIG); /* buffered: ours again */
        CHECK(MPI_Recv(r, BIG, MPI_BYTE, left(), 1, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        verify(r, BIG, 81 + (unsigned)(left() * 3 + it), "Bsend_init");
    }
    MPI_Request_free(&req);
    for (int i = 0; i < VEC_N * 7; i++)
        vs[i] = rank + i * 0.25;
    CHECK(MPI_Ibsend(vs, 1, v, right(), 2, c, &req) == MPI_SUCCESS);
    CHECK(MPI_Irecv(vr, VEC_N * 7, MPI_DOUBLE, left(), 2, c, &rr) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Wait(&rr, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < VEC_N * 3; i++) {
        double want = left() + ((i / 3) * 7 + i % 3) * 0.25;
        if (vr[i] != want)
            FAIL("Ibsend vector element %d: %g, expected %g", i, vr[i], want);
    }
    MPI_Comm_free(&c);

    /* A session's buffer only. */
    session_comm(&s, &sc, "org.verbatim.test.bsend_buf.persist");
    CHECK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    fill(b, 777, 91 + (unsigned)rank);
    CHECK(MPI_Ibsend(b, 777, MPI_BYTE, right(), 3, sc, &req) == MPI_SUCCESS);
    CHECK(MPI_Recv(r, 777, MPI_BYTE, left(), 3, sc, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    verify(r, 777, 91 + (unsigned)left(), "session Ibsend");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Bsend_init(b, BIG, MPI_BYTE, right(), 4, sc, &req) == MPI_SUCCESS);
    fill(b, BIG, 92 + (unsigned)rank);
    CHECK(MPI_Start(&req) == MPI_SUCCESS);
    CHECK(MPI_Recv(r, BIG, MPI_BYTE, left(), 4, sc, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    verify(r, BIG, 92 + (unsigned)left(), "session Bsend_init");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    MPI_Request_free(&req);
    MPI_Comm_free(&sc);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS);
    MPI_Type_free(&v);
    free(b);
    free(r);
    free(vs);
    free(vr);
}

static void expect(int rc, int want, const char *what)
{
    int cls;
    MPI_Error_class(rc, &cls);
    if (cls != want)
        FAIL("%s: error class %d, expected %d", what, cls, want);
}

static void test_errors(void)
{
    MPI_Comm c;
    MPI_Session s;
    MPI_Comm sc;
    char buf[1000];
    void *got = NULL;
    int gsize = 0;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    session_comm(&s, &sc, "org.verbatim.test.bsend_buf.errors");

    /* The process's buffer (its errors go to MPI_COMM_WORLD's handler). */
    expect(MPI_Buffer_detach(&got, &gsize), MPI_ERR_BUFFER, "Buffer_detach, none attached");
    expect(MPI_Buffer_attach(buf, -1), MPI_ERR_ARG, "Buffer_attach, size -1");
    expect(MPI_Buffer_attach(NULL, 10), MPI_ERR_BUFFER, "Buffer_attach, NULL");
    CHECK(MPI_Buffer_attach(buf, sizeof(buf)) == MPI_SUCCESS);
    expect(MPI_Buffer_attach(buf, sizeof(buf)), MPI_ERR_BUFFER, "Buffer_attach twice");
    expect(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0), MPI_ERR_BUFFER,
           "Buffer_attach automatic over a buffer");
    expect(MPI_Buffer_detach(&got, NULL), MPI_ERR_ARG, "Buffer_detach, size NULL");
    expect(MPI_Buffer_detach(NULL, &gsize), MPI_ERR_ARG, "Buffer_detach, buffer_addr NULL");
    expect(MPI_Buffer_iflush(NULL), MPI_ERR_ARG, "Buffer_iflush, request NULL");
    /* Still attached, as it was. */
    detach_process(buf, sizeof(buf));
    CHECK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, -7) == MPI_SUCCESS); /* size ignored */
    detach_process(MPI_BUFFER_AUTOMATIC, 0);

    /* A communicator's. */
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    expect(MPI_Comm_detach_buffer(c, &got, &gsize), MPI_ERR_BUFFER, "Comm_detach, none");
    expect(MPI_Comm_attach_buffer(c, buf, -3), MPI_ERR_ARG, "Comm_attach, size -3");
    CHECK(MPI_Comm_attach_buffer(c, buf, 0) == MPI_SUCCESS); /* empty: allowed */
    expect(MPI_Comm_attach_buffer(c, buf, 10), MPI_ERR_BUFFER, "Comm_attach twice");
    expect(MPI_Bsend(buf, 1, MPI_BYTE, right(), 0, c), MPI_ERR_BUFFER, "Bsend, empty buffer");
    expect(MPI_Comm_iflush_buffer(c, NULL), MPI_ERR_ARG, "Comm_iflush, request NULL");
    CHECK(MPI_Comm_detach_buffer(c, &got, &gsize) == MPI_SUCCESS);
    CHECK(got == buf && gsize == 0);
    expect(MPI_Comm_attach_buffer(MPI_COMM_NULL, buf, 10), MPI_ERR_COMM, "Comm_attach, null");
    expect(MPI_Comm_flush_buffer(MPI_COMM_NULL), MPI_ERR_COMM, "Comm_flush, null");
    expect(MPI_Comm_iflush_buffer(MPI_COMM_NULL, NULL), MPI_ERR_COMM, "Comm_iflush, null");
    expect(MPI_Comm_detach_buffer(MPI_COMM_NULL, &got, &gsize), MPI_ERR_COMM, "Comm_detach, null");
    CHECK(MPI_Comm_flush_buffer(c) == MPI_SUCCESS); /* none attached: nothing to wait for */

    /* A session's (its errors go to the session's handler: MPI_ERRORS_RETURN). */
    expect(MPI_Session_detach_buffer(s, &got, &gsize), MPI_ERR_BUFFER, "Session_detach, none");
    expect(MPI_Session_attach_buffer(s, buf, -1), MPI_ERR_ARG, "Session_attach, size -1");
    CHECK(MPI_Session_attach_buffer(s, buf, sizeof(buf)) == MPI_SUCCESS);
    expect(MPI_Session_attach_buffer(s, buf, sizeof(buf)), MPI_ERR_BUFFER, "Session twice");
    expect(MPI_Session_iflush_buffer(s, NULL), MPI_ERR_ARG, "Session_iflush, request NULL");
    expect(MPI_Session_detach_buffer(s, &got, NULL), MPI_ERR_ARG, "Session_detach, size NULL");
    CHECK(MPI_Session_detach_buffer(s, &got, &gsize) == MPI_SUCCESS);
    CHECK(got == buf && gsize == (int)sizeof(buf));
    expect(MPI_Session_attach_buffer(MPI_SESSION_NULL, buf, 10), MPI_ERR_SESSION,
           "Session_attach, null");
    expect(MPI_Session_flush_buffer(MPI_SESSION_NULL), MPI_ERR_SESSION, "Session_flush, null");

    /* Too big for any buffer: nothing sent (the receiver finds nothing after a barrier). */
    CHECK(MPI_Comm_attach_buffer(c, buf, sizeof(buf)) == MPI_SUCCESS);
    expect(MPI_Bsend(buf, sizeof(buf), MPI_BYTE, right(), 9, c), MPI_ERR_BUFFER,
           "Bsend larger than the buffer");
    MPI_Barrier(c);
    {
        int flag = 1;
        CHECK(MPI_Iprobe(MPI_ANY_SOURCE, 9, c, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(!flag);
    }
    CHECK(MPI_Comm_detach_buffer(c, &got, &gsize) == MPI_SUCCESS);

    /* The large-count bindings. */
    {
        MPI_Count csize = -1;
        expect(MPI_Buffer_attach_c(buf, -1), MPI_ERR_ARG, "Buffer_attach_c, size -1");
        CHECK(MPI_Buffer_attach_c(buf, (MPI_Count)sizeof(buf)) == MPI_SUCCESS);
        expect(MPI_Buffer_attach(buf, 10), MPI_ERR_BUFFER, "Buffer_attach after _c");
        CHECK(MPI_Buffer_detach_c(&got, &csize) == MPI_SUCCESS);
        CHECK(got == buf && csize == (MPI_Count)sizeof(buf));
        expect(MPI_Buffer_detach_c(&got, &csize), MPI_ERR_BUFFER, "Buffer_detach_c, none");
        CHECK(MPI_Comm_attach_buffer_c(c, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
        CHECK(MPI_Bsend(buf, 100, MPI_BYTE, rank, 8, c) == MPI_SUCCESS);
        CHECK(MPI_Recv(buf + 100, 100, MPI_BYTE, rank, 8, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Comm_detach_buffer_c(c, &got, &csize) == MPI_SUCCESS);
        CHECK(got == MPI_BUFFER_AUTOMATIC);
        CHECK(MPI_Session_attach_buffer_c(s, buf, 300) == MPI_SUCCESS);
        CHECK(MPI_Session_detach_buffer_c(s, &got, &csize) == MPI_SUCCESS);
        CHECK(got == buf && csize == 300);
        expect(MPI_Session_detach_buffer_c(s, &got, &csize), MPI_ERR_BUFFER,
               "Session_detach_buffer_c, none");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_free(&c);
    MPI_Comm_free(&sc);
    MPI_Session_finalize(&s);
}

static const mpitest_t tests[] = {
    {"process", test_process}, {"flush", test_flush},     {"comm", test_comm},
    {"session", test_session}, {"persist", test_persist}, {"errors", test_errors},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
