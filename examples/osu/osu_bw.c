/* vbt_osu_bw: rank 0 sends a window of -W MPI_Isends to rank 1, which has pre-posted as many
 * MPI_Irecvs (each into its own page-aligned slot) and answers each window with a small ack.
 * Bandwidth = bytes of the timed windows / time, in MB/s (10^6 bytes); -f adds the slowest and
 * fastest window. Options and output as OSU's osu_bw: see -h and README.md. */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    osu_opts_t o;
    unsigned char *sbuf = NULL, *rbuf = NULL;
    MPI_Request *reqs;
    MPI_Status *stats;
    int rc;

    MPI_Init(&argc, &argv);
    rc = osu_init(&o, OSU_BW, "vbt_osu_bw", "MPI Bandwidth Test", argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    if (o.rank == 0)
        sbuf = osu_alloc(&o, o.max_size);
    else
        rbuf = osu_alloc(&o, osu_slot_stride(o.max_size) * (size_t)o.window);
    reqs = osu_alloc(&o, sizeof(*reqs) * (size_t)o.window);
    stats = osu_alloc(&o, sizeof(*stats) * (size_t)o.window);
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup), ack = 0;
        int per_iter = o.full || o.validate;
        size_t stride = osu_slot_stride(size);
        double t0 = 0, t = 0, bytes = (double)size * o.window;
        osu_stat_t st;

        osu_stat_reset(&st);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup + iters; i++) {
            if (o.rank == 0) {
                if (o.validate)
                    osu_fill(sbuf, size, osu_seed(size, i, 0));
                if (i == warmup)
                    t0 = MPI_Wtime();
                if (per_iter)
                    t = MPI_Wtime();
                for (int w = 0; w < o.window; w++)
                    MPI_Isend(sbuf, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &reqs[w]);
                MPI_Waitall(o.window, reqs, stats);
                MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (per_iter && i >= warmup)
                    osu_stat_add(&st, MPI_Wtime() - t);
            } else {
                for (int w = 0; w < o.window; w++)
                    MPI_Irecv(rbuf + stride * w, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
                              &reqs[w]);
                MPI_Waitall(o.window, reqs, stats);
                MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
                for (int w = 0; o.validate && w < o.window; w++)
                    osu_check(&o, rbuf + stride * w, size, osu_seed(size, i, 0), size, i, 0);
            }
        }
        if (o.rank == 0 && !per_iter) {
            st.sum = MPI_Wtime() - t0;
            st.n = iters;
            st.min = st.max = st.sum / iters;
        }
        osu_print_row(&o, size, bytes * (double)st.n / st.sum / 1e6, bytes / st.max / 1e6,
                      bytes / st.min / 1e6, 0);
    }
    free(sbuf);
    free(rbuf);
    free(reqs);
    free(stats);
    MPI_Finalize();
    return 0;
}
