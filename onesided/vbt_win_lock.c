/* Passive target synchronisation: locks (granted by the target from a queue served in order:
 * any number of shared holders or one exclusive), flushes, and the flush every other mode is
 * built on. A flush is a FLUSH request answered by the target once it has applied everything
 * this origin sent before it (requests are served in arrival order), plus the wait for every
 * result (get data) still on its way back. */
#include "vbt_win_int.h"

#include <stdio.h>
#include <string.h>

static vbt_status_t grant_ready(vbt_win_t *w)
{
    while (w->lockq != NULL) {
        vbt_win_lockq_t *q = w->lockq;
        if (q->exclusive ? (w->lock_shared > 0 || w->lock_excl != 0) : w->lock_excl != 0)
            return VBT_OK; /* in order: nobody overtakes the head */
        if (q->exclusive)
            w->lock_excl = q->origin + 1;
        else
            w->lock_shared++;
        w->lockq = q->next;
        vbt_status_t st = vbt_win_answer(w, q->origin, q->reply_tag);
        vbt_win_pool_put(w, q, sizeof(*q));
        if (st != VBT_OK)
            return st;
    }
    return VBT_OK;
}

vbt_status_t vbt_win_lock_request(vbt_win_t *w, int origin, int exclusive, uint32_t tag)
{
    vbt_win_lockq_t *q = vbt_win_pool_get(w, sizeof(*q)), **pp;

    if (q == NULL)
        return VBT_ERR_NO_MEMORY;
    *q = (vbt_win_lockq_t){.origin = origin, .exclusive = exclusive != 0, .reply_tag = tag};
    for (pp = &w->lockq; *pp != NULL; pp = &(*pp)->next)
        ;
    *pp = q;
    return grant_ready(w);
}

vbt_status_t vbt_win_lock_release(vbt_win_t *w, int origin)
{
    if (w->lock_excl == origin + 1)
        w->lock_excl = 0;
    else if (w->lock_shared > 0)
        w->lock_shared--;
    return grant_ready(w);
}

/* Send kind (FLUSH, UNLOCK or LOCK) to each target marked and wait for every answer. */
static vbt_status_t round_trip(vbt_win_t *w, const uint8_t *want, int target, int kind, int arg)
{
    int n = want != NULL ? w->size : 1;
    vbt_win_scratch_t *s = vbt_win_scratch(w);
    vbt_win_ack_t *acks;
    vbt_request_t **reqs;
    vbt_status_t st = VBT_OK;

    if (s == NULL)
        return VBT_ERR_NO_MEMORY;
    acks = s->acks;
    reqs = s->reqs;
    memset(acks, 0, (size_t)n * sizeof(*acks));
    memset(reqs, 0, (size_t)n * sizeof(*reqs));
    for (int i = 0; i < n && st == VBT_OK; i++) {
        int t = want != NULL ? i : target;
        uint32_t tag;
        if (want != NULL && !want[i])
            continue;
        tag = vbt_win_reply_tag(w);
        st = vbt_p2p_irecv(w->comm, VBT_CTX_P2P, &acks[i], sizeof(acks[i]), t, (int)tag, &reqs[i]);
        if (st == VBT_OK)
            st = vbt_win_send_ctrl(w, t, kind, arg, tag);
    }
    for (int i = 0; i < n; i++) {
        int t = want != NULL ? i : target;
        if (reqs[i] == NULL)
            continue;
        vbt_status_t s2 = vbt_win_wait_req(reqs[i]);
        if (s2 != VBT_OK && st == VBT_OK)
            st = s2;
        vbt_win_note_error(w, t, &acks[i]);
        if (kind != VBT_WIN_LOCK)
            w->tgt[t].unflushed = w->tgt[t].acc_msgs = 0;
    }
    return st;
}

vbt_status_t vbt_win_flush_targets(vbt_win_t *w, const uint8_t *want, int target, int kind)
{
    vbt_status_t st;

    /* The direct path's stores (shared windows) are visible before anything that follows. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* Transfers without the target's CPU are complete before the target hears of the flush
     * or the unlock. */
    st = vbt_win_wait_results(w, want != NULL ? -1 : target);
    if (st == VBT_OK)
        st = round_trip(w, want, target, kind, 0);

    if (st != VBT_OK)
        return st;
    return vbt_win_wait_results(w, want != NULL ? -1 : target);
}

vbt_status_t vbt_win_lock(vbt_win_t *w, int type, int target, int assert)
{
    vbt_status_t st = VBT_OK;

    if (!(assert &MPI_MODE_NOCHECK) && w->nic_atomics)
        st = vbt_win_rlock_acquire(w, target, type == MPI_LOCK_EXCLUSIVE);
    else if (!(assert &MPI_MODE_NOCHECK))
        st = round_trip(w, NULL, target, VBT_WIN_LOCK, type == MPI_LOCK_EXCLUSIVE);
    if (st != VBT_OK)
        return st;
    w->tgt[target].lock = (uint8_t)(type == MPI_LOCK_EXCLUSIVE ? 2 : 1);
    w->tgt[target].nocheck = (assert &MPI_MODE_NOCHECK) != 0;
    w->nlocks++;
    return VBT_OK;
}

vbt_status_t vbt_win_unlock(vbt_win_t *w, int target)
{
    vbt_status_t st;

    if (w->tgt[target].nocheck || w->nic_atomics)
        st = w->tgt[target].unflushed ? vbt_win_flush_targets(w, NULL, target, VBT_WIN_FLUSH)
                                      : vbt_win_wait_results(w, target);
    else
        st = vbt_win_flush_targets(w, NULL, target, VBT_WIN_UNLOCK);
    if (st == VBT_OK && !w->tgt[target].nocheck && w->nic_atomics)
        st = vbt_win_rlock_release(w, target, w->tgt[target].lock == 2);
    if (st != VBT_OK)
        return st;
    w->tgt[target].lock = 0;
    w->tgt[target].nocheck = 0;
    w->nlocks--;
    return VBT_OK;
}

vbt_status_t vbt_win_lock_all(vbt_win_t *w, int assert)
{
    uint8_t *want;
    vbt_status_t st = VBT_OK;

    for (int t = 0; t < w->size && !(assert &MPI_MODE_NOCHECK) && w->nic_atomics; t++) {
        st = vbt_win_rlock_acquire(w, t, 0);
        if (st != VBT_OK)
            return st; /* the locks taken stay: the error is fatal to the window */
    }
    if (!(assert &MPI_MODE_NOCHECK) && !w->nic_atomics) {
        want = vbt_win_want(w);
        if (want == NULL)
            return VBT_ERR_NO_MEMORY;
        for (int t = 0; t < w->size; t++)
            want[t] = 1;
        st = round_trip(w, want, -1, VBT_WIN_LOCK, 0);
    }
    if (st != VBT_OK)
        return st;
    w->lock_all = 1;
    w->lock_all_nocheck = (assert &MPI_MODE_NOCHECK) != 0;
    return VBT_OK;
}

vbt_status_t vbt_win_unlock_all(vbt_win_t *w)
{
    uint8_t *want = vbt_win_want(w);
    vbt_status_t st;

    if (want == NULL)
        return VBT_ERR_NO_MEMORY;
    int by_msg = !w->lock_all_nocheck && !w->nic_atomics; /* the target releases the lock */

    for (int t = 0; t < w->size; t++)
        want[t] = by_msg ? 1 : w->tgt[t].unflushed;
    st = vbt_win_flush_targets(w, want, -1, by_msg ? VBT_WIN_UNLOCK : VBT_WIN_FLUSH);
    for (int t = 0; t < w->size && st == VBT_OK && !w->lock_all_nocheck && w->nic_atomics; t++)
        st = vbt_win_rlock_release(w, t, 0);
    if (st != VBT_OK)
        return st;
    w->lock_all = 0;
    w->lock_all_nocheck = 0;
    return VBT_OK;
}

vbt_status_t vbt_win_flush(vbt_win_t *w, int target, int local)
{
    uint8_t *want;
    vbt_status_t st;

    /* Puts and accumulates are packed at the origin when they start: only results can still
     * be owed to the origin's buffers. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (local)
        return vbt_win_wait_results(w, target);
    if (target >= 0) {
        if (!w->tgt[target].unflushed)
            return vbt_win_wait_results(w, target);
        return vbt_win_flush_targets(w, NULL, target, VBT_WIN_FLUSH);
    }
    want = vbt_win_want(w);
    if (want == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int t = 0; t < w->size; t++)
        want[t] = w->tgt[t].unflushed;
    st = vbt_win_flush_targets(w, want, -1, VBT_WIN_FLUSH);
    return st;
}

int vbt_win_take_error(vbt_win_t *w, char *why, size_t len)
{
    int err = w->rep_err;
    if (err == 0)
        return 0;
    snprintf(why, len,
             "an earlier operation to rank %d accessed %llu bytes at address %#llx, which is "
             "not inside memory attached to that rank's dynamic window (MPI_Win_attach); "
             "nothing was written there. Attach the memory first, and pass the address from "
             "MPI_Get_address as target_disp",
             w->rep_target, (unsigned long long)w->rep_len, (unsigned long long)w->rep_disp);
    w->rep_err = 0;
    return err;
}
