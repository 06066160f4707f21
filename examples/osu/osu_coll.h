/* osu_coll.h: the driver shared by the collective benchmarks other than the barrier
 * (vbt_osu_bcast, reduce, allreduce, gather, scatter, allgather, alltoall, reduce_scatter,
 * gatherv, scatterv, allgatherv, alltoallv):
 * each calls its collective -x + -i times per size, timing each timed call; the latency is each
 * rank's average time per call, averaged over the ranks (-f: also the fastest and slowest
 * rank's average). Plain MPI-3 C, like osu_common.
 *
 * Its buffers, counts and -c validation are also those of the nonblocking ones (osu_nbc.c),
 * which move the same data. */
#ifndef OSU_COLL_H
#define OSU_COLL_H

#include "osu_common.h"

/* One benchmark's buffers: sized for -m's MAX, for o->kind's collective. */
typedef struct osu_coll {
    const osu_opts_t *o;
    char *sbuf, *rbuf;
    int *counts, *displs; /* reduce_scatter; the v-variants: SIZE and r * SIZE for every rank r */
} osu_coll_t;

void osu_coll_alloc(osu_coll_t *b, const osu_opts_t *o);
void osu_coll_free(osu_coll_t *b);
/* Sets the counts and displacements of size; returns 0 for a size to skip (a reduction of less
 * than one float, as OSU), else 1. */
int osu_coll_size(osu_coll_t *b, size_t size);
/* -c: fill the send side of iteration iter; check every byte or element of its result (a
 * mismatch names the size, iteration and byte, and aborts the job). */
void osu_coll_prepare(osu_coll_t *b, size_t size, int iter);
void osu_coll_verify(const osu_coll_t *b, size_t size, int iter);

/* The whole benchmark, from MPI_Init to MPI_Finalize; returns main's exit status. */
int osu_coll_main(int argc, char **argv, osu_kind_t kind, const char *prog, const char *title);

#endif
