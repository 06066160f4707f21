/* vbt_osu_reduce_scatter: MPI Reduce_scatter Latency Test, as OSU's osu_reduce_scatter (options and
 * output: -h and README.md; the timing loop and -c validation: osu_coll.c). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_REDUCE_SCATTER, "vbt_osu_reduce_scatter",
                         "MPI Reduce_scatter Latency Test");
}
