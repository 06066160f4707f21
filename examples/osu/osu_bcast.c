/* vbt_osu_bcast: MPI Broadcast Latency Test, as OSU's osu_bcast (options and output: -h and
 * README.md; the timing loop and -c validation: osu_coll.c). */
#include "osu_coll.h"

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, OSU_BCAST, "vbt_osu_bcast", "MPI Broadcast Latency Test");
}
