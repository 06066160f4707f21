/* Passive-target locks taken by the origin's NIC atomics on the target's lock word, on windows
 * whose accumulates go by NIC atomics (every rank reaches every rank with them, ourselves
 * through the loopback): MPI_Win_lock, unlock, lock_all and unlock_all then need nothing of the
 * target's CPU, so a target that computes without calling MPI delays no origin (with the
 * contiguous puts and gets and the NIC's accumulates, which need nothing of it either). The
 * classic design (Open MPI's osc/rdma, MPICH's ch4 with native atomics): one 64-bit word per
 * rank's window, the low half counting shared holders, VBT_WIN_RLOCK_EXCL set while one holds
 * it exclusively.
 *   shared:    fetch-and-add 1; an exclusive holder seen in the old value: add -1, retry
 *   exclusive: compare-and-swap 0 -> EXCL until it succeeds
 *   release:   add -1, or -EXCL
 * Waiting origins back off between attempts as any wait does. An exclusive locker can be kept
 * waiting by a stream of shared ones (no queue: the word has no room for one); the target's
 * message lock queue is not used by these windows. */
#include "vbt_win_int.h"

#define VBT_WIN_RLOCK_EXCL ((uint64_t)1 << 32)

vbt_status_t vbt_win_rlock_acquire(vbt_win_t *w, int target, int exclusive)
{
    vbt_backoff_t backoff;

    vbt_backoff_init(&backoff);
    for (;;) {
        uint64_t old = 0;
        vbt_status_t st;

        if (exclusive) {
            st = vbt_win_lock_atomic(w, target, VBT_TL_ATOMIC_CSWAP, VBT_WIN_RLOCK_EXCL, 0, &old);
            if (st != VBT_OK || old == 0)
                return st;
        } else {
            st = vbt_win_lock_atomic(w, target, VBT_TL_ATOMIC_FADD, 1, 0, &old);
            if (st != VBT_OK || !(old & VBT_WIN_RLOCK_EXCL))
                return st;
            st = vbt_win_lock_atomic(w, target, VBT_TL_ATOMIC_FADD, (uint64_t)-1, 0, &old);
            if (st != VBT_OK)
                return st;
        }
        /* Held by another: let the progress engine (and the holder, on this node) run. */
        int n = vbt_p2p_progress();
        if (n < 0)
            return (vbt_status_t)n;
        vbt_p2p_idle(&backoff);
    }
}

vbt_status_t vbt_win_rlock_release(vbt_win_t *w, int target, int exclusive)
{
    uint64_t old;

    return vbt_win_lock_atomic(w, target, VBT_TL_ATOMIC_FADD,
                               exclusive ? (uint64_t)0 - VBT_WIN_RLOCK_EXCL : (uint64_t)-1, 0,
                               &old);
}
