/* osu_common.h: what the OSU-style benchmarks (vbt_osu_*) share: options, buffers, payload
 * validation, statistics and output (text as OSU prints it, or CSV).
 *
 * Plain MPI-3 C: no Verbatim header, so the same sources build with any MPI's mpicc and the
 * figures of two libraries can be compared on equal terms. Collectives are not used here either
 * (figures are gathered with point-to-point), so the suite only needs MPI_Send/Recv,
 * Isend/Irecv, Waitall, Barrier, Wtime and Abort; a collective benchmark calls its own
 * collective (vbt_osu_barrier: MPI_Barrier; bench/osu_allreduce.c: MPI_Allreduce). */
#ifndef OSU_COMMON_H
#define OSU_COMMON_H

#include <mpi.h>
#include <stddef.h>

/* Which benchmark: selects the default counts, the valid options and the columns. */
typedef enum {
    OSU_LATENCY,   /* ping-pong between ranks 0 and 1: half a round trip */
    OSU_BW,        /* rank 0 sends a window of Isends to rank 1, one ack per window */
    OSU_BIBW,      /* both directions at once */
    OSU_MBW_MR,    /* pairs (i, i + n/2): aggregate bandwidth and message rate */
    OSU_MULTI_LAT, /* pairs (i, i + n/2): average ping-pong latency */
    OSU_BARRIER,   /* MPI_Barrier over all ranks: average time per call, no message size */
    OSU_ALLREDUCE, /* MPI_Allreduce (MPI_FLOAT, MPI_SUM) over all ranks: time per call */
    /* The other collectives, over all ranks, time per call (osu_coll.c): SIZE bytes per rank's
     * block (gather, scatter, allgather, alltoall and their v-variants, whose counts and
     * displacements are uniform, as OSU's; MPI_CHAR) or of the whole message (bcast: MPI_CHAR;
     * reduce, reduce_scatter: MPI_FLOAT, MPI_SUM), root 0. */
    OSU_BCAST,
    OSU_REDUCE,
    OSU_GATHER,
    OSU_SCATTER,
    OSU_ALLGATHER,
    OSU_ALLTOALL,
    OSU_REDUCE_SCATTER,
    OSU_GATHERV,
    OSU_SCATTERV,
    OSU_ALLGATHERV,
    OSU_ALLTOALLV,
    /* One-sided, between ranks 0 and 1 (osu_rma.c): options -w and -s on top of these. */
    OSU_RMA_LATENCY, /* one operation per epoch or flush: time per operation */
    OSU_RMA_BW,      /* -W operations per epoch or flush: MB/s (put_bibw: both directions) */
    OSU_RMA_ATOMIC,  /* fetch_and_op, compare_and_swap: one 8-byte MPI_LONG_LONG, no -m */
} osu_kind_t;

/* Sizes above this use the reduced iteration counts (OSU's LARGE_MESSAGE_SIZE). */
#define OSU_LARGE_SIZE 8192

typedef struct {
    osu_kind_t kind;
    const char *prog;  /* "vbt_osu_latency" */
    const char *title; /* "MPI Latency Test" */
    /* Message sizes: both 0 for the barrier. */
    size_t min_size, max_size;
    int iters, warmup;             /* sizes up to OSU_LARGE_SIZE */
    int iters_large, warmup_large; /* larger sizes */
    int window;
    int validate;   /* -c: check every payload byte */
    int nbc;        /* the nonblocking variant of a collective kind (osu_nbc.c) */
    int test_calls; /* nbc -t: MPI_Test calls spread over the compute (0: none, as OSU) */
    int full;       /* -f: min/max columns */
    int csv;        /* --csv */
    int rank, nranks;
    char library[256];        /* first line of MPI_Get_library_version */
    char label[128];          /* the same, shortened and without commas: the CSV's library column */
    const char *header_extra; /* "# " lines after the parameters (one-sided, threads) or NULL */
    const struct osu_extra_opts *extra; /* the benchmark's own options, or NULL */
} osu_opts_t;

/* Options a benchmark adds to the common ones (the one-sided -w and -s). parse looks at
 * argv[*i]: returns 0 when it is not one of them, 1 when it took it (advancing *i past a value
 * it consumed), or -1 for a bad value, with a sentence in msg (of msg_len bytes). usage is
 * printed with the help, before -h. */
typedef struct osu_extra_opts {
    int (*parse)(void *ctx, int argc, char **argv, int *i, char *msg, size_t msg_len);
    void *ctx;
    const char *usage;
} osu_extra_opts_t;

/* Per-iteration (or per-rank) figures: sum, count, min and max. */
typedef struct {
    double sum, min, max;
    long n;
} osu_stat_t;

/* After MPI_Init: fill *o from the command line. Returns -1 to run the benchmark, or the exit
 * status (0 after -h, 2 for bad options or rank counts) after printing help or a usage message
 * on rank 0; the caller then calls MPI_Finalize and returns that status on every rank. */
int osu_init(osu_opts_t *o, osu_kind_t kind, const char *prog, const char *title, int argc,
             char **argv);
/* The same, with a benchmark's own options (may be NULL). */
int osu_init_extra(osu_opts_t *o, osu_kind_t kind, const char *prog, const char *title,
                   const osu_extra_opts_t *extra, int argc, char **argv);

/* The same for the nonblocking variant of a collective kind (OSU_BARRIER for ibarrier): -t on
 * top, the columns of OSU's nonblocking benchmarks (osu_print_nbc_row). */
int osu_init_nbc(osu_opts_t *o, osu_kind_t kind, const char *prog, const char *title, int argc,
                 char **argv);

/* The size after s: MIN, 2*MIN, 4*MIN, ... (0 is followed by 1). */
size_t osu_next_size(size_t s);

/* Timed and warm-up iterations for one message size. */
int osu_iterations(const osu_opts_t *o, size_t size, int *warmup_p);

/* Page-aligned memory of at least bytes (one page when 0), written once so that no page fault
 * falls inside the timing. Aborts the job when memory is short. */
void *osu_alloc(const osu_opts_t *o, size_t bytes);
/* The distance between window slots in a receive buffer of n messages of at most size bytes. */
size_t osu_slot_stride(size_t size);

/* Validation: the payload of message (size, iter) sent by rank src is a byte pattern no two
 * messages share, and checking it finds shifted, stale or foreign bytes. */
unsigned osu_seed(size_t size, int iter, int src);
void osu_fill(void *buf, size_t len, unsigned seed);
/* Checks every byte; on a mismatch prints size, iteration and byte and calls MPI_Abort. */
void osu_check(const osu_opts_t *o, const void *buf, size_t len, unsigned seed, size_t size,
               int iter, int src);

void osu_stat_reset(osu_stat_t *s);
void osu_stat_add(osu_stat_t *s, double v);

/* Gathers one figure per contributing rank on rank 0 (point-to-point, so that no collective is
 * needed): on rank 0, *all_p holds the sum, count, min and max of the contributions. Every rank
 * must call it. */
void osu_gather(const osu_opts_t *o, int contributes, double v, osu_stat_t *all_p);

/* The same for n figures per rank at once: all_p[k] for figure k (every rank contributes). */
void osu_gather_vec(const osu_opts_t *o, int n, const double *v, osu_stat_t *all_p);

/* A nonblocking benchmark's figures for one size, each averaged over the ranks (µs): the whole
 * post-compute-wait iteration, the compute alone (its MPI_Test calls not counted), the post,
 * the MPI_Test calls, the MPI_Wait, and the pure communication time (post and wait without
 * compute) with its minimum and maximum over the ranks. */
typedef struct {
    double overall, compute, init, test, wait, comm, comm_min, comm_max;
} osu_nbc_row_t;

/* OSU's overlap: max(0, 100 * (1 - (overall - compute) / comm)) percent. */
double osu_nbc_overlap(const osu_nbc_row_t *r);

/* Rank 0 only: the header (the "# " lines, or the CSV header row) and one row per size. rate is
 * mbw_mr's message rate (ignored by the others); min and max are printed with -f. */
void osu_print_header(const osu_opts_t *o);
void osu_print_row(const osu_opts_t *o, size_t size, double value, double min, double max,
                   double rate);
/* A nonblocking benchmark's row: Overall, Compute, Pure Comm., Overlap; -f: also Coll. Init,
 * MPI_Test, MPI_Wait, Min and Max Comm. in OSU's order. */
void osu_print_nbc_row(const osu_opts_t *o, size_t size, const osu_nbc_row_t *r);

#endif
