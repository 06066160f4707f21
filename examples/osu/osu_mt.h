/* osu_mt.h: what the multi-threaded OSU-style benchmarks (vbt_osu_latency_mt,
 * vbt_osu_mbw_mr_mt) share on top of osu_common.h: MPI_Init_thread with MPI_THREAD_MULTIPLE and
 * the skip (exit 77) when the library provides less, the -t and -s options, the threads
 * themselves (started together behind a barrier, joined before any figure is gathered) and a
 * payload pattern per thread.
 *
 * Plain MPI-3 C and POSIX threads, as osu_common.h: the same sources build with any MPI's
 * mpicc. Only the threads the benchmark starts call MPI while they run; the main thread calls
 * MPI (barriers, figures) only between sizes, when they have been joined. */
#ifndef OSU_MT_H
#define OSU_MT_H

#include "osu_common.h"

#include <pthread.h>

/* OSU's MAX_NUM_THREADS: the most threads per rank (-t). */
#define OSU_MT_MAX_THREADS 128

/* The exit status of a run skipped because the library did not provide MPI_THREAD_MULTIPLE
 * (automake's skip). */
#define OSU_MT_SKIP 77

/* -s of vbt_osu_mbw_mr_mt: how the threads' messages are kept apart. */
typedef enum {
    OSU_MT_SEP_TAG,  /* one communicator (MPI_COMM_WORLD), a tag pair per thread */
    OSU_MT_SEP_COMM, /* a communicator per thread (MPI_Comm_dup of MPI_COMM_WORLD) */
} osu_mt_sep_t;

typedef struct {
    int provided;   /* what MPI_Init_thread gave */
    int send, recv; /* -t SEND[:RECV]: threads on the sending and the receiving side */
    int recv_opt;   /* the benchmark takes the :RECV part (latency_mt) */
    int sep_opt;    /* the benchmark takes -s (mbw_mr_mt) */
    osu_mt_sep_t sep;
    osu_extra_opts_t extra;
    char usage[1024];
    char header[256];
} osu_mt_opts_t;

/* MPI_Init_thread(MPI_THREAD_MULTIPLE); returns what was provided. */
int osu_mt_init_thread(int *argc, char ***argv);

/* After osu_mt_init_thread: osu_init with -t (and -s when sep_opt), defaults send and recv
 * threads. Returns -1 to run, or the exit status after printing why on rank 0 (as osu_init; and
 * OSU_MT_SKIP when the library provided less than MPI_THREAD_MULTIPLE, saying what it provided
 * and how to ask for more). The caller then calls MPI_Finalize and returns that status. */
int osu_mt_init(osu_opts_t *o, osu_mt_opts_t *m, osu_kind_t kind, const char *prog,
                const char *title, int provided, int send, int recv, int recv_opt, int sep_opt,
                int argc, char **argv);

/* "MPI_THREAD_SERIALIZED" for MPI_THREAD_SERIALIZED, ... */
const char *osu_mt_level_name(int level);

/* Runs fn(args + k * stride) on n threads (k = 0 .. n-1) and joins them. Aborts the job when a
 * thread cannot be started. */
void osu_mt_run(const osu_opts_t *o, int n, void *(*fn)(void *), void *args, size_t stride);

/* The payload pattern of message (size, iter) sent by thread thread of rank src: as osu_seed,
 * and no two threads' messages share it, so that a message delivered to the wrong thread is
 * caught. */
unsigned osu_mt_seed(size_t size, int iter, int src, int thread);

#endif
