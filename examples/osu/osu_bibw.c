/* vbt_osu_bibw: ranks 0 and 1 each post a window of -W MPI_Irecvs (each into its own
 * page-aligned slot), then send a window of MPI_Isends to the other, and wait for all.
 * Bandwidth = bytes of both directions / time on rank 0, in MB/s (10^6 bytes); -f adds the
 * slowest and fastest window. Options and output as OSU's osu_bibw: see -h and README.md. */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    osu_opts_t o;
    unsigned char *sbuf, *rbuf;
    MPI_Request *reqs;
    MPI_Status *stats;
    int rc, peer;

    MPI_Init(&argc, &argv);
    rc = osu_init(&o, OSU_BIBW, "vbt_osu_bibw", "MPI Bi-Directional Bandwidth Test", argc, argv);
    if (rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    peer = 1 - o.rank;
    sbuf = osu_alloc(&o, o.max_size);
    rbuf = osu_alloc(&o, osu_slot_stride(o.max_size) * (size_t)o.window);
    reqs = osu_alloc(&o, sizeof(*reqs) * 2 * (size_t)o.window);
    stats = osu_alloc(&o, sizeof(*stats) * 2 * (size_t)o.window);
    osu_print_header(&o);

    for (size_t size = o.min_size; size <= o.max_size; size = osu_next_size(size)) {
        int warmup, iters = osu_iterations(&o, size, &warmup);
        int per_iter = o.full || o.validate;
        size_t stride = osu_slot_stride(size);
        double t0 = 0, t = 0, bytes = 2.0 * (double)size * o.window;
        osu_stat_t st;

        osu_stat_reset(&st);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup + iters; i++) {
            if (o.validate)
                osu_fill(sbuf, size, osu_seed(size, i, o.rank));
            if (i == warmup)
                t0 = MPI_Wtime();
            if (per_iter)
                t = MPI_Wtime();
            for (int w = 0; w < o.window; w++)
                MPI_Irecv(rbuf + stride * w, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD,
                          &reqs[w]);
            for (int w = 0; w < o.window; w++)
                MPI_Isend(sbuf, (int)size, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &reqs[o.window + w]);
            MPI_Waitall(2 * o.window, reqs, stats);
            if (per_iter && i >= warmup)
                osu_stat_add(&st, MPI_Wtime() - t);
            for (int w = 0; o.validate && w < o.window; w++)
                osu_check(&o, rbuf + stride * w, size, osu_seed(size, i, peer), size, i, peer);
        }
        if (!per_iter) {
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
