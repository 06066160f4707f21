/* recv_cpu (bench/progress): how much CPU a rank burns while it waits in MPI_Recv.
 *
 *   mpirun -n 2 recv_cpu [SECONDS]
 *
 * After a barrier, rank 1 sleeps SECONDS (default 5) and then sends 8 bytes; rank 0 waits for
 * them in MPI_Recv and measures, around that one call, its wall time (MPI_Wtime) and its CPU
 * time (getrusage(RUSAGE_SELF): user and system time of every thread of the process, so a
 * library's own progress threads count too). Rank 0 prints one CSV row after a header:
 *
 *   benchmark,library,seconds,wall_s,cpu_s,user_s,sys_s
 *   recv_cpu,Verbatim 0.1.0,5,5.000,0.002,0.001,0.001
 *
 * Plain MPI and POSIX: it builds with any MPI's mpicc. Exit 2 on a usage error or a rank count
 * other than 2. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

static double tv_seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* The first line of MPI_Get_library_version up to a comma or parenthesis, without "Version:",
 * blanks collapsed: "Verbatim 0.1.0", "Open MPI v4.1.4", "MPICH 4.0.2" (as examples/osu). */
static void library_label(char *out, size_t len)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING + 1], *tok, *save = NULL;
    int vlen = 0;
    size_t n = 0;

    out[0] = '\0';
    if (MPI_Get_library_version(v, &vlen) != MPI_SUCCESS)
        vlen = 0;
    v[vlen < 0 ? 0 : vlen] = '\0';
    v[strcspn(v, "\r\n,(")] = '\0';
    for (tok = strtok_r(v, " \t\"", &save); tok; tok = strtok_r(NULL, " \t\"", &save)) {
        if (strcmp(tok, "Version:") == 0 || n + strlen(tok) + 2 > len)
            continue;
        n += (size_t)snprintf(out + n, len - n, "%s%s", n ? " " : "", tok);
    }
    if (n == 0)
        snprintf(out, len, "unknown MPI");
}

static void sleep_for(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

int main(int argc, char **argv)
{
    double seconds = 5, t0, wall;
    struct rusage r0, r1;
    char buf[8] = "payload", label[128], *end = NULL;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        seconds = strtod(argv[1], &end);
    if (argc > 2 || (argc > 1 && (!isdigit((unsigned char)argv[1][0]) || *end != '\0' ||
                                  seconds <= 0 || seconds > 3600))) {
        if (rank == 0)
            fprintf(stderr, "usage: recv_cpu [SECONDS]   (2 ranks; SECONDS: above 0, at most "
                            "3600; default 5)\n");
        MPI_Finalize();
        return 2;
    }
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "recv_cpu: needs exactly 2 ranks, not %d\n", size);
        MPI_Finalize();
        return 2;
    }
    library_label(label, sizeof(label));

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        sleep_for(seconds);
        MPI_Send(buf, (int)sizeof(buf), MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    } else {
        getrusage(RUSAGE_SELF, &r0);
        t0 = MPI_Wtime();
        MPI_Recv(buf, (int)sizeof(buf), MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        wall = MPI_Wtime() - t0;
        getrusage(RUSAGE_SELF, &r1);
        double user = tv_seconds(r1.ru_utime) - tv_seconds(r0.ru_utime);
        double sys = tv_seconds(r1.ru_stime) - tv_seconds(r0.ru_stime);
        printf("benchmark,library,seconds,wall_s,cpu_s,user_s,sys_s\n");
        printf("recv_cpu,%s,%g,%.3f,%.3f,%.3f,%.3f\n", label, seconds, wall, user + sys, user, sys);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
