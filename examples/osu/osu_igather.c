/* vbt_osu_igather: MPI Non-blocking Gather Latency Test, as OSU's osu_igather (options and output:
 * -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_gather, osu_coll.c). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_GATHER, "vbt_osu_igather",
                        "MPI Non-blocking Gather Latency Test");
}
