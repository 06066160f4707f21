/* pingpong: round-trip latency between ranks 0 and 1 for a range of message sizes, with every
 * payload checked. Options: -m MIN:MAX (bytes), -i ITERATIONS, -x WARMUP, -n (no check). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fill(unsigned char *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)(seed * 31u + i * 7u + (i >> 9));
}

static size_t first_bad(const unsigned char *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) {
        if (buf[i] != (unsigned char)(seed * 31u + i * 7u + (i >> 9)))
            return i;
    }
    return len;
}

int main(int argc, char **argv)
{
    size_t min = 0, max = 1 << 16;
    int iters = 100, warmup = 10, check = 1, rank, size, opt;
    unsigned char *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "m:i:x:nh")) != -1) {
        switch (opt) {
        case 'm': {
            char *colon = strchr(optarg, ':');
            if (colon) {
                min = strtoull(optarg, NULL, 0);
                max = strtoull(colon + 1, NULL, 0);
            } else {
                max = strtoull(optarg, NULL, 0);
            }
            break;
        }
        case 'i':
            iters = atoi(optarg);
            break;
        case 'x':
            warmup = atoi(optarg);
            break;
        case 'n':
            check = 0;
            break;
        default:
            if (rank == 0)
                fprintf(stderr, "usage: pingpong [-m MIN:MAX] [-i ITERS] [-x WARMUP] [-n]\n");
            MPI_Finalize();
            return opt == 'h' ? 0 : 2;
        }
    }
    if (size < 2 || iters < 1 || max < min) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs 2 ranks (got %d), ITERS >= 1 and MIN <= MAX\n", size);
        MPI_Finalize();
        return 2;
    }
    buf = malloc(max ? max : 1);
    if (rank == 0)
        printf("# Verbatim pingpong: round-trip latency / 2\n# %-10s %14s\n", "Size",
               "Latency (us)");
    for (size_t len = min;; len = len ? len * 2 : 1) {
        double t0 = 0;
        if (len > max)
            break;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < warmup + iters; i++) {
            unsigned seed = (unsigned)(len + (size_t)i);
            if (i == warmup)
                t0 = MPI_Wtime();
            if (rank == 0) {
                if (check)
                    fill(buf, len, seed);
                MPI_Send(buf, (int)len, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)len, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)len, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)len, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
            if (check && rank <= 1 && first_bad(buf, len, seed) != len) {
                fprintf(stderr, "pingpong: rank %d: %zu-byte message corrupt at byte %zu\n", rank,
                        len, first_bad(buf, len, seed));
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
        if (rank == 0)
            printf("  %-10zu %14.2f\n", len, (MPI_Wtime() - t0) * 1e6 / (2.0 * iters));
        fflush(stdout);
        if (len == 0 && min == 0 && max == 0)
            break;
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
