/* vbt_osu_ialltoall: MPI Non-blocking All-to-All Latency Test, as OSU's osu_ialltoall (options and
 * output: -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_alltoall, osu_coll.c). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_ALLTOALL, "vbt_osu_ialltoall",
                        "MPI Non-blocking All-to-All Latency Test");
}
