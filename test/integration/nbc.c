/* Nonblocking (MPI_I*) and persistent (MPI_*_init + MPI_Start) collectives, and MPI_Comm_idup:
 * every call at several counts (0, 1, odd, above the eager limit), each payload element checked
 * against a value computed here; persistent requests started many times with new data; several
 * collectives outstanding at once on one and several communicators, completed out of order and
 * mixed with point-to-point messages on the same communicator; MPI_IN_PLACE; derived datatypes;
 * a non-commutative user op; neighbourhood collectives; errors under MPI_ERRORS_RETURN.
 * Usage: nbc [SUBTEST...] (default: all). */
#define MPITEST_NAME "nbc"
#include "mpitest.h"

#define OK(_call)                                                                                  \
    do {                                                                                           \
        int _rc = (_call);                                                                         \
        if (_rc != MPI_SUCCESS)                                                                    \
            FAIL("%s returned %d", #_call, _rc);                                                   \
    } while (0)

/* Element i of rank r's data for seed s: distinct for every rank, index and seed. */
static int V(int r, long i, int s)
{
    return (r + 1) * 100000 + (int)(i % 50000) * 3 + s * 7;
}

#define EXPECT(_got, _want, ...)                                                                   \
    do {                                                                                           \
        long _g = (long)(_got), _w = (long)(_want);                                                \
        if (_g != _w) {                                                                            \
            fprintf(stderr, "nbc: rank %d: line %d: got %ld, expected %ld: ", rank, __LINE__, _g,  \
                    _w);                                                                           \
            FAIL(__VA_ARGS__);                                                                     \
        }                                                                                          \
    } while (0)

static const int counts[] = {0, 1, 7, 1001, 70001}; /* 70001 ints: far above the eager limit */
#define NCOUNTS ((int)(sizeof(counts) / sizeof(counts[0])))

static int iters(int pers)
{
    return pers ? 5 : 2;
}

/* Post (nonblocking) or, the first time, make and then start (persistent). */
#define POST(_pers, _it, _req, _nbcall, _initcall)                                                 \
    do {                                                                                           \
        if (!(_pers))                                                                              \
            OK(_nbcall);                                                                           \
        else if ((_it) == 0)                                                                       \
            OK(_initcall);                                                                         \
        if (_pers)                                                                                 \
            OK(MPI_Start(&(_req)));                                                                \
    } while (0)

#define DONE(_pers, _req)                                                                          \
    do {                                                                                           \
        if (_pers) {                                                                               \
            OK(MPI_Request_free(&(_req)));                                                         \
            CHECK((_req) == MPI_REQUEST_NULL);                                                     \
        }                                                                                          \
    } while (0)

static int *ialloc(long n)
{
    return xmalloc((size_t)(n > 0 ? n : 1) * sizeof(int));
}

static void t_barrier(MPI_Comm comm, int c, int pers)
{
    MPI_Request req = MPI_REQUEST_NULL;
    (void)c;
    for (int it = 0; it < iters(pers); it++) {
        POST(pers, it, req, MPI_Ibarrier(comm, &req), MPI_Barrier_init(comm, MPI_INFO_NULL, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (!pers)
            CHECK(req == MPI_REQUEST_NULL);
    }
    DONE(pers, req);
}

static void t_bcast(MPI_Comm comm, int c, int pers)
{
    int me, n, root;
    MPI_Request req = MPI_REQUEST_NULL;
    int *buf = ialloc(c);

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    root = (c + 1) % n;
    for (int it = 0; it < iters(pers); it++) {
        for (int i = 0; i < c; i++)
            buf[i] = me == root ? V(root, i, it) : -1;
        POST(pers, it, req, MPI_Ibcast(buf, c, MPI_INT, root, comm, &req),
             MPI_Bcast_init(buf, c, MPI_INT, root, comm, MPI_INFO_NULL, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < c; i++)
            EXPECT(buf[i], V(root, i, it), "bcast count %d element %d", c, i);
    }
    DONE(pers, req);
    free(buf);
}

static long sum_upto(int nr, long i, int s) /* V summed over ranks 0 .. nr - 1 */
{
    long t = 0;
    for (int r = 0; r < nr; r++)
        t += V(r, i, s);
    return t;
}

static void t_reduce(MPI_Comm comm, int c, int pers)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    for (int root = 0; root < n; root += (n > 3 ? 2 : 1)) {
        MPI_Request req = MPI_REQUEST_NULL;
        int *s = ialloc(c), *r = ialloc(c);
        for (int it = 0; it < iters(pers); it++) {
            for (int i = 0; i < c; i++) {
                s[i] = V(me, i, it);
                r[i] = -1;
            }
            POST(pers, it, req, MPI_Ireduce(s, r, c, MPI_INT, MPI_SUM, root, comm, &req),
                 MPI_Reduce_init(s, r, c, MPI_INT, MPI_SUM, root, comm, MPI_INFO_NULL, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < c; i++) {
                EXPECT(s[i], V(me, i, it), "reduce changed sendbuf");
                EXPECT(r[i], me == root ? sum_upto(n, i, it) : -1, "reduce root %d count %d i %d",
                       root, c, i);
            }
        }
        DONE(pers, req);
        free(s);
        free(r);
    }
}

static void t_allreduce(MPI_Comm comm, int c, int pers)
{
    int me, n;
    MPI_Request req = MPI_REQUEST_NULL;
    int *s = ialloc(c), *r = ialloc(c);

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    for (int it = 0; it < iters(pers); it++) {
        for (int i = 0; i < c; i++) {
            s[i] = V(me, i, it);
            r[i] = -1;
        }
        POST(pers, it, req, MPI_Iallreduce(s, r, c, MPI_INT, MPI_SUM, comm, &req),
             MPI_Allreduce_init(s, r, c, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < c; i++)
            EXPECT(r[i], sum_upto(n, i, it), "allreduce count %d i %d", c, i);
    }
    DONE(pers, req);
    free(s);
    free(r);
}

/* v layouts: rank j's block has vc(c, j) elements at vd(c, j) (a gap of one between). */
static int vc(int c, int j)
{
    return c + j % 3;
}
static int vd(int c, int j)
{
    int d = 0;
    for (int q = 0; q < j; q++)
        d += vc(c, q) + 1;
    return d;
}

static void t_gather(MPI_Comm comm, int c, int pers, int v)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int root = n - 1, sc = v ? vc(c, me) : c, total = v ? vd(c, n) : n * c;
    int *s = ialloc(sc), *r = ialloc(total), *rc = ialloc(n), *dp = ialloc(n);
    MPI_Request req = MPI_REQUEST_NULL;

    for (int j = 0; j < n; j++) {
        rc[j] = vc(c, j);
        dp[j] = vd(c, j);
    }
    for (int it = 0; it < iters(pers); it++) {
        for (int i = 0; i < sc; i++)
            s[i] = V(me, i, it);
        for (int i = 0; i < total; i++)
            r[i] = -1;
        if (v)
            POST(pers, it, req, MPI_Igatherv(s, sc, MPI_INT, r, rc, dp, MPI_INT, root, comm, &req),
                 MPI_Gatherv_init(s, sc, MPI_INT, r, rc, dp, MPI_INT, root, comm, MPI_INFO_NULL,
                                  &req));
        else
            POST(pers, it, req, MPI_Igather(s, c, MPI_INT, r, c, MPI_INT, root, comm, &req),
                 MPI_Gather_init(s, c, MPI_INT, r, c, MPI_INT, root, comm, MPI_INFO_NULL, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (me != root)
            continue;
        for (int j = 0; j < n; j++) {
            int bc = v ? rc[j] : c, bd = v ? dp[j] : j * c;
            for (int i = 0; i < bc; i++)
                EXPECT(r[bd + i], V(j, i, it), "gather%s count %d block %d i %d", v ? "v" : "", c,
                       j, i);
            if (v && j < n - 1)
                EXPECT(r[bd + bc], -1, "gatherv wrote into a gap");
        }
    }
    DONE(pers, req);
    free(s);
    free(r);
    free(rc);
    free(dp);
}

static void t_scatter(MPI_Comm comm, int c, int pers, int v)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int root = 0, rcnt = v ? vc(c, me) : c, total = v ? vd(c, n) : n * c;
    int *s = ialloc(total), *r = ialloc(rcnt), *sc = ialloc(n), *dp = ialloc(n);
    MPI_Request req = MPI_REQUEST_NULL;

    for (int j = 0; j < n; j++) {
        sc[j] = vc(c, j);
        dp[j] = vd(c, j);
    }
    for (int it = 0; it < iters(pers); it++) {
        for (int j = 0; j < n; j++) {
            int bc = v ? sc[j] : c, bd = v ? dp[j] : j * c;
            for (int i = 0; i < bc; i++)
                s[bd + i] = V(j, i, it);
        }
        for (int i = 0; i < rcnt; i++)
            r[i] = -1;
        if (v)
            POST(pers, it, req,
                 MPI_Iscatterv(s, sc, dp, MPI_INT, r, rcnt, MPI_INT, root, comm, &req),
                 MPI_Scatterv_init(s, sc, dp, MPI_INT, r, rcnt, MPI_INT, root, comm, MPI_INFO_NULL,
                                   &req));
        else
            POST(pers, it, req, MPI_Iscatter(s, c, MPI_INT, r, c, MPI_INT, root, comm, &req),
                 MPI_Scatter_init(s, c, MPI_INT, r, c, MPI_INT, root, comm, MPI_INFO_NULL, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < rcnt; i++)
            EXPECT(r[i], V(me, i, it), "scatter%s count %d i %d", v ? "v" : "", c, i);
    }
    DONE(pers, req);
    free(s);
    free(r);
    free(sc);
    free(dp);
}

static void t_allgather(MPI_Comm comm, int c, int pers, int v, int inplace)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int sc = v ? vc(c, me) : c, total = v ? vd(c, n) : n * c;
    int *s = ialloc(sc), *r = ialloc(total), *rc = ialloc(n), *dp = ialloc(n);
    MPI_Request req = MPI_REQUEST_NULL;

    for (int j = 0; j < n; j++) {
        rc[j] = vc(c, j);
        dp[j] = v ? vd(c, j) : j * c;
    }
    for (int it = 0; it < iters(pers); it++) {
        for (int i = 0; i < total; i++)
            r[i] = -1;
        for (int i = 0; i < sc; i++) {
            s[i] = V(me, i, it);
            if (inplace)
                r[dp[me] + i] = V(me, i, it);
        }
        const void *sb = inplace ? MPI_IN_PLACE : s;
        if (v)
            POST(pers, it, req, MPI_Iallgatherv(sb, sc, MPI_INT, r, rc, dp, MPI_INT, comm, &req),
                 MPI_Allgatherv_init(sb, sc, MPI_INT, r, rc, dp, MPI_INT, comm, MPI_INFO_NULL,
                                     &req));
        else
            POST(pers, it, req, MPI_Iallgather(sb, c, MPI_INT, r, c, MPI_INT, comm, &req),
                 MPI_Allgather_init(sb, c, MPI_INT, r, c, MPI_INT, comm, MPI_INFO_NULL, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int j = 0; j < n; j++) {
            int bc = v ? rc[j] : c;
            for (int i = 0; i < bc; i++)
                EXPECT(r[dp[j] + i], V(j, i, it), "allgather%s%s count %d block %d i %d",
                       v ? "v" : "", inplace ? " in place" : "", c, j, i);
        }
    }
    DONE(pers, req);
    free(s);
    free(r);
    free(rc);
    free(dp);
}

/* alltoall(v, w): rank me's block for j is V(me * n + j, ...), vc(c, me + j) elements in v/w. */
static void t_alltoall(MPI_Comm comm, int c, int pers, int kind, int inplace)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *sc = ialloc(n), *sd = ialloc(n), *rc = ialloc(n), *rd = ialloc(n), stot = 0, rtot = 0;
    MPI_Datatype *ty = xmalloc((size_t)n * sizeof(MPI_Datatype));
    MPI_Request req = MPI_REQUEST_NULL;

    for (int j = 0; j < n; j++) {
        sc[j] = kind ? vc(c, me + j) : c;
        rc[j] = kind ? vc(c, j + me) : c;
        sd[j] = stot;
        rd[j] = rtot;
        stot += sc[j] + (kind ? 1 : 0);
        rtot += rc[j] + (kind ? 1 : 0);
        ty[j] = MPI_INT;
    }
    if (inplace) { /* one buffer: the receive layout */
        for (int j = 0; j < n; j++) {
            sc[j] = rc[j];
            sd[j] = rd[j];
        }
        stot = rtot;
    }
    int *s = ialloc(stot), *r = ialloc(rtot), *sdb = ialloc(n), *rdb = ialloc(n);
    for (int j = 0; j < n; j++) {
        sdb[j] = sd[j] * (int)sizeof(int);
        rdb[j] = rd[j] * (int)sizeof(int);
    }
    for (int it = 0; it < iters(pers); it++) {
        int *fillb = inplace ? r : s;
        for (int i = 0; i < rtot; i++)
            r[i] = -1;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < sc[j]; i++)
                fillb[sd[j] + i] = V(me * n + j, i, it);
        const void *sb = inplace ? MPI_IN_PLACE : s;
        if (kind == 0)
            POST(pers, it, req, MPI_Ialltoall(sb, c, MPI_INT, r, c, MPI_INT, comm, &req),
                 MPI_Alltoall_init(sb, c, MPI_INT, r, c, MPI_INT, comm, MPI_INFO_NULL, &req));
        else if (kind == 1)
            POST(pers, it, req, MPI_Ialltoallv(sb, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, &req),
                 MPI_Alltoallv_init(sb, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, MPI_INFO_NULL,
                                    &req));
        else
            POST(pers, it, req, MPI_Ialltoallw(sb, sc, sdb, ty, r, rc, rdb, ty, comm, &req),
                 MPI_Alltoallw_init(sb, sc, sdb, ty, r, rc, rdb, ty, comm, MPI_INFO_NULL, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < rc[j]; i++)
                EXPECT(r[rd[j] + i], V(j * n + me, i, it),
                       "alltoall kind %d%s count %d from %d i %d", kind, inplace ? " in place" : "",
                       c, j, i);
            if (kind && j < n - 1)
                EXPECT(r[rd[j] + rc[j]], -1, "alltoallv/w wrote into a gap");
        }
    }
    DONE(pers, req);
    free(s);
    free(r);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sdb);
    free(rdb);
    free(ty);
}

static void t_reduce_scatter(MPI_Comm comm, int c, int pers, int block, int inplace)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int *rc = ialloc(n), total = 0, off = 0;
    MPI_Request req = MPI_REQUEST_NULL;

    for (int j = 0; j < n; j++) {
        rc[j] = block ? c : vc(c, j);
        if (j < me)
            off += rc[j];
        total += rc[j];
    }
    int *s = ialloc(total), *r = ialloc(inplace ? total : rc[me]);
    for (int it = 0; it < iters(pers); it++) {
        int *src = inplace ? r : s;
        for (int i = 0; i < rc[me]; i++)
            r[i] = -1;
        for (int i = 0; i < total; i++)
            src[i] = V(me, i, it);
        const void *sb = inplace ? MPI_IN_PLACE : s;
        if (block)
            POST(pers, it, req, MPI_Ireduce_scatter_block(sb, r, c, MPI_INT, MPI_SUM, comm, &req),
                 MPI_Reduce_scatter_block_init(sb, r, c, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                               &req));
        else
            POST(pers, it, req, MPI_Ireduce_scatter(sb, r, rc, MPI_INT, MPI_SUM, comm, &req),
                 MPI_Reduce_scatter_init(sb, r, rc, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < rc[me]; i++)
            EXPECT(r[i], sum_upto(n, off + i, it), "reduce_scatter%s%s count %d i %d",
                   block ? "_block" : "", inplace ? " in place" : "", c, i);
    }
    DONE(pers, req);
    free(s);
    free(r);
    free(rc);
}

static void t_scan(MPI_Comm comm, int c, int pers, int ex, int inplace)
{
    int me, n;
    MPI_Request req = MPI_REQUEST_NULL;
    int *s = ialloc(c), *r = ialloc(c);

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    for (int it = 0; it < iters(pers); it++) {
        for (int i = 0; i < c; i++) {
            s[i] = V(me, i, it);
            r[i] = inplace ? s[i] : -1;
        }
        const void *sb = inplace ? MPI_IN_PLACE : s;
        if (ex)
            POST(pers, it, req, MPI_Iexscan(sb, r, c, MPI_INT, MPI_SUM, comm, &req),
                 MPI_Exscan_init(sb, r, c, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req));
        else
            POST(pers, it, req, MPI_Iscan(sb, r, c, MPI_INT, MPI_SUM, comm, &req),
                 MPI_Scan_init(sb, r, c, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (ex && me == 0)
            continue; /* undefined there */
        for (int i = 0; i < c; i++)
            EXPECT(r[i], sum_upto(ex ? me : me + 1, i, it), "%sscan%s count %d i %d",
                   ex ? "ex" : "", inplace ? " in place" : "", c, i);
    }
    DONE(pers, req);
    free(s);
    free(r);
}

/* Every collective at every count, nonblocking (pers 0) or persistent (pers 1). */
static void all_calls(MPI_Comm comm, int pers)
{
    for (int k = 0; k < NCOUNTS; k++) {
        int c = counts[k];
        t_barrier(comm, c, pers);
        t_bcast(comm, c, pers);
        t_reduce(comm, c, pers);
        t_allreduce(comm, c, pers);
        t_gather(comm, c, pers, 0);
        t_gather(comm, c, pers, 1);
        t_scatter(comm, c, pers, 0);
        t_scatter(comm, c, pers, 1);
        t_allgather(comm, c, pers, 0, 0);
        t_allgather(comm, c, pers, 1, 0);
        for (int kind = 0; kind < 3; kind++)
            t_alltoall(comm, c, pers, kind, 0);
        t_reduce_scatter(comm, c, pers, 0, 0);
        t_reduce_scatter(comm, c, pers, 1, 0);
        t_scan(comm, c, pers, 0, 0);
        t_scan(comm, c, pers, 1, 0);
    }
}

static void test_nonblocking(void)
{
    all_calls(MPI_COMM_WORLD, 0);
}

static void test_persistent(void)
{
    all_calls(MPI_COMM_WORLD, 1);
}

static void test_inplace(void)
{
    for (int pers = 0; pers < 2; pers++) {
        for (int k = 0; k < NCOUNTS; k++) {
            int c = counts[k];
            t_allgather(MPI_COMM_WORLD, c, pers, 0, 1);
            t_allgather(MPI_COMM_WORLD, c, pers, 1, 1);
            for (int kind = 0; kind < 3; kind++)
                t_alltoall(MPI_COMM_WORLD, c, pers, kind, 1);
            t_reduce_scatter(MPI_COMM_WORLD, c, pers, 0, 1);
            t_reduce_scatter(MPI_COMM_WORLD, c, pers, 1, 1);
            t_scan(MPI_COMM_WORLD, c, pers, 0, 1);
            t_scan(MPI_COMM_WORLD, c, pers, 1, 1);
        }
    }
    /* Reduce, gather, scatter and allreduce in place. */
    for (int k = 0; k < NCOUNTS; k++) {
        int c = counts[k], root = size - 1;
        int *b = ialloc((long)c * size), *s = ialloc((long)c * size);
        MPI_Request req;
        for (int i = 0; i < c; i++)
            b[i] = V(rank, i, 3);
        OK(MPI_Iallreduce(MPI_IN_PLACE, b, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < c; i++)
            EXPECT(b[i], sum_upto(size, i, 3), "iallreduce in place");
        for (int i = 0; i < c; i++)
            b[i] = s[i] = V(rank, i, 4);
        OK(MPI_Ireduce(rank == root ? MPI_IN_PLACE : s, b, c, MPI_INT, MPI_SUM, root,
                       MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (rank == root)
            for (int i = 0; i < c; i++)
                EXPECT(b[i], sum_upto(size, i, 4), "ireduce in place");
        for (int i = 0; i < c * size; i++)
            b[i] = rank == root ? (i / (c ? c : 1) == rank ? V(rank, i % c, 5) : -1) : -1;
        for (int i = 0; i < c; i++)
            s[i] = V(rank, i, 5);
        OK(MPI_Igather(rank == root ? MPI_IN_PLACE : s, c, MPI_INT, b, c, MPI_INT, root,
                       MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (rank == root)
            for (int i = 0; i < c * size; i++)
                EXPECT(b[i], V(i / c, i % c, 5), "igather in place");
        for (int i = 0; i < c * size; i++)
            b[i] = V(i / (c ? c : 1), i % (c ? c : 1), 6);
        for (int i = 0; i < c; i++)
            s[i] = -1;
        OK(MPI_Iscatter(b, c, MPI_INT, rank == root ? MPI_IN_PLACE : s, c, MPI_INT, root,
                        MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        if (rank != root)
            for (int i = 0; i < c; i++)
                EXPECT(s[i], V(rank, i, 6), "iscatter in place");
        free(b);
        free(s);
    }
}

/* Many collectives outstanding at once on two communicators, with point-to-point traffic on
 * the same communicators under the same tags, completed in reverse, by Waitany and by
 * Testsome; a Request_free'd Ibarrier. */
static void test_outstanding(void)
{
    enum { C = 4099, NR = 12 };
    MPI_Comm dup;
    MPI_Request req[NR], p2p[4];
    int *bc[2], *ar[2], *ag[2], *a2a_s, *a2a_r, *ps, *pr, *scan;
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;

    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    for (int round = 0; round < 3; round++) {
        MPI_Comm cm[2] = {MPI_COMM_WORLD, dup};
        for (int k = 0; k < 2; k++) {
            bc[k] = ialloc(C);
            ar[k] = ialloc(C);
            ag[k] = ialloc((long)C * size);
        }
        a2a_s = ialloc((long)C * size);
        a2a_r = ialloc((long)C * size);
        ps = ialloc(2 * C);
        pr = ialloc(2 * C);
        scan = ialloc(C);
        int *mine = ialloc(C);
        for (int i = 0; i < C; i++)
            mine[i] = V(rank, i, round);
        int nr = 0;
        /* Point-to-point receives first, with any tag: they must never take a collective's
         * message. */
        OK(MPI_Irecv(pr, C, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &p2p[0]));
        OK(MPI_Irecv(pr + C, C, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &p2p[1]));
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < C; i++)
                bc[k][i] = rank == k % size ? V(k % size, i, round) : -1;
            OK(MPI_Ibcast(bc[k], C, MPI_INT, k % size, cm[k], &req[nr++]));
            OK(MPI_Iallreduce(mine, ar[k], C, MPI_INT, MPI_SUM, cm[k], &req[nr++]));
            OK(MPI_Iallgather(mine, C, MPI_INT, ag[k], C, MPI_INT, cm[k], &req[nr++]));
        }
        for (int j = 0; j < size; j++)
            for (int i = 0; i < C; i++)
                a2a_s[j * C + i] = V(rank * size + j, i, round);
        OK(MPI_Ialltoall(a2a_s, C, MPI_INT, a2a_r, C, MPI_INT, dup, &req[nr++]));
        OK(MPI_Iscan(mine, scan, C, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[nr++]));
        OK(MPI_Ibarrier(dup, &req[nr++]));
        for (int i = 0; i < 2 * C; i++)
            ps[i] = V(rank, i, 100 + round);
        OK(MPI_Isend(ps, C, MPI_INT, right, 0, MPI_COMM_WORLD, &p2p[2]));
        OK(MPI_Isend(ps + C, C, MPI_INT, right, 1, dup, &p2p[3]));
        /* A freed barrier still completes; the blocking barrier below orders after it. */
        MPI_Request fr;
        OK(MPI_Ibarrier(MPI_COMM_WORLD, &fr));
        OK(MPI_Request_free(&fr));
        CHECK(fr == MPI_REQUEST_NULL);
        if (round == 0) { /* reversed */
            for (int i = nr - 1; i >= 0; i--)
                OK(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        } else if (round == 1) {
            for (int k = 0; k < nr; k++) {
                int idx;
                OK(MPI_Waitany(nr, req, &idx, MPI_STATUS_IGNORE));
                CHECK(idx != MPI_UNDEFINED && req[idx] == MPI_REQUEST_NULL);
            }
            int idx;
            OK(MPI_Waitany(nr, req, &idx, MPI_STATUS_IGNORE));
            CHECK(idx == MPI_UNDEFINED);
        } else {
            int done = 0, outc, ind[NR];
            MPI_Status sts[NR];
            while (done < nr) {
                OK(MPI_Testsome(nr, req, &outc, ind, sts));
                if (outc != MPI_UNDEFINED)
                    done += outc;
            }
        }
        OK(MPI_Waitall(4, p2p, MPI_STATUSES_IGNORE));
        for (int i = 0; i < C; i++) {
            EXPECT(pr[i], V(left, i, 100 + round), "p2p on world beside collectives");
            EXPECT(pr[C + i], V(left, C + i, 100 + round), "p2p on dup beside collectives");
            EXPECT(scan[i], sum_upto(rank + 1, i, round), "iscan among others");
            for (int k = 0; k < 2; k++) {
                EXPECT(bc[k][i], V(k % size, i, round), "ibcast %d among others", k);
                EXPECT(ar[k][i], sum_upto(size, i, round), "iallreduce %d among others", k);
                for (int j = 0; j < size; j++)
                    EXPECT(ag[k][j * C + i], V(j, i, round), "iallgather %d among others", k);
            }
            for (int j = 0; j < size; j++)
                EXPECT(a2a_r[j * C + i], V(j * size + rank, i, round), "ialltoall among others");
        }
        OK(MPI_Barrier(MPI_COMM_WORLD));
        for (int k = 0; k < 2; k++) {
            free(bc[k]);
            free(ar[k]);
            free(ag[k]);
        }
        free(a2a_s);
        free(a2a_r);
        free(ps);
        free(pr);
        free(scan);
        free(mine);
    }
    /* Persistent requests started together (Startall), in a different order each time, with a
     * nonblocking one in between; inactive ones are null to Wait/Test. */
    {
        int a[64], b[64], x[64], y[64];
        MPI_Request pr2[2], nb;
        MPI_Status st;
        int flag;
        OK(MPI_Allreduce_init(a, b, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pr2[0]));
        OK(MPI_Bcast_init(x, 64, MPI_INT, 0, dup, MPI_INFO_NULL, &pr2[1]));
        OK(MPI_Wait(&pr2[0], &st)); /* inactive: returns at once, the handle stays */
        CHECK(pr2[0] != MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_ANY_SOURCE);
        OK(MPI_Test(&pr2[1], &flag, MPI_STATUS_IGNORE));
        CHECK(flag && pr2[1] != MPI_REQUEST_NULL);
        for (int it = 0; it < 20; it++) {
            for (int i = 0; i < 64; i++) {
                a[i] = V(rank, i, it);
                x[i] = rank == 0 ? V(0, i, it + 1) : -1;
                y[i] = V(rank, i, it + 2);
            }
            OK(MPI_Startall(2, pr2));
            OK(MPI_Iallreduce(MPI_IN_PLACE, y, 64, MPI_INT, MPI_SUM, dup, &nb));
            if (it % 2) {
                OK(MPI_Wait(&nb, MPI_STATUS_IGNORE));
                OK(MPI_Waitall(2, pr2, MPI_STATUSES_IGNORE));
            } else {
                OK(MPI_Wait(&pr2[1], MPI_STATUS_IGNORE));
                OK(MPI_Wait(&pr2[0], MPI_STATUS_IGNORE));
                OK(MPI_Wait(&nb, MPI_STATUS_IGNORE));
            }
            CHECK(pr2[0] != MPI_REQUEST_NULL && pr2[1] != MPI_REQUEST_NULL);
            for (int i = 0; i < 64; i++) {
                EXPECT(b[i], sum_upto(size, i, it), "persistent allreduce start %d", it);
                EXPECT(x[i], V(0, i, it + 1), "persistent bcast start %d", it);
                EXPECT(y[i], sum_upto(size, i, it + 2), "iallreduce between persistent");
            }
        }
        int idx;
        OK(MPI_Waitany(2, pr2, &idx, MPI_STATUS_IGNORE)); /* all inactive: as if null */
        CHECK(idx == MPI_UNDEFINED);
        OK(MPI_Request_free(&pr2[0]));
        OK(MPI_Request_free(&pr2[1]));
    }
    OK(MPI_Comm_free(&dup));
}

/* Derived datatypes: a vector (holes) of ints in bcast, allreduce, gather, alltoall; a type
 * freed while the operation is pending. */
static void test_derived(void)
{
    enum { N = 333 };
    MPI_Datatype vec, pair;
    MPI_Request req;
    int *b = ialloc(3 * N * size), *r = ialloc(3 * N * size);

    OK(MPI_Type_vector(N, 1, 3, MPI_INT, &vec)); /* N ints, stride 3 */
    OK(MPI_Type_commit(&vec));
    OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    OK(MPI_Type_commit(&pair));
    /* bcast of one vec, type freed before the wait */
    for (int i = 0; i < 3 * N; i++)
        b[i] = rank == 0 ? (i % 3 == 0 ? V(0, i / 3, 1) : -7) : -1;
    MPI_Datatype tmp;
    OK(MPI_Type_dup(vec, &tmp));
    OK(MPI_Ibcast(b, 1, tmp, 0, MPI_COMM_WORLD, &req));
    OK(MPI_Type_free(&tmp));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3 * N; i++)
        EXPECT(b[i], i % 3 == 0 ? V(0, i / 3, 1) : (rank == 0 ? -7 : -1), "ibcast vector i %d", i);
    /* allreduce: vec is all MPI_INT, so MPI_SUM applies; holes untouched */
    for (int i = 0; i < 3 * N; i++) {
        b[i] = i % 3 == 0 ? V(rank, i / 3, 2) : -3;
        r[i] = -4;
    }
    OK(MPI_Iallreduce(b, r, 1, vec, MPI_SUM, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < 3 * N; i++)
        EXPECT(r[i], i % 3 == 0 ? sum_upto(size, i / 3, 2) : -4, "iallreduce vector i %d", i);
    /* gather: send N ints contiguous, receive as vec (one per rank, extent 3N - 2 ints) */
    MPI_Datatype vr;
    OK(MPI_Type_create_resized(vec, 0, (MPI_Aint)(3 * N) * (MPI_Aint)sizeof(int), &vr));
    OK(MPI_Type_commit(&vr));
    for (int i = 0; i < N; i++)
        b[i] = V(rank, i, 3);
    for (int i = 0; i < 3 * N * size; i++)
        r[i] = -5;
    OK(MPI_Igather(b, N, MPI_INT, r, 1, vr, 0, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (rank == 0)
        for (int i = 0; i < 3 * N * size; i++)
            EXPECT(r[i], i % 3 == 0 ? V(i / (3 * N), (i % (3 * N)) / 3, 3) : -5, "igather vector");
    /* alltoall in pairs, persistent */
    MPI_Request pq;
    OK(MPI_Alltoall_init(b, N / 2, pair, r, 2 * (N / 2), MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &pq));
    for (int it = 0; it < 4; it++) {
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 2 * (N / 2); i++)
                b[j * 2 * (N / 2) + i] = V(rank * size + j, i, it);
        OK(MPI_Start(&pq));
        OK(MPI_Wait(&pq, MPI_STATUS_IGNORE));
        for (int j = 0; j < size; j++)
            for (int i = 0; i < 2 * (N / 2); i++)
                EXPECT(r[j * 2 * (N / 2) + i], V(j * size + rank, i, it), "alltoall_init pairs");
    }
    OK(MPI_Request_free(&pq));
    OK(MPI_Type_free(&vr));
    OK(MPI_Type_free(&vec));
    OK(MPI_Type_free(&pair));
    free(b);
    free(r);
}

/* A non-commutative op: affine maps x -> a x + b (mod 2^32) composed; (f op g) = g after f. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    unsigned *f = in, *g = inout;
    (void)dt;
    for (int i = 0; i < *len; i++) {
        unsigned a = g[2 * i] * f[2 * i], b = g[2 * i] * f[2 * i + 1] + g[2 * i + 1];
        g[2 * i] = a;
        g[2 * i + 1] = b;
    }
}

static void affine_of(int r, int i, int s, unsigned *ab)
{
    ab[0] = 2u * (unsigned)(r * 7 + i + s) + 1u;
    ab[1] = (unsigned)(r * 31 + i * 3 + s);
}

/* maps of ranks lo .. hi - 1 composed in order (lo applied first) */
static void affine_range(int lo, int hi, int i, int s, unsigned *ab)
{
    ab[0] = 1;
    ab[1] = 0;
    for (int r = lo; r < hi; r++) {
        unsigned f[2];
        affine_of(r, i, s, f);
        unsigned a = f[0] * ab[0], b = f[0] * ab[1] + f[1];
        ab[0] = a;
        ab[1] = b;
    }
}

static void test_noncommutative(void)
{
    MPI_Op op;
    MPI_Datatype t;
    enum { C = 1001 };
    unsigned *s = xmalloc(2 * C * sizeof(unsigned) * (size_t)size),
             *r = xmalloc(2 * C * sizeof(unsigned) * (size_t)size), want[2];
    MPI_Request req;

    OK(MPI_Op_create(affine, 0, &op));
    OK(MPI_Type_contiguous(2, MPI_UNSIGNED, &t));
    OK(MPI_Type_commit(&t));
    for (int pers = 0; pers < 2; pers++) {
        for (int it = 0; it < 3; it++) {
            for (int root = 0; root < size; root++) {
                for (int i = 0; i < C; i++)
                    affine_of(rank, i, it, &s[2 * i]);
                if (pers) {
                    OK(MPI_Reduce_init(s, r, C, t, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                    OK(MPI_Start(&req));
                    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
                    OK(MPI_Request_free(&req));
                } else {
                    OK(MPI_Ireduce(s, r, C, t, op, root, MPI_COMM_WORLD, &req));
                    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
                }
                if (rank == root)
                    for (int i = 0; i < C; i++) {
                        affine_range(0, size, i, it, want);
                        EXPECT(r[2 * i], want[0], "ireduce non-commutative root %d", root);
                        EXPECT(r[2 * i + 1], want[1], "ireduce non-commutative root %d", root);
                    }
            }
            OK(MPI_Iallreduce(s, r, C, t, op, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < C; i++) {
                affine_range(0, size, i, it, want);
                EXPECT(r[2 * i], want[0], "iallreduce non-commutative");
                EXPECT(r[2 * i + 1], want[1], "iallreduce non-commutative");
            }
            for (int ex = 0; ex < 2; ex++) {
                if (ex)
                    OK(MPI_Iexscan(s, r, C, t, op, MPI_COMM_WORLD, &req));
                else
                    OK(MPI_Iscan(s, r, C, t, op, MPI_COMM_WORLD, &req));
                OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
                if (ex && rank == 0)
                    continue;
                for (int i = 0; i < C; i++) {
                    affine_range(0, ex ? rank : rank + 1, i, it, want);
                    EXPECT(r[2 * i], want[0], "%sscan non-commutative", ex ? "ex" : "");
                    EXPECT(r[2 * i + 1], want[1], "%sscan non-commutative", ex ? "ex" : "");
                }
            }
            /* reduce_scatter_block: block b of the vector, C / size maps each */
            int bc = C / size;
            for (int i = 0; i < bc * size; i++)
                affine_of(rank, i, it, &s[2 * i]);
            OK(MPI_Ireduce_scatter_block(s, r, bc, t, op, MPI_COMM_WORLD, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < bc; i++) {
                affine_range(0, size, rank * bc + i, it, want);
                EXPECT(r[2 * i], want[0], "ireduce_scatter_block non-commutative");
                EXPECT(r[2 * i + 1], want[1], "ireduce_scatter_block non-commutative");
            }
        }
    }
    /* Freed while pending: the op lives until the collective is done. */
    for (int i = 0; i < C; i++)
        affine_of(rank, i, 9, &s[2 * i]);
    MPI_Op op2;
    OK(MPI_Op_create(affine, 0, &op2));
    OK(MPI_Iallreduce(s, r, C, t, op2, MPI_COMM_WORLD, &req));
    OK(MPI_Op_free(&op2));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int i = 0; i < C; i++) {
        affine_range(0, size, i, 9, want);
        EXPECT(r[2 * i], want[0], "iallreduce with a freed op");
    }
    OK(MPI_Op_free(&op));
    OK(MPI_Type_free(&t));
    free(s);
    free(r);
}

/* Neighbourhood collectives on a periodic ring (size 1 and 2: both neighbours are one rank). */
static void test_neighbor(void)
{
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1}, src, dst;
    enum { C = 2001 };
    int *s = ialloc(2 * C), *r = ialloc(2 * C + 1), sc[2] = {C, C - 1}, sd[2] = {0, C},
        rc[2] = {C - 1, C}, rd[2] = {0, C + 1};
    MPI_Aint sb[2] = {0, C * (MPI_Aint)sizeof(int)}, rb[2] = {0, (C + 1) * (MPI_Aint)sizeof(int)};
    MPI_Datatype ty[2] = {MPI_INT, MPI_INT};
    MPI_Request req;

    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    OK(MPI_Cart_shift(ring, 0, 1, &src, &dst)); /* src: at -1, dst: at +1 */
    for (int pers = 0; pers < 2; pers++) {
        for (int it = 0; it < 3; it++) {
            for (int i = 0; i < 2 * C; i++)
                s[i] = V(rank, i, it);
            for (int i = 0; i < 2 * C + 1; i++)
                r[i] = -1;
            if (!pers)
                OK(MPI_Ineighbor_allgather(s, C, MPI_INT, r, C, MPI_INT, ring, &req));
            else {
                OK(MPI_Neighbor_allgather_init(s, C, MPI_INT, r, C, MPI_INT, ring, MPI_INFO_NULL,
                                               &req));
                OK(MPI_Start(&req));
            }
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            if (pers)
                OK(MPI_Request_free(&req));
            for (int i = 0; i < C; i++) {
                EXPECT(r[i], V(src, i, it), "ineighbor_allgather from -1");
                EXPECT(r[C + i], V(dst, i, it), "ineighbor_allgather from +1");
            }
            /* alltoall: block 0 goes to -1, block 1 to +1; from -1 comes its block 1 */
            OK(MPI_Ineighbor_alltoall(s, C, MPI_INT, r, C, MPI_INT, ring, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < C; i++) {
                EXPECT(r[i], V(src, C + i, it), "ineighbor_alltoall from -1");
                EXPECT(r[C + i], V(dst, i, it), "ineighbor_alltoall from +1");
            }
            for (int i = 0; i < 2 * C + 1; i++)
                r[i] = -1;
            /* v: towards -1 C ints, towards +1 C - 1; so from -1 come C - 1, from +1 C */
            if (!pers)
                OK(MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ring, &req));
            else {
                OK(MPI_Neighbor_alltoallv_init(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ring,
                                               MPI_INFO_NULL, &req));
                OK(MPI_Start(&req));
            }
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            if (pers)
                OK(MPI_Request_free(&req));
            for (int i = 0; i < C - 1; i++)
                EXPECT(r[i], V(src, C + i, it), "ineighbor_alltoallv from -1");
            EXPECT(r[C - 1], -1, "ineighbor_alltoallv wrote past a block");
            EXPECT(r[C], -1, "ineighbor_alltoallv wrote into the gap");
            for (int i = 0; i < C; i++)
                EXPECT(r[C + 1 + i], V(dst, i, it), "ineighbor_alltoallv from +1");
            for (int i = 0; i < 2 * C + 1; i++)
                r[i] = -1;
            OK(MPI_Ineighbor_alltoallw(s, sc, sb, ty, r, rc, rb, ty, ring, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < C - 1; i++)
                EXPECT(r[i], V(src, C + i, it), "ineighbor_alltoallw from -1");
            for (int i = 0; i < C; i++)
                EXPECT(r[C + 1 + i], V(dst, i, it), "ineighbor_alltoallw from +1");
            /* allgatherv: C - 1 from -1 at 0, C from +1 at C + 1 ... counts must match: C */
            int gc[2] = {C, C}, gd[2] = {C + 1, 0};
            for (int i = 0; i < 2 * C + 1; i++)
                r[i] = -1;
            OK(MPI_Ineighbor_allgatherv(s, C, MPI_INT, r, gc, gd, MPI_INT, ring, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            for (int i = 0; i < C; i++) {
                EXPECT(r[C + 1 + i], V(src, i, it), "ineighbor_allgatherv from -1");
                EXPECT(r[i], V(dst, i, it), "ineighbor_allgatherv from +1");
            }
        }
    }
    /* Persistent w and allgatherv, restarted. */
    MPI_Request pw;
    OK(MPI_Neighbor_alltoallw_init(s, sc, sb, ty, r, rc, rb, ty, ring, MPI_INFO_NULL, &pw));
    for (int it = 0; it < 5; it++) {
        for (int i = 0; i < 2 * C; i++)
            s[i] = V(rank, i, 50 + it);
        OK(MPI_Start(&pw));
        OK(MPI_Wait(&pw, MPI_STATUS_IGNORE));
        for (int i = 0; i < C; i++)
            EXPECT(r[C + 1 + i], V(dst, i, 50 + it), "neighbor_alltoallw_init from +1");
    }
    OK(MPI_Request_free(&pw));
    OK(MPI_Comm_free(&ring));
    free(s);
    free(r);
}

/* MPI_Comm_idup: several outstanding, on different parents, with a blocking dup and traffic in
 * between; the new communicators work and are distinct. */
static void test_idup(void)
{
    MPI_Comm d[4], half, blocking;
    MPI_Request req[4];
    MPI_Info info;

    OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    for (int round = 0; round < 3; round++) {
        OK(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &req[0]));
        OK(MPI_Comm_idup(half, &d[1], &req[1]));
        OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &d[2], &req[2]));
        /* Late ranks: rank 0 sleeps, the others go on to a blocking dup of another comm. */
        if (rank == 0)
            sleep_ms(20);
        OK(MPI_Comm_dup(half, &blocking));
        OK(MPI_Comm_idup(blocking, &d[3], &req[3]));
        OK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 4; k++) {
            int res, x = rank, y = -1, hsize;
            CHECK(d[k] != MPI_COMM_NULL);
            OK(MPI_Comm_compare(d[k], k == 0 || k == 2 ? MPI_COMM_WORLD : half, &res));
            CHECK(res == MPI_CONGRUENT);
            OK(MPI_Comm_size(d[k], &hsize));
            OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, d[k]));
            int want = k == 0 || k == 2 ? size - 1 : (size - 1) - ((size - 1) % 2 != rank % 2);
            EXPECT(y, want, "allreduce on the idup'ed communicator %d", k);
        }
        MPI_Info got;
        char v[16];
        int flag;
        OK(MPI_Comm_get_info(d[2], &got));
        OK(MPI_Info_get(got, "mpi_assert_no_any_tag", sizeof(v), v, &flag));
        CHECK(flag && strcmp(v, "true") == 0);
        OK(MPI_Info_free(&got));
        for (int k = 0; k < 4; k++)
            OK(MPI_Comm_free(&d[k]));
        OK(MPI_Comm_free(&blocking));
    }
    OK(MPI_Info_free(&info));
    OK(MPI_Comm_free(&half));
}

static void test_errors(void)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int a[4] = {0}, b[4], cls, rc;

    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Ibcast(a, 4, MPI_INT, size, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_ROOT, "Ibcast with a bad root");
    CHECK(req == MPI_REQUEST_NULL);
    rc = MPI_Iallreduce(a, b, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_OP, "Iallreduce with MPI_OP_NULL");
    rc = MPI_Iallreduce(a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_COUNT, "Iallreduce with count -1");
    rc = MPI_Iallreduce(a, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_BUFFER, "Iallreduce aliased");
    rc = MPI_Ibarrier(MPI_COMM_WORLD, NULL);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_REQUEST, "Ibarrier with request NULL");
    rc = MPI_Ibarrier(MPI_COMM_NULL, &req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_COMM, "Ibarrier on MPI_COMM_NULL");
    rc = MPI_Ialltoall(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_TYPE, "Ialltoall with MPI_DATATYPE_NULL");
    rc = MPI_Ineighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_TOPOLOGY, "Ineighbor_allgather without a topology");
    rc = MPI_Barrier_init(MPI_COMM_WORLD, (MPI_Info)(void *)&rc, &req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_INFO, "Barrier_init with a bad info");
    /* Any info is accepted. */
    MPI_Info info;
    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "some_key", "some_value"));
    OK(MPI_Barrier_init(MPI_COMM_WORLD, info, &req));
    OK(MPI_Info_free(&info));
    /* Starting an active one, cancelling a collective. */
    OK(MPI_Start(&req));
    rc = MPI_Start(&req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_REQUEST, "MPI_Start of an active request");
    rc = MPI_Cancel(&req);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_REQUEST, "MPI_Cancel of a collective request");
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    OK(MPI_Request_free(&req));
    MPI_Request nb;
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &nb));
    rc = MPI_Start(&nb);
    MPI_Error_class(rc, &cls);
    EXPECT(cls, MPI_ERR_REQUEST, "MPI_Start of a nonblocking collective's request");
    OK(MPI_Wait(&nb, MPI_STATUS_IGNORE));
    /* A truncation reported through the request: the roots' counts disagree. */
    int big[8];
    OK(MPI_Ibcast(big, rank == 0 ? 8 : 4, MPI_INT, 0, MPI_COMM_WORLD, &nb));
    rc = MPI_Wait(&nb, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    /* The root's children get too much (others get 4 ints from a child): no rank hangs. */
    CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE);
    int trunc = rc != MPI_SUCCESS, any = 0;
    OK(MPI_Allreduce(&trunc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    EXPECT(any, size > 1, "Ibcast into a buffer too short: no MPI_ERR_TRUNCATE");
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Schedules progress from any call that progresses: a rank that only calls MPI_Iprobe, or
 * MPI_Test on another request, sees its Iallreduce finish (its result appears), and then the
 * request is complete. */
static void test_progress(void)
{
    for (int way = 0; way < 2; way++) {
        int x[3] = {rank + 1, rank, 1}, y[3] = {0, 0, 0}, pending = -1, flag;
        const int want = size * (size + 1) / 2;
        MPI_Request req, other;
        double t0 = MPI_Wtime();

        OK(MPI_Irecv(&pending, 1, MPI_INT, rank, 4242, MPI_COMM_WORLD, &other));
        OK(MPI_Iallreduce(x, y, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req));
        while (((volatile int *)y)[0] != want) {
            if (way == 0)
                OK(MPI_Iprobe(MPI_ANY_SOURCE, 777, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            else
                OK(MPI_Test(&other, &flag, MPI_STATUS_IGNORE));
            CHECK(flag == 0);
            if (MPI_Wtime() - t0 > 60)
                FAIL("Iallreduce made no progress from MPI_%s", way ? "Test" : "Iprobe");
        }
        OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(flag && req == MPI_REQUEST_NULL);
        EXPECT(y[1], size * (size - 1) / 2, "iallreduce progressed by other calls");
        EXPECT(y[2], size, "iallreduce progressed by other calls");
        int one = 1;
        OK(MPI_Send(&one, 1, MPI_INT, rank, 4242, MPI_COMM_WORLD));
        OK(MPI_Wait(&other, MPI_STATUS_IGNORE));
        EXPECT(pending, 1, "the other request");
    }
}

/* The long-message algorithms (Rabenseifner's and the ring allreduce, the scatter-allgather
 * bcast; nbc.sh forces each through VBT_COLL_*), written once as schedules and run by the
 * blocking, nonblocking and persistent calls alike: odd counts from below the group size
 * (empty blocks) to above the ring's switch point, every root, in place, a derived type with
 * holes, several outstanding at once completed in reverse order. */
static const int long_counts[] = {3, 13, 1001, 70001, 140001};
#define NLONG ((int)(sizeof(long_counts) / sizeof(long_counts[0])))

static void long_bcast(int c, int root, int way)
{
    int *buf = ialloc(c);
    MPI_Request req = MPI_REQUEST_NULL;

    for (int it = 0; it < (way == 2 ? 3 : 1); it++) {
        for (int i = 0; i < c; i++)
            buf[i] = rank == root ? V(root, i, it + way) : -1;
        if (way == 0) {
            OK(MPI_Bcast(buf, c, MPI_INT, root, MPI_COMM_WORLD));
        } else {
            POST(way == 2, it, req, MPI_Ibcast(buf, c, MPI_INT, root, MPI_COMM_WORLD, &req),
                 MPI_Bcast_init(buf, c, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < c; i++)
            EXPECT(buf[i], V(root, i, it + way), "long bcast (way %d) count %d root %d i %d", way,
                   c, root, i);
    }
    DONE(way == 2, req);
    free(buf);
}

static void long_allreduce(int c, int way, int inplace)
{
    int *s = ialloc(c), *r = ialloc(c);
    MPI_Request req = MPI_REQUEST_NULL;
    const void *sb = inplace ? MPI_IN_PLACE : s;

    for (int it = 0; it < (way == 2 ? 3 : 1); it++) {
        for (int i = 0; i < c; i++) {
            s[i] = V(rank, i, it + way);
            r[i] = inplace ? s[i] : -1;
        }
        if (way == 0) {
            OK(MPI_Allreduce(sb, r, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        } else {
            POST(way == 2, it, req,
                 MPI_Iallreduce(sb, r, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req),
                 MPI_Allreduce_init(sb, r, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &req));
            OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < c; i++) {
            EXPECT(r[i], sum_upto(size, i, it + way), "long allreduce (way %d%s) count %d i %d",
                   way, inplace ? ", in place" : "", c, i);
            if (!inplace)
                EXPECT(s[i], V(rank, i, it + way), "long allreduce changed sendbuf");
        }
    }
    DONE(way == 2, req);
    free(s);
    free(r);
}

/* c pairs of ints with a hole after each (vector 2 x 1 stride 2, resized to 3 ints): the root
 * of a bcast sends c pairs, the others receive 2c plain ints (the same type signature); an
 * allreduce of c pairs leaves the holes alone. */
static void long_derived(int c)
{
    MPI_Datatype vec, pair;
    int *a = ialloc(3L * c), *b = ialloc(3L * c), root = c % size;
    MPI_Request req;

    OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    OK(MPI_Type_create_resized(vec, 0, 3 * (MPI_Aint)sizeof(int), &pair));
    OK(MPI_Type_commit(&pair));
    OK(MPI_Type_free(&vec));
    for (long i = 0; i < 3L * c; i++)
        a[i] = rank == root && i % 3 != 1 ? V(root, i, 5) : -3;
    if (rank == root)
        OK(MPI_Ibcast(a, c, pair, root, MPI_COMM_WORLD, &req));
    else
        OK(MPI_Ibcast(a, 2 * c, MPI_INT, root, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (long k = 0; k < 2L * c; k++) {
        long i = k / 2 * 3 + (k % 2) * 2; /* the k-th int of the pairs at the root */
        if (rank == root)
            EXPECT(a[i], V(root, i, 5), "long bcast of pairs, root, int %ld", k);
        else
            EXPECT(a[k], V(root, i, 5), "long bcast of pairs into ints, int %ld", k);
    }
    for (long i = 0; i < 3L * c; i++) {
        a[i] = i % 3 == 1 ? -3 : V(rank, i, 6);
        b[i] = -4;
    }
    OK(MPI_Allreduce(a, b, c, pair, MPI_SUM, MPI_COMM_WORLD));
    for (long i = 0; i < 3L * c; i++)
        EXPECT(b[i], i % 3 == 1 ? -4 : sum_upto(size, i, 6), "long allreduce of pairs i %ld", i);
    for (long i = 0; i < 3L * c; i++)
        b[i] = -4;
    OK(MPI_Iallreduce(a, b, c, pair, MPI_SUM, MPI_COMM_WORLD, &req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (long i = 0; i < 3L * c; i++)
        EXPECT(b[i], i % 3 == 1 ? -4 : sum_upto(size, i, 6), "long iallreduce of pairs i %ld", i);
    OK(MPI_Type_free(&pair));
    free(a);
    free(b);
}

/* A long ibcast, a long and a short iallreduce, a blocking long allreduce in between, all
 * outstanding together and waited for in reverse order. */
static void long_outstanding(int c)
{
    int *bc = ialloc(c), *s = ialloc(c), *r1 = ialloc(c), *r2 = ialloc(c), x = rank + 1, y = 0;
    int root = size - 1;
    MPI_Request req[3];

    for (int i = 0; i < c; i++) {
        bc[i] = rank == root ? V(root, i, 8) : -1;
        s[i] = V(rank, i, 8);
        r1[i] = r2[i] = -1;
    }
    OK(MPI_Ibcast(bc, c, MPI_INT, root, MPI_COMM_WORLD, &req[0]));
    OK(MPI_Iallreduce(s, r1, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]));
    OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[2]));
    OK(MPI_Allreduce(s, r2, c, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int k = 2; k >= 0; k--)
        OK(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    EXPECT(y, size * (size + 1) / 2, "short iallreduce among long ones");
    for (int i = 0; i < c; i++) {
        EXPECT(bc[i], V(root, i, 8), "outstanding long ibcast i %d", i);
        EXPECT(r1[i], sum_upto(size, i, 8), "outstanding long iallreduce i %d", i);
        EXPECT(r2[i], sum_upto(size, i, 8), "blocking long allreduce among others i %d", i);
    }
    free(bc);
    free(s);
    free(r1);
    free(r2);
}

static void test_long(void)
{
    const char *cap = getenv("NBC_LONG_MAX"); /* nbc.sh: fewer ints in slow environments */
    long max = cap != NULL ? atol(cap) : 1L << 30;

    for (int k = 0; k < NLONG; k++) {
        int c = long_counts[k];
        if (c > max)
            continue;
        for (int root = 0; root<size; root += c> 100000 ? 3 : 1)
            for (int way = 0; way < 3; way++)
                long_bcast(c, root, way);
        for (int way = 0; way < 3; way++) {
            long_allreduce(c, way, 0);
            long_allreduce(c, way, 1);
        }
        long_derived(c);
        long_outstanding(c);
    }
}

static const mpitest_t tests[] = {
    {"nonblocking", test_nonblocking},
    {"persistent", test_persistent},
    {"inplace", test_inplace},
    {"outstanding", test_outstanding},
    {"derived", test_derived},
    {"noncommutative", test_noncommutative},
    {"neighbor", test_neighbor},
    {"idup", test_idup},
    {"errors", test_errors},
    {"progress", test_progress},
    {"long", test_long},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
