/* vbt_osu_put_latency: MPI_Put of SIZE bytes from rank 0 to rank 1, then the synchronization -s
 * names (default: MPI_Win_flush on an MPI_Win_allocate window): time per MPI_Put. Options and
 * output as OSU's osu_put_latency (-h, README.md); windows, synchronization and timing: osu_rma.c.
 */
#include "osu_rma.h"

static void op(const osu_rma_bufs_t *b, size_t size, int j, int target, MPI_Aint disp, MPI_Win win)
{
    (void)j;
    MPI_Put(b->src, (int)size, MPI_CHAR, target, disp, (int)size, MPI_CHAR, win);
}

int main(int argc, char **argv)
{
    const osu_rma_desc_t d = {OSU_RMA_LATENCY,  "vbt_osu_put_latency", "MPI_Put Latency Test",
                              OSU_WIN_ALLOCATE, OSU_SYNC_FLUSH,        OSU_SYNC_ALL,
                              MPI_LOCK_SHARED,  MPI_LOCK_SHARED,       OSU_BUF_SRC};

    return osu_rma_main(&d, 0, op, argc, argv);
}
