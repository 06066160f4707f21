/* osu_nbc.h: the driver shared by the nonblocking collective benchmarks (vbt_osu_ibarrier,
 * ibcast, ireduce, iallreduce, igather, iscatter, iallgather, ialltoall, ireduce_scatter,
 * igatherv, iscatterv, iallgatherv, ialltoallv), measured as OSU's osu_i* are: per size, first
 * the pure communication time (post, MPI_Wait at once, -x + -i times), then -x + -i iterations
 * of post, compute for that long (each rank its own pure time; -t CALLS: in CALLS slices, an
 * MPI_Test after each), MPI_Wait. Overlap is the share of the communication hidden behind the
 * compute: max(0, 100 * (1 - (overall - compute) / pure)). Every figure is each rank's average,
 * averaged over the ranks. Data and -c validation as the blocking ones' (osu_coll.c). Plain
 * MPI-3 C, like osu_common; it needs the library's MPI_I* collectives. */
#ifndef OSU_NBC_H
#define OSU_NBC_H

#include "osu_common.h"

/* The whole benchmark, from MPI_Init to MPI_Finalize; kind is the blocking collective's
 * (OSU_BARRIER for ibarrier). Returns main's exit status. */
int osu_nbc_main(int argc, char **argv, osu_kind_t kind, const char *prog, const char *title);

#endif
