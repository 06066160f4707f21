/* vbt_osu_iallgatherv: MPI Non-blocking Allgatherv Latency Test, as OSU's osu_iallgatherv (options
 * and output: -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data
 * and -c validation: those of vbt_osu_allgatherv, osu_coll.c; uniform counts and displacements: the
 * data of vbt_osu_iallgather). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_ALLGATHERV, "vbt_osu_iallgatherv",
                        "MPI Non-blocking Allgatherv Latency Test");
}
