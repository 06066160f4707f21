/* mpit_table: a small performance tool. It reads every performance variable of the MPI_T
 * tools interface around a benchmark (a ping-pong and an exchange of several sizes between
 * neighbours in a ring) and prints, per rank, a table of the variables that changed.
 *
 *   mpirun -n 4 mpit_table [ITERATIONS]
 *
 * Each variable gets a handle in one session; the non-continuous ones (they count only while
 * started) are started before the benchmark and stopped after it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T(_call)                                                                                   \
    do {                                                                                           \
        int _rc = (_call);                                                                         \
        if (_rc != MPI_SUCCESS) {                                                                  \
            fprintf(stderr, "mpit_table: %s failed (%d)\n", #_call, _rc);                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef struct {
    char name[64];
    int var_class;
    MPI_Datatype datatype;
    MPI_T_pvar_handle handle;
    double before, after;
} var_t;

static double read_var(MPI_T_pvar_session s, const var_t *v)
{
    if (v->datatype == MPI_DOUBLE) {
        double d;
        T(MPI_T_pvar_read(s, v->handle, &d));
        return d;
    } else {
        unsigned long long u;
        T(MPI_T_pvar_read(s, v->handle, &u));
        return (double)u;
    }
}

static void benchmark(int rank, int size, int iters)
{
    static char buf[2][1 << 20];
    const int sizes[] = {8, 4096, 65536, 1 << 20};

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        for (int i = 0; i < iters; i++)
            MPI_Sendrecv(buf[0], sizes[k], MPI_BYTE, right, 0, buf[1], sizes[k], MPI_BYTE, left, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int provided, n, rank, size, iters = argc > 1 ? atoi(argv[1]) : 100;
    MPI_T_pvar_session session;
    var_t *vars;

    T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    T(MPI_T_pvar_get_num(&n));
    vars = calloc((size_t)n, sizeof(*vars));
    T(MPI_T_pvar_session_create(&session));
    for (int i = 0; i < n; i++) {
        int len = sizeof(vars[i].name), verbosity, bind, readonly, continuous, atomic, count;
        MPI_T_enum enumtype;
        T(MPI_T_pvar_get_info(i, vars[i].name, &len, &verbosity, &vars[i].var_class,
                              &vars[i].datatype, &enumtype, NULL, NULL, &bind, &readonly,
                              &continuous, &atomic));
        T(MPI_T_pvar_handle_alloc(session, i, NULL, &vars[i].handle, &count));
    }
    T(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES)); /* the non-continuous ones */
    for (int i = 0; i < n; i++)
        vars[i].before = read_var(session, &vars[i]);

    benchmark(rank, size, iters);

    for (int i = 0; i < n; i++)
        vars[i].after = read_var(session, &vars[i]);
    T(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES));

    /* One rank at a time prints its table. */
    for (int r = 0; r < size; r++) {
        if (r == rank) {
            printf("rank %d of %d: performance variables that changed during the benchmark\n", rank,
                   size);
            printf("  %-26s %16s %16s %16s\n", "variable", "before", "after", "change");
            for (int i = 0; i < n; i++) {
                if (vars[i].after == vars[i].before && vars[i].after == 0)
                    continue;
                printf("  %-26s %16.*f %16.*f %16.*f\n", vars[i].name,
                       vars[i].datatype == MPI_DOUBLE ? 6 : 0, vars[i].before,
                       vars[i].datatype == MPI_DOUBLE ? 6 : 0, vars[i].after,
                       vars[i].datatype == MPI_DOUBLE ? 6 : 0, vars[i].after - vars[i].before);
            }
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    T(MPI_T_pvar_session_free(&session));
    free(vars);
    MPI_Finalize();
    T(MPI_T_finalize());
    return 0;
}
