/* vbt_osu_alltoall: MPI All-to-All Personalized Exchange Latency Test, as OSU's osu_alltoall
 * (options and output: -h and README.md; the timing loop and -c validation: osu_coll.c). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_ALLTOALL, "vbt_osu_alltoall",
                         "MPI All-to-All Personalized Exchange Latency Test");
}
