/* Passive target while the target computes: rank 0 spins for about a second without calling
 * MPI while every other rank locks it (exclusive and shared), puts, accumulates and unlocks,
 * K times. The origins may wait for the target, but must not deadlock: once rank 0 calls MPI
 * again everything completes and the result is exact. Rank 0 prints how long the origins
 * waited (at 1 rank it only computes). Usage: rma_passive [TEST...]. */
#define MPITEST_NAME "rma_passive"
#include "mpitest.h"
#include "rma_common.h"

#define K 20

static volatile double sink;

static void compute(double secs)
{
    double t0 = MPI_Wtime(), x = 1.0;
    /* MPI_Wtime is a local clock read, not progress; the loop makes no other MPI call. */
    while (MPI_Wtime() - t0 < secs)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void test_busy_target(void)
{
    rma_win_t w;
    int64_t one = 1;
    double waited = 0, t0, all_max = 0;
    CHECK(rma_win_make(&w, RMA_ALLOCATE, 4096, 8, MPI_COMM_WORLD));
    int64_t *mem = (int64_t *)w.base;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        compute(1.0);
    } else {
        t0 = MPI_Wtime();
        for (int i = 0; i < K; i++) {
            int64_t v = (int64_t)rank * 1000 + i;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win);
            MPI_Put(&v, 1, MPI_INT64_T, 0, rank, 1, MPI_INT64_T, w.win); /* slot rank */
            MPI_Win_unlock(0, w.win);
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win);
            MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_SUM, w.win);
            MPI_Win_unlock(0, w.win);
        }
        waited = MPI_Wtime() - t0;
    }
    MPI_Reduce(&waited, &all_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        rma_local_begin(&w);
        if (mem[0] != (int64_t)K * (size - 1))
            FAIL("counter %lld after %d origins x %d accumulates", (long long)mem[0], size - 1, K);
        for (int r = 1; r < size; r++)
            if (mem[r] != (int64_t)r * 1000 + K - 1)
                FAIL("slot %d holds %lld, expected the last put %d", r, (long long)mem[r],
                     r * 1000 + K - 1);
        rma_local_end(&w);
        printf("rma_passive: origins waited up to %.2f s for a target computing 1 s\n", all_max);
    }
    rma_win_free(&w);
}

static const mpitest_t tests[] = {
    {"busy_target", test_busy_target},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
