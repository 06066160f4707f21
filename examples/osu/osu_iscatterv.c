/* vbt_osu_iscatterv: MPI Non-blocking Scatterv Latency Test, as OSU's osu_iscatterv (options and
 * output: -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_scatterv, osu_coll.c; uniform counts and displacements: the data of
 * vbt_osu_iscatter). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_SCATTERV, "vbt_osu_iscatterv",
                        "MPI Non-blocking Scatterv Latency Test");
}
