/* vbt_osu_iscatter: MPI Non-blocking Scatter Latency Test, as OSU's osu_iscatter (options and
 * output: -h and README.md; the pure-communication and overlapped loops: osu_nbc.c; the data and -c
 * validation: those of vbt_osu_scatter, osu_coll.c). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_SCATTER, "vbt_osu_iscatter",
                        "MPI Non-blocking Scatter Latency Test");
}
