/* Eager messages: the send path and the poll loop, the fast path. Every helper they call per
 * message is static inline, here or in vbt_ib_eager.inl, so it is inlined into vbt_ib_send and
 * vbt_ib_progress; only what is rare calls out. Around them: pool and queue sizes
 * (vbt_ib_sizes.c), the pools and queues and their growth (vbt_ib_pool.c), credit and FIN
 * messages (vbt_ib_credit.c, which says how credits work), errors on a connection
 * (vbt_ib_wc_error.c), blocking and finalize (vbt_ib_sleep.c).
 *
 * Send queue: selective signalling. Every sig_every-th WR on a QP is signalled, and every
 * sig_every_bounce-th one that holds a bounce buffer; the signalled completion retires all WRs
 * before it and frees their bounce buffers. sig_every_bounce keeps the unsignalled bounce
 * buffers of all QPs under half the pool, so an empty pool always has signalled completions
 * coming that refill it. No malloc, lock or syscall of ours per message (rxe's doorbell is a
 * write(2) inside ibv_post_send: the soft device's cost, not ours). */
#include "vbt_ib_eager.inl"
#include "vbt_ib_wire.h"
#include "vbt_log.h"

#include <string.h>

void vbt_ib_eager_peer_ready(vbt_ib_iface_t *c, int peer)
{
    vbt_ib_peer_t *p = &c->peers[peer];

    p->credits = c->credits_max;
    p->owed = 0;
    p->sq_head = p->sq_tail = 0;
    p->unsig = p->unsig_bounce = 0;
    p->puts = 0;
    p->fin_received = p->fin_posted = 0;
    p->state = VBT_IB_PEER_READY;
}

/* ---- errors (cold) ------------------------------------------------------------------------ */

static VBT_NOINLINE_COLD int poll_failed(const vbt_ib_iface_t *c, int rc)
{
    vbt_error("ibv_poll_cq failed (%d): the completion queue of %s is broken", rc, c->choice.name);
    return VBT_ERR_IO;
}

static VBT_NOINLINE_COLD int repost_failed(int rc)
{
    return vbt_ib_check_rc(rc, 0, "re-posting receive buffers (ibv_post_srq_recv)");
}

/* ---- credits (how they work: vbt_ib_credit.c) --------------------------------------------- */

static inline void owe_push(vbt_ib_iface_t *c, int peer)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    if (!p->owe_listed) {
        p->owe_listed = 1;
        c->owe_list[c->owe_count++] = peer;
    }
}

/* Peers of the batch that returned more credits than we granted them (vbt_ib_credits_apply):
 * each is refused, once, with an error naming it, and its connection closed (what more it
 * returned is not believed: it would make us overrun its receive buffers). */
static VBT_NOINLINE_COLD int credits_refused(vbt_ib_iface_t *c, uint32_t n)
{
    int refused = 0;

    for (uint32_t k = 0; k < n; k++) {
        int src = c->rx_src[k];
        vbt_ib_peer_t *p;
        if (src < 0)
            continue;
        p = &c->peers[src];
        if (p->credits <= c->credits_max)
            continue;
        if (p->state != VBT_IB_PEER_FAILED) { /* a failed peer's credits are moot */
            vbt_error("rank %d returned credits for %d more messages than we had sent it (a "
                      "window is %d): a protocol violation (do all ranks run the same "
                      "Verbatim?); its connection is closed",
                      src, p->credits - c->credits_max, c->credits_max);
            vbt_ib_peer_fail(p, -1, IBV_WC_GENERAL_ERR);
            p->fail_reported = 1;
            refused = 1;
        }
        p->credits = 0;
    }
    return refused ? VBT_ERR_PEER_FAILED : 0;
}

/* Re-post the receive buffers collected by this poll, then credit their senders. */
static inline int rx_repost(vbt_ib_iface_t *c)
{
    uint32_t n = c->rx_batch;
    vbt_ib_peer_t *const peers = c->peers;
    const int credits_max = c->credits_max, thresh = c->credit_thresh;
    struct ibv_recv_wr *bad;
    int rc, over = 0;

    c->rx_wr[n - 1].next = NULL;
    rc = ibv_post_srq_recv(c->srq, c->rx_wr, &bad);
    c->rx_wr[n - 1].next = n < VBT_IB_POLL_BATCH ? &c->rx_wr[n] : NULL;
    c->rx_batch = 0;
    if (unlikely(rc != 0))
        return repost_failed(rc);
    for (uint32_t k = 0; k < n; k++) {
        int src = c->rx_src[k];
        vbt_ib_peer_t *p;
        if (src < 0)
            continue;
        p = &peers[src];
        p->credits = vbt_ib_credits_apply(p->credits, c->rx_credits[k], credits_max, &over);
        if (c->rx_is_data[k] && ++p->owed >= thresh)
            owe_push(c, src);
    }
    if (unlikely(over))
        return credits_refused(c, n);
    return 0;
}

/* ---- the fast path ------------------------------------------------------------------------ */

static VBT_NOINLINE_COLD vbt_status_t send_refused(vbt_ib_iface_t *c, int peer, size_t hdr_len,
                                                   size_t len)
{
    if (peer < 0 || peer >= c->size) {
        vbt_error("vbt_ib_send to rank %d: no such rank (world size %d)", peer, c->size);
        return VBT_ERR_INVALID_PARAM;
    }
    if (hdr_len > VBT_IB_HDR_MAX || hdr_len + len > c->super.max_send) {
        vbt_error("vbt_ib_send to rank %d: header %zu + payload %zu bytes exceed the eager limit "
                  "%zu (or the header the 64-byte maximum)",
                  peer, hdr_len, len, c->super.max_send);
        return VBT_ERR_INVALID_PARAM;
    }
    return vbt_ib_peer_refused(c, peer, "vbt_ib_send");
}

vbt_status_t vbt_ib_peer_refused(vbt_ib_iface_t *c, int peer, const char *call)
{
    vbt_ib_peer_t *p = &c->peers[peer];

    switch (p->state) {
    case VBT_IB_PEER_READY:
        return VBT_ERR_NO_RESOURCE; /* no credit, send-queue slot or bounce buffer now */
    case VBT_IB_PEER_INIT:
        return VBT_ERR_NO_RESOURCE; /* our REQ is out: progress retransmits it */
    case VBT_IB_PEER_RTS:
        /* We answered its REQ but do not know its QP is past RTR: ask with our own REQ. */
        return vbt_ib_cm_connect(c, peer);
    case VBT_IB_PEER_FAILED:
        if (!p->fail_reported) {
            char cause[256];
            p->fail_reported = 1;
            vbt_ib_likely_cause(c, (enum ibv_wc_status)p->fail_status, p->fail_op, peer, cause,
                                sizeof(cause));
            vbt_error("cannot send to rank %d: the connection failed earlier with %s on a %s: %s",
                      peer, ibv_wc_status_str((enum ibv_wc_status)p->fail_status),
                      vbt_ib_op_name(p->fail_op), cause);
        }
        return VBT_ERR_PEER_FAILED;
    default:
        if (peer == c->rank) {
            vbt_error("%s to rank %d, this process: self messages never reach the transport", call,
                      peer);
            return VBT_ERR_UNREACHABLE;
        }
        if (!c->wired) {
            vbt_error("%s to rank %d before the wireup", call, peer);
            return VBT_ERR_UNREACHABLE;
        }
        return vbt_ib_cm_connect(c, peer); /* the first send to it: connect */
    }
}

static VBT_NOINLINE_COLD vbt_status_t send_post_failed(vbt_ib_iface_t *c, int peer, int rc,
                                                       uint32_t b)
{
    if (b != 0)
        c->bounce_free[c->bounce_nfree++] = b - 1;
    return vbt_ib_post_failed(c, peer, rc, VBT_IB_OP_DATA);
}

vbt_status_t vbt_ib_send(vbt_tl_iface_t *iface, int peer, const void *hdr, size_t hdr_len,
                         const void *payload, size_t len)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);
    struct ibv_send_wr *bad;
    vbt_ib_peer_t *p;
    vbt_ib_hdr_t th;
    size_t total = sizeof(th) + hdr_len + len;
    uint32_t seq, b = 0;
    unsigned flags;
    int rc;

    if (unlikely((unsigned)peer >= (unsigned)c->size || hdr_len > VBT_IB_HDR_MAX ||
                 hdr_len + len > c->super.max_send))
        return send_refused(c, peer, hdr_len, len);
    p = &c->peers[peer];
    if (unlikely(p->credits <= 0 || p->sq_head - p->sq_tail >= c->sq_depth))
        return send_refused(c, peer, hdr_len, len);

    seq = p->sq_head;
    th.version = VBT_IB_WIRE_VERSION;
    th.type = VBT_IB_MSG_DATA;
    th.credits = (uint16_t)p->owed;
    th.src = (uint32_t)c->rank;
    if (total <= c->max_inline) {
        /* Inline: the provider copies the gather list into the WQE; no registration. */
        int n = 1;
        c->send_sge[0].addr = (uintptr_t)&th;
        c->send_sge[0].length = sizeof(th);
        if (hdr_len != 0) {
            c->send_sge[n].addr = (uintptr_t)hdr;
            c->send_sge[n++].length = (uint32_t)hdr_len;
        }
        if (len != 0) {
            c->send_sge[n].addr = (uintptr_t)payload;
            c->send_sge[n++].length = (uint32_t)len;
        }
        c->send_wr.num_sge = n;
        flags = IBV_SEND_INLINE;
    } else {
        char *buf;
        if (unlikely(c->bounce_nfree == 0))
            return VBT_ERR_NO_RESOURCE;
        b = c->bounce_free[--c->bounce_nfree] + 1;
        buf = vbt_ib_bounce_buf(c, b - 1);
        memcpy(buf, &th, sizeof(th));
        memcpy(buf + sizeof(th), hdr, hdr_len);
        memcpy(buf + sizeof(th) + hdr_len, payload, len);
        c->send_sge[0].addr = (uintptr_t)buf;
        c->send_sge[0].length = (uint32_t)total;
        c->send_sge[0].lkey = c->lkey;
        c->send_wr.num_sge = 1;
        flags = 0;
    }
    if (vbt_ib_sq_signal(c, p, b != 0))
        flags |= IBV_SEND_SIGNALED;
    c->send_wr.wr_id = vbt_ib_send_wrid(VBT_IB_OP_DATA, peer, seq);
    c->send_wr.opcode = IBV_WR_SEND;
    c->send_wr.send_flags = flags;
    rc = ibv_post_send(p->qp, &c->send_wr, &bad);
    if (unlikely(rc != 0))
        return send_post_failed(c, peer, rc, b);
    p->sq_bounce[seq & c->sq_mask] = b;
    p->sq_head = seq + 1;
    p->credits--;
    p->owed = 0;
    return VBT_OK;
}

/* A header that is malformed, or comes from a peer not READY: 1 to go on with the message,
 * else the status to return. The first message on a QP in RTS proves the peer's QP is past
 * RTR: the connection is ready. */
static VBT_NOINLINE_COLD int rx_unusual(vbt_ib_iface_t *c, const struct ibv_wc *wc, const char *bad,
                                        const vbt_ib_hdr_t *th)
{
    uint32_t src;

    if (bad != NULL)
        return vbt_ib_bad_message(c, wc, bad);
    src = th->src;
    if (c->peers[src].qp == NULL || c->peers[src].qp->qp_num != wc->qp_num)
        return vbt_ib_bad_message(c, wc, "src (not the rank connected to this QP)");
    if (c->peers[src].state == VBT_IB_PEER_RTS)
        vbt_ib_cm_peer_ready(c, (int)src);
    return 1;
}

/* One arrival: check the header, hand the payload up, queue the buffer for re-posting. */
static inline int rx_one(vbt_ib_iface_t *c, const struct ibv_wc *wc)
{
    const vbt_ib_rx_chunk_t *ch = vbt_ib_rx_chunk_of(c, wc->wr_id);
    char *buf = ch->base + (size_t)(uint32_t)wc->wr_id * c->stride;
    const vbt_ib_hdr_limits_t lim = {.world_size = (uint32_t)c->size,
                                     .credits_max = (uint32_t)c->credits_max};
    vbt_ib_hdr_t th;
    const char *bad = vbt_ib_hdr_check(buf, wc->byte_len, &lim, &th);
    uint32_t src;
    uint32_t k;

    /* Everything the peer wrote is checked (vbt_ib_wire.h), and the rank it names must be the
     * one connected to the QP the message came on. */
    if (unlikely(bad != NULL || c->peers[th.src].qp == NULL ||
                 c->peers[th.src].qp->qp_num != wc->qp_num ||
                 c->peers[th.src].state != VBT_IB_PEER_READY)) {
        int st = rx_unusual(c, wc, bad, &th);
        if (st != 1)
            return st;
    }
    src = th.src;
    k = c->rx_batch++;
    c->rx_wr[k].wr_id = wc->wr_id;
    c->rx_sge[k].addr = (uintptr_t)buf;
    c->rx_sge[k].lkey = ch->lkey;
    c->rx_src[k] = (int)src;
    c->rx_credits[k] = th.credits;
    c->rx_is_data[k] = th.type == VBT_IB_MSG_DATA;
    if (likely(th.type == VBT_IB_MSG_DATA))
        c->up.recv(c->up.arg, (int)src, buf + sizeof(th), wc->byte_len - sizeof(th));
    else if (th.type == VBT_IB_MSG_FIN)
        c->peers[src].fin_received = 1;
    return 0;
}

int vbt_ib_progress(vbt_tl_iface_t *iface)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);
    struct ibv_wc wc[VBT_IB_POLL_BATCH];
    int n, fatal = 0;

    if (unlikely(c->in_progress))
        return 0;
    if (unlikely(c->conn_pending != 0))
        vbt_ib_cm_progress(c);
    n = ibv_poll_cq(c->cq, VBT_IB_POLL_BATCH, wc);
    if (likely(n == 0)) {
        if (unlikely(c->owe_count != 0))
            vbt_ib_credit_service(c);
        return 0;
    }
    if (unlikely(n < 0))
        return poll_failed(c, n);

    c->in_progress = 1;
    for (int i = 0; i < n; i++) {
        int st;
        if (unlikely(wc[i].status != IBV_WC_SUCCESS))
            st = vbt_ib_wc_error(c, &wc[i]);
        else if (wc[i].wr_id & (VBT_IB_WRID_RECV | VBT_IB_WRID_UD)) {
            /* The connection manager's UD QP shares the CQ (so a blocked rank wakes for it). */
            if (likely(!(wc[i].wr_id & VBT_IB_WRID_UD)))
                st = rx_one(c, &wc[i]);
            else
                st = vbt_ib_cm_completion(c, &wc[i]);
        } else {
            const vbt_ib_peer_t *p;
            p = &c->peers[(wc[i].wr_id >> VBT_IB_WRID_PEER_SHIFT) & 0xffffff];
            vbt_ib_sq_retire(c, (vbt_ib_peer_t *)p, (uint32_t)wc[i].wr_id);
            st = 0;
        }
        if (unlikely(st < 0) && fatal == 0)
            fatal = st;
    }
    if (c->rx_batch != 0) {
        int st = rx_repost(c);
        if (unlikely(st < 0) && fatal == 0)
            fatal = st;
    }
    if (c->owe_count != 0)
        vbt_ib_credit_service(c);
    c->in_progress = 0;
    return fatal != 0 ? fatal : n;
}
