/* vbt_osu_scatterv: MPI Scatterv Latency Test, as OSU's osu_scatterv (options and output: -h and
 * README.md; the timing loop and -c validation: osu_coll.c; uniform counts and displacements: the
 * data of vbt_osu_scatter). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_SCATTERV, "vbt_osu_scatterv", "MPI Scatterv Latency Test");
}
