/* vbt_osu_latency: ping-pong between ranks 0 and 1 (MPI_Send/MPI_Recv); the latency is half
 * the round trip, averaged over the iterations (-f: also the fastest and slowest iteration).
 * Options and output as OSU's osu_latency: see -h and README.md. */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    osu_opts_t o;
    unsigned char *sbuf, *rbuf;
    int rc;

    MPI_Init(&argc, &argv);
    rc = osu_init(&o, OSU_LATENCY, "vbt_osu_latency", "MPI Latency Test", argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    sbuf = osu_alloc(&o, o.max_size);
    rbuf = osu_alloc(&o, o.max_size);
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup), peer = 1 - o.rank;
        int per_iter = o.full || o.validate;
        osu_stat_t st;
        double t0 = 0, t;

        osu_stat_reset(&st);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup + iters; i++) {
            if (o.validate)
                osu_fill(sbuf, size, osu_seed(size, i, o.rank));
            if (i == warmup)
                t0 = MPI_Wtime();
            t = MPI_Wtime();
            if (o.rank == 0) {
                MPI_Send(sbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
            if (per_iter && i >= warmup)
                osu_stat_add(&st, (MPI_Wtime() - t) / 2 * 1e6);
            if (o.validate)
                osu_check(&o, rbuf, size, osu_seed(size, i, peer), size, i, peer);
        }
        if (!per_iter) {
            t = (MPI_Wtime() - t0) / 2 * 1e6;
            st.sum = t;
            st.n = iters;
            st.min = st.max = t / iters;
        }
        osu_print_row(&o, size, st.sum / (double)st.n, st.min, st.max, 0);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
