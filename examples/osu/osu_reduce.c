/* vbt_osu_reduce: MPI Reduce Latency Test, as OSU's osu_reduce (options and output: -h and
 * README.md; the timing loop and -c validation: osu_coll.c). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_REDUCE, "vbt_osu_reduce", "MPI Reduce Latency Test");
}
