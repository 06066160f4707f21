/* vbt_osu_gatherv: MPI Gatherv Latency Test, as OSU's osu_gatherv (options and output: -h and
 * README.md; the timing loop and -c validation: osu_coll.c; uniform counts and displacements: the
 * data of vbt_osu_gather). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_GATHERV, "vbt_osu_gatherv", "MPI Gatherv Latency Test");
}
