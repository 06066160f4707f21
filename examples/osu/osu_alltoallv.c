/* vbt_osu_alltoallv: MPI All-to-Allv Personalized Exchange Latency Test, as OSU's osu_alltoallv
 * (options and output: -h and README.md; the timing loop and -c validation: osu_coll.c; uniform
 * counts and displacements: the data of vbt_osu_alltoall). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_ALLTOALLV, "vbt_osu_alltoallv",
                         "MPI All-to-Allv Personalized Exchange Latency Test");
}
