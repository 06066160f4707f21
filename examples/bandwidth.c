/* bandwidth: uni-directional bandwidth from rank 0 to rank 1, a window of non-blocking sends
 * per iteration answered by one small ack, for a range of sizes. The last window of every size
 * is checked byte for byte. Options: -m MIN:MAX, -i ITERATIONS, -W WINDOW. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    size_t min = 1, max = 1 << 20;
    int iters = 20, window = 32, rank, size, opt;
    unsigned char *buf;
    MPI_Request *reqs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "m:i:W:h")) != -1) {
        switch (opt) {
        case 'm': {
            char *colon = strchr(optarg, ':');
            min = colon ? strtoull(optarg, NULL, 0) : 1;
            max = strtoull(colon ? colon + 1 : optarg, NULL, 0);
            break;
        }
        case 'i':
            iters = atoi(optarg);
            break;
        case 'W':
            window = atoi(optarg);
            break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: bandwidth [-m MIN:MAX] [-i ITERS] [-W WINDOW]\n");
            MPI_Finalize();
            return opt == 'h' ? 0 : 2;
        }
    }
    if (size < 2 || iters < 1 || window < 1 || min < 1 || max < min) {
        if (rank == 0)
            fprintf(stderr, "bandwidth: needs 2 ranks, ITERS >= 1, WINDOW >= 1, 1 <= MIN <= MAX\n");
        MPI_Finalize();
        return 2;
    }
    buf = malloc(max * (size_t)window);
    reqs = malloc(sizeof(MPI_Request) * (size_t)window);
    if (rank == 0)
        printf("# Verbatim bandwidth: window of %d\n# %-10s %16s\n", window, "Size",
               "Bandwidth (MB/s)");
    for (size_t len = min; len <= max; len *= 2) {
        double t0;
        int ack = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
            if (rank == 0) {
                for (int w = 0; w < window; w++) {
                    unsigned char *p = buf + (size_t)w * len;
                    memset(p, (int)((it * window + w + len) & 0xff), len);
                    MPI_Isend(p, (int)len, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &reqs[w]);
                }
                MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
                MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                for (int w = 0; w < window; w++)
                    MPI_Irecv(buf + (size_t)w * len, (int)len, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                              &reqs[w]);
                MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
                for (int w = 0; w < window; w++) {
                    unsigned char want = (unsigned char)((it * window + w + len) & 0xff);
                    const unsigned char *p = buf + (size_t)w * len;
                    if (p[0] != want || p[len - 1] != want || memchr(p, want ^ 1, len)) {
                        fprintf(stderr, "bandwidth: %zu-byte message %d corrupt\n", len, w);
                        MPI_Abort(MPI_COMM_WORLD, 3);
                    }
                }
                MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
            }
        }
        if (rank == 0)
            printf("  %-10zu %16.2f\n", len,
                   (double)len * window * iters / (MPI_Wtime() - t0) / 1e6);
        fflush(stdout);
    }
    free(buf);
    free(reqs);
    MPI_Finalize();
    return 0;
}
