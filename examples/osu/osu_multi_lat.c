/* vbt_osu_multi_lat: n/2 pairs ping-pong at once, rank i with rank i + n/2; the latency is
 * half the round trip, averaged over the pairs (-f: also the best and worst pair's average).
 * Options and output as OSU's osu_multi_lat: see -h and README.md. */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    osu_opts_t o;
    unsigned char *sbuf, *rbuf;
    int rc, pairs, sender, peer;

    MPI_Init(&argc, &argv);
    rc = osu_init(&o, OSU_MULTI_LAT, "vbt_osu_multi_lat", "Multi-pair Latency Test", argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    pairs = o.nranks / 2;
    sender = o.rank < pairs;
    peer = sender ? o.rank + pairs : o.rank - pairs;
    sbuf = osu_alloc(&o, o.max_size);
    rbuf = osu_alloc(&o, o.max_size);
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup);
        double t0 = 0, t = 0, busy = 0, lat;
        osu_stat_t all;

        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup + iters; i++) {
            if (o.validate)
                osu_fill(sbuf, size, osu_seed(size, i, o.rank));
            if (i == warmup)
                t0 = MPI_Wtime();
            if (o.validate)
                t = MPI_Wtime();
            if (sender) {
                MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            }
            if (o.validate && i >= warmup)
                busy += MPI_Wtime() - t; /* the figures leave the checking out */
            if (o.validate)
                osu_check(&o, rbuf, size, osu_seed(size, i, peer), size, i, peer);
        }
        lat = (o.validate ? busy : MPI_Wtime() - t0) / 2 / iters * 1e6;
        osu_gather(&o, sender, lat, &all);
        osu_print_row(&o, size, all.sum / (double)all.n, all.min, all.max, 0);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
