/* osu_rma.h: what the one-sided OSU-style benchmarks (vbt_osu_put_latency, ..._get_bw, ...)
 * share: the -w (window creation) and -s (synchronization) options, windows made the way -w
 * says, and the timing loops of the three shapes (latency, bandwidth, bi-directional
 * bandwidth) synchronized the way -s says. Each benchmark only names its operation.
 *
 * Plain MPI-3 C, as osu_common.h: the same sources build with any MPI's mpicc. Rank 0 is the
 * origin and rank 1 the target; the active-target modes (fence, pscw) of the latency tests are
 * a ping-pong (each rank in turn is the origin), and their figure is half a round trip, as
 * OSU's. */
#ifndef OSU_RMA_H
#define OSU_RMA_H

#include "osu_common.h"

/* -w */
typedef enum {
    OSU_WIN_CREATE,   /* MPI_Win_create over memory of the benchmark's */
    OSU_WIN_ALLOCATE, /* MPI_Win_allocate */
    OSU_WIN_DYNAMIC,  /* MPI_Win_create_dynamic, then MPI_Win_attach */
} osu_win_kind_t;

/* -s; the bits of a benchmark's accepted set are 1 << value. */
typedef enum {
    OSU_SYNC_LOCK,        /* lock, operation(s), unlock, every iteration */
    OSU_SYNC_PSCW,        /* post/start/complete/wait */
    OSU_SYNC_FENCE,       /* MPI_Win_fence */
    OSU_SYNC_FLUSH,       /* one lock around the loop, MPI_Win_flush every iteration */
    OSU_SYNC_FLUSH_LOCAL, /* the same with MPI_Win_flush_local */
    OSU_SYNC_LOCK_ALL,    /* lock_all, operation(s), unlock_all, every iteration */
} osu_sync_t;

#define OSU_SYNC_ALL    0x3fu                                            /* every mode */
#define OSU_SYNC_ACTIVE ((1u << OSU_SYNC_PSCW) | (1u << OSU_SYNC_FENCE)) /* put_bibw */

/* The origin's buffers, page-aligned, allocated once for the largest size (times -W for the
 * bandwidth tests) and written before any timing: src is what is put or accumulated (and the
 * operand of the atomics), result what is fetched, compare compare_and_swap's comparand. */
typedef struct {
    unsigned char *src, *result, *compare;
} osu_rma_bufs_t;

/* The operation timed: issues one operation of size bytes (or, for the bandwidth tests, the
 * j-th of a window, at offset j * size of the buffers and of the target's window) to rank
 * target at displacement disp of win. It does not synchronize. */
typedef void (*osu_rma_op_t)(const osu_rma_bufs_t *b, size_t size, int j, int target, MPI_Aint disp,
                             MPI_Win win);

typedef struct {
    osu_win_kind_t win;
    osu_sync_t sync;
    unsigned syncs; /* the modes this benchmark accepts */
    int lock_kind;  /* MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE, for -s lock */
    int flush_kind; /* the same, for the lock around the flush loops */
    osu_extra_opts_t extra;
    char usage[1024];
    char header[256];
} osu_rma_opts_t;

/* One benchmark's defaults and accepted modes. */
typedef struct {
    osu_kind_t kind; /* OSU_RMA_LATENCY, OSU_RMA_BW or OSU_RMA_ATOMIC */
    const char *prog, *title;
    osu_win_kind_t win;
    osu_sync_t sync;
    unsigned syncs;
    int lock_kind, flush_kind;
    unsigned
        bufs; /* which of the buffers the operation uses at full size (the others get 8 bytes) */
} osu_rma_desc_t;

/* osu_rma_desc_t.bufs */
#define OSU_BUF_SRC    1u /* osu_rma_bufs_t.src */
#define OSU_BUF_RESULT 2u /* osu_rma_bufs_t.result */

/* After MPI_Init: osu_init with -w and -s (same return convention). */
int osu_rma_init(osu_opts_t *o, osu_rma_opts_t *r, const osu_rma_desc_t *d, int argc, char **argv);

/* A window of bytes (at least 1) on each of the two ranks, made as -w says; disp is the
 * displacement of the peer's memory (0, or its address for a dynamic window). */
typedef struct {
    MPI_Win win;
    unsigned char *base; /* this rank's window memory */
    void *own;           /* memory allocated here for it (create, dynamic), or NULL */
    MPI_Aint disp;
    int dynamic; /* base is attached to win */
} osu_win_t;

void osu_win_create(const osu_opts_t *o, const osu_rma_opts_t *r, size_t bytes, osu_win_t *w);
void osu_win_free(osu_win_t *w);

/* The timed loops (every rank calls them; see osu_rma.c): they return, on rank 0, the seconds
 * of the timed iterations, and 0 elsewhere. latency: one operation per iteration (fence and
 * pscw: one each way, so the caller halves the time per iteration); bw: o->window operations
 * from rank 0 to rank 1; bibw: both ranks at once. */
double osu_rma_latency(const osu_opts_t *o, const osu_rma_opts_t *r, const osu_win_t *w,
                       const osu_rma_bufs_t *b, size_t size, int warmup, int iters,
                       osu_rma_op_t op);
double osu_rma_bw(const osu_opts_t *o, const osu_rma_opts_t *r, const osu_win_t *w,
                  const osu_rma_bufs_t *b, size_t size, int warmup, int iters, osu_rma_op_t op);
double osu_rma_bibw(const osu_opts_t *o, const osu_rma_opts_t *r, const osu_win_t *w,
                    const osu_rma_bufs_t *b, size_t size, int warmup, int iters, osu_rma_op_t op);

/* Whether -s is a ping-pong in the latency tests (fence, pscw): the time is of two operations. */
int osu_rma_two_way(const osu_rma_opts_t *r);

/* A whole benchmark (MPI_Init to MPI_Finalize), from its description and operation: options,
 * buffers, a window per size (-m; the atomics 8 bytes) as OSU makes one, the loop, a row per size,
 * and MPI_Finalize. Returns main's exit status. bidir: put_bibw. */
int osu_rma_main(const osu_rma_desc_t *d, int bidir, osu_rma_op_t op, int argc, char **argv);

#endif
