/* vbt_osu_acc_latency: MPI_Accumulate (MPI_SIGNED_CHAR, MPI_SUM) of SIZE bytes from rank 0 to rank
 * 1, then the synchronization -s names (default: MPI_Win_flush on an MPI_Win_allocate window): time
 * per MPI_Accumulate. Options and output as OSU's osu_acc_latency (-h, README.md); windows,
 * synchronization and timing: osu_rma.c.
 *
 * MPI_SIGNED_CHAR where OSU has MPI_CHAR: the standard defines MPI_SUM on MPI_SIGNED_CHAR, not
 * on MPI_CHAR (a character type, which Verbatim, like MPICH, takes only as an extension), so the
 * benchmark runs on any MPI. */
#include "osu_rma.h"

static void op(const osu_rma_bufs_t *b, size_t size, int j, int target, MPI_Aint disp, MPI_Win win)
{
    (void)j;
    MPI_Accumulate(b->src, (int)size, MPI_SIGNED_CHAR, target, disp, (int)size, MPI_SIGNED_CHAR,
                   MPI_SUM, win);
}

int main(int argc, char **argv)
{
    const osu_rma_desc_t d = {
        OSU_RMA_LATENCY,  "vbt_osu_acc_latency", "MPI_Accumulate latency Test",
        OSU_WIN_ALLOCATE, OSU_SYNC_FLUSH,        OSU_SYNC_ALL,
        MPI_LOCK_SHARED,  MPI_LOCK_SHARED,       OSU_BUF_SRC};

    return osu_rma_main(&d, 0, op, argc, argv);
}
