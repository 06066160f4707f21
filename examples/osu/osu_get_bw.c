/* vbt_osu_get_bw: rank 0 gets windows of -W MPI_Gets of SIZE bytes (from consecutive slots of rank
 * 1's window), one synchronization per window as -s names (default: MPI_Win_flush on an
 * MPI_Win_allocate window): MB/s. Options and output as OSU's osu_get_bw (-h, README.md); windows,
 * synchronization and timing: osu_rma.c. */
#include "osu_rma.h"

static void op(const osu_rma_bufs_t *b, size_t size, int j, int target, MPI_Aint disp, MPI_Win win)
{
    size_t off = (size_t)j * size;
    MPI_Get(b->result + off, (int)size, MPI_CHAR, target, disp + (MPI_Aint)off, (int)size, MPI_CHAR,
            win);
}

int main(int argc, char **argv)
{
    const osu_rma_desc_t d = {OSU_RMA_BW,       "vbt_osu_get_bw", "MPI_Get Bandwidth Test",
                              OSU_WIN_ALLOCATE, OSU_SYNC_FLUSH,   OSU_SYNC_ALL,
                              MPI_LOCK_SHARED,  MPI_LOCK_SHARED,  OSU_BUF_RESULT};

    return osu_rma_main(&d, 0, op, argc, argv);
}
