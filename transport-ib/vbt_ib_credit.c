/* Credits and the messages that take none (CREDIT, and finalize's FIN).
 *
 * Credits: each peer may have `credits_max` DATA messages towards us that we have not
 * re-posted and reported back; the SRQ holds credits_max + VBT_IB_CTL_RESERVE buffers per peer.
 * A receive buffer is re-posted right after the callback (batched per poll) and only then
 * counted as owed to its sender. Owed credits ride on every message we send to that peer; when
 * half a window is owed and nothing flows back, an explicit CREDIT message carries them. It
 * takes no credit: a CREDIT message returns at least half a window (ceil(credits_max / 2)),
 * the credits a sender has not seen returned never exceed one window, and credits count as
 * seen only when the buffer carrying them is re-posted; so at most 2 CREDIT messages per peer
 * are ever un-reposted here. With the one FIN of finalize that is the reserve of 3. No receive
 * can find the SRQ empty, so the QPs use rnr_retry 0: an RNR NAK means a bug here and fails at
 * once, loudly, instead of a retry storm.
 *
 * The counting is on the message path and stays there (vbt_ib_eager.c): rx_repost applies the
 * credits each message carried and counts the buffers it re-posted as owed, listing a peer
 * owed half a window; every send carries what is owed. This file sends what the list still
 * holds after a poll (vbt_ib_credit_service), and finalize's FIN. */
#include "vbt_ib_eager.inl"

#include <string.h>

int vbt_ib_ctl_send(vbt_ib_iface_t *c, int peer, vbt_ib_msg_type_t type)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    vbt_ib_op_t op = type == VBT_IB_MSG_FIN ? VBT_IB_OP_FIN : VBT_IB_OP_CREDIT;
    struct ibv_send_wr *bad;
    vbt_ib_hdr_t th;
    uint32_t seq = p->sq_head, b = 0;
    unsigned flags = 0;
    int rc;

    if (p->state != VBT_IB_PEER_READY)
        return 1;
    if (p->sq_head - p->sq_tail >= c->sq_depth)
        return 0;
    th.version = VBT_IB_WIRE_VERSION;
    th.type = (uint8_t)type;
    th.credits = (uint16_t)p->owed;
    th.src = (uint32_t)c->rank;
    if (c->max_inline >= sizeof(th)) {
        c->send_sge[0].addr = (uintptr_t)&th;
        c->send_sge[0].lkey = 0;
        flags = IBV_SEND_INLINE;
    } else {
        char *buf;
        if (c->bounce_nfree == 0)
            return 0;
        b = c->bounce_free[--c->bounce_nfree] + 1;
        buf = vbt_ib_bounce_buf(c, b - 1);
        memcpy(buf, &th, sizeof(th));
        c->send_sge[0].addr = (uintptr_t)buf;
        c->send_sge[0].lkey = c->lkey;
    }
    c->send_sge[0].length = sizeof(th);
    c->send_wr.num_sge = 1;
    c->send_wr.opcode = IBV_WR_SEND;
    c->send_wr.wr_id = vbt_ib_send_wrid(op, peer, seq);
    /* A FIN is always signalled: its completion says everything before it arrived. */
    if (vbt_ib_sq_signal(c, p, b != 0) || type == VBT_IB_MSG_FIN) {
        flags |= IBV_SEND_SIGNALED;
        p->unsig = p->unsig_bounce = 0;
    }
    c->send_wr.send_flags = flags;
    rc = ibv_post_send(p->qp, &c->send_wr, &bad);
    if (unlikely(rc != 0)) {
        if (b != 0)
            c->bounce_free[c->bounce_nfree++] = b - 1;
        vbt_ib_check_rc(rc, VBT_IB_PROBE, "%s to rank %d (ibv_post_send)", vbt_ib_op_name(op),
                        peer);
        vbt_ib_peer_fail(p, op, IBV_WC_GENERAL_ERR);
        return 1;
    }
    p->sq_bounce[seq & c->sq_mask] = b;
    p->sq_head = seq + 1;
    p->owed = 0;
    if (type == VBT_IB_MSG_FIN) {
        p->fin_posted = 1;
        p->fin_seq = seq;
    }
    return 1;
}

void vbt_ib_credit_service(vbt_ib_iface_t *c)
{
    int i = 0;

    while (i < c->owe_count) {
        int peer = c->owe_list[i];
        vbt_ib_peer_t *p = &c->peers[peer];
        /* A finalizing peer may close its QP any moment: it needs no credits any more. */
        if (p->owed < c->credit_thresh || p->fin_received ||
            vbt_ib_ctl_send(c, peer, VBT_IB_MSG_CREDIT)) {
            p->owe_listed = 0;
            c->owe_list[i] = c->owe_list[--c->owe_count];
            continue;
        }
        i++;
    }
}
