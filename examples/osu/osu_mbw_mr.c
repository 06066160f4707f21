/* vbt_osu_mbw_mr: n/2 pairs at once, rank i sending windows of -W MPI_Isends to rank i + n/2,
 * which acks each window (as vbt_osu_bw). Reports the aggregate bandwidth in MB/s (10^6 bytes)
 * and message rate: pairs * bytes (messages) / the pairs' average time; -f adds the aggregate
 * as if every pair took the slowest / the fastest pair's time. Options and output as OSU's
 * osu_mbw_mr: see -h and README.md. */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    osu_opts_t o;
    unsigned char *sbuf = NULL, *rbuf = NULL;
    MPI_Request *reqs;
    MPI_Status *stats;
    int rc, pairs, sender, peer;

    MPI_Init(&argc, &argv);
    rc = osu_init(&o, OSU_MBW_MR, "vbt_osu_mbw_mr", "Multiple Bandwidth / Message Rate Test", argc,
                  argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    pairs = o.nranks / 2;
    sender = o.rank < pairs;
    peer = sender ? o.rank + pairs : o.rank - pairs;
    if (sender)
        sbuf = osu_alloc(&o, o.max_size);
    else
        rbuf = osu_alloc(&o, osu_slot_stride(o.max_size) * (size_t)o.window);
    reqs = osu_alloc(&o, sizeof(*reqs) * (size_t)o.window);
    stats = osu_alloc(&o, sizeof(*stats) * (size_t)o.window);
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup), ack = 0;
        size_t stride = osu_slot_stride(size);
        double t0 = 0, t = 0, busy = 0, msgs, bytes;
        osu_stat_t all;

        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup + iters; i++) {
            if (sender) {
                if (o.validate)
                    osu_fill(sbuf, size, osu_seed(size, i, o.rank));
                if (i == warmup)
                    t0 = MPI_Wtime();
                if (o.validate)
                    t = MPI_Wtime();
                for (int w = 0; w < o.window; w++)
                    MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &reqs[w]);
                MPI_Waitall(o.window, reqs, stats);
                MPI_Recv(&ack, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (o.validate && i >= warmup)
                    busy += MPI_Wtime() - t; /* the figures leave the filling out */
            } else {
                for (int w = 0; w < o.window; w++)
                    MPI_Irecv(rbuf + stride * w, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD,
                              &reqs[w]);
                MPI_Waitall(o.window, reqs, stats);
                MPI_Send(&ack, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
                for (int w = 0; o.validate && w < o.window; w++)
                    osu_check(&o, rbuf + stride * w, size, osu_seed(size, i, peer), size, i, peer);
            }
        }
        if (sender && !o.validate)
            busy = MPI_Wtime() - t0;
        osu_gather(&o, sender, busy, &all);
        msgs = (double)pairs * o.window * iters;
        bytes = msgs * (double)size;
        osu_print_row(&o, size, bytes / (all.sum / all.n) / 1e6, bytes / all.max / 1e6,
                      bytes / all.min / 1e6, msgs / (all.sum / all.n));
    }
    free(sbuf);
    free(rbuf);
    free(reqs);
    free(stats);
    MPI_Finalize();
    return 0;
}
