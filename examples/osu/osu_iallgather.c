/* vbt_osu_iallgather: MPI Non-blocking Allgather Latency Test, as OSU's osu_iallgather (options and
 * output: -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_allgather, osu_coll.c). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_ALLGATHER, "vbt_osu_iallgather",
                        "MPI Non-blocking Allgather Latency Test");
}
