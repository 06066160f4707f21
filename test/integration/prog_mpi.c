/* An MPI program that misbehaves on request, for the launcher tests.
 *
 *   prog_mpi hello                      "rank R of N" from every rank
 *   prog_mpi exit RANK CODE [OTHERS]    RANK exits with CODE right after MPI_Init
 *   prog_mpi segv RANK [OTHERS]         RANK dies of SIGSEGV
 *   prog_mpi abort RANK CODE [OTHERS]   RANK calls MPI_Abort(MPI_COMM_WORLD, CODE)
 *   prog_mpi nofinalize RANK [OTHERS]   RANK exits 0 without MPI_Finalize
 *   prog_mpi flood LINES LENGTH         every rank writes LINES lines of LENGTH characters,
 *                                       each in small pieces, to stdout and stderr
 *
 * OTHERS is what the remaining ranks do: "finalize" (default: they wait in MPI_Finalize's
 * fence for the failed rank) or "sleep" (they sleep 300 s, so they end only if killed). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void others(const char *what)
{
    if (what != NULL && strcmp(what, "sleep") == 0)
        sleep(300);
    MPI_Finalize();
    exit(0);
}

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w <= 0)
            exit(2);
        buf += w;
        len -= (size_t)w;
    }
}

/* Line i of rank r: "r:i:" then letters up to length, then a newline; written in pieces of
 * 97 bytes so mpirun sees partial lines from both ranks at once. */
static void flood(int rank, int fd, int lines, int length)
{
    char *line = malloc((size_t)length + 2);

    for (int i = 0; i < lines; i++) {
        int n = snprintf(line, (size_t)length + 1, "%d:%d:", rank, i);
        for (; n < length; n++)
            line[n] = (char)('a' + (rank + i + n) % 26);
        line[n++] = '\n';
        for (int off = 0; off < n; off += 97)
            write_all(fd, line + off, (size_t)(n - off < 97 ? n - off : 97));
    }
    free(line);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hello";
    int rank, size, target = argc > 2 ? atoi(argv[2]) : 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (strcmp(mode, "hello") == 0) {
        printf("rank %d of %d\n", rank, size);
    } else if (strcmp(mode, "exit") == 0 && argc > 3) {
        if (rank == target)
            exit(atoi(argv[3]));
        others(argc > 4 ? argv[4] : NULL);
    } else if (strcmp(mode, "segv") == 0) {
        if (rank == target)
            raise(SIGSEGV);
        others(argc > 3 ? argv[3] : NULL);
    } else if (strcmp(mode, "abort") == 0 && argc > 3) {
        if (rank == target) {
            usleep(100000); /* let the others reach their fence or sleep */
            MPI_Abort(MPI_COMM_WORLD, atoi(argv[3]));
        }
        others(argc > 4 ? argv[4] : NULL);
    } else if (strcmp(mode, "nofinalize") == 0) {
        if (rank == target) {
            usleep(100000);
            exit(0);
        }
        others(argc > 3 ? argv[3] : NULL);
    } else if (strcmp(mode, "flood") == 0 && argc > 3) {
        fflush(stdout);
        flood(rank, STDOUT_FILENO, atoi(argv[2]), atoi(argv[3]));
        flood(rank, STDERR_FILENO, atoi(argv[2]) / 4, atoi(argv[3]));
    } else {
        fprintf(stderr, "prog_mpi: unknown mode %s\n", mode);
        MPI_Finalize();
        return 2;
    }
    MPI_Finalize();
    return 0;
}
