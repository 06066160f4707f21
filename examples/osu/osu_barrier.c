/* vbt_osu_barrier: every rank calls MPI_Barrier -x + -i times, timing each timed call; the
 * latency is each rank's average time per call, averaged over the ranks (-f: also the fastest
 * and slowest rank's average, and the iteration count). Options and output as OSU's
 * osu_barrier: see -h and README.md. */
#include "osu_common.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    osu_opts_t o;
    osu_stat_t all;
    double busy = 0, t;
    int rc;

    MPI_Init(&argc, &argv);
    rc = osu_init(&o, OSU_BARRIER, "vbt_osu_barrier", "MPI Barrier Latency Test", argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    osu_print_header(&o);

    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < o.warmup + o.iters; i++) {
        t = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
        if (i >= o.warmup)
            busy += MPI_Wtime() - t;
    }
    osu_gather(&o, 1, busy / o.iters * 1e6, &all);
    osu_print_row(&o, 0, all.sum / (double)all.n, all.min, all.max, 0);
    MPI_Finalize();
    return 0;
}
