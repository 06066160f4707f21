/* vbt_osu_allreduce: MPI Allreduce Latency Test, as OSU's osu_allreduce (options and output: -h and
 * README.md; the timing loop and -c validation: osu_coll.c). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_ALLREDUCE, "vbt_osu_allreduce",
                         "MPI Allreduce Latency Test");
}
