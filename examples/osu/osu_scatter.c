/* vbt_osu_scatter: MPI Scatter Latency Test, as OSU's osu_scatter (options and output: -h and
 * README.md; the timing loop and -c validation: osu_coll.c). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_SCATTER, "vbt_osu_scatter", "MPI Scatter Latency Test");
}
