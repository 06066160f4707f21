/* vbt_osu_allgather: MPI Allgather Latency Test, as OSU's osu_allgather (options and output: -h and
 * README.md; the timing loop and -c validation: osu_coll.c). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_ALLGATHER, "vbt_osu_allgather",
                         "MPI Allgather Latency Test");
}
