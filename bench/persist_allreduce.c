/* persist_allreduce (bench/ only, not installed): the time of one MPI_Allreduce of COUNT
 * doubles (default 1: 8 bytes) with MPI_SUM, blocking (MPI_Allreduce) next to persistent
 * (MPI_Allreduce_init once, then MPI_Start + MPI_Wait per call), in alternating rounds of
 * ITERS calls; each figure is the best round's average per call, the slower rank's. Every
 * result is checked (element j of rank r at call i is a small integer of (r, i, j), whose sum
 * is exact in a double). Built with each MPI's mpicc:
 *
 *   mpicc -O2 -o persist_allreduce bench/persist_allreduce.c
 *   mpirun -n 2 ./persist_allreduce [-n COUNT] [-i ITERS] [-r ROUNDS] [--csv]
 *
 * Output: "blocking_us persistent_us ratio" (--csv: "count,blocking_us,persistent_us"). Open MPI
 * 4, an MPI-3.1 library, has the call as MPIX_Allreduce_init (its pcollreq extension). */
#include <mpi.h>
#if MPI_VERSION < 4 && defined(OPEN_MPI)
/* Open MPI 4 has MPI-4's persistent collectives as an extension, named MPIX_. */
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define MPI_Allreduce_init MPIX_Allreduce_init
#endif
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks;

static double element(int r, long i, int j)
{
    return (double)((r * 7 + i * 3 + j) % 251);
}

static void fill(double *s, int count, long i)
{
    for (int j = 0; j < count; j++)
        s[j] = element(rank, i, j);
}

static void check(const double *res, int count, long i, const char *what)
{
    for (int j = 0; j < count; j++) {
        double want = 0;
        for (int r = 0; r < nranks; r++)
            want += element(r, i, j);
        if (res[j] != want) {
            fprintf(stderr, "persist_allreduce: rank %d: %s call %ld element %d: got %g, want %g\n",
                    rank, what, i, j, res[j], want);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

/* One round of iters calls; returns the slower rank's average per call in µs. */
static double round_of(int persistent, MPI_Request req, double *s, double *r, int count, long iters,
                       long base)
{
    double t, mine, worst;

    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        s[0] = element(rank, base + i, 0); /* new data every call (the rest: see check) */
        if (persistent) {
            MPI_Start(&req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(s, r, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
    }
    mine = (MPI_Wtime() - t) * 1e6 / (double)iters;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    check(r, 1, base + iters - 1, persistent ? "persistent" : "blocking");
    return worst;
}

int main(int argc, char **argv)
{
    int count = 1, rounds = 5, csv = 0;
    long iters = 100000;
    double *s, *r, best[2] = {1e30, 1e30};
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-n") == 0 && a + 1 < argc)
            count = atoi(argv[++a]);
        else if (strcmp(argv[a], "-i") == 0 && a + 1 < argc)
            iters = atol(argv[++a]);
        else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc)
            rounds = atoi(argv[++a]);
        else if (strcmp(argv[a], "--csv") == 0)
            csv = 1;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: persist_allreduce [-n COUNT] [-i ITERS] [-r ROUNDS] "
                                "[--csv]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (count < 1 || iters < 1 || rounds < 1) {
        if (rank == 0)
            fprintf(stderr, "persist_allreduce: -n, -i and -r take positive numbers\n");
        MPI_Finalize();
        return 2;
    }
    s = malloc(sizeof(double) * (size_t)count);
    r = malloc(sizeof(double) * (size_t)count);
    /* The full vectors checked once each way, then the timed rounds. */
    fill(s, count, 0);
    MPI_Allreduce(s, r, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    check(r, count, 0, "blocking");
    MPI_Allreduce_init(s, r, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    fill(s, count, 1);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(r, count, 1, "persistent");
    for (int k = 0; k < rounds; k++) {
        for (int p = 0; p < 2; p++) {
            double t = round_of(p, req, s, r, count, iters, 2 + (long)k * 1000003);
            if (t < best[p])
                best[p] = t;
        }
    }
    MPI_Request_free(&req);
    if (rank == 0) {
        if (csv)
            printf("%d,%.3f,%.3f\n", count, best[0], best[1]);
        else
            printf("# %d ranks, %d doubles, best of %d rounds of %ld calls\n"
                   "blocking_us persistent_us persistent/blocking\n%.3f %.3f %.3f\n",
                   nranks, count, rounds, iters, best[0], best[1], best[1] / best[0]);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
