/* vbt_osu_allgatherv: MPI Allgatherv Latency Test, as OSU's osu_allgatherv (options and output: -h
 * and README.md; the timing loop and -c validation: osu_coll.c; uniform counts and displacements:
 * the data of vbt_osu_allgather). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_ALLGATHERV, "vbt_osu_allgatherv",
                         "MPI Allgatherv Latency Test");
}
