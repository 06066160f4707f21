/* vbt_osu_gather: MPI Gather Latency Test, as OSU's osu_gather (options and output: -h and
 * README.md; the timing loop and -c validation: osu_coll.c). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_GATHER, "vbt_osu_gather", "MPI Gather Latency Test");
}
