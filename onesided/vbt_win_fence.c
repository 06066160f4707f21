/* MPI_Win_fence: every operation this rank issued since the last fence is completed at its
 * target (a flush of the targets it touched), then a barrier on the window's communicator, so
 * that when any rank leaves, every rank's operations of the epoch are in every window. The
 * assertions are checked by the API; they only allow skipping work, and the flush already
 * costs nothing when no operation was issued. */
#include "vbt_coll.h"
#include "vbt_win_int.h"

vbt_status_t vbt_win_fence(vbt_win_t *w, int assert)
{
    uint8_t *want = vbt_win_want(w);
    vbt_status_t st;
    int any = 0;

    if (want == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int t = 0; t < w->size; t++)
        any |= want[t] = w->tgt[t].unflushed;
    st = any ? vbt_win_flush_targets(w, want, -1, VBT_WIN_FLUSH) : vbt_win_wait_results(w, -1);
    if (st == VBT_OK)
        st = vbt_coll_barrier(w->comm);
    if (st != VBT_OK)
        return st;
    w->fence_open = !(assert &MPI_MODE_NOSUCCEED);
    w->fence_ops = 0;
    return VBT_OK;
}
