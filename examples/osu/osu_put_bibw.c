/* vbt_osu_put_bibw: both ranks put windows of -W MPI_Puts of SIZE bytes to each other in the same
 * epochs (-s fence or pscw, the default, on an MPI_Win_allocate window): MB/s of both directions.
 * Options and output as OSU's osu_put_bibw (-h, README.md); windows, synchronization and timing:
 * osu_rma.c. */
#include "osu_rma.h"

static void op(const osu_rma_bufs_t *b, size_t size, int j, int target, MPI_Aint disp, MPI_Win win)
{
    size_t off = (size_t)j * size;
    MPI_Put(b->src + off, (int)size, MPI_CHAR, target, disp + (MPI_Aint)off, (int)size, MPI_CHAR,
            win);
}

int main(int argc, char **argv)
{
    const osu_rma_desc_t d = {
        OSU_RMA_BW,       "vbt_osu_put_bibw", "MPI_Put Bi-directional Bandwidth Test",
        OSU_WIN_ALLOCATE, OSU_SYNC_PSCW,      OSU_SYNC_ACTIVE,
        MPI_LOCK_SHARED,  MPI_LOCK_SHARED,    OSU_BUF_SRC};

    return osu_rma_main(&d, 1, op, argc, argv);
}
