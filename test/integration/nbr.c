/* Neighborhood collectives (MPI_Neighbor_allgather, _allgatherv, _alltoall, _alltoallv,
 * _alltoallw) over Cartesian grids (1-D and 2-D, periodic or not, with periodic dimensions of
 * size 1 and 2 where a rank is the same neighbour twice), a graph and a distributed graph with
 * asymmetric, repeated and self edges. Every rank computes every rank's neighbour lists itself
 * (not through the library), so that it knows which block of which sender each of its receive
 * blocks must hold: element e of block j from rank s is val(s, j, e). Receive buffers start
 * full of SENTINEL, and the whole buffer is compared, so gaps and the blocks of MPI_PROC_NULL
 * neighbours must stay untouched. Usage: nbr TEST... (cart1d cart2d graph distgraph big errors,
 * or all). */
#define MPITEST_NAME "nbr"
#include "mpitest.h"

#define SENTINEL (-7)
#define MAXDEG   16
#define C        3 /* elements per block of allgather and alltoall */

typedef struct {
    int kind; /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    int ndims, dims[3], periods[3];
    int n; /* ranks in the topology */
    char name[64];
} topo_t;

static int val(int s, int j, int e)
{
    return 1 + s * 100000 + j * 1000 + e;
}

/* Elements in block j from rank s in the v and w tests (0 to 3). */
static int cnt(int s, int j)
{
    return (s * 3 + j) % 4;
}

static int cart_neighbor(const topo_t *t, int r, int d, int disp)
{
    int coords[3], rr = 0;

    for (int k = t->ndims - 1, q = r; k >= 0; k--) {
        coords[k] = q % t->dims[k];
        q /= t->dims[k];
    }
    coords[d] += disp;
    if (coords[d] < 0 || coords[d] >= t->dims[d]) {
        if (!t->periods[d])
            return MPI_PROC_NULL;
        coords[d] = (coords[d] + t->dims[d]) % t->dims[d];
    }
    for (int k = 0; k < t->ndims; k++)
        rr = rr * t->dims[k] + coords[k];
    return rr;
}

/* Out-edges of rank r in the distributed graph: asymmetric (r -> r+1 without r+1 -> r unless
 * the ring is short), repeated (r -> r+1 twice), self edges, and a rank without out-edges. */
static int dist_out(const topo_t *t, int r, int *out)
{
    int n = t->n, k = 0;

    if (n > 2 && r == n - 1)
        return 0;
    out[k++] = (r + 1) % n;
    if (r % 3 == 0)
        out[k++] = r;
    out[k++] = (r + 1) % n;
    if (r % 2 == 0)
        out[k++] = (r + 3) % n;
    return k;
}

/* The neighbour lists of rank r, as MPI orders them. */
static void lists(const topo_t *t, int r, int *indeg, int *in, int *outdeg, int *out)
{
    *indeg = *outdeg = 0;
    if (t->kind == MPI_CART) {
        for (int d = 0; d < t->ndims; d++) {
            in[(*indeg)++] = cart_neighbor(t, r, d, -1);
            in[(*indeg)++] = cart_neighbor(t, r, d, +1);
        }
    } else if (t->kind == MPI_GRAPH) {
        in[(*indeg)++] = (r + t->n - 1) % t->n;
        in[(*indeg)++] = (r + 1) % t->n;
    } else {
        int o[MAXDEG];

        *outdeg = dist_out(t, r, out);
        /* Sources from the highest rank down: an order unlike the destinations'. */
        for (int s = t->n - 1; s >= 0; s--) {
            int k = dist_out(t, s, o);
            for (int x = 0; x < k; x++)
                if (o[x] == r)
                    in[(*indeg)++] = s;
        }
        return;
    }
    *outdeg = *indeg;
    memcpy(out, in, sizeof(int) * (size_t)*indeg);
}

/* The block of in[i] that lands in my receive block i (-1 for MPI_PROC_NULL): a Cartesian
 * shift pairs the block sent towards -1 with the one received from +1; a graph pairs the k-th
 * edge from s to me with the k-th occurrence of s among my sources. */
static int sender_block(const topo_t *t, int me, const int *in, int i)
{
    int o[MAXDEG], od, id, k = 0, s = in[i];
    int tin[MAXDEG];

    if (s == MPI_PROC_NULL)
        return -1;
    if (t->kind == MPI_CART)
        return i ^ 1;
    for (int x = 0; x < i; x++)
        k += in[x] == s;
    lists(t, s, &id, tin, &od, o);
    for (int j = 0; j < od; j++)
        if (o[j] == me && k-- == 0)
            return j;
    FAIL("%s: no edge from %d to %d for receive block %d", t->name, s, me, i);
    return -1;
}

static MPI_Comm make_comm(const topo_t *t)
{
    MPI_Comm c = MPI_COMM_NULL;

    if (t->kind == MPI_CART) {
        CHECK(MPI_Cart_create(MPI_COMM_WORLD, t->ndims, t->dims, t->periods, 0, &c) == MPI_SUCCESS);
    } else if (t->kind == MPI_GRAPH) {
        int index[64], edges[128];
        for (int r = 0; r < t->n; r++) {
            index[r] = 2 * (r + 1);
            edges[2 * r] = (r + t->n - 1) % t->n;
            edges[2 * r + 1] = (r + 1) % t->n;
        }
        CHECK(MPI_Graph_create(MPI_COMM_WORLD, t->n, index, edges, 0, &c) == MPI_SUCCESS);
    } else {
        int in[MAXDEG], out[MAXDEG], id, od;
        lists(t, rank, &id, in, &od, out);
        CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, id, in, MPI_UNWEIGHTED, od, out,
                                             MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c) == MPI_SUCCESS);
    }
    return c;
}

static void compare(const topo_t *t, const char *call, const int *got, const int *want, int len)
{
    for (int x = 0; x < len; x++)
        if (got[x] != want[x])
            FAIL("%s on %s: element %d is %d, expected %d%s", call, t->name, x, got[x], want[x],
                 want[x] == SENTINEL ? " (a gap or MPI_PROC_NULL block: must stay untouched)" : "");
}

static int *filled(int len)
{
    int *b = xmalloc(sizeof(int) * (size_t)len);
    for (int x = 0; x < len; x++)
        b[x] = SENTINEL;
    return b;
}

/* All five collectives on one topology; ranks outside it (MPI_COMM_NULL) only wait. */
static void run_topo(topo_t *t)
{
    int me, in[MAXDEG], out[MAXDEG], id, od, blk[MAXDEG];
    int sbuf[MAXDEG * 8], scounts[MAXDEG], sdispls[MAXDEG], rcounts[MAXDEG], rdispls[MAXDEG];
    MPI_Aint sbd[MAXDEG], rbd[MAXDEG];
    MPI_Datatype stypes[MAXDEG], rtypes[MAXDEG], strided;
    MPI_Comm c = make_comm(t);
    int len, *got, *want;

    if (c == MPI_COMM_NULL)
        return;
    CHECK(MPI_Comm_rank(c, &me) == MPI_SUCCESS);
    lists(t, me, &id, in, &od, out);
    for (int i = 0; i < id; i++)
        blk[i] = sender_block(t, me, in, i);

    /* allgather: my one block to every destination, block i from in[i]. */
    for (int e = 0; e < C; e++)
        sbuf[e] = val(me, 0, e);
    len = id * C + 2;
    got = filled(len);
    want = filled(len);
    for (int i = 0; i < id; i++)
        for (int e = 0; e < C && blk[i] >= 0; e++)
            want[i * C + e] = val(in[i], 0, e);
    CHECK(MPI_Neighbor_allgather(sbuf, C, MPI_INT, got, C, MPI_INT, c) == MPI_SUCCESS);
    compare(t, "MPI_Neighbor_allgather", got, want, len);
    free(got);
    free(want);

    /* allgatherv: s sends s % 3 + 1 elements; block i at 5 * i + 1, gaps between. */
    len = id * 5 + 2;
    got = filled(len);
    want = filled(len);
    for (int i = 0; i < id; i++) {
        rcounts[i] = blk[i] >= 0 ? in[i] % 3 + 1 : 2;
        rdispls[i] = 5 * i + 1;
        for (int e = 0; e < rcounts[i] && blk[i] >= 0; e++)
            want[rdispls[i] + e] = val(in[i], 0, e);
    }
    CHECK(MPI_Neighbor_allgatherv(sbuf, me % 3 + 1, MPI_INT, got, rcounts, rdispls, MPI_INT, c) ==
          MPI_SUCCESS);
    compare(t, "MPI_Neighbor_allgatherv", got, want, len);
    free(got);
    free(want);

    /* alltoall: block j to out[j]. */
    for (int j = 0; j < od; j++)
        for (int e = 0; e < C; e++)
            sbuf[j * C + e] = val(me, j, e);
    len = id * C + 2;
    got = filled(len);
    want = filled(len);
    for (int i = 0; i < id; i++)
        for (int e = 0; e < C && blk[i] >= 0; e++)
            want[i * C + e] = val(in[i], blk[i], e);
    CHECK(MPI_Neighbor_alltoall(sbuf, C, MPI_INT, got, C, MPI_INT, c) == MPI_SUCCESS);
    compare(t, "MPI_Neighbor_alltoall", got, want, len);
    free(got);
    free(want);

    /* alltoallv: send blocks in reverse order 4 elements apart, receive blocks 5 apart. */
    for (int j = 0; j < od; j++) {
        scounts[j] = cnt(me, j);
        sdispls[j] = 4 * (od - 1 - j);
        for (int e = 0; e < scounts[j]; e++)
            sbuf[sdispls[j] + e] = val(me, j, e);
    }
    len = id * 5 + 2;
    got = filled(len);
    want = filled(len);
    for (int i = 0; i < id; i++) {
        rcounts[i] = blk[i] >= 0 ? cnt(in[i], blk[i]) : 3;
        rdispls[i] = 5 * i + 1;
        for (int e = 0; e < rcounts[i] && blk[i] >= 0; e++)
            want[rdispls[i] + e] = val(in[i], blk[i], e);
    }
    CHECK(MPI_Neighbor_alltoallv(sbuf, scounts, sdispls, MPI_INT, got, rcounts, rdispls, MPI_INT,
                                 c) == MPI_SUCCESS);
    compare(t, "MPI_Neighbor_alltoallv", got, want, len);
    free(got);
    free(want);

    /* alltoallw: as alltoallv with byte displacements; odd receive blocks take every other
     * int (a resized type), so the holes inside a block must stay untouched too. */
    CHECK(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &strided) == MPI_SUCCESS);
    CHECK(MPI_Type_commit(&strided) == MPI_SUCCESS);
    for (int j = 0; j < od; j++) {
        sbd[j] = (MPI_Aint)sizeof(int) * sdispls[j];
        stypes[j] = MPI_INT;
    }
    len = id * 8 + 2;
    got = filled(len);
    want = filled(len);
    for (int i = 0; i < id; i++) {
        int step = i & 1 ? 2 : 1;
        rtypes[i] = i & 1 ? strided : MPI_INT;
        rbd[i] = (MPI_Aint)sizeof(int) * (8 * i + 1);
        for (int e = 0; e < rcounts[i] && blk[i] >= 0; e++)
            want[8 * i + 1 + step * e] = val(in[i], blk[i], e);
    }
    CHECK(MPI_Neighbor_alltoallw(sbuf, scounts, sbd, stypes, got, rcounts, rbd, rtypes, c) ==
          MPI_SUCCESS);
    compare(t, "MPI_Neighbor_alltoallw", got, want, len);
    free(got);
    free(want);
    CHECK(MPI_Type_free(&strided) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
}

static void cart(int ndims, int d0, int d1, int p0, int p1)
{
    topo_t t = {MPI_CART, ndims, {d0, d1, 1}, {p0, p1, 0}, 0, ""};

    t.n = ndims == 1 ? d0 : d0 * d1;
    snprintf(t.name, sizeof(t.name), "cart %dx%d periodic %d,%d", d0, ndims == 1 ? 1 : d1, p0,
             ndims == 1 ? 0 : p1);
    run_topo(&t);
}

static void test_cart1d(void)
{
    for (int p = 0; p < 2; p++) {
        cart(1, size, 0, p, 0);
        if (size > 1)
            cart(1, size - 1, 0, p, 0); /* one rank left out */
        cart(1, 1, 0, p, 0);
        if (size >= 2)
            cart(1, 2, 0, p, 0);
    }
}

static void test_cart2d(void)
{
    int dims[2] = {0, 0};

    CHECK(MPI_Dims_create(size, 2, dims) == MPI_SUCCESS);
    for (int p = 0; p < 4; p++) {
        cart(2, dims[0], dims[1], p & 1, p >> 1);
        cart(2, size, 1, p & 1, p >> 1); /* a dimension of size 1 */
        cart(2, 1, size, p & 1, p >> 1);
        if (size >= 2)
            cart(2, 2, size / 2, p & 1, p >> 1); /* a dimension of size 2 */
        if (size >= 4)
            cart(2, 2, 2, p & 1, p >> 1);
    }
}

static void test_graph(void)
{
    topo_t t = {MPI_GRAPH, 0, {0}, {0}, size, "graph ring"};

    run_topo(&t);
}

static void test_distgraph(void)
{
    topo_t t = {MPI_DIST_GRAPH, 0, {0}, {0}, size, "distributed graph"};

    run_topo(&t);
}

/* Blocks of 400 KB (rendezvous-sized over shared memory): alltoall and allgather on periodic
 * rings of every size, 1 and 2 included, where a rank is its own or its only neighbour. */
static void big_ring(int n)
{
    enum { BIG = 100000 };
    topo_t t = {MPI_CART, 1, {n, 1, 1}, {1, 0, 0}, n, ""};
    int me, in[MAXDEG], out[MAXDEG], id, od, *sb, *rb;
    MPI_Comm c;

    snprintf(t.name, sizeof(t.name), "big ring of %d", n);
    c = make_comm(&t);
    if (c == MPI_COMM_NULL)
        return;
    CHECK(MPI_Comm_rank(c, &me) == MPI_SUCCESS);
    lists(&t, me, &id, in, &od, out);
    sb = xmalloc(sizeof(int) * 2 * BIG);
    rb = xmalloc(sizeof(int) * 2 * BIG);
    for (int j = 0; j < 2; j++)
        for (int e = 0; e < BIG; e++)
            sb[j * BIG + e] = val(me, j, e);
    CHECK(MPI_Neighbor_alltoall(sb, BIG, MPI_INT, rb, BIG, MPI_INT, c) == MPI_SUCCESS);
    for (int i = 0; i < 2; i++)
        for (int e = 0; e < BIG; e++)
            if (rb[i * BIG + e] != val(in[i], i ^ 1, e))
                FAIL("MPI_Neighbor_alltoall on %s: block %d element %d is %d, expected %d", t.name,
                     i, e, rb[i * BIG + e], val(in[i], i ^ 1, e));
    CHECK(MPI_Neighbor_allgather(sb, BIG, MPI_INT, rb, BIG, MPI_INT, c) == MPI_SUCCESS);
    for (int i = 0; i < 2; i++)
        for (int e = 0; e < BIG; e++)
            if (rb[i * BIG + e] != val(in[i], 0, e))
                FAIL("MPI_Neighbor_allgather on %s: block %d element %d is %d, expected %d", t.name,
                     i, e, rb[i * BIG + e], val(in[i], 0, e));
    free(sb);
    free(rb);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
}

static void test_big(void)
{
    big_ring(size);
    big_ring(1);
    if (size >= 2)
        big_ring(2);
}

#define EXPECT_ERR(_call, _class)                                                                  \
    do {                                                                                           \
        int _rc = (_call), _cls = -1;                                                              \
        MPI_Error_class(_rc, &_cls);                                                               \
        if (_cls != (_class))                                                                      \
            FAIL("%s returned class %d, expected %s (%d)", #_call, _cls, #_class, _class);         \
    } while (0)

static void test_errors(void)
{
    int a[8] = {0}, b[8], cnts[2] = {1, 1}, neg[2] = {-1, 1}, displs[2] = {0, 1};
    MPI_Aint bd[2] = {0, 4};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    int dims[1] = {size}, periods[1] = {1};
    MPI_Comm w = MPI_COMM_WORLD, c;

    CHECK(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    EXPECT_ERR(MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, w), MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Neighbor_allgatherv(a, 1, MPI_INT, b, cnts, displs, MPI_INT, w),
               MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Neighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, w), MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Neighbor_alltoallv(a, cnts, displs, MPI_INT, b, cnts, displs, MPI_INT, w),
               MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Neighbor_alltoallw(a, cnts, bd, types, b, cnts, bd, types, w), MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Neighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);

    CHECK(MPI_Cart_create(w, 1, dims, periods, 0, &c) == MPI_SUCCESS);
    CHECK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    EXPECT_ERR(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, c), MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Neighbor_alltoall(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, c), MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Neighbor_alltoall(a, -1, MPI_INT, b, 1, MPI_INT, c), MPI_ERR_COUNT);
    EXPECT_ERR(MPI_Neighbor_alltoall(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, c), MPI_ERR_TYPE);
    EXPECT_ERR(MPI_Neighbor_allgather(a, 1, MPI_INT, NULL, 1, MPI_INT, c), MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Neighbor_alltoall(a, 1, MPI_INT, a, 1, MPI_INT, c), MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Neighbor_allgatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, c), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Neighbor_allgatherv(a, 1, MPI_INT, b, cnts, NULL, MPI_INT, c), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Neighbor_alltoallv(a, neg, displs, MPI_INT, b, cnts, displs, MPI_INT, c),
               MPI_ERR_COUNT);
    EXPECT_ERR(MPI_Neighbor_alltoallv(a, cnts, displs, MPI_INT, b, neg, displs, MPI_INT, c),
               MPI_ERR_COUNT);
    EXPECT_ERR(MPI_Neighbor_alltoallw(a, cnts, NULL, types, b, cnts, bd, types, c), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Neighbor_alltoallw(a, cnts, bd, types, b, cnts, bd, NULL, c), MPI_ERR_ARG);
    types[1] = MPI_DATATYPE_NULL;
    EXPECT_ERR(MPI_Neighbor_alltoallw(a, cnts, bd, types, b, cnts, bd, types, c), MPI_ERR_TYPE);
    CHECK(MPI_Comm_free(&c) == MPI_SUCCESS);
}

static const mpitest_t tests[] = {
    {"cart1d", test_cart1d},       {"cart2d", test_cart2d}, {"graph", test_graph},
    {"distgraph", test_distgraph}, {"big", test_big},       {"errors", test_errors},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    MPI_Finalize();
    return 0;
}
