/* The connection manager: RC QPs are created and connected on first use, through one UD QP per
 * rank, so what a rank publishes has a fixed size and a rank pays (QP, send-queue bookkeeping,
 * address handle) only for the peers it talks to. The scheme is the field's usual one
 * (MVAPICH's on-demand connection manager, UCX's wireup over UD).
 *
 *   active side (first vbt_ib_send to P)     passive side (P)
 *   fetch P's address blob (peer_addr), check it
 *   RC QP -> INIT, UD address handle
 *   REQ {rank, qpn, psn, lid, gid, mtu,  ---> check it; RC QP (INIT if new) -> RTR -> RTS
 *        rd_atomic}
 *                                     <--- REP {the same, for P's QP}
 *   RC QP -> RTR -> RTS: READY                (RTS: READY at the first message on the QP, or
 *                                              at a REP to its own REQ)
 *
 * A side posts on its RC QP only once it knows the peer's QP is past RTR (a packet that reaches
 * a QP still in INIT is dropped, and the sender's retries would be spent on it): after a REP,
 * or after anything arrived on the RC QP. So a passive side that wants to send first sends its
 * own REQ; the active side answers REP (a REQ naming the QP we are connected to is answered
 * again: the first REP may have been lost). Both sides may start at once: each has one QP per
 * peer, so the REQs cross and both connect the same pair.
 *
 * UD loses packets: the REQ is retransmitted while no REP came (VBT_IB_CM_RETX_FIRST ms, doubling
 * up to VBT_IB_CM_RETX_MAX), checked from vbt_ib_progress only while some connection is pending
 * (one counter test otherwise); a peer silent for VBT_IB_CM_WARN_MS gets one warning, and we keep
 * trying (it may be computing). A REP is never retransmitted: the REQ's retransmission asks again.
 *
 * Messages from the network are never trusted: length, version, type, rank range, eager limit,
 * addressing mode and field ranges are checked; a bad one is logged and dropped. A well-formed
 * one must also come from the rank it names: from the UD QP that rank published, with the
 * LID, GID and MTU it published (vbt_ib_cm_addr_check); a message claiming another rank's
 * identity is logged at error and dropped, so nobody on the fabric but that rank's process can
 * connect as it. The UD QP shares
 * the transport's CQ (a blocked rank wakes for a REQ) and has its own small registered pool; its
 * work requests carry VBT_IB_WRID_UD, so the receive fast path gains one unlikely branch. */
#include "vbt_config.h"
#include "vbt_ib_int.h"
#include "vbt_ib_wire.h"
#include "vbt_log.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static inline char *ud_slot(const vbt_ib_iface_t *c, uint32_t idx)
{
    return c->ud_pool + (size_t)idx * VBT_IB_UD_SLOT;
}

/* ---- set-up and teardown ------------------------------------------------------------------- */

static vbt_status_t ud_post_recv(vbt_ib_iface_t *c, uint32_t idx)
{
    struct ibv_sge sge = {
        .addr = (uintptr_t)ud_slot(c, idx), .length = VBT_IB_UD_SLOT, .lkey = c->ud_mr->lkey};
    struct ibv_recv_wr wr = {
        .wr_id = VBT_IB_WRID_UD | VBT_IB_WRID_RECV | idx, .sg_list = &sge, .num_sge = 1};
    struct ibv_recv_wr *bad;

    return vbt_ib_check_rc(ibv_post_recv(c->ud_qp, &wr, &bad), 0,
                           "posting a receive on the connection manager's UD QP");
}

vbt_status_t vbt_ib_cm_init(vbt_ib_iface_t *c)
{
    size_t bytes = (size_t)(VBT_IB_UD_RECV + VBT_IB_UD_SEND) * VBT_IB_UD_SLOT;
    struct ibv_qp_init_attr qa;
    struct ibv_qp_attr attr;
    vbt_status_t status;
    void *pool;
    int rc;

    rc = posix_memalign(&pool, 4096, bytes);
    if (rc != 0) {
        vbt_error("cannot allocate the %zu-byte connection manager buffers: %s", bytes,
                  strerror(rc));
        return VBT_ERR_NO_MEMORY;
    }
    memset(pool, 0, bytes);
    c->ud_pool = pool;
    c->ud_mr = ibv_reg_mr(c->pd, pool, bytes, IBV_ACCESS_LOCAL_WRITE);
    status = vbt_ib_check_ptr(c->ud_mr, VBT_IB_PINS, "ibv_reg_mr(%s, %zu-byte UD buffers)",
                              c->choice.name, bytes);
    if (status != VBT_OK)
        goto err_cleanup;

    memset(&qa, 0, sizeof(qa));
    qa.send_cq = c->cq;
    qa.recv_cq = c->cq;
    qa.qp_type = IBV_QPT_UD;
    qa.sq_sig_all = 1;
    qa.cap.max_send_wr = VBT_IB_UD_SEND;
    qa.cap.max_recv_wr = VBT_IB_UD_RECV;
    qa.cap.max_send_sge = 1;
    qa.cap.max_recv_sge = 1;
    c->ud_qp = ibv_create_qp(c->pd, &qa);
    status = vbt_ib_check_ptr(c->ud_qp, VBT_IB_PINS, "ibv_create_qp(%s, UD)", c->choice.name);
    if (status != VBT_OK)
        goto err_cleanup;

    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = c->choice.port;
    attr.qkey = VBT_IB_QKEY;
    rc = ibv_modify_qp(c->ud_qp, &attr,
                       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
    status = vbt_ib_check_rc(rc, 0, "ibv_modify_qp(UD, RESET->INIT)");
    if (status != VBT_OK)
        goto err_cleanup;
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_RTR;
    rc = ibv_modify_qp(c->ud_qp, &attr, IBV_QP_STATE);
    status = vbt_ib_check_rc(rc, 0, "ibv_modify_qp(UD, INIT->RTR)");
    if (status != VBT_OK)
        goto err_cleanup;
    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_RTS;
    attr.sq_psn = 0;
    rc = ibv_modify_qp(c->ud_qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);
    status = vbt_ib_check_rc(rc, 0, "ibv_modify_qp(UD, RTR->RTS)");
    if (status != VBT_OK)
        goto err_cleanup;

    for (uint32_t i = 0; i < VBT_IB_UD_RECV; i++) {
        status = ud_post_recv(c, i);
        if (status != VBT_OK)
            goto err_cleanup;
    }
    c->ud_send_free = (1u << VBT_IB_UD_SEND) - 1;
    memset(&c->ud_wr, 0, sizeof(c->ud_wr));
    c->ud_wr.sg_list = &c->ud_sge;
    c->ud_wr.num_sge = 1;
    c->ud_wr.opcode = IBV_WR_SEND;
    c->ud_wr.send_flags = IBV_SEND_SIGNALED;
    c->ud_wr.wr.ud.remote_qkey = VBT_IB_QKEY;
    c->ud_sge.lkey = c->ud_mr->lkey;
    vbt_debug("connection manager: UD QP 0x%x, %d receive buffers", c->ud_qp->qp_num,
              VBT_IB_UD_RECV);
    return VBT_OK;

err_cleanup:
    vbt_ib_cm_cleanup(c);
    return status;
}

void vbt_ib_cm_cleanup(vbt_ib_iface_t *c)
{
    if (c->ud_qp != NULL)
        vbt_ib_check_rc(ibv_destroy_qp(c->ud_qp), 0, "ibv_destroy_qp (UD)");
    for (int r = 0; c->peers != NULL && r < c->size; r++) {
        if (c->peers[r].ah != NULL)
            vbt_ib_check_rc(ibv_destroy_ah(c->peers[r].ah), 0, "ibv_destroy_ah (rank %d)", r);
        c->peers[r].ah = NULL;
    }
    if (c->ud_mr != NULL)
        vbt_ib_check_rc(ibv_dereg_mr(c->ud_mr), 0, "ibv_dereg_mr (UD buffers)");
    free(c->ud_pool);
    c->ud_qp = NULL;
    c->ud_mr = NULL;
    c->ud_pool = NULL;
    c->conn_pending = 0;
}

/* ---- sending REQ and REP ------------------------------------------------------------------- */

static vbt_status_t ah_create(vbt_ib_iface_t *c, int peer, uint16_t lid, const uint8_t *gid,
                              uint32_t ud_qpn)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    struct ibv_ah_attr attr;

    vbt_ib_ah_attr(c, &attr, lid, gid);
    p->ah = ibv_create_ah(c->pd, &attr);
    p->ud_qpn = ud_qpn;
    return vbt_ib_check_ptr(p->ah, 0, "ibv_create_ah(%s) towards rank %d", c->choice.name, peer);
}

/* Send a REQ or REP about our QP for peer. VBT_ERR_NO_RESOURCE when all send slots are taken
 * (the REQ's retransmission, or the peer's, tries again). */
void vbt_ib_cm_msg_make(const vbt_ib_iface_t *c, int peer, vbt_ib_cm_type_t type,
                        vbt_ib_cm_msg_t *m)
{
    const vbt_ib_peer_t *p = &c->peers[peer];

    memset(m, 0, sizeof(*m));
    m->version = VBT_IB_CM_VERSION;
    m->type = (uint8_t)type;
    m->active_mtu = (uint8_t)c->choice.port_attr.active_mtu;
    m->use_grh = c->choice.gid_index >= 0;
    m->lid = c->choice.port_attr.lid;
    m->rd_atomic = (uint8_t)c->rd_atomic;
    m->src = (uint32_t)c->rank;
    m->qpn = p->qp->qp_num;
    m->psn = p->psn;
    m->eager_limit = (uint32_t)c->super.max_send;
    memcpy(m->gid, c->choice.gid.raw, sizeof(m->gid));
}

vbt_status_t vbt_ib_cm_post(vbt_ib_iface_t *c, int peer, const vbt_ib_cm_msg_t *msg)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    const char *what = msg->type == VBT_IB_CM_REQ ? "REQ" : "REP";
    struct ibv_send_wr *bad;
    vbt_ib_cm_msg_t *m;
    vbt_status_t status;
    uint32_t slot;

    if (c->ud_send_free == 0) {
        vbt_debug("connection manager: no UD send slot for the %s to rank %d; later", what, peer);
        return VBT_ERR_NO_RESOURCE;
    }
    slot = (uint32_t)__builtin_ctz(c->ud_send_free);
    m = (vbt_ib_cm_msg_t *)ud_slot(c, VBT_IB_UD_RECV + slot);
    *m = *msg;
    c->ud_sge.addr = (uintptr_t)m;
    c->ud_sge.length = sizeof(*m);
    c->ud_wr.wr_id = VBT_IB_WRID_UD | slot;
    c->ud_wr.wr.ud.ah = p->ah;
    c->ud_wr.wr.ud.remote_qpn = p->ud_qpn;
    status = vbt_ib_check_rc(ibv_post_send(c->ud_qp, &c->ud_wr, &bad), 0,
                             "sending a connection %s to rank %d (UD ibv_post_send)",
                             msg->type == VBT_IB_CM_REQ ? "request" : "reply", peer);
    if (status != VBT_OK)
        return status;
    c->ud_send_free &= ~(1u << slot);
    vbt_debug("connection manager: %s to rank %d (our QP 0x%x, PSN 0x%x)", what, peer, m->qpn,
              m->psn);
    return VBT_OK;
}

static vbt_status_t cm_send(vbt_ib_iface_t *c, int peer, vbt_ib_cm_type_t type)
{
    vbt_ib_cm_msg_t m;

    vbt_ib_cm_msg_make(c, peer, type, &m);
    return vbt_ib_cm_post(c, peer, &m);
}

/* Send (or resend) our REQ and keep it pending until the REP. */
static void req_send(vbt_ib_iface_t *c, int peer, uint64_t now)
{
    vbt_ib_peer_t *p = &c->peers[peer];

    if (!p->req_pending) {
        p->req_pending = 1;
        p->warned = 0;
        p->req_since = now;
        p->retx_ms = VBT_IB_CM_RETX_FIRST;
        if (c->conn_pending++ == 0)
            c->cm_next_at = UINT64_MAX;
    }
    (void)cm_send(c, peer, VBT_IB_CM_REQ); /* lost or not sent: retransmitted all the same */
    p->retx_at = now + p->retx_ms;
    if (p->retx_at < c->cm_next_at)
        c->cm_next_at = p->retx_at;
}

static void req_done(vbt_ib_iface_t *c, vbt_ib_peer_t *p)
{
    if (p->req_pending) {
        p->req_pending = 0;
        c->conn_pending--;
    }
}

/* The connection to peer cannot be made: it is unusable (the cause was logged). */
static vbt_status_t cm_fail(vbt_ib_iface_t *c, int peer, vbt_status_t status)
{
    vbt_ib_peer_t *p = &c->peers[peer];

    req_done(c, p);
    p->state = VBT_IB_PEER_FAILED;
    p->credits = 0;
    p->fail_op = 0xff;
    p->fail_status = IBV_WC_GENERAL_ERR;
    p->fail_reported = 1;
    /* The runtime retries on NO_RESOURCE: a verbs EAGAIN here is a failure all the same. */
    return status == VBT_ERR_NO_RESOURCE || status == VBT_OK ? VBT_ERR_IO : status;
}

/* Fetch peer's published address once (the peer_addr upcall; the runtime logs its failures):
 * check it, keep it (its REQs and REPs must agree with it), make the address handle for its UD
 * QP. */
static vbt_status_t addr_fetch(vbt_ib_iface_t *c, int peer)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    void *data = NULL;
    size_t len = 0;
    vbt_status_t status;

    status = c->up.peer_addr(c->up.addr_arg, peer, &data, &len);
    if (status == VBT_ERR_NOT_FOUND) {
        vbt_error("cannot connect to rank %d: it published no InfiniBand address (its "
                  "VBT_TRANSPORTS leave ib out, or it found no usable RDMA device)",
                  peer);
        return VBT_ERR_UNREACHABLE;
    }
    if (status != VBT_OK)
        return status;
    status = vbt_ib_addr_check(c, peer, data, len, &p->addr);
    free(data);
    if (status == VBT_OK)
        status = ah_create(c, peer, p->addr.lid, p->addr.gid, p->addr.ud_qpn);
    if (status == VBT_OK)
        p->addr_known = 1;
    return status;
}

vbt_status_t vbt_ib_cm_connect(vbt_ib_iface_t *c, int peer)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    vbt_status_t status;

    if (p->state == VBT_IB_PEER_NONE) {
        if (!p->addr_known) {
            status = addr_fetch(c, peer);
            if (status != VBT_OK)
                return cm_fail(c, peer, status);
        }
        status = vbt_ib_qp_create(c, peer);
        if (status != VBT_OK)
            return cm_fail(c, peer, status);
        vbt_debug("connection manager: connecting to rank %d", peer);
    }
    if (!p->req_pending && (p->state == VBT_IB_PEER_INIT || p->state == VBT_IB_PEER_RTS))
        req_send(c, peer, vbt_now_ms());
    return VBT_ERR_NO_RESOURCE;
}

void vbt_ib_cm_peer_ready(vbt_ib_iface_t *c, int peer)
{
    vbt_ib_peer_t *p = &c->peers[peer];

    if (p->req_pending)
        vbt_debug("connection manager: rank %d ready after %llu ms", peer,
                  (unsigned long long)(vbt_now_ms() - p->req_since));
    else
        vbt_debug("connection manager: rank %d ready", peer);
    req_done(c, p);
    vbt_ib_eager_peer_ready(c, peer);
}

/* ---- receiving REQ and REP ----------------------------------------------------------------- */

static void on_req(vbt_ib_iface_t *c, int src, const vbt_ib_cm_msg_t *m)
{
    vbt_ib_peer_t *p = &c->peers[src];
    vbt_status_t status;

    vbt_debug("connection manager: REQ from rank %d (its QP 0x%x, PSN 0x%x)", src, m->qpn, m->psn);
    switch (p->state) {
    case VBT_IB_PEER_FAILED:
        vbt_debug("connection manager: REQ from rank %d dropped: the connection failed", src);
        return;
    case VBT_IB_PEER_NONE:
        if (c->finalizing) {
            vbt_debug("connection manager: REQ from rank %d dropped: finalizing", src);
            return;
        }
        status = vbt_ib_qp_create(c, src);
        if (status != VBT_OK) {
            cm_fail(c, src, status);
            return;
        }
        __attribute__((fallthrough)); /* connect the new QP */
    case VBT_IB_PEER_INIT:
        status = vbt_ib_qp_connect(c, src, m);
        if (status != VBT_OK) {
            cm_fail(c, src, status);
            return;
        }
        break;
    default: /* RTS, READY */
        if (m->qpn != p->rqpn) {
            vbt_warn("rank %d asks to connect its QP 0x%x, but ours is connected to its QP 0x%x: "
                     "request dropped",
                     src, m->qpn, p->rqpn);
            return;
        }
        break;
    }
    /* The address handle came with the published address (from_published). */
    (void)cm_send(c, src, VBT_IB_CM_REP); /* lost or not sent: the REQ comes again */
}

static void on_rep(vbt_ib_iface_t *c, int src, const vbt_ib_cm_msg_t *m)
{
    vbt_ib_peer_t *p = &c->peers[src];
    vbt_status_t status;

    vbt_debug("connection manager: REP from rank %d (its QP 0x%x, PSN 0x%x)", src, m->qpn, m->psn);
    switch (p->state) {
    case VBT_IB_PEER_INIT:
        status = vbt_ib_qp_connect(c, src, m);
        if (status != VBT_OK) {
            cm_fail(c, src, status);
            return;
        }
        break;
    case VBT_IB_PEER_RTS:
    case VBT_IB_PEER_READY:
        if (m->qpn != p->rqpn) {
            vbt_warn("rank %d replied for its QP 0x%x, but ours is connected to its QP 0x%x: "
                     "reply dropped",
                     src, m->qpn, p->rqpn);
            return;
        }
        if (p->state == VBT_IB_PEER_READY)
            return; /* a REP to a retransmitted REQ */
        break;
    default:
        vbt_debug("connection manager: REP from rank %d dropped: we asked nothing", src);
        return;
    }
    vbt_ib_cm_peer_ready(c, src);
}

/* Is this message one we may act on? Every field the peer chose is checked
 * (vbt_ib_cm_msg_check); 1 with *m_p filled in, else 0 and the message was logged. */
static int msg_valid(const vbt_ib_iface_t *c, const struct ibv_wc *wc, const char *buf,
                     vbt_ib_cm_msg_t *m_p)
{
    const vbt_ib_cm_limits_t lim = {.world_size = (uint32_t)c->size,
                                    .rank = (uint32_t)c->rank,
                                    .eager_limit = (uint32_t)c->super.max_send,
                                    .use_grh = c->choice.gid_index >= 0};
    size_t len = wc->byte_len > VBT_IB_UD_GRH ? wc->byte_len - VBT_IB_UD_GRH : 0;
    const char *why = vbt_ib_cm_msg_check(buf, len, &lim, m_p);
    const vbt_ib_cm_msg_t *m = (const vbt_ib_cm_msg_t *)buf;

    if (why == NULL)
        return 1;
    vbt_warn("dropped a malformed connection message (%u bytes from UD QP 0x%x, version %u, "
             "type %u, rank %u): bad %s; do all ranks run the same Verbatim?",
             wc->byte_len, wc->src_qp, len >= 1 ? m->version : 0, len >= 2 ? m->type : 0,
             len >= 12 ? m->src : 0, why);
    return 0;
}

/* Does a well-formed message come from the process its src published? Fetches that address
 * at the first message from the rank (the passive side of a connection has not needed it
 * before). 1, or 0 and the message was logged (a failed fetch was logged by the fetch, once:
 * the rank's later messages, retransmissions, are dropped at debug). */
static int from_published(vbt_ib_iface_t *c, const struct ibv_wc *wc, const vbt_ib_cm_msg_t *m)
{
    vbt_ib_peer_t *p = &c->peers[m->src];
    const char *why;

    if (!p->addr_known && (p->addr_bad || addr_fetch(c, (int)m->src) != VBT_OK)) {
        p->addr_bad = 1;
        vbt_debug("connection manager: %s from rank %u dropped: its address is not known",
                  m->type == VBT_IB_CM_REQ ? "REQ" : "REP", m->src);
        return 0;
    }
    why = vbt_ib_cm_addr_check(m, wc->src_qp, !(wc->wc_flags & IBV_WC_GRH), wc->slid, &p->addr);
    if (why == NULL)
        return 1;
    vbt_error("dropped a connection %s claiming to be rank %u (from UD QP 0x%x, LID 0x%x): bad %s: "
              "another process on the fabric, or a rank restarted with another address; no "
              "connection is made with it",
              m->type == VBT_IB_CM_REQ ? "request" : "reply", m->src, wc->src_qp, m->lid, why);
    return 0;
}

int vbt_ib_cm_completion(vbt_ib_iface_t *c, const struct ibv_wc *wc)
{
    uint32_t idx = (uint32_t)(wc->wr_id & 0xffff);
    vbt_ib_cm_msg_t m;

    if (!(wc->wr_id & VBT_IB_WRID_RECV)) {
        c->ud_send_free |= 1u << idx;
        if (wc->status != IBV_WC_SUCCESS && wc->status != IBV_WC_WR_FLUSH_ERR)
            vbt_debug("connection manager: a UD send failed: %s (retransmission covers it)",
                      ibv_wc_status_str(wc->status));
        return 0;
    }
    if (wc->status != IBV_WC_SUCCESS) {
        if (wc->status == IBV_WC_WR_FLUSH_ERR)
            return 0; /* the UD QP is being destroyed */
        vbt_debug("connection manager: a UD receive failed: %s", ibv_wc_status_str(wc->status));
    } else {
        if (msg_valid(c, wc, ud_slot(c, idx) + VBT_IB_UD_GRH, &m) && from_published(c, wc, &m)) {
            if (m.type == VBT_IB_CM_REQ)
                on_req(c, (int)m.src, &m);
            else
                on_rep(c, (int)m.src, &m);
        }
    }
    (void)ud_post_recv(c, idx); /* logged; one buffer fewer */
    return 0;
}

/* ---- retransmission -------------------------------------------------------------------------- */

void vbt_ib_cm_progress(vbt_ib_iface_t *c)
{
    uint64_t now = vbt_now_ms(), next = UINT64_MAX;

    if (now < c->cm_next_at)
        return;
    for (int r = 0; r < c->size && c->conn_pending > 0; r++) {
        vbt_ib_peer_t *p = &c->peers[r];
        if (!p->req_pending)
            continue;
        if (p->state != VBT_IB_PEER_INIT && p->state != VBT_IB_PEER_RTS) {
            req_done(c, p);
            continue;
        }
        if (now >= p->retx_at) {
            if (!p->warned && now - p->req_since >= VBT_IB_CM_WARN_MS) {
                p->warned = 1;
                vbt_warn("rank %d has not answered our connection request for %llu s: it is "
                         "busy, gone, or cannot be reached (on RoCE: a GID that does not route "
                         "between the nodes, see VBT_IB_GID_INDEX); still trying",
                         r, (unsigned long long)((now - p->req_since) / 1000));
            }
            p->retx_ms = p->retx_ms * 2 > VBT_IB_CM_RETX_MAX ? VBT_IB_CM_RETX_MAX : p->retx_ms * 2;
            vbt_debug("connection manager: no REP from rank %d yet: REQ again", r);
            (void)cm_send(c, r, VBT_IB_CM_REQ);
            p->retx_at = now + p->retx_ms;
        }
        if (p->retx_at < next)
            next = p->retx_at;
    }
    c->cm_next_at = next;
}

int vbt_ib_max_sleep_ms(vbt_tl_iface_t *iface)
{
    const vbt_ib_iface_t *c = vbt_ib_of(iface);
    uint64_t now;

    if (c->conn_pending == 0)
        return -1;
    now = vbt_now_ms();
    if (c->cm_next_at <= now)
        return 1;
    return c->cm_next_at - now > INT_MAX ? INT_MAX : (int)(c->cm_next_at - now);
}
