/* The Sessions model (MPI-4.1 Sec. 11.3): sessions alone, with MPI_Init before and after them,
 * several at once, again after MPI_Finalize; communicators from the mpi://WORLD and mpi://SELF
 * process sets and from MPI_COMM_WORLD's group, doing point-to-point and collectives whose
 * payloads are checked element by element; process-set info; error handlers; error cases.
 *
 * Usage: sessions MODE, MODE one of alone, world, before, two, after, errors (each prints
 * "sessions MODE: ok (N ranks)" on rank 0), or the failure modes the script runs for their
 * exit: nofinalize, reinit_nofinalize, world_handle. Further arguments are ignored. */
#define MPITEST_NAME "sessions"
#include "mpitest.h"

#include <stdint.h>

/* Checks that an MPI call returned the error class expected. */
#define EXPECT_CLASS(_call, _class)                                                                \
    do {                                                                                           \
        int _rc = (_call), _cls = -1;                                                              \
        if (_rc != MPI_SUCCESS)                                                                    \
            MPI_Error_class(_rc, &_cls);                                                           \
        if (_cls != (_class))                                                                      \
            FAIL("%s returned %d (class %d), expected class %d (%s)", #_call, _rc, _cls, (_class), \
                 #_class);                                                                         \
    } while (0)
#define OK(_call) EXPECT_CLASS(_call, -1)

static const char *mode;

static MPI_Session session_open(void)
{
    MPI_Session s = MPI_SESSION_NULL;

    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    CHECK(s != MPI_SESSION_NULL);
    return s;
}

/* The communicator of process set pset of session s, made with stringtag tag. */
static MPI_Comm comm_of_pset(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;

    OK(MPI_Group_from_session_pset(s, pset, &g));
    OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK(c != MPI_COMM_NULL);
    OK(MPI_Group_free(&g));
    return c;
}

/* Point-to-point and collectives on c (n members, this one me), seeds apart by salt so two
 * communicators used in turn cannot pass for each other. */
static void exercise(MPI_Comm c, unsigned salt)
{
    enum { N = 1000, BIG = 100000 };
    int me, n, next, prev, *in, *out, *all;
    unsigned char *sbuf, *rbuf;
    MPI_Request reqs[2];

    OK(MPI_Comm_rank(c, &me));
    OK(MPI_Comm_size(c, &n));
    next = (me + 1) % n;
    prev = (me + n - 1) % n;

    /* A ring, eager and rendezvous sizes, payloads checked byte by byte. */
    for (size_t len = 1; len <= BIG; len *= 10) {
        sbuf = xmalloc(len);
        rbuf = xmalloc(len);
        fill(sbuf, len, salt * 1000u + (unsigned)me);
        memset(rbuf, 0, len);
        OK(MPI_Irecv(rbuf, (int)len, MPI_BYTE, prev, 7, c, &reqs[0]));
        OK(MPI_Isend(sbuf, (int)len, MPI_BYTE, next, 7, c, &reqs[1]));
        OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        verify(rbuf, len, salt * 1000u + (unsigned)prev, "ring");
        free(sbuf);
        free(rbuf);
    }

    /* Allreduce: element i sums (r + 1) * (i + salt) over the members r. */
    in = xmalloc(N * sizeof(int));
    out = xmalloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = (me + 1) * (i + (int)salt);
    OK(MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, c));
    for (int i = 0; i < N; i++) {
        int want = n * (n + 1) / 2 * (i + (int)salt);
        if (out[i] != want)
            FAIL("%s: allreduce element %d is %d, expected %d", mode, i, out[i], want);
    }

    /* Bcast from every root. */
    for (int root = 0; root < n; root++) {
        for (int i = 0; i < N; i++)
            out[i] = me == root ? root * 7919 + i + (int)salt : -1;
        OK(MPI_Bcast(out, N, MPI_INT, root, c));
        for (int i = 0; i < N; i++) {
            if (out[i] != root * 7919 + i + (int)salt)
                FAIL("%s: bcast from %d: element %d is %d", mode, root, i, out[i]);
        }
    }

    /* Allgather of two ints each. */
    all = xmalloc((size_t)n * 2 * sizeof(int));
    in[0] = me * 3 + (int)salt;
    in[1] = -me - (int)salt;
    OK(MPI_Allgather(in, 2, MPI_INT, all, 2, MPI_INT, c));
    for (int r = 0; r < n; r++) {
        if (all[2 * r] != r * 3 + (int)salt || all[2 * r + 1] != -r - (int)salt)
            FAIL("%s: allgather from %d: %d %d", mode, r, all[2 * r], all[2 * r + 1]);
    }
    OK(MPI_Barrier(c));
    free(in);
    free(out);
    free(all);
}

/* The process sets, their names and their info. */
static void check_psets(MPI_Session s, int world_size)
{
    int npsets = -1, len, flag, seen_world = 0, seen_self = 0;
    char name[64], value[64];
    MPI_Info info;

    OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets));
    CHECK(npsets == 2);
    for (int i = 0; i < npsets; i++) {
        len = 0;
        OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        CHECK(len > 1 && len <= (int)sizeof(name));
        memset(name, 'x', sizeof(name));
        OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK((int)strlen(name) == len - 1);
        seen_world += strcmp(name, "mpi://WORLD") == 0;
        seen_self += strcmp(name, "mpi://SELF") == 0;
        /* Truncated to the room given. */
        len = 5;
        memset(name, 'x', sizeof(name));
        OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK(strcmp(name, "mpi:") == 0);
    }
    CHECK(seen_world == 1 && seen_self == 1);

    OK(MPI_Session_get_pset_info(s, "mpi://WORLD", &info));
    OK(MPI_Info_get_string(info, "mpi_size", &(int){sizeof(value)}, value, &flag));
    CHECK(flag && atoi(value) == world_size);
    OK(MPI_Info_free(&info));
    OK(MPI_Session_get_pset_info(s, "mpi://SELF", &info));
    len = sizeof(value);
    OK(MPI_Info_get_string(info, "mpi_size", &len, value, &flag));
    CHECK(flag && strcmp(value, "1") == 0);
    OK(MPI_Info_free(&info));

    OK(MPI_Session_get_info(s, &info));
    len = sizeof(value);
    OK(MPI_Info_get_string(info, "thread_level", &len, value, &flag));
    CHECK(flag && strcmp(value, "MPI_THREAD_SINGLE") == 0);
    OK(MPI_Info_free(&info));
}

/* The groups of the process sets, and communicators from both. */
static void check_comms(MPI_Session s, unsigned salt)
{
    MPI_Group g;
    MPI_Comm cw, cs;
    int n, r, gs, gr;

    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    OK(MPI_Group_size(g, &gs));
    OK(MPI_Group_rank(g, &gr));
    CHECK(gs == size && gr == rank);
    OK(MPI_Group_free(&g));
    OK(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
    OK(MPI_Group_size(g, &gs));
    OK(MPI_Group_rank(g, &gr));
    CHECK(gs == 1 && gr == 0);
    OK(MPI_Group_free(&g));

    cw = comm_of_pset(s, "mpi://WORLD", "org.verbatim.test.world");
    OK(MPI_Comm_size(cw, &n));
    OK(MPI_Comm_rank(cw, &r));
    CHECK(n == size && r == rank);
    cs = comm_of_pset(s, "mpi://SELF", "org.verbatim.test.self");
    OK(MPI_Comm_size(cs, &n));
    OK(MPI_Comm_rank(cs, &r));
    CHECK(n == 1 && r == 0);
    exercise(cw, salt);
    exercise(cs, salt + 1);
    OK(MPI_Comm_free(&cs));
    OK(MPI_Comm_free(&cw));
}

/* rank and size from mpi://WORLD (no MPI_COMM_WORLD needed). */
static void whoami(MPI_Session s)
{
    MPI_Group g;

    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    OK(MPI_Group_size(g, &size));
    OK(MPI_Group_rank(g, &rank));
    OK(MPI_Group_free(&g));
}

static void check_world_flags(int initialized, int finalized)
{
    int i = -1, f = -1;

    OK(MPI_Initialized(&i));
    OK(MPI_Finalized(&f));
    if (i != initialized || f != finalized)
        FAIL("%s: MPI_Initialized %d, MPI_Finalized %d; expected %d, %d", mode, i, f, initialized,
             finalized);
}

static void mode_alone(void)
{
    MPI_Session s;

    check_world_flags(0, 0);
    s = session_open();
    check_world_flags(0, 0);
    whoami(s);
    check_psets(s, size);
    check_comms(s, 1);
    OK(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL);
    check_world_flags(0, 0);
}

/* MPI_Init first; a session beside it; a communicator from MPI_COMM_WORLD's group; MPI_Finalize
 * while the session's communicator stays in use. */
static void mode_world(void)
{
    MPI_Session s;
    MPI_Group wg;
    MPI_Comm cw, fromworld;
    int cmp;

    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    s = session_open();
    check_world_flags(1, 0);
    check_psets(s, size);
    check_comms(s, 3);

    OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    OK(MPI_Comm_create_from_group(wg, "org.verbatim.test.fromworld", MPI_INFO_NULL,
                                  MPI_ERRORS_RETURN, &fromworld));
    OK(MPI_Comm_compare(fromworld, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    OK(MPI_Group_free(&wg));
    cw = comm_of_pset(s, "mpi://WORLD", "org.verbatim.test.world");
    /* Traffic on the three in turn. */
    exercise(fromworld, 5);
    exercise(cw, 6);
    exercise(MPI_COMM_WORLD, 7);
    OK(MPI_Comm_free(&fromworld));

    MPI_Finalize();
    check_world_flags(1, 1);
    /* The session and its communicator outlive the World model. */
    exercise(cw, 8);
    OK(MPI_Comm_free(&cw));
    check_comms(s, 9);
    OK(MPI_Session_finalize(&s));
    check_world_flags(1, 1);
}

/* A session first, then MPI_Init and MPI_Finalize inside it. */
static void mode_before(void)
{
    MPI_Session s = session_open();
    MPI_Comm cw;
    int provided;

    whoami(s);
    cw = comm_of_pset(s, "mpi://WORLD", "org.verbatim.test.world");
    check_world_flags(0, 0);
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    CHECK(provided == MPI_THREAD_FUNNELED);
    check_world_flags(1, 0);
    exercise(MPI_COMM_WORLD, 10);
    exercise(cw, 11);
    MPI_Finalize();
    check_world_flags(1, 1);
    exercise(cw, 12);
    OK(MPI_Comm_free(&cw));
    OK(MPI_Session_finalize(&s));
}

/* Two sessions at once, their communicators interleaved; one finalized while the other goes
 * on; then a third after the library went down. */
static void mode_two(void)
{
    MPI_Session a = session_open(), b = session_open();
    MPI_Comm ca, cb, ca2;

    CHECK(a != b);
    whoami(a);
    ca = comm_of_pset(a, "mpi://WORLD", "org.verbatim.test.a");
    cb = comm_of_pset(b, "mpi://WORLD", "org.verbatim.test.b");
    /* The same tag again on the other session: still a separate communicator. */
    ca2 = comm_of_pset(b, "mpi://WORLD", "org.verbatim.test.a");
    exercise(ca, 20);
    exercise(cb, 21);
    exercise(ca2, 22);
    exercise(ca, 23);
    OK(MPI_Comm_free(&ca));
    OK(MPI_Session_finalize(&a));
    check_comms(b, 24);
    exercise(cb, 25);
    OK(MPI_Comm_free(&cb));
    OK(MPI_Comm_free(&ca2));
    OK(MPI_Session_finalize(&b));
    check_world_flags(0, 0);
    /* Everything was torn down; a new session sets the library up again. */
    a = session_open();
    check_psets(a, size);
    check_comms(a, 26);
    OK(MPI_Session_finalize(&a));
    check_world_flags(0, 0);
}

/* MPI_Init and MPI_Finalize, then sessions (the standard allows MPI_Session_init after
 * MPI_Finalize). */
static void mode_after(void)
{
    MPI_Session s;

    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    exercise(MPI_COMM_WORLD, 30);
    MPI_Finalize();
    check_world_flags(1, 1);
    for (int round = 0; round < 2; round++) {
        s = session_open();
        check_psets(s, size);
        check_comms(s, 31 + (unsigned)round);
        OK(MPI_Session_finalize(&s));
    }
    check_world_flags(1, 1);
}

/* What the user session handler saw. */
static struct {
    int calls;
    int code;
    MPI_Session session;
} seen;

static void session_handler(MPI_Session *s, int *code, ...)
{
    seen.calls++;
    seen.code = *code;
    seen.session = *s;
}

static void comm_handler(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

static void mode_errors(void)
{
    MPI_Session s, dead;
    MPI_Errhandler eh, got, ceh;
    MPI_Group g, notme;
    MPI_Comm c;
    MPI_Info info;
    char name[32], longtag[MPI_MAX_STRINGTAG_LEN + 8];
    int n = 0, len, flag;

    /* Made before any initialisation, as MPI_Session_init needs it. */
    OK(MPI_Session_create_errhandler(session_handler, &eh));
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* Errors on no object (bad session handles) go to MPI_COMM_WORLD's handler. */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    s = session_open();
    EXPECT_CLASS(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Group_from_session_pset(s, NULL, &g), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Session_get_pset_info(s, "bogus", &info), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &n, name), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, -1, &n, name), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Session_get_num_psets(s, MPI_INFO_NULL, NULL), MPI_ERR_ARG);

    /* The user handler: called with the session and the error, and the call returns it. */
    OK(MPI_Session_set_errhandler(s, eh));
    OK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh);
    OK(MPI_Errhandler_free(&got));
    memset(&seen, 0, sizeof(seen));
    EXPECT_CLASS(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG);
    CHECK(seen.calls == 1 && seen.code == MPI_ERR_ARG && seen.session == s);
    OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(seen.calls == 2 && seen.code == MPI_ERR_OTHER && seen.session == s);
    /* A communicator's handler does not go on a session, nor a session's on a communicator. */
    OK(MPI_Comm_create_errhandler(comm_handler, &ceh));
    EXPECT_CLASS(MPI_Session_set_errhandler(s, ceh), MPI_ERR_ARG);
    CHECK(seen.calls == 3 && seen.code == MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_ERR_ARG);
    OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Session_init(MPI_INFO_NULL, ceh, &dead), MPI_ERR_ERRHANDLER);
    EXPECT_CLASS(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, NULL), MPI_ERR_ARG);

    /* Thread levels through info. */
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "thread_level", "MPI_THREAD_LOTS"));
    EXPECT_CLASS(MPI_Session_init(info, MPI_ERRORS_RETURN, &dead), MPI_ERR_INFO_VALUE);
    OK(MPI_Info_set(info, "thread_level", "MPI_THREAD_FUNNELED"));
    OK(MPI_Session_init(info, MPI_ERRORS_RETURN, &dead));
    OK(MPI_Info_free(&info));
    OK(MPI_Session_get_info(dead, &info));
    len = sizeof(name);
    OK(MPI_Info_get_string(info, "thread_level", &len, name, &flag));
    CHECK(flag && strcmp(name, "MPI_THREAD_FUNNELED") == 0);
    OK(MPI_Info_free(&info));

    /* A finalized session, and MPI_SESSION_NULL. */
    {
        MPI_Session copy = dead;
        OK(MPI_Session_finalize(&dead));
        CHECK(dead == MPI_SESSION_NULL);
        dead = copy;
    }
    EXPECT_CLASS(MPI_Session_get_num_psets(dead, MPI_INFO_NULL, &n), MPI_ERR_SESSION);
    EXPECT_CLASS(MPI_Group_from_session_pset(dead, "mpi://WORLD", &g), MPI_ERR_SESSION);
    EXPECT_CLASS(MPI_Session_finalize(&dead), MPI_ERR_SESSION);
    EXPECT_CLASS(MPI_Session_get_info(MPI_SESSION_NULL, &info), MPI_ERR_SESSION);
    EXPECT_CLASS(MPI_Session_set_errhandler(MPI_SESSION_NULL, MPI_ERRORS_RETURN), MPI_ERR_SESSION);
    EXPECT_CLASS(MPI_Session_call_errhandler(MPI_SESSION_NULL, MPI_ERR_OTHER), MPI_ERR_SESSION);
    {
        MPI_Session null = MPI_SESSION_NULL;
        EXPECT_CLASS(MPI_Session_finalize(&null), MPI_ERR_SESSION);
    }

    /* MPI_Comm_create_from_group's checks (errors go to its errhandler argument). */
    EXPECT_CLASS(
        MPI_Comm_create_from_group(MPI_GROUP_NULL, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
        MPI_ERR_GROUP);
    c = MPI_COMM_WORLD;
    OK(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    CHECK(c == MPI_COMM_NULL);
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    EXPECT_CLASS(MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                 MPI_ERR_ARG);
    memset(longtag, 'x', sizeof(longtag) - 1);
    longtag[sizeof(longtag) - 1] = '\0';
    EXPECT_CLASS(MPI_Comm_create_from_group(g, longtag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                 MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Comm_create_from_group(g, "t", MPI_INFO_NULL, eh, &c), MPI_ERR_ERRHANDLER);
    if (size > 1) {
        int me[1] = {rank};
        OK(MPI_Group_excl(g, 1, me, &notme));
        EXPECT_CLASS(MPI_Comm_create_from_group(notme, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
                     MPI_ERR_GROUP);
        OK(MPI_Group_free(&notme));
    }
    /* A user communicator handler and hints go on the new communicator. */
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    OK(MPI_Comm_create_from_group(g, "org.verbatim.test.hints", info, ceh, &c));
    OK(MPI_Info_free(&info));
    OK(MPI_Comm_get_errhandler(c, &got));
    CHECK(got == ceh);
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Comm_get_info(c, &info));
    len = sizeof(name);
    OK(MPI_Info_get_string(info, "mpi_assert_no_any_tag", &len, name, &flag));
    CHECK(flag && strcmp(name, "true") == 0);
    OK(MPI_Info_free(&info));
    exercise(c, 40);
    OK(MPI_Comm_free(&c));
    OK(MPI_Group_free(&g));

    OK(MPI_Errhandler_free(&ceh));
    OK(MPI_Errhandler_free(&eh));
    OK(MPI_Session_finalize(&s));
    MPI_Finalize();
}

/* For the script: the last rank exits 0 without MPI_Session_finalize while the others finalize;
 * mpirun must call that a failure. */
static void mode_nofinalize(int reinit)
{
    MPI_Session s;

    if (reinit) {
        /* Through MPI_Finalize's teardown first, so PMIx is connected a second time. */
        MPI_Init(NULL, NULL);
        MPI_Finalize();
    }
    s = session_open();
    whoami(s);
    if (rank == size - 1)
        exit(0);
    /* Its fence fails when mpirun ends the job: only mpirun's verdict matters here. */
    MPI_Session_finalize(&s);
}

int main(int argc, char **argv)
{
    /* Further arguments are ignored (the script's marker for stray processes). */
    if (argc < 2) {
        fprintf(stderr, "usage: sessions alone|world|before|two|after|errors\n");
        return 2;
    }
    mode = argv[1];
    if (strcmp(mode, "alone") == 0)
        mode_alone();
    else if (strcmp(mode, "world") == 0)
        mode_world();
    else if (strcmp(mode, "before") == 0)
        mode_before();
    else if (strcmp(mode, "two") == 0)
        mode_two();
    else if (strcmp(mode, "after") == 0)
        mode_after();
    else if (strcmp(mode, "errors") == 0)
        mode_errors();
    else if (strcmp(mode, "nofinalize") == 0 || strcmp(mode, "reinit_nofinalize") == 0) {
        mode_nofinalize(strcmp(mode, "reinit_nofinalize") == 0);
        return 0;
    } else if (strcmp(mode, "world_handle") == 0) {
        MPI_Session s = session_open();
        int r;
        /* MPI_COMM_WORLD without MPI_Init: an error (fatal by default). */
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        MPI_Session_finalize(&s);
        return 0;
    } else {
        fprintf(stderr, "sessions: unknown mode %s\n", mode);
        return 2;
    }
    if (rank == 0)
        printf("sessions %s: ok (%d ranks)\n", mode, size);
    return 0;
}
