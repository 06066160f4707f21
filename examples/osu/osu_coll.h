/* osu_coll.h: the driver shared by the collective benchmarks other than the barrier
 * (vbt_osu_bcast, reduce, allreduce, gather, scatter, allgather, alltoall, reduce_scatter,
 * gatherv, scatterv, allgatherv, alltoallv):
 * each calls its collective -x + -i times per size, timing each timed call; the latency is each
 * rank's average time per call, averaged over the ranks (-f: also the fastest and slowest
 * rank's average). Plain MPI-3 C, like osu_common. */
#ifndef OSU_COLL_H
#define OSU_COLL_H

#include "osu_common.h"

/* The whole benchmark, from MPI_Init to MPI_Finalize; returns main's exit status. */
int osu_coll_main(int argc, char **argv, osu_kind_t kind, const char *prog, const char *title);

#endif
