/* MPI_Win_allocate_shared and MPI_Win_shared_query: every process reads and writes its
 * neighbours' memory with plain loads and stores, ordered by MPI_Win_sync and a barrier inside a
 * lock_all epoch (MPI-4.1 12.7, the unified model); sizes that differ per process (0 included),
 * contiguous by default, MPI_PROC_NULL giving the lowest rank with memory; RMA calls on the same
 * window agree with the loads. Skips (77) when the ranks are not on one node. Usage:
 * rma_shared TEST... (or "all"), any number of ranks. */
#define MPITEST_NAME "rma_shared"
#include "mpitest.h"
#include "rma_common.h"

static MPI_Comm node;
static int nrank, nsize;

/* Rank r has 1000 * r + 8 bytes (rank 1 none when there are several: a size 0 is allowed). */
static MPI_Aint bytes_of(int r)
{
    return nsize > 1 && r == 1 ? 0 : 1000 * (MPI_Aint)r + 8;
}

static void test_query(void)
{
    MPI_Win win;
    unsigned char *mine, *p;
    MPI_Aint sz, total = 0;
    int du;
    CHECK(MPI_Win_allocate_shared(bytes_of(nrank), 1, MPI_INFO_NULL, node, &mine, &win) ==
          MPI_SUCCESS);
    for (int r = 0; r < nsize; r++) {
        CHECK(MPI_Win_shared_query(win, r, &sz, &du, &p) == MPI_SUCCESS);
        if (sz != bytes_of(r) || du != 1)
            FAIL("shared_query(%d): size %ld disp_unit %d, expected %ld 1", r, (long)sz, du,
                 (long)bytes_of(r));
        if (r == nrank && p != mine)
            FAIL("shared_query of oneself: %p, MPI_Win_allocate_shared gave %p", (void *)p,
                 (void *)mine);
        total += sz;
    }
    CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p) == MPI_SUCCESS);
    CHECK(sz == bytes_of(0)); /* the lowest rank with memory: 0 */
    /* Contiguous by default: rank r's memory follows rank r-1's (the pointer of a rank with
     * no memory means nothing: measure to the last rank with some). */
    unsigned char *b0, *bl;
    int lastr = nsize > 2 || nsize == 1 ? nsize - 1 : 0;
    MPI_Win_shared_query(win, 0, &sz, &du, &b0);
    MPI_Win_shared_query(win, lastr, &sz, &du, &bl);
    CHECK(bl + sz - b0 == total);
    MPI_Win_free(&win);
}

/* Each writes its pattern into its memory; after sync + barrier + sync each reads every other
 * process's memory directly; then each writes into its right neighbour's and checks the left
 * one wrote into its own. Repeated, so stale values would show. */
static void test_loadstore(void)
{
    MPI_Win win;
    unsigned char *mine;
    MPI_Aint n = 65536 + 3 * nrank;
    int right = (nrank + 1) % nsize, left = (nrank - 1 + nsize) % nsize;
    MPI_Aint rsz, lsz;
    int du;
    unsigned char *rp, *lp;
    CHECK(MPI_Win_allocate_shared(n, 1, MPI_INFO_NULL, node, &mine, &win) == MPI_SUCCESS);
    MPI_Win_shared_query(win, right, &rsz, &du, &rp);
    MPI_Win_shared_query(win, left, &lsz, &du, &lp);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int round = 0; round < 20; round++) {
        fill(mine, (size_t)n, (unsigned)(nrank * 100 + round));
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        for (int r = 0; r < nsize; r++) {
            MPI_Aint sz;
            unsigned char *p;
            MPI_Win_shared_query(win, r, &sz, &du, &p);
            verify(p, (size_t)sz, (unsigned)(r * 100 + round), "load from a neighbour");
        }
        MPI_Barrier(node);
        fill(rp, (size_t)rsz, (unsigned)(nrank * 100 + round + 50)); /* stores into the right */
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        verify(mine, (size_t)n, (unsigned)(left * 100 + round + 50), "stores by the left");
        MPI_Barrier(node);
    }
    /* A put through the window, seen by a load after flush, barrier and sync. */
    unsigned char v[16];
    fill(v, 16, (unsigned)nrank + 7);
    MPI_Put(v, 16, MPI_BYTE, right, 5, 16, MPI_BYTE, win);
    MPI_Win_flush(right, win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    verify(mine + 5, 16, (unsigned)left + 7, "put seen by a load");
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

/* A counter in rank 0's memory incremented by atomic accumulates while everyone reads it with
 * loads: never decreasing, exact at the end. */
static void test_atomic(void)
{
    MPI_Win win;
    int64_t *mine, *c0, one = 1, last = 0;
    MPI_Aint sz;
    int du;
    CHECK(MPI_Win_allocate_shared(nrank == 0 ? 8 : 0, 8, MPI_INFO_NULL, node, &mine, &win) ==
          MPI_SUCCESS);
    MPI_Win_shared_query(win, 0, &sz, &du, &c0);
    MPI_Win_lock_all(0, win);
    if (nrank == 0)
        *c0 = 0;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    for (int i = 0; i < 500; i++) {
        int64_t seen, old;
        MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_SUM, win);
        MPI_Win_flush(0, win);
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        seen = old;
        if (seen < last || seen < i + 1)
            FAIL("counter went from %lld to %lld (%d of my increments done)", (long long)last,
                 (long long)seen, i + 1);
        last = seen;
    }
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    if (*c0 != 500 * (int64_t)nsize)
        FAIL("shared counter %lld, expected %d", (long long)*c0, 500 * nsize);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

static const mpitest_t tests[] = {
    {"query", test_query},
    {"loadstore", test_loadstore},
    {"atomic", test_atomic},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    if (nsize != size) {
        if (rank == 0)
            printf("rma_shared: SKIP: the %d ranks are not on one node\n", size);
        MPI_Finalize();
        return 77;
    }
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    if (argc < 2)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), "all");
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
