/* vbt_osu_igatherv: MPI Non-blocking Gatherv Latency Test, as OSU's osu_igatherv (options and
 * output: -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_gatherv, osu_coll.c; uniform counts and displacements: the data of
 * vbt_osu_igather). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_GATHERV, "vbt_osu_igatherv",
                        "MPI Non-blocking Gatherv Latency Test");
}
