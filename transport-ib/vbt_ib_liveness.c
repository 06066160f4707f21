/* Liveness of connected peers: a rank that waits for a peer reached over verbs must learn that
 * the peer died even when it has nothing of its own outstanding towards it (a receive, a
 * collective step): RC reports a dead peer only as the failure of something we sent it.
 *
 * So, while a wait is idle (vbt_ib_check_liveness, from the runtime's back-off: every 4096
 * spinning polls and around every sleep), at most every VBT_IB_LIVENESS_MS, each READY peer
 * that has not said goodbye gets one signalled zero-length RDMA WRITE. It carries no data and
 * consumes neither a receive buffer nor a credit at the peer (a zero-length WRITE checks no
 * R_Key or address: IBA C9-88; rxe the same), and raises no completion there: the peer's NIC
 * (rxe: its kernel) acknowledges it whether or not the process is polling, so a busy peer is
 * never mistaken for a dead one. A peer whose process is gone has no QP any more: no ACK, the
 * QP's retries run out (timeout and retry_cnt: vbt_ib_ep.c, ~4 s), RETRY_EXC_ERR, and
 * vbt_ib_wc_error (vbt_ib_wc_error.c) reports it as any failed send: status, rank, operation,
 * likely cause, and VBT_ERR_PEER_FAILED from the wait.
 *
 * A probe is a WR like any other: it takes a send-queue slot (sq_head), and its completion
 * retires it and every WR before it (vbt_ib_sq_retire). It is never a WRITE of vbt_ib_put (sq_put
 * stays NULL) and holds no bounce buffer. One per peer is out at a time: a probe not yet
 * retired is not followed by another, so a dead peer costs one slot, not one per second.
 *
 * Not probed: peers not connected (connections are made on first use: a rank that never
 * exchanged a message with a peer has no QP to it and learns of its death from the launcher
 * only), peers that sent FIN or to which we sent ours (they close their QPs when done: a
 * failure then is the expected end, vbt_ib_liveness_failure_matters), and peers already
 * failed. A peer that failed earlier through a message that was not reported (a credit
 * message: vbt_ib_wc_error treats its loss as harmless, the peer may have finalized) is reported
 * here, once, unless it said goodbye: a wait must not go on for a peer known to be gone.
 *
 * Cost: nothing on the message path. The runtime calls this only when a wait found nothing to
 * do; when no probe is due it is one clock read (what the shm side's liveness check costs). */
#include "vbt_ib_int.h"
#include "vbt_log.h"

#include <string.h>

int vbt_ib_liveness_failure_matters(const vbt_ib_iface_t *c, int peer)
{
    const vbt_ib_peer_t *p = &c->peers[peer];

    /* A FIN that arrived before the failure was polled before it: completions come in order,
     * and the failure takes the QP's whole retry time. */
    return !c->finalizing && !p->fin_received && !p->fin_posted;
}

/* Post one zero-length RDMA WRITE to peer (READY). VBT_OK also when there is no room now (the
 * WRs filling the queue will tell of a dead peer themselves). */
static vbt_status_t probe(vbt_ib_iface_t *c, int peer)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    struct ibv_send_wr wr, *bad;
    uint32_t seq = p->sq_head;
    int rc;

    if (p->live_posted && (int32_t)(p->sq_tail - p->live_seq) <= 0)
        return VBT_OK; /* the last probe is still out */
    if (p->sq_head - p->sq_tail >= c->sq_depth)
        return VBT_OK;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = vbt_ib_send_wrid(VBT_IB_OP_LIVENESS, peer, seq);
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.num_sge = 0;
    wr.send_flags = IBV_SEND_SIGNALED;
    rc = ibv_post_send(p->qp, &wr, &bad);
    if (rc != 0)
        return vbt_ib_post_failed(c, peer, rc, VBT_IB_OP_LIVENESS);
    p->sq_bounce[seq & c->sq_mask] = 0;
    p->sq_head = seq + 1;
    /* Signalled: its completion retires the unsignalled WRs before it too. */
    p->unsig = p->unsig_bounce = 0;
    p->live_posted = 1;
    p->live_seq = seq;
    return VBT_OK;
}

vbt_status_t vbt_ib_check_liveness(vbt_tl_iface_t *iface)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);
    vbt_status_t status = VBT_OK;
    uint64_t now;

    if (c->nconnected == 0 || c->finalizing)
        return VBT_OK;
    now = vbt_now_ms();
    if (now < c->live_at)
        return VBT_OK;
    c->live_at = now + VBT_IB_LIVENESS_MS;
    for (int r = 0; r < c->size; r++) {
        vbt_ib_peer_t *p = &c->peers[r];
        vbt_status_t st = VBT_OK;

        if (p->state == VBT_IB_PEER_READY && !p->fin_received && !p->fin_posted)
            st = probe(c, r);
        else if (p->state == VBT_IB_PEER_FAILED && !p->fail_reported &&
                 vbt_ib_liveness_failure_matters(c, r))
            st = vbt_ib_peer_refused(c, r, "liveness check");
        if (st != VBT_OK && status == VBT_OK)
            status = st;
    }
    return status;
}
