/* vbt_osu_iallreduce: MPI Non-blocking Allreduce Latency Test, as OSU's osu_iallreduce (options and
 * output: -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_allreduce, osu_coll.c). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_ALLREDUCE, "vbt_osu_iallreduce",
                        "MPI Non-blocking Allreduce Latency Test");
}
