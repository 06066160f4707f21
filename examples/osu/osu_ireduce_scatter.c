/* vbt_osu_ireduce_scatter: MPI Non-blocking Reduce_scatter Latency Test, as OSU's
 * osu_ireduce_scatter (options and output: -h and README.md; the pure-communication and overlapped
 * loops: osu_nbc.c; the data and -c validation: those of vbt_osu_reduce_scatter, osu_coll.c). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_REDUCE_SCATTER, "vbt_osu_ireduce_scatter",
                        "MPI Non-blocking Reduce_scatter Latency Test");
}
