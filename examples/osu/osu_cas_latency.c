/* vbt_osu_cas_latency: MPI_Compare_and_swap (one MPI_LONG_LONG) by rank 0 on rank 1, then the
 * synchronization -s names (default: MPI_Win_flush on an MPI_Win_allocate window): time per
 * MPI_Compare_and_swap; one row, of size 8. Options and output as OSU's osu_cas_latency (-h,
 * README.md); windows, synchronization and timing: osu_rma.c. */
#include "osu_rma.h"

static void op(const osu_rma_bufs_t *b, size_t size, int j, int target, MPI_Aint disp, MPI_Win win)
{
    (void)size;
    (void)j;
    MPI_Compare_and_swap(b->src, b->compare, b->result, MPI_LONG_LONG, target, disp, win);
}

int main(int argc, char **argv)
{
    const osu_rma_desc_t d = {
        OSU_RMA_ATOMIC,     "vbt_osu_cas_latency", "MPI_Compare_and_swap latency Test",
        OSU_WIN_ALLOCATE,   OSU_SYNC_FLUSH,        OSU_SYNC_ALL,
        MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED,       OSU_BUF_SRC | OSU_BUF_RESULT};

    return osu_rma_main(&d, 0, op, argc, argv);
}
