/* vbt_osu_allreduce (bench/ only, not installed): MPI_Allreduce of SIZE bytes of MPI_FLOAT
 * with MPI_SUM over all ranks, timing each timed call; the latency is each rank's average time
 * per call, averaged over the ranks (-f: also the fastest and slowest rank's average). Options
 * and output as OSU's osu_allreduce, through examples/osu/osu_common.c:
 *
 *   mpicc -O2 -I examples/osu -o vbt_osu_allreduce bench/osu_allreduce.c \
 *       examples/osu/osu_common.c
 *
 * It lives in bench/ because Verbatim has no MPI_Allreduce yet: bench/shm builds it with each
 * MPI's mpicc and reports "n/a" where it does not build. -c fills element j of rank r's
 * contribution at iteration i with a small integer of (r, i, j) and checks every element of
 * the result against the exact sum (small integers add exactly in float). */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static float element(int rank, int iter, size_t j)
{
    return (float)(((unsigned)rank * 7u + (unsigned)iter * 3u + (unsigned)j) % 251u);
}

static void check(const osu_opts_t *o, const float *res, size_t count, size_t size, int iter)
{
    for (size_t j = 0; j < count; j++) {
        float want = 0;

        for (int r = 0; r < o->nranks; r++)
            want += element(r, iter, j);
        if (res[j] == want)
            continue;
        fprintf(stderr,
                "%s: validation failed on rank %d: size %zu, iteration %d, element %zu: got %g, "
                "expected %g\n",
                o->prog, o->rank, size, iter, j, (double)res[j], (double)want);
        fflush(stderr);
        sleep(1); /* launchers drop the output of a job that aborts at once */
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

int main(int argc, char **argv)
{
    osu_opts_t o;
    float *sbuf, *rbuf;
    int rc;

    MPI_Init(&argc, &argv);
    rc = osu_init(&o, OSU_ALLREDUCE, "vbt_osu_allreduce", "MPI Allreduce Latency Test", argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    sbuf = osu_alloc(&o, o.max_size);
    rbuf = osu_alloc(&o, o.max_size);
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup);
        size_t count = size / sizeof(float);
        double busy = 0, t;
        osu_stat_t all;

        if (count == 0)
            continue; /* as OSU: sizes below one float are skipped */
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup + iters; i++) {
            if (o.validate)
                for (size_t j = 0; j < count; j++)
                    sbuf[j] = element(o.rank, i, j);
            t = MPI_Wtime();
            MPI_Allreduce(sbuf, rbuf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
            if (i >= warmup)
                busy += MPI_Wtime() - t;
            if (o.validate)
                check(&o, rbuf, count, size, i);
        }
        osu_gather(&o, 1, busy / iters * 1e6, &all);
        osu_print_row(&o, size, all.sum / (double)all.n, all.min, all.max, 0);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
