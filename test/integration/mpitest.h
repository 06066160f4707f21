/* Shared by the MPI test programs (p2p.c, rndv.c): loud failure, payload patterns checked
 * byte for byte, and a runner for named subtests. Each program defines MPITEST_NAME before
 * including this, and sets rank and size after MPI_Init. */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* This process in MPI_COMM_WORLD: every test program needs them, FAIL reports rank. */
static int rank, size;

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, MPITEST_NAME ": rank %d: line %d: ", rank, __LINE__);                      \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        MPI_Abort(MPI_COMM_WORLD, 2);                                                              \
    } while (0)
#define CHECK(_c)                                                                                  \
    do {                                                                                           \
        if (!(_c))                                                                                 \
            FAIL("check failed: %s", #_c);                                                         \
    } while (0)

/* Byte i of message seed: differs between neighbouring bytes, seeds, pages and MiBs. */
static inline unsigned char pattern(unsigned seed, size_t i)
{
    return (unsigned char)(seed * 131u + i * 7u + (i >> 8) + (i >> 16) + 1u);
}

static inline void fill(void *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++)
        ((unsigned char *)buf)[i] = pattern(seed, i);
}

static inline void verify(const void *buf, size_t len, unsigned seed, const char *what)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char got = ((const unsigned char *)buf)[i];
        if (got != pattern(seed, i))
            FAIL("%s: %zu-byte payload wrong at byte %zu (0x%02x, expected 0x%02x)%s", what, len, i,
                 got, pattern(seed, i),
                 got == 0 ? ": zeros, as if the data went to other pages" : "");
    }
}

static inline void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        FAIL("out of memory for %zu bytes", n);
    return p;
}

typedef struct {
    const char *name;
    void (*fn)(void);
} mpitest_t;

/* Run the subtest called name ("all": every one), between barriers; rank 0 prints
 * "<program> NAME: ok (N ranks) in T s" for each. An unknown name fails. */
static inline void mpitest_run(const mpitest_t *tests, size_t n, const char *name)
{
    int found = 0;

    for (size_t i = 0; i < n; i++) {
        double t0;
        if (strcmp(name, "all") != 0 && strcmp(name, tests[i].name) != 0)
            continue;
        found = 1;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        tests[i].fn();
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            printf(MPITEST_NAME " %s: ok (%d ranks) in %.1f s\n", tests[i].name, size,
                   MPI_Wtime() - t0);
        fflush(stdout);
    }
    if (!found)
        FAIL("unknown test %s", name);
}

/* A test program's main: MPI_Init (MPI_Init_thread when the program defines
 * MPITEST_THREAD_LEVEL), then the subtests named on the command line (none: "all"), then
 * MPI_Finalize. */
static inline int mpitest_main(int argc, char **argv, const mpitest_t *tests, size_t n)
{
#ifdef MPITEST_THREAD_LEVEL
    int provided;
    MPI_Init_thread(&argc, &argv, MPITEST_THREAD_LEVEL, &provided);
#else
    MPI_Init(&argc, &argv);
#endif
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, n, argv[i]);
    if (argc < 2)
        mpitest_run(tests, n, "all");
    MPI_Finalize();
    return 0;
}

#endif
