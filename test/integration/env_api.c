/* The environment calls: init/finalize state, thread level, sizes, clocks, versions, names and
 * error handlers. Modes: (none) checks everything and prints "env_api passed";
 * "before-init" calls MPI_Comm_rank before MPI_Init; "fatal" passes MPI_COMM_NULL under the
 * default MPI_ERRORS_ARE_FATAL. Both must end the job with a clear message. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(_cond)                                                                               \
    do {                                                                                           \
        if (!(_cond)) {                                                                            \
            fprintf(stderr, "env_api: check failed at line %d: %s\n", __LINE__, #_cond);           \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, rank = -1, size = -1, len = -1, v = 0, sv = 0;
    char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    char err[MPI_MAX_ERROR_STRING];
    MPI_Errhandler eh;
    double t0, t1, tick;
    const char *mode = argc > 1 ? argv[1] : "";

    if (strcmp(mode, "before-init") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        printf("env_api: MPI_Comm_rank before MPI_Init returned\n");
        return 0;
    }

    /* Allowed before MPI_Init. */
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 0);
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 0);
    CHECK(MPI_Get_version(&v, &sv) == MPI_SUCCESS && v == 5 && sv == 0);
    CHECK(MPI_Get_library_version(lib, &len) == MPI_SUCCESS && len == (int)strlen(lib));
    CHECK(strstr(lib, "Verbatim") != NULL);

    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    CHECK(MPI_Query_thread(&flag) == MPI_SUCCESS && flag == provided);
    CHECK(MPI_Is_thread_main(&flag) == MPI_SUCCESS && flag);
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 1);

    if (strcmp(mode, "fatal") == 0) {
        MPI_Comm_rank(MPI_COMM_NULL, &rank);
        printf("env_api: MPI_Comm_rank(MPI_COMM_NULL) returned under MPI_ERRORS_ARE_FATAL\n");
        return 0;
    }

    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size) == MPI_SUCCESS && size >= 1);
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS && rank >= 0 && rank < size);
    CHECK(MPI_Comm_size(MPI_COMM_SELF, &flag) == MPI_SUCCESS && flag == 1);
    CHECK(MPI_Comm_rank(MPI_COMM_SELF, &flag) == MPI_SUCCESS && flag == 0);

    t0 = MPI_Wtime();
    tick = MPI_Wtick();
    t1 = MPI_Wtime();
    CHECK(t1 >= t0);
    CHECK(tick > 0.0 && tick < 1e-3);

    CHECK(MPI_Get_processor_name(name, &len) == MPI_SUCCESS && len > 0 && len == (int)strlen(name));

    /* Under MPI_ERRORS_RETURN bad arguments come back as error classes. */
    CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh) == MPI_SUCCESS &&
          eh == MPI_ERRORS_ARE_FATAL);
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_RETURN);
    CHECK(MPI_Comm_rank(MPI_COMM_NULL, &flag) == MPI_ERR_COMM);
    CHECK(MPI_Comm_rank((MPI_Comm)(void *)0x7, &flag) == MPI_ERR_COMM);
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, NULL) == MPI_ERR_ARG);
    CHECK(MPI_Init(&argc, &argv) == MPI_ERR_OTHER); /* twice */
    CHECK(MPI_Error_string(MPI_ERR_COMM, err, &len) == MPI_SUCCESS && strstr(err, "MPI_ERR_COMM"));
    CHECK(MPI_Error_string(123456, err, &len) == MPI_ERR_ARG);
    /* And the library still works afterwards. */
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &flag) == MPI_SUCCESS && flag == rank);

    CHECK(MPI_Finalize() == MPI_SUCCESS);
    CHECK(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 1);
    CHECK(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 1);

    if (failures == 0)
        printf("rank %d of %d: env_api passed\n", rank, size);
    return failures != 0;
}
