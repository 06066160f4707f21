/* vbt_osu_ibarrier: MPI Non-blocking Barrier Latency Test, as OSU's osu_ibarrier (options and
 * output: -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_barrier, osu_coll.c). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_BARRIER, "vbt_osu_ibarrier",
                        "MPI Non-blocking Barrier Latency Test");
}
