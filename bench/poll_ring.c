/* bench/poll_ring.c: a program that polls, as HPL's ring broadcasts do. The ranks form a ring;
 * each loops on a polling call until its left neighbour's 8-byte message arrives, then
 * forwards it to its right neighbour; rank 0 starts each lap and times it.
 *
 *   poll_ring iprobe|test [LAPS [WARMUP]]     (default 2000 laps after 100 warm-up laps)
 *
 *   iprobe  MPI_Iprobe until the message is there, then MPI_Recv
 *   test    MPI_Irecv posted before the wait, then MPI_Test until it completes
 *
 * Rank 0 prints CSV: a header, then "poll_MODE,RANKS,LAPS,US_PER_LAP". Each message is checked
 * (lap and hop); a wrong one ends the run with exit 2. Built with each MPI's mpicc by
 * bench/progress --poll; standard MPI only. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG 19

static int rank, size;

static void poll_recv(int by_test, int left, int32_t msg[2])
{
    MPI_Request req;
    int flag = 0;

    if (by_test) {
        MPI_Irecv(msg, 2, MPI_INT32_T, left, TAG, MPI_COMM_WORLD, &req);
        while (!flag)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        return;
    }
    while (!flag)
        MPI_Iprobe(left, TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MPI_Recv(msg, 2, MPI_INT32_T, left, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void lap(int by_test, int32_t n)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int32_t msg[2] = {n, 0};

    if (rank == 0)
        MPI_Send(msg, 2, MPI_INT32_T, right, TAG, MPI_COMM_WORLD);
    msg[0] = msg[1] = -1;
    poll_recv(by_test, left, msg);
    if (msg[0] != n || msg[1] != (rank == 0 ? size - 1 : rank - 1)) {
        fprintf(stderr, "poll_ring: rank %d: lap %d: got (%d, %d), expected (%d, %d)\n", rank,
                (int)n, (int)msg[0], (int)msg[1], (int)n, rank == 0 ? size - 1 : rank - 1);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank != 0) {
        msg[1] = rank;
        MPI_Send(msg, 2, MPI_INT32_T, right, TAG, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int by_test, laps = 2000, warmup = 100;
    double t0, t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || (strcmp(argv[1], "iprobe") != 0 && strcmp(argv[1], "test") != 0) ||
        (argc > 2 && atoi(argv[2]) < 1) || (argc > 3 && atoi(argv[3]) < 0)) {
        if (rank == 0)
            fprintf(stderr, "usage: poll_ring iprobe|test [LAPS [WARMUP]]\n");
        MPI_Finalize();
        return 2;
    }
    by_test = strcmp(argv[1], "test") == 0;
    if (argc > 2)
        laps = atoi(argv[2]);
    if (argc > 3)
        warmup = atoi(argv[3]);
    for (int i = 0; i < warmup; i++)
        lap(by_test, i);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < laps; i++)
        lap(by_test, warmup + i);
    t = MPI_Wtime() - t0;
    if (rank == 0)
        printf("bench,ranks,laps,us_per_lap\npoll_%s,%d,%d,%.2f\n", argv[1], size, laps,
               t * 1e6 / laps);
    MPI_Finalize();
    return 0;
}
