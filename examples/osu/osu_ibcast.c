/* vbt_osu_ibcast: MPI Non-blocking Broadcast Latency Test, as OSU's osu_ibcast (options and output:
 * -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_bcast, osu_coll.c). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_BCAST, "vbt_osu_ibcast",
                        "MPI Non-blocking Broadcast Latency Test");
}
