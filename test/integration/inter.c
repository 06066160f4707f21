/* Intercommunicators: MPI_COMM_WORLD split into 2 or 3 groups of uneven sizes (rank % groups),
 * an intercommunicator between every pair of groups (leaders at either end of their groups),
 * and on each: queries and the remote group, point-to-point across with checked payloads
 * (eager and rendezvous), every collective in its blocking, nonblocking and persistent forms
 * (persistent ones restarted with new data) with every element of every result checked,
 * several nonblocking collectives outstanding at once, MPI_Intercomm_merge with high both ways,
 * MPI_Comm_dup/dup_with_info/split/create/split_type, attributes, names, MPI_Comm_compare, and
 * the errors (bad leader, MPI_COMM_NULL, intracommunicator-only calls, bad roots, MPI_IN_PLACE)
 * under MPI_ERRORS_RETURN. Needs 2 ranks or more (1 rank: every subtest passes vacuously).
 * Usage: inter [SUBTEST...] (default: all). */
#define MPITEST_NAME "inter"
#include "mpitest.h"

#define OK(_call)                                                                                  \
    do {                                                                                           \
        int _rc = (_call);                                                                         \
        if (_rc != MPI_SUCCESS)                                                                    \
            FAIL("%s returned %d", #_call, _rc);                                                   \
    } while (0)

#define EXPECT(_got, _want, ...)                                                                   \
    do {                                                                                           \
        long _g = (long)(_got), _w = (long)(_want);                                                \
        if (_g != _w) {                                                                            \
            fprintf(stderr, "inter: rank %d: line %d: got %ld, expected %ld: ", rank, __LINE__,    \
                    _g, _w);                                                                       \
            FAIL(__VA_ARGS__);                                                                     \
        }                                                                                          \
    } while (0)

/* Expect error class _cls from _call. */
#define ERR(_call, _cls)                                                                           \
    do {                                                                                           \
        int _rc = (_call), _c;                                                                     \
        if (_rc == MPI_SUCCESS)                                                                    \
            FAIL("%s succeeded; expected error class %d", #_call, _cls);                           \
        MPI_Error_class(_rc, &_c);                                                                 \
        EXPECT(_c, _cls, "error class of %s", #_call);                                             \
    } while (0)

/* One intercommunicator between groups grp (ours) and rgrp. */
typedef struct {
    int ng, grp, rgrp;
    int lrank, lsize, rsize;
    MPI_Comm local, ic;
} pair_t;

static int gsize(int ng, int g)
{
    return (size - g + ng - 1) / ng;
}

static int gworld(int ng, int g, int i)
{
    return g + i * ng;
}

/* Element i of local rank r of group g's data, seed s. */
static int V(int g, int r, long i, int s)
{
    return (g + 1) * 1000000 + r * 10000 + (int)(i % 3000) * 3 + s * 7;
}

static void fillv(int *b, long n, int g, int r, long off, int s)
{
    for (long i = 0; i < n; i++)
        b[i] = V(g, r, off + i, s);
}

static void checkv(const int *b, long n, int g, int r, long off, int s, const char *what)
{
    for (long i = 0; i < n; i++)
        if (b[i] != V(g, r, off + i, s)) {
            fprintf(stderr,
                    "inter: rank %d: %s: element %ld is %d, expected %d (group %d rank %d)\n", rank,
                    what, i, b[i], V(g, r, off + i, s), g, r);
            FAIL("%s: wrong payload", what);
        }
}

/* Run fn on every intercommunicator of the 2-group and the 3-group splits. */
static void each_pair(void (*fn)(pair_t *))
{
    for (int ng = 2; ng <= 3; ng++) {
        pair_t p = {.ng = ng, .grp = rank % ng};
        if (size < ng)
            continue;
        OK(MPI_Comm_split(MPI_COMM_WORLD, p.grp, rank, &p.local));
        MPI_Comm_rank(p.local, &p.lrank);
        MPI_Comm_size(p.local, &p.lsize);
        for (int a = 0; a < ng; a++) {
            for (int b = a + 1; b < ng; b++) {
                if (p.grp != a && p.grp != b)
                    continue;
                p.rgrp = p.grp == a ? b : a;
                /* Leaders: the first rank of even groups, the last of odd ones. */
                int ll = p.grp % 2 == 0 ? 0 : p.lsize - 1;
                int rl = p.rgrp % 2 == 0 ? 0 : gsize(ng, p.rgrp) - 1;
                OK(MPI_Intercomm_create(p.local, ll, MPI_COMM_WORLD, gworld(ng, p.rgrp, rl),
                                        100 + 10 * a + b, &p.ic));
                p.rsize = gsize(ng, p.rgrp);
                fn(&p);
                OK(MPI_Comm_free(&p.ic));
                CHECK(p.ic == MPI_COMM_NULL);
            }
        }
        OK(MPI_Comm_free(&p.local));
    }
}

/* ---- queries ---------------------------------------------------------------------------- */

static void check_groups(MPI_Comm ic, int ng, int grp, int lsize, int rgrp, int rsize)
{
    MPI_Group g, wg;
    int n, flag, r, wr;

    OK(MPI_Comm_test_inter(ic, &flag));
    EXPECT(flag, 1, "MPI_Comm_test_inter");
    OK(MPI_Comm_size(ic, &n));
    EXPECT(n, lsize, "MPI_Comm_size is the local group's");
    OK(MPI_Comm_remote_size(ic, &n));
    EXPECT(n, rsize, "MPI_Comm_remote_size");
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    OK(MPI_Comm_remote_group(ic, &g));
    MPI_Group_size(g, &n);
    EXPECT(n, rsize, "remote group size");
    for (int i = 0; i < rsize; i++) {
        MPI_Group_translate_ranks(g, 1, &i, wg, &wr);
        EXPECT(wr, gworld(ng, rgrp, i), "remote group member %d", i);
    }
    MPI_Group_free(&g);
    OK(MPI_Comm_group(ic, &g));
    MPI_Group_size(g, &n);
    EXPECT(n, lsize, "local group size");
    MPI_Group_rank(g, &r);
    MPI_Comm_rank(ic, &n);
    EXPECT(r, n, "rank in the local group");
    for (int i = 0; i < lsize; i++) {
        MPI_Group_translate_ranks(g, 1, &i, wg, &wr);
        EXPECT(wr, gworld(ng, grp, i), "local group member %d", i);
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

static void t_query(pair_t *p)
{
    check_groups(p->ic, p->ng, p->grp, p->lsize, p->rgrp, p->rsize);
    int r;
    MPI_Comm_rank(p->ic, &r);
    EXPECT(r, p->lrank, "MPI_Comm_rank is the local rank");
}

static void query(void)
{
    each_pair(t_query);
}

/* ---- point-to-point ----------------------------------------------------------------------- */

static void t_p2p(pair_t *p)
{
    int n = 17, big = 70001; /* 70001 ints: above the eager limit */
    int *out = xmalloc(sizeof(int) * (size_t)n), *in = xmalloc(sizeof(int) * (size_t)n * p->rsize);
    MPI_Request *req = xmalloc(sizeof(MPI_Request) * (size_t)(2 * p->rsize));
    MPI_Status st;

    /* Every local rank to every remote rank, received with MPI_ANY_SOURCE. */
    fillv(out, n, p->grp, p->lrank, 0, 1);
    for (int j = 0; j < p->rsize; j++)
        OK(MPI_Irecv(in + (size_t)j * n, n, MPI_INT, j, 5, p->ic, &req[j]));
    for (int j = 0; j < p->rsize; j++)
        OK(MPI_Isend(out, n, MPI_INT, j, 5, p->ic, &req[p->rsize + j]));
    OK(MPI_Waitall(2 * p->rsize, req, MPI_STATUSES_IGNORE));
    for (int j = 0; j < p->rsize; j++)
        checkv(in + (size_t)j * n, n, p->rgrp, j, 0, 1, "p2p to every remote rank");
    for (int j = 0; j < p->rsize; j++)
        OK(MPI_Send(out, n, MPI_INT, j, 6, p->ic));
    for (int j = 0; j < p->rsize; j++) {
        OK(MPI_Recv(in, n, MPI_INT, MPI_ANY_SOURCE, 6, p->ic, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < p->rsize);
        EXPECT(st.MPI_TAG, 6, "status tag");
        checkv(in, n, p->rgrp, st.MPI_SOURCE, 0, 1, "p2p from MPI_ANY_SOURCE");
    }
    free(in);
    /* A rendezvous message between the ranks of the same index (modulo the smaller group). */
    int *bo = xmalloc(sizeof(int) * (size_t)big), *bi = xmalloc(sizeof(int) * (size_t)big);
    int small = p->lsize < p->rsize ? p->lsize : p->rsize;
    if (p->lrank < small) {
        fillv(bo, big, p->grp, p->lrank, 0, 2);
        OK(MPI_Sendrecv(bo, big, MPI_INT, p->lrank, 7, bi, big, MPI_INT, p->lrank, 7, p->ic, &st));
        EXPECT(st.MPI_SOURCE, p->lrank, "sendrecv source");
        checkv(bi, big, p->rgrp, p->lrank, 0, 2, "rendezvous across");
    }
    /* MPI_PROC_NULL is fine. */
    OK(MPI_Send(bo, 1, MPI_INT, MPI_PROC_NULL, 0, p->ic));
    free(bo);
    free(bi);
    free(out);
    free(req);
}

static void p2p(void)
{
    each_pair(t_p2p);
}

/* ---- collectives -------------------------------------------------------------------------- */

enum { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *mode_name[] = {"blocking", "nonblocking", "persistent"};

static int starts(int mode)
{
    return mode == PERSISTENT ? 3 : 1;
}

/* Complete a nonblocking collective, or start-and-complete a persistent one (made at it 0). */
static void finish(int mode, MPI_Request *req, int it, int last)
{
    if (mode == BLOCKING)
        return;
    if (mode == PERSISTENT) {
        (void)it;
        OK(MPI_Start(req));
    }
    OK(MPI_Wait(req, MPI_STATUS_IGNORE));
    if (mode == PERSISTENT && last)
        OK(MPI_Request_free(req));
}

#define COLL(_mode, _it, _req, _blocking, _nb, _init)                                              \
    do {                                                                                           \
        if ((_mode) == BLOCKING)                                                                   \
            OK(_blocking);                                                                         \
        else if ((_mode) == NONBLOCKING)                                                           \
            OK(_nb);                                                                               \
        else if ((_it) == 0)                                                                       \
            OK(_init);                                                                             \
    } while (0)

static int lower(const pair_t *p)
{
    return p->grp < p->rgrp;
}

static void t_barrier(pair_t *p, int mode)
{
    MPI_Request req;

    for (int it = 0; it < starts(mode); it++) {
        COLL(mode, it, req, MPI_Barrier(p->ic), MPI_Ibarrier(p->ic, &req),
             MPI_Barrier_init(p->ic, MPI_INFO_NULL, &req));
        finish(mode, &req, it, it == starts(mode) - 1);
    }
}

/* Roots: every rank of either group, each in turn. */
#define EACH_ROOT(_p, _side, _root)                                                                \
    for (int _side = 0; _side < 2; _side++)                                                        \
        for (int _root = 0; _root < (_side == lower(_p) ? (_p)->lsize : (_p)->rsize); _root++)

/* The root argument: MPI_ROOT, MPI_PROC_NULL, or the root's rank (in the other group). */
static int root_arg(const pair_t *p, int side, int root)
{
    if (side == lower(p))
        return p->lrank == root ? MPI_ROOT : MPI_PROC_NULL;
    return root;
}

static void t_bcast(pair_t *p, int mode, int n)
{
    int *b = xmalloc(sizeof(int) * (size_t)n);
    MPI_Request req;

    EACH_ROOT(p, side, root)
    {
        int ra = root_arg(p, side, root);
        for (int it = 0; it < starts(mode); it++) {
            if (ra == MPI_ROOT)
                fillv(b, n, p->grp, root, 0, it);
            else
                memset(b, 0, sizeof(int) * (size_t)n);
            COLL(mode, it, req, MPI_Bcast(b, n, MPI_INT, ra, p->ic),
                 MPI_Ibcast(b, n, MPI_INT, ra, p->ic, &req),
                 MPI_Bcast_init(b, n, MPI_INT, ra, p->ic, MPI_INFO_NULL, &req));
            finish(mode, &req, it, it == starts(mode) - 1);
            if (ra >= 0)
                checkv(b, n, p->rgrp, root, 0, it, "bcast");
            else if (ra == MPI_PROC_NULL)
                for (int i = 0; i < n; i++)
                    EXPECT(b[i], 0, "bcast: MPI_PROC_NULL rank's buffer untouched");
        }
    }
    free(b);
}

static void t_gather(pair_t *p, int mode, int n, int v)
{
    int m = p->rsize, *rc = xmalloc(sizeof(int) * (size_t)m),
        *dis = xmalloc(sizeof(int) * (size_t)m);
    int *sb = xmalloc(sizeof(int) * (size_t)n * (p->lrank + 1));
    int *rb = xmalloc(sizeof(int) * (size_t)n * (size_t)(m + 1) * (size_t)(m + 1));
    long total = 0;
    MPI_Request req;

    /* gatherv: remote rank j sends (j + 1) * n, stored last-first. */
    for (int j = m - 1; j >= 0; j--) {
        rc[j] = v ? (j + 1) * n : n;
        dis[j] = (int)total;
        total += rc[j];
    }
    EACH_ROOT(p, side, root)
    {
        int ra = root_arg(p, side, root), sc = v ? (p->lrank + 1) * n : n;
        for (int it = 0; it < starts(mode); it++) {
            fillv(sb, sc, p->grp, p->lrank, 0, it);
            memset(rb, 0, sizeof(int) * (size_t)total);
            if (v)
                COLL(mode, it, req, MPI_Gatherv(sb, sc, MPI_INT, rb, rc, dis, MPI_INT, ra, p->ic),
                     MPI_Igatherv(sb, sc, MPI_INT, rb, rc, dis, MPI_INT, ra, p->ic, &req),
                     MPI_Gatherv_init(sb, sc, MPI_INT, rb, rc, dis, MPI_INT, ra, p->ic,
                                      MPI_INFO_NULL, &req));
            else
                COLL(mode, it, req, MPI_Gather(sb, sc, MPI_INT, rb, n, MPI_INT, ra, p->ic),
                     MPI_Igather(sb, sc, MPI_INT, rb, n, MPI_INT, ra, p->ic, &req),
                     MPI_Gather_init(sb, sc, MPI_INT, rb, n, MPI_INT, ra, p->ic, MPI_INFO_NULL,
                                     &req));
            finish(mode, &req, it, it == starts(mode) - 1);
            if (ra == MPI_ROOT)
                for (int j = 0; j < m; j++)
                    checkv(rb + (v ? dis[j] : (long)j * n), rc[j], p->rgrp, j, 0, it,
                           v ? "gatherv" : "gather");
        }
    }
    free(rc);
    free(dis);
    free(sb);
    free(rb);
}

static void t_scatter(pair_t *p, int mode, int n, int v)
{
    int m = p->rsize, *sc = xmalloc(sizeof(int) * (size_t)m),
        *dis = xmalloc(sizeof(int) * (size_t)m);
    int *sb = xmalloc(sizeof(int) * (size_t)n * (size_t)(m + 1) * (size_t)(m + 1));
    int *rb = xmalloc(sizeof(int) * (size_t)n * (p->lrank + 1));
    long total = 0;
    MPI_Request req;

    for (int j = m - 1; j >= 0; j--) {
        sc[j] = v ? (j + 1) * n : n;
        dis[j] = (int)total;
        total += sc[j];
    }
    EACH_ROOT(p, side, root)
    {
        int ra = root_arg(p, side, root), rcnt = v ? (p->lrank + 1) * n : n;
        for (int it = 0; it < starts(mode); it++) {
            /* Block j: root's data at offset 10000 * j. */
            for (int j = 0; j < m && ra == MPI_ROOT; j++)
                fillv(sb + (v ? dis[j] : (long)j * n), sc[j], p->grp, root, 10000L * j, it);
            memset(rb, 0, sizeof(int) * (size_t)rcnt);
            if (v)
                COLL(mode, it, req,
                     MPI_Scatterv(sb, sc, dis, MPI_INT, rb, rcnt, MPI_INT, ra, p->ic),
                     MPI_Iscatterv(sb, sc, dis, MPI_INT, rb, rcnt, MPI_INT, ra, p->ic, &req),
                     MPI_Scatterv_init(sb, sc, dis, MPI_INT, rb, rcnt, MPI_INT, ra, p->ic,
                                       MPI_INFO_NULL, &req));
            else
                COLL(mode, it, req, MPI_Scatter(sb, n, MPI_INT, rb, rcnt, MPI_INT, ra, p->ic),
                     MPI_Iscatter(sb, n, MPI_INT, rb, rcnt, MPI_INT, ra, p->ic, &req),
                     MPI_Scatter_init(sb, n, MPI_INT, rb, rcnt, MPI_INT, ra, p->ic, MPI_INFO_NULL,
                                      &req));
            finish(mode, &req, it, it == starts(mode) - 1);
            if (ra >= 0)
                checkv(rb, rcnt, p->rgrp, root, 10000L * p->lrank, it, v ? "scatterv" : "scatter");
        }
    }
    free(sc);
    free(dis);
    free(sb);
    free(rb);
}

static void t_allgather(pair_t *p, int mode, int n, int v)
{
    int m = p->rsize, *rc = xmalloc(sizeof(int) * (size_t)m),
        *dis = xmalloc(sizeof(int) * (size_t)m);
    int sc = v ? (p->lrank + 1) * n : n, *sb = xmalloc(sizeof(int) * (size_t)sc);
    long total = 0;
    MPI_Request req;

    for (int j = m - 1; j >= 0; j--) {
        rc[j] = v ? (j + 1) * n : n;
        dis[j] = (int)total;
        total += rc[j];
    }
    int *rb = xmalloc(sizeof(int) * (size_t)total);
    for (int it = 0; it < starts(mode); it++) {
        fillv(sb, sc, p->grp, p->lrank, 0, it);
        memset(rb, 0, sizeof(int) * (size_t)total);
        if (v)
            COLL(mode, it, req, MPI_Allgatherv(sb, sc, MPI_INT, rb, rc, dis, MPI_INT, p->ic),
                 MPI_Iallgatherv(sb, sc, MPI_INT, rb, rc, dis, MPI_INT, p->ic, &req),
                 MPI_Allgatherv_init(sb, sc, MPI_INT, rb, rc, dis, MPI_INT, p->ic, MPI_INFO_NULL,
                                     &req));
        else
            COLL(mode, it, req, MPI_Allgather(sb, n, MPI_INT, rb, n, MPI_INT, p->ic),
                 MPI_Iallgather(sb, n, MPI_INT, rb, n, MPI_INT, p->ic, &req),
                 MPI_Allgather_init(sb, n, MPI_INT, rb, n, MPI_INT, p->ic, MPI_INFO_NULL, &req));
        finish(mode, &req, it, it == starts(mode) - 1);
        for (int j = 0; j < m; j++)
            checkv(rb + (v ? dis[j] : (long)j * n), rc[j], p->rgrp, j, 0, it,
                   v ? "allgatherv" : "allgather");
    }
    free(rc);
    free(dis);
    free(sb);
    free(rb);
}

/* Alltoall(v, w): block for remote j is (lrank + j) % 3 + 1 times n (v, w) or n. */
static void t_alltoall(pair_t *p, int mode, int n, int kind)
{
    int m = p->rsize;
    int *sc = xmalloc(sizeof(int) * (size_t)m), *sd = xmalloc(sizeof(int) * (size_t)m);
    int *rc = xmalloc(sizeof(int) * (size_t)m), *rd = xmalloc(sizeof(int) * (size_t)m);
    int *sdb = xmalloc(sizeof(int) * (size_t)m), *rdb = xmalloc(sizeof(int) * (size_t)m);
    MPI_Datatype *ty = xmalloc(sizeof(MPI_Datatype) * (size_t)m);
    long st = 0, rt = 0;
    MPI_Request req;
    const char *what = kind == 0 ? "alltoall" : kind == 1 ? "alltoallv" : "alltoallw";

    for (int j = 0; j < m; j++) {
        sc[j] = kind ? ((p->lrank + j) % 3 + 1) * n : n;
        rc[j] = kind ? ((j + p->lrank) % 3 + 1) * n : n;
        ty[j] = MPI_INT;
    }
    for (int j = m - 1; j >= 0; j--) { /* last-first again */
        sd[j] = (int)st;
        rd[j] = (int)rt;
        sdb[j] = (int)(st * sizeof(int));
        rdb[j] = (int)(rt * sizeof(int));
        st += sc[j];
        rt += rc[j];
    }
    int *sb = xmalloc(sizeof(int) * (size_t)st), *rb = xmalloc(sizeof(int) * (size_t)rt);
    for (int it = 0; it < starts(mode); it++) {
        for (int j = 0; j < m; j++)
            fillv(sb + (kind ? sd[j] : (long)j * n), sc[j], p->grp, p->lrank, 10000L * j, it);
        memset(rb, 0, sizeof(int) * (size_t)rt);
        if (kind == 0)
            COLL(mode, it, req, MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, p->ic),
                 MPI_Ialltoall(sb, n, MPI_INT, rb, n, MPI_INT, p->ic, &req),
                 MPI_Alltoall_init(sb, n, MPI_INT, rb, n, MPI_INT, p->ic, MPI_INFO_NULL, &req));
        else if (kind == 1)
            COLL(mode, it, req, MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, p->ic),
                 MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, p->ic, &req),
                 MPI_Alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, p->ic, MPI_INFO_NULL,
                                    &req));
        else
            COLL(mode, it, req, MPI_Alltoallw(sb, sc, sdb, ty, rb, rc, rdb, ty, p->ic),
                 MPI_Ialltoallw(sb, sc, sdb, ty, rb, rc, rdb, ty, p->ic, &req),
                 MPI_Alltoallw_init(sb, sc, sdb, ty, rb, rc, rdb, ty, p->ic, MPI_INFO_NULL, &req));
        finish(mode, &req, it, it == starts(mode) - 1);
        for (int j = 0; j < m; j++)
            checkv(rb + (kind ? rd[j] : (long)j * n), rc[j], p->rgrp, j, 10000L * p->lrank, it,
                   what);
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sdb);
    free(rdb);
    free(ty);
    free(sb);
    free(rb);
}

/* The sum over the ranks of group g (size gs) of V(g, r, off + i, s). */
static long sumv(int g, int gs, long i, int s)
{
    long t = 0;

    for (int r = 0; r < gs; r++)
        t += V(g, r, i, s);
    return t;
}

/* An associative, non-commutative op: hexadecimal concatenation (x o y = x's digits, then
 * y's). Rank r of group g contributes one digit (1..15) per element: the result spells the
 * ranks in order. */
static int ndigits(unsigned v)
{
    int n = 0;

    for (; v != 0; v >>= 4)
        n++;
    return n;
}

static void cat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) {
        unsigned x = (unsigned)((int *)in)[i], y = (unsigned)((int *)inout)[i];
        ((int *)inout)[i] = (int)((x << (4 * ndigits(y))) | y);
    }
}

static int digit(int g, int r, long i, int s)
{
    return (int)((g * 5 + r + i + s) % 15) + 1;
}

static long catv(int g, int gs, long i, int s)
{
    unsigned acc = 0;

    for (int r = 0; r < gs; r++)
        acc = (acc << 4) | (unsigned)digit(g, r, i, s);
    return (long)acc;
}

static void t_reduce(pair_t *p, int mode, int n, int all, MPI_Op op, int noncomm)
{
    int *sb = xmalloc(sizeof(int) * (size_t)n), *rb = xmalloc(sizeof(int) * (size_t)n);
    MPI_Request req;

    for (int side = 0; side < (all ? 1 : 2); side++) {
        for (int root = 0; root < (all ? 1 : side == lower(p) ? p->lsize : p->rsize); root++) {
            int ra = all ? 0 : root_arg(p, side, root);
            for (int it = 0; it < starts(mode); it++) {
                fillv(sb, n, p->grp, p->lrank, 0, it);
                for (int i = 0; i < n && noncomm; i++)
                    sb[i] = digit(p->grp, p->lrank, i, it);
                memset(rb, 0, sizeof(int) * (size_t)n);
                if (all)
                    COLL(mode, it, req, MPI_Allreduce(sb, rb, n, MPI_INT, op, p->ic),
                         MPI_Iallreduce(sb, rb, n, MPI_INT, op, p->ic, &req),
                         MPI_Allreduce_init(sb, rb, n, MPI_INT, op, p->ic, MPI_INFO_NULL, &req));
                else
                    COLL(mode, it, req, MPI_Reduce(sb, rb, n, MPI_INT, op, ra, p->ic),
                         MPI_Ireduce(sb, rb, n, MPI_INT, op, ra, p->ic, &req),
                         MPI_Reduce_init(sb, rb, n, MPI_INT, op, ra, p->ic, MPI_INFO_NULL, &req));
                finish(mode, &req, it, it == starts(mode) - 1);
                if (all || ra == MPI_ROOT)
                    for (int i = 0; i < n; i++)
                        EXPECT(rb[i],
                               noncomm ? catv(p->rgrp, p->rsize, i, it)
                                       : sumv(p->rgrp, p->rsize, i, it),
                               "%s element %d (%s)", all ? "allreduce" : "reduce", i,
                               mode_name[mode]);
            }
        }
    }
    free(sb);
    free(rb);
}

/* reduce_scatter: both groups reduce vectors of total elements; local rank r gets cnt[r]. */
static void t_reduce_scatter(pair_t *p, int mode, int n, int block)
{
    int lcm = p->lsize * p->rsize, total = lcm * n;
    int *cnt = xmalloc(sizeof(int) * (size_t)p->lsize);
    int *sb = xmalloc(sizeof(int) * (size_t)total), *rb = xmalloc(sizeof(int) * (size_t)total);
    long off = 0, mine_off = 0;
    MPI_Request req;

    for (int r = 0; r < p->lsize; r++) {
        /* Uneven for reduce_scatter: rank 0 gets the remainder. */
        cnt[r] = total / p->lsize;
        if (!block && p->lsize > 1)
            cnt[r] =
                r == 0 ? total - (p->lsize - 1) * (total / p->lsize - 1) : total / p->lsize - 1;
        if (r == p->lrank)
            mine_off = off;
        off += cnt[r];
    }
    for (int it = 0; it < starts(mode); it++) {
        fillv(sb, total, p->grp, p->lrank, 0, it);
        memset(rb, 0, sizeof(int) * (size_t)total);
        if (block)
            COLL(mode, it, req, MPI_Reduce_scatter_block(sb, rb, cnt[0], MPI_INT, MPI_SUM, p->ic),
                 MPI_Ireduce_scatter_block(sb, rb, cnt[0], MPI_INT, MPI_SUM, p->ic, &req),
                 MPI_Reduce_scatter_block_init(sb, rb, cnt[0], MPI_INT, MPI_SUM, p->ic,
                                               MPI_INFO_NULL, &req));
        else
            COLL(
                mode, it, req, MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, p->ic),
                MPI_Ireduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, p->ic, &req),
                MPI_Reduce_scatter_init(sb, rb, cnt, MPI_INT, MPI_SUM, p->ic, MPI_INFO_NULL, &req));
        finish(mode, &req, it, it == starts(mode) - 1);
        for (int i = 0; i < cnt[p->lrank]; i++)
            EXPECT(rb[i], sumv(p->rgrp, p->rsize, mine_off + i, it), "%s element %d (%s)",
                   block ? "reduce_scatter_block" : "reduce_scatter", i, mode_name[mode]);
    }
    free(cnt);
    free(sb);
    free(rb);
}

static void t_colls(pair_t *p)
{
    /* 40000 ints: rendezvous; INTER_QUICK=1 (verbs_inter.sh, in the slow VM): 10000 ints, just
     * above the rendezvous threshold. */
    const char *q = getenv("INTER_QUICK");
    const int ns[] = {1, q != NULL && strcmp(q, "1") == 0 ? 10000 : 40000};
    MPI_Op linop;

    MPI_Op_create(cat, 0, &linop);
    for (int mode = BLOCKING; mode <= PERSISTENT; mode++) {
        t_barrier(p, mode);
        for (int k = 0; k < 2; k++) {
            int n = ns[k], ns_small = k == 0 ? 1 : 3000;
            t_bcast(p, mode, n);
            t_gather(p, mode, ns_small, 0);
            t_gather(p, mode, ns_small, 1);
            t_scatter(p, mode, ns_small, 0);
            t_scatter(p, mode, ns_small, 1);
            t_allgather(p, mode, ns_small, 0);
            t_allgather(p, mode, ns_small, 1);
            t_alltoall(p, mode, ns_small, 0);
            t_alltoall(p, mode, ns_small, 1);
            t_alltoall(p, mode, ns_small, 2);
            t_reduce(p, mode, n, 0, MPI_SUM, 0);
            t_reduce(p, mode, n, 1, MPI_SUM, 0);
            t_reduce(p, mode, ns_small, 0, linop, 1);
            t_reduce(p, mode, ns_small, 1, linop, 1);
            t_reduce_scatter(p, mode, ns_small, 0);
            t_reduce_scatter(p, mode, ns_small, 1);
        }
        /* Zero counts move nothing and complete. */
        t_bcast(p, mode, 0);
        t_reduce(p, mode, 0, 1, MPI_SUM, 0);
    }
    MPI_Op_free(&linop);
}

static void colls(void)
{
    each_pair(t_colls);
}

/* Several nonblocking collectives outstanding at once, completed in reverse order, with a
 * message on the same intercommunicator in between. */
static void t_outstanding(pair_t *p)
{
    enum { N = 2000 };
    int *bb = xmalloc(sizeof(int) * N), *as = xmalloc(sizeof(int) * N),
        *ar = xmalloc(sizeof(int) * N);
    int *gs = xmalloc(sizeof(int) * N), *gr = xmalloc(sizeof(int) * (size_t)N * p->rsize);
    int msg = -1, out = V(p->grp, p->lrank, 0, 9);
    MPI_Request req[6];
    int ra = lower(p) ? (p->lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;

    if (ra == MPI_ROOT)
        fillv(bb, N, p->grp, 0, 0, 3);
    fillv(as, N, p->grp, p->lrank, 0, 4);
    fillv(gs, N, p->grp, p->lrank, 0, 5);
    OK(MPI_Ibcast(bb, N, MPI_INT, ra, p->ic, &req[0]));
    OK(MPI_Iallreduce(as, ar, N, MPI_INT, MPI_SUM, p->ic, &req[1]));
    OK(MPI_Ibarrier(p->ic, &req[2]));
    OK(MPI_Iallgather(gs, N, MPI_INT, gr, N, MPI_INT, p->ic, &req[3]));
    OK(MPI_Irecv(&msg, 1, MPI_INT, p->lrank % p->rsize, 3, p->ic, &req[4]));
    /* Remote rank j's partner: local rank j % lsize sends to it... every j gets one. */
    int nsend = 0;
    MPI_Request sreq[64];
    for (int j = 0; j < p->rsize; j++)
        if (j % p->lsize == p->lrank)
            OK(MPI_Isend(&out, 1, MPI_INT, j, 3, p->ic, &sreq[nsend++]));
    for (int i = 4; i >= 0; i--)
        OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    OK(MPI_Waitall(nsend, sreq, MPI_STATUSES_IGNORE));
    EXPECT(msg, V(p->rgrp, p->lrank % p->rsize, 0, 9), "message among the collectives");
    if (!lower(p))
        checkv(bb, N, p->rgrp, 0, 0, 3, "outstanding ibcast");
    for (int i = 0; i < N; i++)
        EXPECT(ar[i], sumv(p->rgrp, p->rsize, i, 4), "outstanding iallreduce %d", i);
    for (int j = 0; j < p->rsize; j++)
        checkv(gr + (size_t)j * N, N, p->rgrp, j, 0, 5, "outstanding iallgather");
    (void)req[5];
    free(bb);
    free(as);
    free(ar);
    free(gs);
    free(gr);
}

static void outstanding(void)
{
    each_pair(t_outstanding);
}

/* ---- merge, dup, split, create ------------------------------------------------------------ */

/* Is comm the union of groups a (first) and b, in that order? */
static void check_union(MPI_Comm comm, int ng, int a, int b)
{
    int n, r, *w, me;
    int na = gsize(ng, a), nb = gsize(ng, b), flag;

    OK(MPI_Comm_test_inter(comm, &flag));
    EXPECT(flag, 0, "merged communicator is an intracommunicator");
    MPI_Comm_size(comm, &n);
    EXPECT(n, na + nb, "merged size");
    MPI_Comm_rank(comm, &r);
    w = xmalloc(sizeof(int) * (size_t)n);
    me = rank;
    OK(MPI_Allgather(&me, 1, MPI_INT, w, 1, MPI_INT, comm));
    for (int i = 0; i < na; i++)
        EXPECT(w[i], gworld(ng, a, i), "merged member %d", i);
    for (int i = 0; i < nb; i++)
        EXPECT(w[na + i], gworld(ng, b, i), "merged member %d", na + i);
    EXPECT(w[r], rank, "merged rank");
    int sum = 0, want = 0;
    for (int i = 0; i < n; i++)
        want += w[i];
    OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
    EXPECT(sum, want, "allreduce over the merged communicator");
    free(w);
}

static void t_merge(pair_t *p)
{
    MPI_Comm m;
    int lo = lower(p) ? p->grp : p->rgrp, hi = lower(p) ? p->rgrp : p->grp;

    /* The lower group low: it comes first. */
    OK(MPI_Intercomm_merge(p->ic, !lower(p), &m));
    check_union(m, p->ng, lo, hi);
    OK(MPI_Comm_free(&m));
    /* The other way round. */
    OK(MPI_Intercomm_merge(p->ic, lower(p), &m));
    check_union(m, p->ng, hi, lo);
    OK(MPI_Comm_free(&m));
    /* Both the same: some order, the same at everyone, each group together. */
    for (int h = 0; h < 2; h++) {
        int first, r;
        OK(MPI_Intercomm_merge(p->ic, h, &m));
        MPI_Comm_rank(m, &r);
        first = rank;
        OK(MPI_Bcast(&first, 1, MPI_INT, 0, m));
        check_union(m, p->ng, first % p->ng, first % p->ng == lo ? hi : lo);
        OK(MPI_Comm_free(&m));
    }
}

static void merge(void)
{
    each_pair(t_merge);
}

static int copied_deleted;

static int del_fn(MPI_Comm c, int k, void *v, void *x)
{
    (void)c;
    (void)k;
    (void)v;
    (void)x;
    copied_deleted++;
    return MPI_SUCCESS;
}

static void exchange_check(MPI_Comm ic, int grp, int rgrp, int lrank, int rsize, int seed)
{
    int out = V(grp, lrank, 0, seed), in = -1;
    MPI_Status st;

    /* Local rank i and remote rank i (if any) swap a message; the rest stay out. */
    int lsize;
    MPI_Comm_size(ic, &lsize);
    if (lrank < rsize) {
        OK(MPI_Sendrecv(&out, 1, MPI_INT, lrank, 1, &in, 1, MPI_INT, lrank, 1, ic, &st));
        EXPECT(in, V(rgrp, lrank, 0, seed), "message on a new intercommunicator");
    }
    (void)lsize;
}

static void t_dup(pair_t *p)
{
    MPI_Comm d, d2, d3;
    int r, kv, flag;
    void *val;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Info info;
    MPI_Request req;

    OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_fn, &kv, NULL));
    OK(MPI_Comm_set_attr(p->ic, kv, (void *)(long)(1000 + p->grp)));
    OK(MPI_Comm_set_name(p->ic, "my intercomm"));
    OK(MPI_Comm_dup(p->ic, &d));
    check_groups(d, p->ng, p->grp, p->lsize, p->rgrp, p->rsize);
    OK(MPI_Comm_compare(p->ic, d, &r));
    EXPECT(r, MPI_CONGRUENT, "compare intercomm and its dup");
    OK(MPI_Comm_compare(p->ic, p->ic, &r));
    EXPECT(r, MPI_IDENT, "compare intercomm with itself");
    OK(MPI_Comm_compare(p->ic, p->local, &r));
    EXPECT(r, MPI_UNEQUAL, "compare intercomm and intracomm");
    OK(MPI_Comm_get_attr(d, kv, &val, &flag));
    EXPECT(flag, 1, "attribute copied by MPI_Comm_dup");
    EXPECT((long)val, 1000 + p->grp, "copied attribute value");
    OK(MPI_Comm_get_name(p->ic, name, &r));
    CHECK(strcmp(name, "my intercomm") == 0);
    OK(MPI_Comm_get_name(d, name, &r));
    EXPECT(r, 0, "a dup has no name");
    exchange_check(d, p->grp, p->rgrp, p->lrank, p->rsize, 11);
    /* A collective on the dup does not mix with one on the original. */
    int x = p->lrank + 1, s1 = 0, s2 = 0;
    MPI_Request r2[2];
    OK(MPI_Iallreduce(&x, &s1, 1, MPI_INT, MPI_SUM, p->ic, &r2[0]));
    OK(MPI_Iallreduce(&x, &s2, 1, MPI_INT, MPI_MAX, d, &r2[1]));
    OK(MPI_Waitall(2, r2, MPI_STATUSES_IGNORE));
    EXPECT(s1, p->rsize * (p->rsize + 1) / 2, "sum over the remote group");
    EXPECT(s2, p->rsize, "max over the remote group");
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    OK(MPI_Comm_dup_with_info(p->ic, info, &d2));
    check_groups(d2, p->ng, p->grp, p->lsize, p->rgrp, p->rsize);
    exchange_check(d2, p->grp, p->rgrp, p->lrank, p->rsize, 12);
    MPI_Info_free(&info);
    /* MPI_Comm_idup: nonblocking, completed by a wait. */
    OK(MPI_Comm_idup(p->ic, &d3, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_groups(d3, p->ng, p->grp, p->lsize, p->rgrp, p->rsize);
    exchange_check(d3, p->grp, p->rgrp, p->lrank, p->rsize, 13);
    OK(MPI_Comm_get_attr(d3, kv, &val, &flag));
    EXPECT(flag, 1, "attribute copied by MPI_Comm_idup");
    copied_deleted = 0;
    OK(MPI_Comm_free(&d));
    OK(MPI_Comm_free(&d2));
    OK(MPI_Comm_free(&d3));
    EXPECT(copied_deleted, 3, "delete callbacks of the dups' attributes");
    OK(MPI_Comm_delete_attr(p->ic, kv));
    OK(MPI_Comm_free_keyval(&kv));
}

static void dup(void)
{
    each_pair(t_dup);
}

static void t_split(pair_t *p)
{
    MPI_Comm s;
    int color = p->lrank % 2, n, r;

    /* Keys reversed: the new local ranks go high to low. */
    OK(MPI_Comm_split(p->ic, color, -p->lrank, &s));
    int lwant = (p->lsize - color + 1) / 2, rwant = (p->rsize - color + 1) / 2;
    if (rwant == 0) {
        CHECK(s == MPI_COMM_NULL);
    } else {
        MPI_Group g, wg;
        int wr;
        CHECK(s != MPI_COMM_NULL);
        MPI_Comm_size(s, &n);
        EXPECT(n, lwant, "split local size");
        MPI_Comm_remote_size(s, &n);
        EXPECT(n, rwant, "split remote size");
        MPI_Comm_rank(s, &r);
        EXPECT(r, lwant - 1 - p->lrank / 2, "split rank (keys reversed)");
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        MPI_Comm_remote_group(s, &g);
        for (int i = 0; i < rwant; i++) {
            MPI_Group_translate_ranks(g, 1, &i, wg, &wr);
            /* Remote member i: the remote group's rank of that colour, reversed. */
            int rr = color + 2 * (rwant - 1 - i);
            EXPECT(wr, gworld(p->ng, p->rgrp, rr), "split remote member %d", i);
        }
        MPI_Group_free(&g);
        MPI_Group_free(&wg);
        /* Allreduce over it: the sum of the remote members' old ranks. */
        int x = p->lrank, sum = -1, want = 0;
        for (int i = 0; i < rwant; i++)
            want += color + 2 * i;
        OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, s));
        EXPECT(sum, want, "allreduce on a split intercommunicator");
        OK(MPI_Comm_free(&s));
    }
    /* MPI_UNDEFINED: MPI_COMM_NULL; the others still get theirs. */
    OK(MPI_Comm_split(p->ic, p->lrank == 0 ? MPI_UNDEFINED : 0, 0, &s));
    if (p->lrank == 0 || p->rsize == 1) {
        CHECK(s == MPI_COMM_NULL);
    } else {
        MPI_Comm_remote_size(s, &n);
        EXPECT(n, p->rsize - 1, "split with MPI_UNDEFINED: remote size");
        OK(MPI_Comm_free(&s));
    }
    /* split_type: every process is on this node, so the same groups (one node natively; the
     * check allows several). */
    OK(MPI_Comm_split_type(p->ic, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s));
    if (s != MPI_COMM_NULL) {
        int flag;
        MPI_Comm_test_inter(s, &flag);
        EXPECT(flag, 1, "split_type of an intercommunicator is one");
        MPI_Comm_size(s, &n);
        CHECK(n >= 1 && n <= p->lsize);
        MPI_Comm_remote_size(s, &n);
        CHECK(n >= 1 && n <= p->rsize);
        OK(MPI_Barrier(s));
        OK(MPI_Comm_free(&s));
    }
}

static void split(void)
{
    each_pair(t_split);
}

static void t_create(pair_t *p)
{
    MPI_Group lg, sub;
    MPI_Comm c;
    int zero = 0, n;

    /* Each side drops its local rank 0 when it has more than one. */
    MPI_Comm_group(p->ic, &lg);
    if (p->lsize > 1)
        MPI_Group_excl(lg, 1, &zero, &sub);
    else
        MPI_Group_incl(lg, 1, &zero, &sub);
    OK(MPI_Comm_create(p->ic, sub, &c));
    if (p->lsize > 1 && p->lrank == 0) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        int rw = p->rsize > 1 ? p->rsize - 1 : 1, off = p->rsize > 1 ? 1 : 0;
        CHECK(c != MPI_COMM_NULL);
        MPI_Comm_size(c, &n);
        EXPECT(n, p->lsize > 1 ? p->lsize - 1 : 1, "created local size");
        MPI_Comm_remote_size(c, &n);
        EXPECT(n, rw, "created remote size");
        int x = p->lrank, sum = -1, want = 0;
        for (int i = 0; i < rw; i++)
            want += off + i;
        OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c));
        EXPECT(sum, want, "allreduce on a created intercommunicator");
        OK(MPI_Comm_free(&c));
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);
}

static void create(void)
{
    each_pair(t_create);
}

/* ---- errors ------------------------------------------------------------------------------- */

static void t_errors(pair_t *p)
{
    MPI_Comm c;
    int x = 0, y = 0, dims[1] = {p->lsize}, per[1] = {0};
    MPI_Win w;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(p->ic, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(p->local, MPI_ERRORS_RETURN);
    /* Bad local leader: every member of the local communicator sees it, nobody hangs. */
    ERR(MPI_Intercomm_create(p->local, p->lsize, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_RANK);
    ERR(MPI_Intercomm_create(p->local, -1, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_RANK);
    ERR(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_COMM);
    /* Bad arguments at the leader only: it says why, the rest of its group is told. */
    {
        int ll = p->lsize - 1, mine = p->lrank == ll;
        ERR(MPI_Intercomm_create(p->local, ll, MPI_COMM_WORLD, size, 1, &c),
            mine ? MPI_ERR_RANK : MPI_ERR_ARG);
        ERR(MPI_Intercomm_create(p->local, ll, MPI_COMM_WORLD, rank - rank % p->ng + p->grp, 1, &c),
            mine ? MPI_ERR_RANK : MPI_ERR_ARG); /* a member of its own group */
        ERR(MPI_Intercomm_create(p->local, ll, mine ? MPI_COMM_NULL : MPI_COMM_WORLD, 0, 1, &c),
            mine ? MPI_ERR_COMM : MPI_ERR_ARG);
    }
    ERR(MPI_Intercomm_create(p->ic, 0, MPI_COMM_WORLD, 0, 1, &c), MPI_ERR_COMM);
    ERR(MPI_Intercomm_merge(p->local, 0, &c), MPI_ERR_COMM);
    ERR(MPI_Intercomm_merge(MPI_COMM_NULL, 0, &c), MPI_ERR_COMM);
    ERR(MPI_Comm_remote_size(p->local, &x), MPI_ERR_COMM);
    ERR(MPI_Comm_remote_size(MPI_COMM_NULL, &x), MPI_ERR_COMM);
    /* Ranks name the remote group. */
    ERR(MPI_Send(&x, 1, MPI_INT, p->rsize, 0, p->ic), MPI_ERR_RANK);
    ERR(MPI_Bcast(&x, 1, MPI_INT, p->rsize, p->ic), MPI_ERR_ROOT);
    ERR(MPI_Bcast(&x, 1, MPI_INT, -7, p->ic), MPI_ERR_ROOT);
    ERR(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, p->ic), MPI_ERR_BUFFER);
    ERR(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, &y, 1, MPI_INT, p->ic), MPI_ERR_BUFFER);
    /* Not defined on intercommunicators. */
    ERR(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, p->ic), MPI_ERR_COMM);
    ERR(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, p->ic), MPI_ERR_COMM);
    MPI_Request req;
    ERR(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, p->ic, &req), MPI_ERR_COMM);
    ERR(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, p->ic), MPI_ERR_COMM);
    ERR(MPI_Cart_create(p->ic, 1, dims, per, 0, &c), MPI_ERR_COMM);
    ERR(MPI_Comm_create_group(p->ic, MPI_GROUP_EMPTY, 0, &c), MPI_ERR_COMM);
    ERR(MPI_Win_create(&x, sizeof(x), 1, MPI_INFO_NULL, p->ic, &w), MPI_ERR_COMM);
    /* Still fine after all that. */
    OK(MPI_Barrier(p->ic));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(p->local, MPI_ERRORS_ARE_FATAL);
}

static void errors(void)
{
    each_pair(t_errors);
}

/* ---- MPI_Intercomm_create_from_groups ------------------------------------------------------ */

static MPI_Group world_group_of(int ng, int g)
{
    MPI_Group wg, out;
    int n = gsize(ng, g), *w = xmalloc(sizeof(int) * (size_t)n);

    for (int i = 0; i < n; i++)
        w[i] = gworld(ng, g, i);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    OK(MPI_Group_incl(wg, n, w, &out));
    MPI_Group_free(&wg);
    free(w);
    return out;
}

/* Beside each pair's MPI_Intercomm_create one from the two groups alone (leaders chosen the
 * other way round), twice under the same string tag: the groups, messages across, an
 * allreduce and an iallreduce checked, the error handler given, and the errors. */
static void t_fromgroups(pair_t *p)
{
    enum { N = 3000 };
    MPI_Group lg = world_group_of(p->ng, p->grp), rg = world_group_of(p->ng, p->rgrp);
    int ll = p->grp % 2 == 0 ? p->lsize - 1 : 0;
    int rl = p->rgrp % 2 == 0 ? p->rsize - 1 : 0;
    int *in = xmalloc(sizeof(int) * N), *out = xmalloc(sizeof(int) * N);
    MPI_Comm ic[2];
    MPI_Errhandler eh;
    MPI_Request req;

    for (int k = 0; k < 2; k++) {
        OK(MPI_Intercomm_create_from_groups(lg, ll, rg, rl, "org.verbatim.test.inter",
                                            MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic[k]));
        check_groups(ic[k], p->ng, p->grp, p->lsize, p->rgrp, p->rsize);
        OK(MPI_Comm_get_errhandler(ic[k], &eh));
        CHECK(eh == MPI_ERRORS_RETURN);
        MPI_Errhandler_free(&eh);
    }
    for (int k = 0; k < 2; k++) {
        exchange_check(ic[k], p->grp, p->rgrp, p->lrank, p->rsize, 20 + k);
        fillv(in, N, p->grp, p->lrank, 0, 21 + k);
        OK(MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, ic[k]));
        for (int i = 0; i < N; i++)
            EXPECT(out[i], sumv(p->rgrp, p->rsize, i, 21 + k), "allreduce on ic %d, %d", k, i);
        OK(MPI_Iallreduce(in, out, N, MPI_INT, MPI_MAX, ic[k], &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++)
            EXPECT(out[i], V(p->rgrp, p->rsize - 1, i, 21 + k), "iallreduce max on ic %d", k);
    }
    for (int k = 0; k < 2; k++)
        OK(MPI_Comm_free(&ic[k]));

    /* Errors: found at every process alike, nothing waits. */
    MPI_Comm c = MPI_COMM_NULL;
    ERR(MPI_Intercomm_create_from_groups(lg, p->lsize, rg, rl, "t", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &c),
        MPI_ERR_RANK);
    ERR(MPI_Intercomm_create_from_groups(lg, ll, rg, -1, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
        MPI_ERR_RANK);
    ERR(MPI_Intercomm_create_from_groups(lg, ll, lg, 0, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
        MPI_ERR_GROUP);
    ERR(MPI_Intercomm_create_from_groups(rg, 0, lg, 0, "t", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c),
        MPI_ERR_GROUP);
    ERR(MPI_Intercomm_create_from_groups(MPI_GROUP_NULL, 0, rg, 0, "t", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &c),
        MPI_ERR_GROUP);
    ERR(MPI_Intercomm_create_from_groups(lg, ll, rg, rl, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                         &c),
        MPI_ERR_ARG);
    CHECK(c == MPI_COMM_NULL);
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    free(in);
    free(out);
}

static void fromgroups(void)
{
    each_pair(t_fromgroups);
}

static const mpitest_t tests[] = {
    {"query", query},   {"p2p", p2p},
    {"colls", colls},   {"outstanding", outstanding},
    {"merge", merge},   {"dup", dup},
    {"split", split},   {"create", create},
    {"errors", errors}, {"fromgroups", fromgroups},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
