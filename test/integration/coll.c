/* Blocking collectives through the MPI API, every result checked element by element against a
 * reference computed locally. Usage:
 *   coll TEST [TEST...]   (or "all"); each prints "coll TEST: ok (N ranks) in T s" on rank 0
 * Each data subtest runs its collective at every count of `counts` (0, 1, odd, and around each
 * switch point of collectives/vbt_coll_select.c), every root of interest, with and without
 * MPI_IN_PLACE where MPI allows it, for each predefined op used; the algorithm is whatever the
 * VBT_COLL_* knobs force (coll.sh loops over them). Rank r's element i is val(r, i).
 * "noncommutative" checks rank order with a user op (composition of affine maps); "errors"
 * checks error classes under MPI_ERRORS_RETURN; "big" runs the large-message algorithms'
 * auto switch points (512 KiB and more); "comms" runs collectives on MPI_COMM_SELF, a
 * duplicate and splits of MPI_COMM_WORLD; "derived" moves non-contiguous and shifted derived
 * datatypes (and mixes them with MPI_INT); "negext" runs every collective, the neighbourhood
 * ones included, with datatypes of negative extent, negative true lower bound, holes, and
 * (sent only) overlapping elements; "fatal" (not in "all") passes a bad root under
 * MPI_ERRORS_ARE_FATAL. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPITEST_NAME "coll"
#include "mpitest.h"

/* Counts of MPI_INT: 64 ints = 256 bytes (alltoall), 512 = 2 KiB (allreduce, reduce-scatter),
 * 1024 = 4 KiB (gather, scatter), 3072 = 12 KiB (bcast); allgather's 80 KiB total falls between
 * 3072 x 5 and 3072 x 7 ranks. */
static const int counts[] = {0,   1,   2,   3,    5,    17,   63,   64,   65,
                             511, 512, 513, 1023, 1024, 1025, 3071, 3072, 3073};
#define NCOUNTS  (sizeof(counts) / sizeof(counts[0]))
#define SENTINEL (-77777)

static int val(int r, size_t i)
{
    return (int)(((unsigned)r * 131u + (unsigned)i * 7u + 3u) % 1009u) - 500;
}

/* Factors for MPI_PROD: 1..3, so 7 ranks stay far below INT_MAX. */
static int pval(int r, size_t i)
{
    return (int)(((unsigned)r + (unsigned)i) % 3u) + 1;
}

static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
static const char *const opnames[] = {"MPI_SUM", "MPI_MAX", "MPI_MIN", "MPI_PROD"};
#define NOPS 4

static int contrib(int o, int r, size_t i)
{
    return ops[o] == MPI_PROD ? pval(r, i) : val(r, i);
}

static int combine(int o, int a, int b)
{
    if (ops[o] == MPI_SUM)
        return a + b;
    if (ops[o] == MPI_PROD)
        return a * b;
    if (ops[o] == MPI_MAX)
        return a > b ? a : b;
    return a < b ? a : b;
}

/* The reduction over ranks [lo, hi) of element i. */
static int reduced(int o, int lo, int hi, size_t i)
{
    int v = contrib(o, lo, i);
    for (int r = lo + 1; r < hi; r++)
        v = combine(o, v, contrib(o, r, i));
    return v;
}

#define EXPECT(_got, _want, ...)                                                                   \
    do {                                                                                           \
        int _g = (_got), _w = (_want);                                                             \
        if (_g != _w) {                                                                            \
            char _what[256];                                                                       \
            snprintf(_what, sizeof(_what), __VA_ARGS__);                                           \
            FAIL("%s: got %d, expected %d", _what, _g, _w);                                        \
        }                                                                                          \
    } while (0)

static int *ints(size_t n, int fill)
{
    int *p = xmalloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* The roots worth trying: first, last and one in the middle. */
static int nroots(void)
{
    return size < 3 ? size : 3;
}

static int root_at(int k)
{
    return k == 0 ? 0 : k == 1 ? size - 1 : size / 2;
}

static void test_bcast(void)
{
    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int k = 0; k < nroots(); k++) {
            int root = root_at(k);
            int *buf = ints((size_t)n, SENTINEL);
            unsigned char *bytes = xmalloc((size_t)n * 3 + 1);

            if (rank == root) {
                for (int i = 0; i < n; i++)
                    buf[i] = val(root, (size_t)i);
                fill(bytes, (size_t)n * 3 + 1, (unsigned)root);
            } else {
                memset(bytes, 0, (size_t)n * 3 + 1);
            }
            CHECK(MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
            for (int i = 0; i < n; i++)
                EXPECT(buf[i], val(root, (size_t)i), "bcast count %d root %d element %d", n, root,
                       i);
            /* Odd byte counts: chunks of the scatter-allgather split unevenly. */
            CHECK(MPI_Bcast(bytes, n * 3 + 1, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS);
            verify(bytes, (size_t)n * 3 + 1, (unsigned)root, "bcast MPI_BYTE");
            free(bytes);
            free(buf);
        }
    }
}

static void test_reduce(void)
{
    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int k = 0; k < nroots(); k++) {
            int root = root_at(k);
            for (int o = 0; o < NOPS; o++) {
                for (int inplace = 0; inplace < 2; inplace++) {
                    int *s = ints((size_t)n, 0), *r = ints((size_t)n, SENTINEL);
                    const void *sb = s;

                    for (int i = 0; i < n; i++)
                        s[i] = contrib(o, rank, (size_t)i);
                    if (inplace && rank == root) {
                        memcpy(r, s, (size_t)n * sizeof(int));
                        sb = MPI_IN_PLACE;
                    }
                    CHECK(MPI_Reduce(sb, r, n, MPI_INT, ops[o], root, MPI_COMM_WORLD) ==
                          MPI_SUCCESS);
                    for (int i = 0; rank == root && i < n; i++)
                        EXPECT(r[i], reduced(o, 0, size, (size_t)i),
                               "reduce %s count %d root %d%s element %d", opnames[o], n, root,
                               inplace ? " in place" : "", i);
                    for (int i = 0; i < n; i++)
                        EXPECT(s[i], contrib(o, rank, (size_t)i), "reduce changed sendbuf");
                    free(s);
                    free(r);
                }
            }
        }
    }
}

static void test_allreduce(void)
{
    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int o = 0; o < NOPS; o++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                int *s = ints((size_t)n, 0), *r = ints((size_t)n, SENTINEL);
                const void *sb = s;

                for (int i = 0; i < n; i++)
                    s[i] = contrib(o, rank, (size_t)i);
                if (inplace) {
                    memcpy(r, s, (size_t)n * sizeof(int));
                    sb = MPI_IN_PLACE;
                }
                CHECK(MPI_Allreduce(sb, r, n, MPI_INT, ops[o], MPI_COMM_WORLD) == MPI_SUCCESS);
                for (int i = 0; i < n; i++)
                    EXPECT(r[i], reduced(o, 0, size, (size_t)i),
                           "allreduce %s count %d%s element %d", opnames[o], n,
                           inplace ? " in place" : "", i);
                free(s);
                free(r);
            }
        }
        /* Doubles: small integers add exactly. */
        {
            double *s = xmalloc((size_t)n * sizeof(double)),
                   *r = xmalloc((size_t)n * sizeof(double));
            for (int i = 0; i < n; i++)
                s[i] = val(rank, (size_t)i);
            CHECK(MPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
            for (int i = 0; i < n; i++)
                EXPECT((int)r[i], reduced(0, 0, size, (size_t)i),
                       "allreduce double count %d element %d", n, i);
            free(s);
            free(r);
        }
    }
}

static void test_gather(void)
{
    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int k = 0; k < nroots(); k++) {
            int root = root_at(k);
            for (int inplace = 0; inplace < 2; inplace++) {
                int *s = ints((size_t)n, 0), *r = ints((size_t)n * size, SENTINEL);
                const void *sb = s;

                for (int i = 0; i < n; i++)
                    s[i] = val(rank, (size_t)i);
                if (inplace && rank == root) {
                    memcpy(r + (size_t)root * n, s, (size_t)n * sizeof(int));
                    sb = MPI_IN_PLACE;
                }
                CHECK(MPI_Gather(sb, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD) ==
                      MPI_SUCCESS);
                for (int j = 0; rank == root && j < size; j++)
                    for (int i = 0; i < n; i++)
                        EXPECT(r[(size_t)j * n + i], val(j, (size_t)i),
                               "gather count %d root %d%s: rank %d's element %d", n, root,
                               inplace ? " in place" : "", j, i);
                free(s);
                free(r);
            }
        }
    }
}

static void test_scatter(void)
{
    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int k = 0; k < nroots(); k++) {
            int root = root_at(k);
            for (int inplace = 0; inplace < 2; inplace++) {
                int *s = ints((size_t)n * size, 0), *r = ints((size_t)n, SENTINEL);
                void *rb = r;

                for (int j = 0; j < size; j++)
                    for (int i = 0; i < n; i++)
                        s[(size_t)j * n + i] = val(j, (size_t)i);
                if (inplace && rank == root)
                    rb = MPI_IN_PLACE;
                CHECK(MPI_Scatter(s, n, MPI_INT, rb, n, MPI_INT, root, MPI_COMM_WORLD) ==
                      MPI_SUCCESS);
                for (int i = 0; i < n; i++) {
                    if (rb == MPI_IN_PLACE)
                        EXPECT(s[(size_t)root * n + i], val(root, (size_t)i),
                               "scatter in place changed the root's block");
                    else
                        EXPECT(r[i], val(rank, (size_t)i), "scatter count %d root %d element %d", n,
                               root, i);
                }
                free(s);
                free(r);
            }
        }
    }
}

/* v collectives: rank j's block has vcount(n, j) elements at vdispl(n, j), with a gap of j + 1
 * elements before it that must stay untouched. */
static int vcount(int n, int j)
{
    return n == 0 ? 0 : (n + 3 * j) % (n + 2);
}

static size_t vdispl(int n, int j)
{
    size_t d = 0;
    for (int k = 0; k < j; k++)
        d += (size_t)vcount(n, k) + (size_t)k + 1;
    return d + (size_t)j + 1;
}

static void vlayout(int n, int *cnts, int *displs, size_t *total)
{
    for (int j = 0; j < size; j++) {
        cnts[j] = vcount(n, j);
        displs[j] = (int)vdispl(n, j);
    }
    *total = vdispl(n, size);
}

/* Checks buf laid out by vlayout: block j holds val(j, i), gaps hold SENTINEL. */
static void vverify(const int *buf, int n, const char *what, int root)
{
    size_t total = vdispl(n, size), j = 0, next = vdispl(n, 0);

    for (size_t x = 0; x < total; x++) {
        while (j < (size_t)size && x >= next + (size_t)vcount(n, (int)j))
            next = vdispl(n, (int)++j);
        if (j < (size_t)size && x >= next)
            EXPECT(buf[x], val((int)j, x - next), "%s count %d root %d: rank %zu's element %zu",
                   what, n, root, j, x - next);
        else
            EXPECT(buf[x], SENTINEL, "%s count %d root %d: gap element %zu overwritten", what, n,
                   root, x);
    }
}

static void test_gatherv(void)
{
    int *cnts = ints((size_t)size, 0), *displs = ints((size_t)size, 0);

    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        size_t total;
        vlayout(n, cnts, displs, &total);
        for (int k = 0; k < nroots(); k++) {
            int root = root_at(k);
            for (int inplace = 0; inplace < 2; inplace++) {
                int mine = vcount(n, rank);
                int *s = ints((size_t)mine, 0), *r = ints(total, SENTINEL);
                const void *sb = s;

                for (int i = 0; i < mine; i++)
                    s[i] = val(rank, (size_t)i);
                if (inplace && rank == root) {
                    memcpy(r + displs[root], s, (size_t)mine * sizeof(int));
                    sb = MPI_IN_PLACE;
                }
                CHECK(MPI_Gatherv(sb, mine, MPI_INT, r, cnts, displs, MPI_INT, root,
                                  MPI_COMM_WORLD) == MPI_SUCCESS);
                if (rank == root)
                    vverify(r, n, inplace ? "gatherv in place" : "gatherv", root);
                free(s);
                free(r);
            }
        }
    }
    free(cnts);
    free(displs);
}

static void test_scatterv(void)
{
    int *cnts = ints((size_t)size, 0), *displs = ints((size_t)size, 0);

    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        size_t total;
        vlayout(n, cnts, displs, &total);
        for (int k = 0; k < nroots(); k++) {
            int root = root_at(k);
            for (int inplace = 0; inplace < 2; inplace++) {
                int mine = vcount(n, rank);
                int *s = ints(total, SENTINEL), *r = ints((size_t)mine, SENTINEL);
                void *rb = r;

                for (int j = 0; j < size; j++)
                    for (int i = 0; i < cnts[j]; i++)
                        s[displs[j] + i] = val(j, (size_t)i);
                if (inplace && rank == root)
                    rb = MPI_IN_PLACE;
                CHECK(MPI_Scatterv(s, cnts, displs, MPI_INT, rb, mine, MPI_INT, root,
                                   MPI_COMM_WORLD) == MPI_SUCCESS);
                for (int i = 0; rb != MPI_IN_PLACE && i < mine; i++)
                    EXPECT(r[i], val(rank, (size_t)i), "scatterv count %d root %d element %d", n,
                           root, i);
                if (rank == root)
                    vverify(s, n, "scatterv changed sendbuf", root);
                free(s);
                free(r);
            }
        }
    }
    free(cnts);
    free(displs);
}

static void test_allgather(void)
{
    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int inplace = 0; inplace < 2; inplace++) {
            int *s = ints((size_t)n, 0), *r = ints((size_t)n * size, SENTINEL);
            const void *sb = s;

            for (int i = 0; i < n; i++)
                s[i] = val(rank, (size_t)i);
            if (inplace) {
                memcpy(r + (size_t)rank * n, s, (size_t)n * sizeof(int));
                sb = MPI_IN_PLACE;
            }
            CHECK(MPI_Allgather(sb, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
            for (int j = 0; j < size; j++)
                for (int i = 0; i < n; i++)
                    EXPECT(r[(size_t)j * n + i], val(j, (size_t)i),
                           "allgather count %d%s: rank %d's element %d", n,
                           inplace ? " in place" : "", j, i);
            free(s);
            free(r);
        }
    }
}

static void test_allgatherv(void)
{
    int *cnts = ints((size_t)size, 0), *displs = ints((size_t)size, 0);

    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        size_t total;
        vlayout(n, cnts, displs, &total);
        for (int inplace = 0; inplace < 2; inplace++) {
            int mine = vcount(n, rank);
            int *s = ints((size_t)mine, 0), *r = ints(total, SENTINEL);
            const void *sb = s;

            for (int i = 0; i < mine; i++)
                s[i] = val(rank, (size_t)i);
            if (inplace) {
                memcpy(r + displs[rank], s, (size_t)mine * sizeof(int));
                sb = MPI_IN_PLACE;
            }
            CHECK(MPI_Allgatherv(sb, mine, MPI_INT, r, cnts, displs, MPI_INT, MPI_COMM_WORLD) ==
                  MPI_SUCCESS);
            vverify(r, n, inplace ? "allgatherv in place" : "allgatherv", -1);
            free(s);
            free(r);
        }
    }
    free(cnts);
    free(displs);
}

/* Alltoall: rank a's block for rank b is val(a * 7 + b, i). */
static void test_alltoall(void)
{
    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int inplace = 0; inplace < 2; inplace++) {
            int *s = ints((size_t)n * size, 0), *r = ints((size_t)n * size, SENTINEL);
            const void *sb = s;

            for (int j = 0; j < size; j++)
                for (int i = 0; i < n; i++)
                    s[(size_t)j * n + i] = val(rank * 7 + j, (size_t)i);
            if (inplace) {
                memcpy(r, s, (size_t)n * size * sizeof(int));
                sb = MPI_IN_PLACE;
            }
            CHECK(MPI_Alltoall(sb, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
            for (int j = 0; j < size; j++)
                for (int i = 0; i < n; i++)
                    EXPECT(r[(size_t)j * n + i], val(j * 7 + rank, (size_t)i),
                           "alltoall count %d%s: from rank %d element %d", n,
                           inplace ? " in place" : "", j, i);
            free(s);
            free(r);
        }
    }
}

/* Alltoallv/w: ranks a and b exchange pcount(n, a, b) ints each way (symmetric, as MPI_IN_PLACE
 * requires), laid out with a gap of 2 elements before each block. */
static int pcount(int n, int a, int b)
{
    return n == 0 ? 0 : (n + a + b) % (n + 2);
}

static void playout(int n, int me, int *cnts, int *displs, size_t *total)
{
    size_t d = 0;
    for (int j = 0; j < size; j++) {
        d += 2;
        cnts[j] = pcount(n, me, j);
        displs[j] = (int)d;
        d += (size_t)cnts[j];
    }
    *total = d;
}

static void pverify(const int *r, int n, const int *cnts, const int *displs, size_t total,
                    const char *what)
{
    int *want = ints(total, SENTINEL);
    for (int j = 0; j < size; j++)
        for (int i = 0; i < cnts[j]; i++)
            want[displs[j] + i] = val(j * 7 + rank, (size_t)i);
    for (size_t x = 0; x < total; x++)
        EXPECT(r[x], want[x], "%s count %d: element %zu", what, n, x);
    free(want);
}

static void test_alltoallv(void)
{
    int *cnts = ints((size_t)size, 0), *displs = ints((size_t)size, 0);

    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        size_t total;
        playout(n, rank, cnts, displs, &total);
        for (int inplace = 0; inplace < 2; inplace++) {
            int *s = ints(total, SENTINEL), *r = ints(total, SENTINEL);
            const void *sb = s;

            for (int j = 0; j < size; j++)
                for (int i = 0; i < cnts[j]; i++)
                    s[displs[j] + i] = val(rank * 7 + j, (size_t)i);
            if (inplace) {
                memcpy(r, s, total * sizeof(int));
                sb = MPI_IN_PLACE;
            }
            CHECK(MPI_Alltoallv(sb, cnts, displs, MPI_INT, r, cnts, displs, MPI_INT,
                                MPI_COMM_WORLD) == MPI_SUCCESS);
            pverify(r, n, cnts, displs, total, inplace ? "alltoallv in place" : "alltoallv");
            free(s);
            free(r);
        }
    }
    free(cnts);
    free(displs);
}

/* Alltoallw: blocks between ranks of different parity go as MPI_2INT pairs (so counts are
 * halved and must be even), others as MPI_INT; displacements in bytes. */
static void test_alltoallw(void)
{
    int *cnts = ints((size_t)size, 0), *displs = ints((size_t)size, 0);
    int *wcnts = ints((size_t)size, 0), *bdispls = ints((size_t)size, 0);
    MPI_Datatype *types = xmalloc((size_t)size * sizeof(MPI_Datatype));

    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c] & ~1;
        size_t total;
        playout(n, rank, cnts, displs, &total);
        for (int j = 0; j < size; j++) {
            int pair = (j + rank) % 2 && cnts[j] % 2 == 0;
            types[j] = pair ? MPI_2INT : MPI_INT;
            wcnts[j] = pair ? cnts[j] / 2 : cnts[j];
            bdispls[j] = displs[j] * (int)sizeof(int);
        }
        for (int inplace = 0; inplace < 2; inplace++) {
            int *s = ints(total, SENTINEL), *r = ints(total, SENTINEL);
            const void *sb = s;

            for (int j = 0; j < size; j++)
                for (int i = 0; i < cnts[j]; i++)
                    s[displs[j] + i] = val(rank * 7 + j, (size_t)i);
            if (inplace) {
                memcpy(r, s, total * sizeof(int));
                sb = MPI_IN_PLACE;
            }
            CHECK(MPI_Alltoallw(sb, wcnts, bdispls, types, r, wcnts, bdispls, types,
                                MPI_COMM_WORLD) == MPI_SUCCESS);
            pverify(r, n, cnts, displs, total, inplace ? "alltoallw in place" : "alltoallw");
            free(s);
            free(r);
        }
    }
    free(types);
    free(bdispls);
    free(wcnts);
    free(cnts);
    free(displs);
}

/* Reduce_scatter: block j has vcount(n, j) elements, back to back. */
static void run_reduce_scatter(int block)
{
    int *cnts = ints((size_t)size, 0);

    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        size_t total = 0, off = 0;

        for (int j = 0; j < size; j++) {
            cnts[j] = block ? n : vcount(n, j);
            total += (size_t)cnts[j];
            if (j < rank)
                off += (size_t)cnts[j];
        }
        for (int o = 0; o < NOPS; o++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                int *s = ints(total, 0), *r = ints(inplace ? total : (size_t)cnts[rank], SENTINEL);
                const void *sb = s;

                for (size_t i = 0; i < total; i++)
                    s[i] = contrib(o, rank, i);
                if (inplace) {
                    memcpy(r, s, total * sizeof(int));
                    sb = MPI_IN_PLACE;
                }
                if (block)
                    CHECK(MPI_Reduce_scatter_block(sb, r, n, MPI_INT, ops[o], MPI_COMM_WORLD) ==
                          MPI_SUCCESS);
                else
                    CHECK(MPI_Reduce_scatter(sb, r, cnts, MPI_INT, ops[o], MPI_COMM_WORLD) ==
                          MPI_SUCCESS);
                for (int i = 0; i < cnts[rank]; i++)
                    EXPECT(r[i], reduced(o, 0, size, off + (size_t)i),
                           "reduce_scatter%s %s count %d%s element %d", block ? "_block" : "",
                           opnames[o], n, inplace ? " in place" : "", i);
                free(s);
                free(r);
            }
        }
    }
    free(cnts);
}

static void test_reduce_scatter(void)
{
    run_reduce_scatter(0);
}

static void test_reduce_scatter_block(void)
{
    run_reduce_scatter(1);
}

static void run_scan(int exclusive)
{
    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        for (int o = 0; o < NOPS; o++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                int *s = ints((size_t)n, 0), *r = ints((size_t)n, SENTINEL);
                const void *sb = s;

                for (int i = 0; i < n; i++)
                    s[i] = contrib(o, rank, (size_t)i);
                if (inplace) {
                    memcpy(r, s, (size_t)n * sizeof(int));
                    sb = MPI_IN_PLACE;
                }
                if (exclusive)
                    CHECK(MPI_Exscan(sb, r, n, MPI_INT, ops[o], MPI_COMM_WORLD) == MPI_SUCCESS);
                else
                    CHECK(MPI_Scan(sb, r, n, MPI_INT, ops[o], MPI_COMM_WORLD) == MPI_SUCCESS);
                for (int i = 0; i < n && (rank > 0 || !exclusive); i++)
                    EXPECT(r[i], reduced(o, 0, exclusive ? rank : rank + 1, (size_t)i),
                           "%s %s count %d%s element %d", exclusive ? "exscan" : "scan", opnames[o],
                           n, inplace ? " in place" : "", i);
                free(s);
                free(r);
            }
        }
    }
}

static void test_scan(void)
{
    run_scan(0);
}

static void test_exscan(void)
{
    run_scan(1);
}

/* Non-commutative: elements are affine maps x -> a x + b (MPI_2INT pairs, mod P), and the op
 * composes them: (in o inout)(x) = in(inout(x)). Rank order shows in the result. */
#define P 1000003
typedef struct {
    int a, b;
} affine_t;

static affine_t compose(affine_t f, affine_t g)
{
    affine_t h = {(int)((int64_t)f.a * g.a % P), (int)(((int64_t)f.a * g.b + f.b) % P)};
    return h;
}

static void compose_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    affine_t *x = in, *y = inout;
    (void)dt;
    for (int i = 0; i < *len; i++)
        y[i] = compose(x[i], y[i]);
}

static affine_t amap(int r, size_t i)
{
    affine_t f = {(int)((unsigned)(r * 17 + (int)i * 3) % 97u) + 2,
                  (int)((unsigned)(r * 5 + (int)i) % 89u)};
    return f;
}

static affine_t afold(int lo, int hi, size_t i)
{
    affine_t f = amap(lo, i);
    for (int r = lo + 1; r < hi; r++)
        f = compose(f, amap(r, i));
    return f;
}

#define EXPECT_MAP(_got, _want, ...)                                                               \
    do {                                                                                           \
        EXPECT((_got).a, (_want).a, __VA_ARGS__);                                                  \
        EXPECT((_got).b, (_want).b, __VA_ARGS__);                                                  \
    } while (0)

static void test_noncommutative(void)
{
    MPI_Op op;
    int *cnts = ints((size_t)size, 0);

    CHECK(MPI_Op_create(compose_fn, 0, &op) == MPI_SUCCESS);
    for (size_t c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        size_t total = (size_t)n * size;
        affine_t *s = xmalloc(total * sizeof(affine_t)), *r = xmalloc(total * sizeof(affine_t));

        for (size_t i = 0; i < total; i++)
            s[i] = amap(rank, i);
        for (int k = 0; k < nroots(); k++) {
            int root = root_at(k);
            CHECK(MPI_Reduce(s, r, n, MPI_2INT, op, root, MPI_COMM_WORLD) == MPI_SUCCESS);
            for (int i = 0; rank == root && i < n; i++)
                EXPECT_MAP(r[i], afold(0, size, (size_t)i), "reduce count %d root %d element %d", n,
                           root, i);
        }
        /* In place at the root: its accumulator holds its own data from the start. */
        for (int k = 0; k < nroots(); k++) {
            int root = root_at(k);
            memcpy(r, s, (size_t)n * sizeof(affine_t));
            CHECK(MPI_Reduce(rank == root ? MPI_IN_PLACE : s, r, n, MPI_2INT, op, root,
                             MPI_COMM_WORLD) == MPI_SUCCESS);
            for (int i = 0; rank == root && i < n; i++)
                EXPECT_MAP(r[i], afold(0, size, (size_t)i),
                           "reduce in place count %d root %d element %d", n, root, i);
        }
        CHECK(MPI_Allreduce(s, r, n, MPI_2INT, op, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < n; i++)
            EXPECT_MAP(r[i], afold(0, size, (size_t)i), "allreduce count %d element %d", n, i);
        memcpy(r, s, (size_t)n * sizeof(affine_t));
        CHECK(MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_2INT, op, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < n; i++)
            EXPECT_MAP(r[i], afold(0, size, (size_t)i), "allreduce in place count %d element %d", n,
                       i);
        CHECK(MPI_Scan(s, r, n, MPI_2INT, op, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < n; i++)
            EXPECT_MAP(r[i], afold(0, rank + 1, (size_t)i), "scan count %d element %d", n, i);
        CHECK(MPI_Exscan(s, r, n, MPI_2INT, op, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; rank > 0 && i < n; i++)
            EXPECT_MAP(r[i], afold(0, rank, (size_t)i), "exscan count %d element %d", n, i);
        CHECK(MPI_Reduce_scatter_block(s, r, n, MPI_2INT, op, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < n; i++)
            EXPECT_MAP(r[i], afold(0, size, (size_t)rank * n + i),
                       "reduce_scatter_block count %d element %d", n, i);
        for (int j = 0; j < size; j++)
            cnts[j] = n;
        CHECK(MPI_Reduce_scatter(s, r, cnts, MPI_2INT, op, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < n; i++)
            EXPECT_MAP(r[i], afold(0, size, (size_t)rank * n + i),
                       "reduce_scatter count %d element %d", n, i);
        free(s);
        free(r);
    }
    CHECK(MPI_Op_free(&op) == MPI_SUCCESS);
    free(cnts);
}

/* The large-message switch points: allreduce above 512 KiB (ring when the group is not a power
 * of two, else Rabenseifner), bcast above 12 KiB (scatter-allgather from 8 ranks), allgather and
 * reduce_scatter_block on long vectors. */
static void test_big(void)
{
    const int bigs[] = {131071, 131073, 200003};

    for (size_t c = 0; c < sizeof(bigs) / sizeof(bigs[0]); c++) {
        int n = bigs[c];
        int *s = ints((size_t)n, 0), *r = ints((size_t)n, SENTINEL);
        int *a = ints((size_t)n / 16 * size, SENTINEL);

        for (int i = 0; i < n; i++)
            s[i] = val(rank, (size_t)i);
        CHECK(MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < n; i++)
            EXPECT(r[i], reduced(0, 0, size, (size_t)i), "allreduce count %d element %d", n, i);
        for (int i = 0; i < n; i++)
            r[i] = rank == size - 1 ? val(size - 1, (size_t)i) : SENTINEL;
        CHECK(MPI_Bcast(r, n, MPI_INT, size - 1, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int i = 0; i < n; i++)
            EXPECT(r[i], val(size - 1, (size_t)i), "bcast count %d element %d", n, i);
        CHECK(MPI_Allgather(s, n / 16, MPI_INT, a, n / 16, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < n / 16; i++)
                EXPECT(a[(size_t)j * (n / 16) + i], val(j, (size_t)i),
                       "allgather count %d: rank %d's element %d", n / 16, j, i);
        CHECK(MPI_Reduce_scatter_block(s, r, n / size, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
              MPI_SUCCESS);
        for (int i = 0; i < n / size; i++)
            EXPECT(r[i], reduced(0, 0, size, (size_t)rank * (n / size) + i),
                   "reduce_scatter_block count %d element %d", n / size, i);
        free(a);
        free(s);
        free(r);
    }
}

/* Collectives on other communicators: MPI_COMM_SELF, a duplicate of MPI_COMM_WORLD, and splits
 * whose rank order is the reverse of the world's, each checked with its own ranks, while the
 * world's collectives run between them. */
static void check_comm(MPI_Comm comm, const char *name)
{
    int me, n, m = 37;
    int *s = ints((size_t)m, 0), *r, *all;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    r = ints((size_t)m * n, SENTINEL);
    all = ints((size_t)m * n, SENTINEL);
    for (int i = 0; i < m; i++)
        s[i] = val(me, (size_t)i);
    CHECK(MPI_Allreduce(s, r, m, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
    for (int i = 0; i < m; i++)
        EXPECT(r[i], reduced(0, 0, n, (size_t)i), "%s: allreduce element %d", name, i);
    CHECK(MPI_Allgather(s, m, MPI_INT, all, m, MPI_INT, comm) == MPI_SUCCESS);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            EXPECT(all[(size_t)j * m + i], val(j, (size_t)i), "%s: allgather rank %d element %d",
                   name, j, i);
    for (int i = 0; i < m; i++)
        r[i] = me == n - 1 ? val(n - 1, (size_t)i) : SENTINEL;
    CHECK(MPI_Bcast(r, m, MPI_INT, n - 1, comm) == MPI_SUCCESS);
    for (int i = 0; i < m; i++)
        EXPECT(r[i], val(n - 1, (size_t)i), "%s: bcast element %d", name, i);
    CHECK(MPI_Scan(s, r, m, MPI_INT, MPI_SUM, comm) == MPI_SUCCESS);
    for (int i = 0; i < m; i++)
        EXPECT(r[i], reduced(0, 0, me + 1, (size_t)i), "%s: scan element %d", name, i);
    CHECK(MPI_Gather(s, m, MPI_INT, all, m, MPI_INT, 0, comm) == MPI_SUCCESS);
    for (int j = 0; me == 0 && j < n; j++)
        for (int i = 0; i < m; i++)
            EXPECT(all[(size_t)j * m + i], val(j, (size_t)i), "%s: gather rank %d element %d", name,
                   j, i);
    CHECK(MPI_Barrier(comm) == MPI_SUCCESS);
    free(s);
    free(r);
    free(all);
}

static void test_comms(void)
{
    MPI_Comm dup, parity, half;
    int x = rank, sum;

    check_comm(MPI_COMM_SELF, "MPI_COMM_SELF");
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &parity) == MPI_SUCCESS);
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, -rank, &half) == MPI_SUCCESS);
    check_comm(dup, "dup of MPI_COMM_WORLD");
    CHECK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(sum == size * (size - 1) / 2);
    check_comm(parity, "split by parity");
    check_comm(half, "split in halves");
    check_comm(dup, "dup again");
    CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&parity) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&dup) == MPI_SUCCESS);
}

/* Derived datatypes: a vector (3 ints at stride 2), an indexed type resized to leave a gap of
 * one int before its 2 (neither contiguous), and that indexed type itself (contiguous, but with
 * a true lower bound of 4 bytes).
 * Data int j = e * per + k of a buffer sits at int pos(e, k); every other int is a gap that
 * must keep SENTINEL. Results are checked against references over the data ints. */
typedef struct {
    const char *name;
    MPI_Datatype dt;
    int per, ext, first, stride; /* ints: of data, of extent, before the data, between data */
} dtype_case_t;

static int dpos(const dtype_case_t *d, int e, int k)
{
    return e * d->ext + d->first + k * d->stride;
}

/* A buffer of n elements of d: gaps SENTINEL, data int j = fn(block, j) with n / nb elements per
 * block (fn NULL: all SENTINEL). */
static int *dbuf(const dtype_case_t *d, int n, int nb, int (*fn)(int, size_t))
{
    int *b = ints((size_t)n * d->ext + 1, SENTINEL);
    int per_block = nb ? n / nb : 0;
    for (int e = 0; fn != NULL && e < n; e++)
        for (int k = 0; k < d->per; k++)
            b[dpos(d, e, k)] = fn(e / per_block, (size_t)(e % per_block) * d->per + k);
    return b;
}

static int ref_sum(int block, size_t j)
{
    (void)block;
    return reduced(0, 0, size, j);
}

static int ref_a2a(int block, size_t j)
{
    return val(block * 7 + rank, j);
}

static int mine_a2a(int block, size_t j)
{
    return val(rank * 7 + block, j);
}

static int mine(int block, size_t j)
{
    (void)block;
    return val(rank, j);
}

/* Checks every int of b (n elements, blocks as in dbuf) against fn, gaps against SENTINEL. */
static void dcheck(const dtype_case_t *d, const int *b, int n, int nb, int (*fn)(int, size_t),
                   const char *what, int count)
{
    int *want = dbuf(d, n, nb, fn);
    for (int x = 0; x < n * d->ext + 1; x++)
        EXPECT(b[x], want[x], "%s %s count %d: int %d", what, d->name, count, x);
    free(want);
}

static void test_derived(void)
{
    static const int dcounts[] = {0, 1, 2, 5, 17, 100, 700};
    dtype_case_t cases[3] = {{"vector", MPI_DATATYPE_NULL, 3, 5, 0, 2},
                             {"resized", MPI_DATATYPE_NULL, 2, 3, 1, 1},
                             {"shifted", MPI_DATATYPE_NULL, 2, 2, 1, 1}};
    int bl = 2, disp = 1;
    MPI_Datatype ind;

    CHECK(MPI_Type_vector(3, 1, 2, MPI_INT, &cases[0].dt) == MPI_SUCCESS);
    /* Extent 3 ints: [gap, data, data] per element. */
    CHECK(MPI_Type_indexed(1, &bl, &disp, MPI_INT, &ind) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(ind, 0, 3 * (MPI_Aint)sizeof(int), &cases[1].dt) == MPI_SUCCESS);
    /* The indexed type itself: 2 ints one int into an extent of 2, contiguous from there. */
    cases[2].dt = ind;
    for (int t = 0; t < 3; t++)
        CHECK(MPI_Type_commit(&cases[t].dt) == MPI_SUCCESS);
    for (int t = 0; t < 3; t++) {
        const dtype_case_t *d = &cases[t];
        for (size_t c = 0; c < sizeof(dcounts) / sizeof(dcounts[0]); c++) {
            int n = dcounts[c], root = size - 1, *s, *r, *flat;

            /* Bcast from the last rank. */
            r = rank == root ? dbuf(d, n, 1, mine) : dbuf(d, n, 0, NULL);
            CHECK(MPI_Bcast(r, n, d->dt, root, MPI_COMM_WORLD) == MPI_SUCCESS);
            for (int e = 0; e < n; e++)
                for (int k = 0; k < d->per; k++)
                    EXPECT(r[dpos(d, e, k)], val(root, (size_t)e * d->per + k),
                           "bcast %s count %d element %d", d->name, n, e);
            free(r);

            /* Allreduce, then in place. */
            s = dbuf(d, n, 1, mine);
            r = dbuf(d, n, 0, NULL);
            CHECK(MPI_Allreduce(s, r, n, d->dt, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
            dcheck(d, r, n, 1, ref_sum, "allreduce", n);
            CHECK(MPI_Allreduce(MPI_IN_PLACE, s, n, d->dt, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
            dcheck(d, s, n, 1, ref_sum, "allreduce in place", n);
            free(s);
            free(r);

            /* Allgather and alltoall: n elements per rank. */
            s = dbuf(d, n, 1, mine);
            r = dbuf(d, n * size, 0, NULL);
            CHECK(MPI_Allgather(s, n, d->dt, r, n, d->dt, MPI_COMM_WORLD) == MPI_SUCCESS);
            dcheck(d, r, n * size, size, val, "allgather", n);
            free(s);
            free(r);
            s = dbuf(d, n * size, size, mine_a2a);
            r = dbuf(d, n * size, 0, NULL);
            CHECK(MPI_Alltoall(s, n, d->dt, r, n, d->dt, MPI_COMM_WORLD) == MPI_SUCCESS);
            dcheck(d, r, n * size, size, ref_a2a, "alltoall", n);
            free(r);

            /* Gather as the type into plain ints at the root, and scatter back. */
            flat = ints((size_t)n * d->per * size, SENTINEL);
            free(s);
            s = dbuf(d, n, 1, mine);
            CHECK(MPI_Gather(s, n, d->dt, flat, n * d->per, MPI_INT, root, MPI_COMM_WORLD) ==
                  MPI_SUCCESS);
            for (int q = 0; rank == root && q < size; q++)
                for (int j = 0; j < n * d->per; j++)
                    EXPECT(flat[(size_t)q * n * d->per + j], val(q, (size_t)j),
                           "gather %s into MPI_INT count %d: rank %d's int %d", d->name, n, q, j);
            r = dbuf(d, n, 0, NULL);
            CHECK(MPI_Scatter(flat, n * d->per, MPI_INT, r, n, d->dt, root, MPI_COMM_WORLD) ==
                  MPI_SUCCESS);
            dcheck(d, r, n, 1, mine, "scatter from MPI_INT", n);
            free(flat);
            free(r);
            free(s);

            /* Reduce_scatter_block: n elements per rank of the sum. */
            s = dbuf(d, n * size, 1, mine);
            r = dbuf(d, n, 0, NULL);
            CHECK(MPI_Reduce_scatter_block(s, r, n, d->dt, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
            for (int e = 0; e < n; e++)
                for (int k = 0; k < d->per; k++)
                    EXPECT(r[dpos(d, e, k)],
                           reduced(0, 0, size, (size_t)(rank * n + e) * d->per + k),
                           "reduce_scatter_block %s count %d element %d", d->name, n, e);
            free(s);
            free(r);
        }
    }
    for (int t = 0; t < 3; t++)
        CHECK(MPI_Type_free(&cases[t].dt) == MPI_SUCCESS);
}

/* ---- any datatype: "negext" ------------------------------------------------------------------
 * Every collective (and the neighbourhood ones on a periodic ring) with datatypes whose elements
 * do not sit above their address in order: an int resized to extent -4 (element e at address
 * - 4e), an hvector of 2 ints with stride -2 ints (true lower bound -8, a hole, extent 12) and
 * that hvector resized to extent -12 (downwards, with holes, true_lb < 0); bcast also with
 * plain ints at the root. Send-only, the overlapping types MPI allows for sending: 2 ints
 * resized to extent -4 and 4 (element e shares an int with element e + 1), sent as the type
 * and received as plain ints.
 * Buffers are described logically: lg[e * per + k] is data int k of element e (SENTINEL for an
 * element in a gap of a v collective), laid out at dpos(d, e, k) ints from the address passed
 * to MPI, which sits inside the allocation so that everything the elements touch, and one int
 * more each side, is in it. Every int of every receive buffer is checked. */
typedef struct {
    int *mem, *addr; /* the allocation; the address passed to MPI */
    int len;         /* ints in mem */
} tbuf_t;

static tbuf_t tb_make(const dtype_case_t *d, int n, const int *lg)
{
    int lo = 0, hi = 0;
    tbuf_t b;

    for (int c = 0; n > 0 && c < 4; c++) {
        int p = dpos(d, c & 1 ? n - 1 : 0, c & 2 ? d->per - 1 : 0);
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
    }
    b.len = hi - lo + 3;
    b.mem = ints((size_t)b.len, SENTINEL);
    b.addr = b.mem + 1 - lo;
    for (int e = 0; lg != NULL && e < n; e++)
        for (int k = 0; k < d->per; k++)
            b.addr[dpos(d, e, k)] = lg[e * d->per + k];
    return b;
}

/* Every int of b against n elements of d holding lg, all else SENTINEL. */
static void tb_check(const tbuf_t *b, const dtype_case_t *d, int n, const int *lg, const char *what,
                     int root)
{
    tbuf_t w = tb_make(d, n, lg);

    for (int x = 0; x < w.len; x++)
        EXPECT(b->mem[x], w.mem[x], "%s %s count %d root %d: int %d from the address", what,
               d->name, n, root, (int)(x - (w.addr - w.mem)));
    free(w.mem);
}

/* The data of n elements of d in b, in type-map order (what goes on the wire). */
static int *tb_packed(const tbuf_t *b, const dtype_case_t *d, int n)
{
    int *p = ints((size_t)n * d->per, 0);

    for (int e = 0; e < n; e++)
        for (int k = 0; k < d->per; k++)
            p[e * d->per + k] = b->addr[dpos(d, e, k)];
    return p;
}

/* val(seed, j) for j < m. */
static int *lgseq(int m, int seed)
{
    int *p = ints((size_t)m, 0);

    for (int j = 0; j < m; j++)
        p[j] = val(seed, (size_t)j);
    return p;
}

/* A buffer of total elements of per ints whose block j (cnts[j] elements from element
 * displs[j]) holds val(s0 + s1 * j, i) at its int i, every other element SENTINEL; only >= 0:
 * that block alone. */
static int *blocks_lg(int per, int total, const int *cnts, const int *displs, int s0, int s1,
                      int only)
{
    int *p = ints((size_t)total * per, SENTINEL);

    for (int j = 0; j < size; j++)
        for (int i = 0; (only < 0 || only == j) && i < cnts[j] * per; i++)
            p[displs[j] * per + i] = val(s0 + s1 * j, (size_t)i);
    return p;
}

/* Reduction references: the MPI_SUM over ranks [lo, hi) of int j of the vector val(r, j). */
static int *lgsum(int m, int lo, int hi)
{
    int *p = ints((size_t)m, 0);

    for (int j = 0; j < m; j++)
        p[j] = reduced(0, lo, hi, (size_t)j);
    return p;
}

/* Bcast, reduce (MPI_SUM), gather(v) and scatter(v), with the first and the last rank as the
 * root, in place and not. */
static void neg_rooted(const dtype_case_t *d, int n)
{
    int m = n * d->per, *cnts = ints((size_t)size, n), *displs = ints((size_t)size, 0);
    int *mine = lgseq(m, rank), *sum = lgsum(m, 0, size);

    for (int j = 0; j < size; j++)
        displs[j] = j * n;
    for (int k = 0; k < 2; k++) {
        int root = k ? size - 1 : 0;
        for (int inplace = 0; inplace < 2; inplace++) {
            int ip = inplace && rank == root;
            int *all = blocks_lg(d->per, n * size, cnts, displs, 0, 1, -1);
            tbuf_t s, r;

            /* Bcast (once per root), then from plain ints at the root: the datatypes differ
             * but the type signatures match. */
            if (!inplace) {
                int *lg = lgseq(m, root);
                r = tb_make(d, n, rank == root ? lg : NULL);
                CHECK(MPI_Bcast(r.addr, n, d->dt, root, MPI_COMM_WORLD) == MPI_SUCCESS);
                tb_check(&r, d, n, lg, "bcast", root);
                free(r.mem);
                r = tb_make(d, n, NULL);
                if (rank == root)
                    CHECK(MPI_Bcast(lg, m, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
                else
                    CHECK(MPI_Bcast(r.addr, n, d->dt, root, MPI_COMM_WORLD) == MPI_SUCCESS);
                if (rank != root)
                    tb_check(&r, d, n, lg, "bcast from MPI_INT", root);
                free(r.mem);
                free(lg);
            }

            /* Reduce. */
            s = tb_make(d, n, mine);
            r = tb_make(d, n, ip ? mine : NULL);
            CHECK(MPI_Reduce(ip ? MPI_IN_PLACE : s.addr, r.addr, n, d->dt, MPI_SUM, root,
                             MPI_COMM_WORLD) == MPI_SUCCESS);
            if (rank == root)
                tb_check(&r, d, n, sum, ip ? "reduce in place" : "reduce", root);
            tb_check(&s, d, n, mine, "reduce changed sendbuf", root);
            free(s.mem);
            free(r.mem);

            /* Gather: rank j's n elements at element j * n of the root's buffer. */
            {
                int *pre = blocks_lg(d->per, n * size, cnts, displs, 0, 1, root);
                s = tb_make(d, n, mine);
                r = tb_make(d, n * size, ip ? pre : NULL);
                CHECK(MPI_Gather(ip ? MPI_IN_PLACE : s.addr, n, d->dt, r.addr, n, d->dt, root,
                                 MPI_COMM_WORLD) == MPI_SUCCESS);
                if (rank == root)
                    tb_check(&r, d, n * size, all, ip ? "gather in place" : "gather", root);
                free(s.mem);
                free(r.mem);
                free(pre);
            }

            /* Scatter: the root's buffer as gather's result, rank j gets block j. */
            s = tb_make(d, n * size, all);
            r = tb_make(d, n, NULL);
            CHECK(MPI_Scatter(s.addr, n, d->dt, ip ? MPI_IN_PLACE : r.addr, n, d->dt, root,
                              MPI_COMM_WORLD) == MPI_SUCCESS);
            if (!ip)
                tb_check(&r, d, n, mine, "scatter", root);
            if (rank == root)
                tb_check(&s, d, n * size, all, "scatter changed sendbuf", root);
            free(s.mem);
            free(r.mem);
            free(all);

            /* Gatherv and scatterv: the blocks and gaps of vlayout, in elements. */
            {
                int *vc = ints((size_t)size, 0), *vd = ints((size_t)size, 0);
                int mc, *vmine, *vall, *pre;
                size_t total;

                vlayout(n, vc, vd, &total);
                mc = vc[rank];
                vmine = lgseq(mc * d->per, rank);
                vall = blocks_lg(d->per, (int)total, vc, vd, 0, 1, -1);
                pre = blocks_lg(d->per, (int)total, vc, vd, 0, 1, root);
                s = tb_make(d, mc, vmine);
                r = tb_make(d, (int)total, ip ? pre : NULL);
                CHECK(MPI_Gatherv(ip ? MPI_IN_PLACE : s.addr, mc, d->dt, r.addr, vc, vd, d->dt,
                                  root, MPI_COMM_WORLD) == MPI_SUCCESS);
                if (rank == root)
                    tb_check(&r, d, (int)total, vall, ip ? "gatherv in place" : "gatherv", root);
                free(s.mem);
                free(r.mem);
                s = tb_make(d, (int)total, vall);
                r = tb_make(d, mc, NULL);
                CHECK(MPI_Scatterv(s.addr, vc, vd, d->dt, ip ? MPI_IN_PLACE : r.addr, mc, d->dt,
                                   root, MPI_COMM_WORLD) == MPI_SUCCESS);
                if (!ip)
                    tb_check(&r, d, mc, vmine, "scatterv", root);
                if (rank == root)
                    tb_check(&s, d, (int)total, vall, "scatterv changed sendbuf", root);
                free(s.mem);
                free(r.mem);
                free(vmine);
                free(vall);
                free(pre);
                free(vc);
                free(vd);
            }
        }
    }
    free(mine);
    free(sum);
    free(cnts);
    free(displs);
}

/* Allreduce, scan, exscan and reduce_scatter(_block) with MPI_SUM, in place and not. */
static void neg_reductions(const dtype_case_t *d, int n)
{
    int m = n * d->per, *mine = lgseq(m, rank), *sum = lgsum(m, 0, size);

    for (int inplace = 0; inplace < 2; inplace++) {
        int *scan = lgsum(m, 0, rank + 1), *exscan = lgsum(m, 0, rank > 0 ? rank : 1);
        const char *how = inplace ? " in place" : "";
        char what[64];
        tbuf_t s = tb_make(d, n, mine), r = tb_make(d, n, inplace ? mine : NULL);

        snprintf(what, sizeof(what), "allreduce%s", how);
        CHECK(MPI_Allreduce(inplace ? MPI_IN_PLACE : s.addr, r.addr, n, d->dt, MPI_SUM,
                            MPI_COMM_WORLD) == MPI_SUCCESS);
        tb_check(&r, d, n, sum, what, -1);
        free(r.mem);
        r = tb_make(d, n, inplace ? mine : NULL);
        snprintf(what, sizeof(what), "scan%s", how);
        CHECK(MPI_Scan(inplace ? MPI_IN_PLACE : s.addr, r.addr, n, d->dt, MPI_SUM,
                       MPI_COMM_WORLD) == MPI_SUCCESS);
        tb_check(&r, d, n, scan, what, -1);
        free(r.mem);
        r = tb_make(d, n, inplace ? mine : NULL);
        snprintf(what, sizeof(what), "exscan%s", how);
        CHECK(MPI_Exscan(inplace ? MPI_IN_PLACE : s.addr, r.addr, n, d->dt, MPI_SUM,
                         MPI_COMM_WORLD) == MPI_SUCCESS);
        if (rank > 0)
            tb_check(&r, d, n, exscan, what, -1);
        tb_check(&s, d, n, mine, "reductions changed sendbuf", -1);
        free(r.mem);
        free(s.mem);
        free(scan);
        free(exscan);

        /* Reduce_scatter (block j: vcount(n, j) elements, back to back) and _block. */
        for (int block = 0; block < 2; block++) {
            int total = 0, off = 0, *cnts = ints((size_t)size, 0), *full, *want;
            tbuf_t rs, rr;
            int *got;

            for (int j = 0; j < size; j++) {
                cnts[j] = block ? n : vcount(n, j);
                off += j < rank ? cnts[j] : 0;
                total += cnts[j];
            }
            full = lgseq(total * d->per, rank);
            want = lgsum(total * d->per, 0, size);
            rs = tb_make(d, total, full);
            rr = tb_make(d, inplace ? total : cnts[rank], inplace ? full : NULL);
            snprintf(what, sizeof(what), "reduce_scatter%s%s", block ? "_block" : "", how);
            if (block)
                CHECK(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : rs.addr, rr.addr, n, d->dt,
                                               MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
            else
                CHECK(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : rs.addr, rr.addr, cnts, d->dt,
                                         MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
            if (inplace) { /* the rest of the buffer is undefined: check my block's data */
                got = tb_packed(&rr, d, cnts[rank]);
                for (int j = 0; j < cnts[rank] * d->per; j++)
                    EXPECT(got[j], want[off * d->per + j], "%s %s count %d: int %d", what, d->name,
                           n, j);
                free(got);
            } else {
                tb_check(&rr, d, cnts[rank], want + off * d->per, what, -1);
            }
            free(rs.mem);
            free(rr.mem);
            free(full);
            free(want);
            free(cnts);
        }
    }
    free(mine);
    free(sum);
}

/* Allgather(v) and alltoall(v, w), in place and not. */
static void neg_all(const dtype_case_t *d, int n)
{
    int m = n * d->per, *cnts = ints((size_t)size, n), *displs = ints((size_t)size, 0);
    int *mine = lgseq(m, rank);

    for (int j = 0; j < size; j++)
        displs[j] = j * n;
    for (int inplace = 0; inplace < 2; inplace++) {
        const char *how = inplace ? " in place" : "";
        char what[64];
        int *all = blocks_lg(d->per, n * size, cnts, displs, 0, 1, -1);
        int *pre = blocks_lg(d->per, n * size, cnts, displs, 0, 1, rank);
        int *a2s = blocks_lg(d->per, n * size, cnts, displs, rank * 7, 1, -1);
        int *a2r = blocks_lg(d->per, n * size, cnts, displs, rank, 7, -1);
        int *vc = ints((size_t)size, 0), *vd = ints((size_t)size, 0), *vall, *vpre, *vmine;
        int *pc = ints((size_t)size, 0), *pd = ints((size_t)size, 0), *pbd, *ps, *pr;
        MPI_Datatype *types = xmalloc((size_t)size * sizeof(MPI_Datatype));
        size_t vtotal, ptotal;
        tbuf_t s = tb_make(d, n, mine), r = tb_make(d, n * size, inplace ? pre : NULL);

        snprintf(what, sizeof(what), "allgather%s", how);
        CHECK(MPI_Allgather(inplace ? MPI_IN_PLACE : s.addr, n, d->dt, r.addr, n, d->dt,
                            MPI_COMM_WORLD) == MPI_SUCCESS);
        tb_check(&r, d, n * size, all, what, -1);
        free(s.mem);
        free(r.mem);

        vlayout(n, vc, vd, &vtotal);
        vall = blocks_lg(d->per, (int)vtotal, vc, vd, 0, 1, -1);
        vpre = blocks_lg(d->per, (int)vtotal, vc, vd, 0, 1, rank);
        vmine = lgseq(vc[rank] * d->per, rank);
        s = tb_make(d, vc[rank], vmine);
        r = tb_make(d, (int)vtotal, inplace ? vpre : NULL);
        snprintf(what, sizeof(what), "allgatherv%s", how);
        CHECK(MPI_Allgatherv(inplace ? MPI_IN_PLACE : s.addr, vc[rank], d->dt, r.addr, vc, vd,
                             d->dt, MPI_COMM_WORLD) == MPI_SUCCESS);
        tb_check(&r, d, (int)vtotal, vall, what, -1);
        free(s.mem);
        free(r.mem);

        s = tb_make(d, n * size, a2s);
        r = tb_make(d, n * size, inplace ? a2s : NULL);
        snprintf(what, sizeof(what), "alltoall%s", how);
        CHECK(MPI_Alltoall(inplace ? MPI_IN_PLACE : s.addr, n, d->dt, r.addr, n, d->dt,
                           MPI_COMM_WORLD) == MPI_SUCCESS);
        tb_check(&r, d, n * size, a2r, what, -1);
        free(s.mem);
        free(r.mem);

        /* Alltoallv and w: pcount(n, me, j) elements each way, a gap of 2 before each block;
         * w's displacements in bytes (negative for a negative extent). */
        playout(n, rank, pc, pd, &ptotal);
        ps = blocks_lg(d->per, (int)ptotal, pc, pd, rank * 7, 1, -1);
        pr = blocks_lg(d->per, (int)ptotal, pc, pd, rank, 7, -1);
        pbd = ints((size_t)size, 0);
        for (int j = 0; j < size; j++) {
            pbd[j] = pd[j] * d->ext * (int)sizeof(int);
            types[j] = d->dt;
        }
        for (int w = 0; w < 2; w++) {
            s = tb_make(d, (int)ptotal, ps);
            r = tb_make(d, (int)ptotal, inplace ? ps : NULL);
            snprintf(what, sizeof(what), "alltoall%s%s", w ? "w" : "v", how);
            if (w)
                CHECK(MPI_Alltoallw(inplace ? MPI_IN_PLACE : s.addr, pc, pbd, types, r.addr, pc,
                                    pbd, types, MPI_COMM_WORLD) == MPI_SUCCESS);
            else
                CHECK(MPI_Alltoallv(inplace ? MPI_IN_PLACE : s.addr, pc, pd, d->dt, r.addr, pc, pd,
                                    d->dt, MPI_COMM_WORLD) == MPI_SUCCESS);
            tb_check(&r, d, (int)ptotal, pr, what, -1);
            free(s.mem);
            free(r.mem);
        }
        free(all);
        free(pre);
        free(a2s);
        free(a2r);
        free(vc);
        free(vd);
        free(vall);
        free(vpre);
        free(vmine);
        free(pc);
        free(pd);
        free(pbd);
        free(ps);
        free(pr);
        free(types);
    }
    free(mine);
    free(cnts);
    free(displs);
}

/* Neighbourhood collectives on a periodic ring (size 1 and 2: the same rank on both sides).
 * In-neighbours and out-neighbours are [left, right]; rank q's send block b holds
 * val(q * 7 + b, i), and block b goes to out-neighbour b, so that my receive block 0 (from the
 * left) is the left's block 1 and block 1 is the right's block 0. Allgather: every block is
 * the sender's only one. v and w: block b of rank q has n + (q + b) % 2 elements, received at
 * element displacements with a gap of 1 before each. */
static void neg_neighbor(const dtype_case_t *d, int n)
{
    int dims = size, periods = 1, nb[2] = {(rank + size - 1) % size, (rank + 1) % size};
    int sc[2], sd[2], rc[2], rd[2], st, rt;
    MPI_Aint sbd[2], rbd[2];
    MPI_Datatype types[2] = {d->dt, d->dt};
    MPI_Comm ring;
    tbuf_t s, r;
    int *ls, *lr;

    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &ring) == MPI_SUCCESS);
    /* allgather and alltoall: n elements per block. */
    ls = ints((size_t)2 * n * d->per, 0);
    lr = ints((size_t)2 * n * d->per, 0);
    for (int i = 0; i < n * d->per; i++) {
        ls[i] = val(rank * 7, (size_t)i);
        ls[n * d->per + i] = val(rank * 7 + 1, (size_t)i);
        lr[i] = val(nb[0] * 7, (size_t)i);
        lr[n * d->per + i] = val(nb[1] * 7, (size_t)i);
    }
    s = tb_make(d, n, ls);
    r = tb_make(d, 2 * n, NULL);
    CHECK(MPI_Neighbor_allgather(s.addr, n, d->dt, r.addr, n, d->dt, ring) == MPI_SUCCESS);
    tb_check(&r, d, 2 * n, lr, "neighbor_allgather", -1);
    free(s.mem);
    free(r.mem);
    for (int i = 0; i < n * d->per; i++) {
        lr[i] = val(nb[0] * 7 + 1, (size_t)i);
        lr[n * d->per + i] = val(nb[1] * 7, (size_t)i);
    }
    s = tb_make(d, 2 * n, ls);
    r = tb_make(d, 2 * n, NULL);
    CHECK(MPI_Neighbor_alltoall(s.addr, n, d->dt, r.addr, n, d->dt, ring) == MPI_SUCCESS);
    tb_check(&r, d, 2 * n, lr, "neighbor_alltoall", -1);
    free(s.mem);
    free(r.mem);
    free(ls);
    free(lr);

    /* v and w. */
    for (int b = 0; b < 2; b++) {
        sc[b] = n + (rank + b) % 2;
        sd[b] = b ? sc[0] + 2 : 1;
        rc[b] = n + (nb[b] + (b ^ 1)) % 2;
        rd[b] = b ? rc[0] + 2 : 1;
    }
    st = sd[1] + sc[1];
    rt = rd[1] + rc[1];
    ls = ints((size_t)st * d->per, SENTINEL);
    lr = ints((size_t)rt * d->per, SENTINEL);
    for (int b = 0; b < 2; b++) {
        for (int i = 0; i < sc[b] * d->per; i++)
            ls[sd[b] * d->per + i] = val(rank * 7 + b, (size_t)i);
        for (int i = 0; i < rc[b] * d->per; i++)
            lr[rd[b] * d->per + i] = val(nb[b] * 7 + (b ^ 1), (size_t)i);
        sbd[b] = (MPI_Aint)sd[b] * d->ext * (MPI_Aint)sizeof(int);
        rbd[b] = (MPI_Aint)rd[b] * d->ext * (MPI_Aint)sizeof(int);
    }
    for (int w = 0; w < 2; w++) {
        s = tb_make(d, st, ls);
        r = tb_make(d, rt, NULL);
        if (w)
            CHECK(MPI_Neighbor_alltoallw(s.addr, sc, sbd, types, r.addr, rc, rbd, types, ring) ==
                  MPI_SUCCESS);
        else
            CHECK(MPI_Neighbor_alltoallv(s.addr, sc, sd, d->dt, r.addr, rc, rd, d->dt, ring) ==
                  MPI_SUCCESS);
        tb_check(&r, d, rt, lr, w ? "neighbor_alltoallw" : "neighbor_alltoallv", -1);
        free(s.mem);
        free(r.mem);
    }
    free(ls);
    free(lr);

    /* allgatherv: my block 1 to both sides, received at rd. */
    for (int b = 0; b < 2; b++) {
        rc[b] = n + (nb[b] + 1) % 2;
        rd[b] = b ? rc[0] + 2 : 1;
    }
    rt = rd[1] + rc[1];
    lr = ints((size_t)rt * d->per, SENTINEL);
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < rc[b] * d->per; i++)
            lr[rd[b] * d->per + i] = val(nb[b] * 7 + 1, (size_t)i);
    ls = lgseq(sc[1] * d->per, rank * 7 + 1);
    s = tb_make(d, sc[1], ls);
    r = tb_make(d, rt, NULL);
    CHECK(MPI_Neighbor_allgatherv(s.addr, sc[1], d->dt, r.addr, rc, rd, d->dt, ring) ==
          MPI_SUCCESS);
    tb_check(&r, d, rt, lr, "neighbor_allgatherv", -1);
    free(s.mem);
    free(r.mem);
    free(ls);
    free(lr);
    CHECK(MPI_Comm_free(&ring) == MPI_SUCCESS);
}

/* Overlapping elements, legal in send buffers only: sent as the type, received as ints. Rank
 * q's buffer of n elements is laid out from lgseq(m, seed(q)) (later elements overwriting the
 * ints they share with earlier ones); what it sends is that buffer's data in type-map order. */
static int *sent_overlap(const dtype_case_t *d, int n, int seed)
{
    int *lg = lgseq(n * d->per, seed), *p;
    tbuf_t b = tb_make(d, n, lg);

    p = tb_packed(&b, d, n);
    free(b.mem);
    free(lg);
    return p;
}

static void neg_overlap(const dtype_case_t *d, int n)
{
    int m = n * d->per, root = size - 1;
    int *lg = lgseq(m, rank), *got = ints((size_t)m * size, SENTINEL);
    tbuf_t s = tb_make(d, n, lg);

    /* Bcast to ints. */
    for (int x = 0; x < m; x++)
        got[x] = SENTINEL;
    if (rank == root)
        CHECK(MPI_Bcast(s.addr, n, d->dt, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    else
        CHECK(MPI_Bcast(got, m, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (rank != root) {
        int *want = sent_overlap(d, n, root);
        for (int j = 0; j < m; j++)
            EXPECT(got[j], want[j], "bcast %s count %d: int %d", d->name, n, j);
        free(want);
    }

    /* Gather and allgather into ints: block q is what rank q's buffer holds. */
    for (int all = 0; all < 2; all++) {
        for (int x = 0; x < m * size; x++)
            got[x] = SENTINEL;
        if (all)
            CHECK(MPI_Allgather(s.addr, n, d->dt, got, m, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
        else
            CHECK(MPI_Gather(s.addr, n, d->dt, got, m, MPI_INT, root, MPI_COMM_WORLD) ==
                  MPI_SUCCESS);
        for (int q = 0; (all || rank == root) && q < size; q++) {
            int *want = sent_overlap(d, n, q);
            for (int j = 0; j < m; j++)
                EXPECT(got[q * m + j], want[j], "%s %s count %d: rank %d's int %d",
                       all ? "allgather" : "gather", d->name, n, q, j);
            free(want);
        }
    }
    free(s.mem);
    free(lg);

    /* Scatter and alltoall from n * size elements: block j of rank q's packed buffer goes to
     * rank j. */
    lg = lgseq(m * size, rank * 7);
    s = tb_make(d, n * size, lg);
    for (int a2a = 0; a2a < 2; a2a++) {
        for (int x = 0; x < m * size; x++)
            got[x] = SENTINEL;
        if (a2a)
            CHECK(MPI_Alltoall(s.addr, n, d->dt, got, m, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS);
        else
            CHECK(MPI_Scatter(s.addr, n, d->dt, got, m, MPI_INT, root, MPI_COMM_WORLD) ==
                  MPI_SUCCESS);
        for (int q = 0; q < (a2a ? size : 1); q++) {
            int *want = sent_overlap(d, n * size, (a2a ? q : root) * 7);
            for (int j = 0; j < m; j++)
                EXPECT(got[q * m + j], want[rank * m + j], "%s %s count %d: from rank %d int %d",
                       a2a ? "alltoall" : "scatter", d->name, n, a2a ? q : root, j);
            free(want);
        }
    }
    free(s.mem);
    free(lg);
    free(got);
}

static void test_negext(void)
{
    static const int ncounts[] = {0, 1, 2, 7, 40};
    dtype_case_t cases[5] = {{"int resized to extent -4", MPI_DATATYPE_NULL, 1, -1, 0, 0},
                             {"hvector of stride -2 ints", MPI_DATATYPE_NULL, 2, 3, 0, -2},
                             {"that hvector at extent -12", MPI_DATATYPE_NULL, 2, -3, 0, -2},
                             {"2 ints at extent -4", MPI_DATATYPE_NULL, 2, -1, 0, 1},
                             {"2 ints at extent 4", MPI_DATATYPE_NULL, 2, 1, 0, 1}};
    MPI_Aint lb, ext, tlb, text;
    MPI_Datatype pair;
    const MPI_Aint isz = (MPI_Aint)sizeof(int);

    CHECK(MPI_Type_create_resized(MPI_INT, 0, -isz, &cases[0].dt) == MPI_SUCCESS);
    CHECK(MPI_Type_create_hvector(2, 1, -2 * isz, MPI_INT, &cases[1].dt) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(cases[1].dt, -2 * isz, -3 * isz, &cases[2].dt) == MPI_SUCCESS);
    CHECK(MPI_Type_contiguous(2, MPI_INT, &pair) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(pair, 0, -isz, &cases[3].dt) == MPI_SUCCESS);
    CHECK(MPI_Type_create_resized(pair, 0, isz, &cases[4].dt) == MPI_SUCCESS);
    CHECK(MPI_Type_free(&pair) == MPI_SUCCESS);
    for (int t = 0; t < 5; t++)
        CHECK(MPI_Type_commit(&cases[t].dt) == MPI_SUCCESS);
    /* The bounds the layouts above assume. */
    CHECK(MPI_Type_get_extent(cases[0].dt, &lb, &ext) == MPI_SUCCESS && lb == 0 && ext == -isz);
    CHECK(MPI_Type_get_extent(cases[1].dt, &lb, &ext) == MPI_SUCCESS && lb == -2 * isz &&
          ext == 3 * isz);
    CHECK(MPI_Type_get_true_extent(cases[1].dt, &tlb, &text) == MPI_SUCCESS && tlb == -2 * isz &&
          text == 3 * isz);
    CHECK(MPI_Type_get_extent(cases[2].dt, &lb, &ext) == MPI_SUCCESS && ext == -3 * isz);
    for (size_t c = 0; c < sizeof(ncounts) / sizeof(ncounts[0]); c++) {
        for (int t = 0; t < 3; t++) {
            neg_rooted(&cases[t], ncounts[c]);
            neg_reductions(&cases[t], ncounts[c]);
            neg_all(&cases[t], ncounts[c]);
            neg_neighbor(&cases[t], ncounts[c]);
        }
        for (int t = 3; t < 5; t++)
            neg_overlap(&cases[t], ncounts[c]);
    }
    for (int t = 0; t < 5; t++)
        CHECK(MPI_Type_free(&cases[t].dt) == MPI_SUCCESS);
}

#define EXPECT_ERR(_call, _class)                                                                  \
    do {                                                                                           \
        int _rc = (_call), _cls = -1;                                                              \
        MPI_Error_class(_rc, &_cls);                                                               \
        if (_cls != (_class))                                                                      \
            FAIL("%s returned class %d, expected %s (%d)", #_call, _cls, #_class, _class);         \
    } while (0)

/* Every error here is found before any message moves, on every rank alike. */
static void test_errors(void)
{
    int a[4] = {1, 2, 3, 4}, b[4], neg[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    int *cnts = ints((size_t)size, 1), *displs = ints((size_t)size, 0);
    int *big = ints((size_t)4 * size, 0);
    /* A root other than this rank, so that root-only rules apply to this rank. */
    int other = (rank + 1) % size;
    double d[4] = {0};
    MPI_Datatype pair;

    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    EXPECT_ERR(MPI_Bcast(a, 4, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_ERR(MPI_Bcast(a, 4, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_ERR(MPI_Bcast(MPI_IN_PLACE, 4, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Bcast(a, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_ERR(MPI_Bcast(a, 4, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_ERR(MPI_Bcast(NULL, 4, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK(MPI_Type_contiguous(2, MPI_INT, &pair) == MPI_SUCCESS);
    EXPECT_ERR(MPI_Bcast(a, 2, pair, 0, MPI_COMM_WORLD), MPI_ERR_TYPE); /* not committed */
    CHECK(MPI_Type_free(&pair) == MPI_SUCCESS);
    EXPECT_ERR(MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT_ERR(MPI_Allreduce(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Allreduce(a, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Allreduce(a, b, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_ERR(MPI_Allreduce(d, d + 2, 2, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_ERR(MPI_Allreduce(a, b, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_ERR(MPI_Scan(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Exscan(a, b, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_ERR(MPI_Reduce(a, b, 4, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_ERR(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Reduce_scatter(a, b, neg, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_ERR(MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_ERR(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD),
               MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Allgather(big, 1, MPI_INT, big, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Allgatherv(a, 1, MPI_INT, big, cnts, NULL, MPI_INT, MPI_COMM_WORLD),
               MPI_ERR_ARG);
    EXPECT_ERR(MPI_Alltoall(a, 1, MPI_INT, big, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD),
               MPI_ERR_TYPE);
    EXPECT_ERR(
        MPI_Alltoallv(big, neg, displs, MPI_INT, big + size, cnts, displs, MPI_INT, MPI_COMM_WORLD),
        MPI_ERR_COUNT);
    EXPECT_ERR(
        MPI_Alltoallw(big, cnts, displs, NULL, big + size, cnts, displs, NULL, MPI_COMM_WORLD),
        MPI_ERR_ARG);
    EXPECT_ERR(MPI_Gather(a, 1, MPI_INT, big, 1, MPI_INT, -3, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_ERR(MPI_Gatherv(a, 1, MPI_INT, big, NULL, displs, MPI_INT, rank, MPI_COMM_WORLD),
               MPI_ERR_ARG);
    EXPECT_ERR(MPI_Scatter(big, 1, MPI_INT, a, 1, MPI_INT, size + 1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_ERR(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, a, 1, MPI_INT, rank, MPI_COMM_WORLD),
               MPI_ERR_BUFFER);
    EXPECT_ERR(MPI_Scatterv(big, cnts, NULL, MPI_INT, a, 1, MPI_INT, rank, MPI_COMM_WORLD),
               MPI_ERR_ARG);
    if (size > 1) {
        /* MPI_IN_PLACE where only the root may pass it. */
        EXPECT_ERR(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, big, 1, MPI_INT, other, MPI_COMM_WORLD),
                   MPI_ERR_BUFFER);
        EXPECT_ERR(MPI_Gatherv(MPI_IN_PLACE, 1, MPI_INT, big, cnts, displs, MPI_INT, other,
                               MPI_COMM_WORLD),
                   MPI_ERR_BUFFER);
        EXPECT_ERR(MPI_Scatter(big, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, other, MPI_COMM_WORLD),
                   MPI_ERR_BUFFER);
        EXPECT_ERR(MPI_Reduce(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM, other, MPI_COMM_WORLD),
                   MPI_ERR_BUFFER);
    }
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);
    /* Still in step after all that: a collective works. */
    CHECK(MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(b[3] == 4 * size);
    free(big);
    free(cnts);
    free(displs);
}

static void test_fatal(void)
{
    int a = 0;
    MPI_Bcast(&a, 1, MPI_INT, size + 4, MPI_COMM_WORLD);
    FAIL("MPI_Bcast with a bad root returned");
}

static const mpitest_t tests[] = {
    {"bcast", test_bcast},
    {"reduce", test_reduce},
    {"allreduce", test_allreduce},
    {"gather", test_gather},
    {"gatherv", test_gatherv},
    {"scatter", test_scatter},
    {"scatterv", test_scatterv},
    {"allgather", test_allgather},
    {"allgatherv", test_allgatherv},
    {"alltoall", test_alltoall},
    {"alltoallv", test_alltoallv},
    {"alltoallw", test_alltoallw},
    {"reduce_scatter", test_reduce_scatter},
    {"reduce_scatter_block", test_reduce_scatter_block},
    {"scan", test_scan},
    {"exscan", test_exscan},
    {"noncommutative", test_noncommutative},
    {"comms", test_comms},
    {"derived", test_derived},
    {"negext", test_negext},
    {"errors", test_errors},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "fatal") == 0)
            test_fatal();
        else if (strcmp(argv[i], "big") == 0) {
            mpitest_t big = {"big", test_big};
            mpitest_run(&big, 1, "big");
        } else
            mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    }
    MPI_Finalize();
    return 0;
}
