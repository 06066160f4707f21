/* vbt_osu_ireduce: MPI Non-blocking Reduce Latency Test, as OSU's osu_ireduce (options and output:
 * -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_reduce, osu_coll.c). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_REDUCE, "vbt_osu_ireduce",
                        "MPI Non-blocking Reduce Latency Test");
}
