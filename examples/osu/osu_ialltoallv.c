/* vbt_osu_ialltoallv: MPI Non-blocking All-to-Allv Personalized Exchange Latency Test, as OSU's
 * osu_ialltoallv (options and output: -h and README.md; the pure-communication and overlapped
 * loops: osu_nbc.c; the data and -c validation: those of vbt_osu_alltoallv, osu_coll.c; uniform
 * counts and displacements: the data of vbt_osu_ialltoall). */
#include "osu_nbc.h"

int main(int argc, char **argv)
{
    return osu_nbc_main(argc, argv, OSU_ALLTOALLV, "vbt_osu_ialltoallv",
                        "MPI Non-blocking All-to-Allv Personalized Exchange Latency Test");
}
