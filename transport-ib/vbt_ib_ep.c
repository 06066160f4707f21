/* Endpoints: one RC queue pair per peer, created and connected on first use (the connection
 * manager, vbt_ib_cm.c, decides when), our address blob and the check of a peer's, and the
 * RESET -> INIT -> RTR -> RTS state machine (after rdma-core's rc_pingpong). The instance's
 * life cycle, which puts the device, the eager pools, the connection manager and the QPs
 * together, is vbt_ib_tl.c.
 *
 * QP attributes (one place, here):
 *   INIT  port from the device choice, pkey index 0, access REMOTE_WRITE, plus REMOTE_READ
 *         where the device does READs (VBT_TL_CAP_GET) and REMOTE_ATOMIC where it does
 *         atomics (the ATOMIC caps): the QP only allows the kinds of access; which memory a
 *         peer may reach, and how, is decided per registration (vbt_ib_rndv.c): a rendezvous
 *         receive buffer takes remote writes only, a send buffer nothing.
 *   RTR   path MTU = min(our port's active MTU, the peer's); max_dest_rd_atomic (the READs
 *         and atomics of the peer in flight at once) = min(device max_qp_rd_atom, 16), sent
 *         to the peer in our REQ or REP (rd_atomic); min_rnr_timer 12 (0.64 ms, never needed while
 *         credits hold); RoCE, or VBT_IB_GID_INDEX: GRH with the peer's GID, our GID index,
 *         hop limit 64; InfiniBand: the peer's LID, SL 0.
 *   RTS   timeout 17 (4.096 us * 2^17 = 0.54 s per try) and retry_cnt 6: a dead peer or a
 *         broken path fails after ~4 s instead of hanging, while a congested fabric is ridden
 *         out (nothing is posted before the peer's QP is known to be past RTR: vbt_ib_cm.c).
 *         The liveness probes (vbt_ib_liveness.c) rely on this budget: a waiting rank learns
 *         that an idle peer died ~4 s after the next probe (at most 1 s away), on rxe (which
 *         keeps these values: 2^17 * 4.096 us, then 6 retries) as on hardware (the same
 *         formula; an HCA that rounds the timeout up to twice it still reports in ~8 s).
 *         Not 7: Soft-RoCE (rxe, Linux 6.1) treats retry_cnt 7 as "retry forever", like
 *         rnr_retry 7, and a dead peer then hangs the sender silently (seen in the VM);
 *         rnr_retry 0: credits guarantee a posted receive, so an RNR NAK is a bug and fails at
 *         once instead of storming; max_rd_atomic (our READs and atomics in flight) =
 *         min(device max_qp_init_rd_atom, 16, the peer's rd_atomic), so that heterogeneous
 *         devices agree (more than the responder holds would be refused). */
#include "vbt_ib_int.h"
#include "vbt_ib_wire.h"
#include "vbt_log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define VBT_IB_QP_TIMEOUT    17
#define VBT_IB_QP_RETRY_CNT  6
#define VBT_IB_QP_RNR_RETRY  0
#define VBT_IB_MIN_RNR_TIMER 12
#define VBT_IB_RD_ATOMIC_MAX 16
#define VBT_IB_GRH_HOP_LIMIT 64

static uint32_t random_psn(void)
{
    uint32_t v;
    if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != (ssize_t)sizeof(v)) {
        uint64_t t = vbt_now_ns();
        v = (uint32_t)t ^ ((uint32_t)getpid() << 12) ^ (uint32_t)(t >> 32);
    }
    return v & 0xffffff;
}

static int rd_atomic(int dev_max, int peer_max)
{
    int n = dev_max < peer_max ? dev_max : peer_max;

    if (n > VBT_IB_RD_ATOMIC_MAX)
        return VBT_IB_RD_ATOMIC_MAX;
    return n > 0 ? n : 1;
}

int vbt_ib_rd_atomic_offer(const vbt_ib_choice_t *choice)
{
    return rd_atomic(choice->dev_attr.max_qp_rd_atom, VBT_IB_RD_ATOMIC_MAX);
}

/* ---- QP creation and the state machine ---------------------------------------------------- */

/* An RC QP on the SRQ and the shared CQ. Devices differ in how much inline data they take: ask
 * for c->max_inline, less until one is accepted, and lower c->max_inline to what was granted
 * (every QP then takes it). Failures are logged, naming who the QP was for. */
static vbt_status_t rc_qp_new(vbt_ib_iface_t *c, int peer, struct ibv_qp **qp_p)
{
    struct ibv_qp_init_attr qa;
    uint32_t want = c->max_inline;
    struct ibv_qp *qp;
    int saved_errno;

    for (;;) {
        memset(&qa, 0, sizeof(qa));
        qa.send_cq = c->cq;
        qa.recv_cq = c->cq;
        qa.srq = c->srq;
        qa.qp_type = IBV_QPT_RC;
        qa.sq_sig_all = 0;
        qa.cap.max_send_wr = c->sq_depth;
        qa.cap.max_send_sge = c->choice.dev_attr.max_sge >= 3 ? 3 : 1;
        qa.cap.max_recv_sge = 1;
        qa.cap.max_inline_data = want;
        qp = ibv_create_qp(c->pd, &qa);
        saved_errno = errno;
        if (qp != NULL)
            break;
        /* Out of memory is not about inline data: say so at once. */
        if (want == 0 || saved_errno == ENOMEM) {
            if (peer < 0)
                return vbt_ib_verbs_status(-1, saved_errno, VBT_IB_PINS, __FILE__, __LINE__,
                                           "ibv_create_qp(%s, RC, %u send WRs, %u bytes inline)",
                                           c->choice.name, c->sq_depth, want);
            return vbt_ib_verbs_status(-1, saved_errno, VBT_IB_PINS, __FILE__, __LINE__,
                                       "ibv_create_qp(%s, RC, %u send WRs, %u bytes inline) for "
                                       "rank %d",
                                       c->choice.name, c->sq_depth, want, peer);
        }
        vbt_debug("ibv_create_qp(%s) with %u bytes inline failed: %s: asking for less",
                  c->choice.name, want, strerror(saved_errno));
        want /= 2;
        if (want < sizeof(vbt_ib_hdr_t))
            want = 0;
    }
    /* The provider reports what it granted; without 3 SGEs inline needs a copy: go bounce. */
    if (qa.cap.max_send_sge < 3)
        qa.cap.max_inline_data = 0;
    if (qa.cap.max_inline_data < c->max_inline)
        c->max_inline = qa.cap.max_inline_data;
    *qp_p = qp;
    return VBT_OK;
}

vbt_status_t vbt_ib_qp_create(vbt_ib_iface_t *c, int peer)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    struct ibv_qp_attr attr;
    vbt_status_t status;
    int rc;

    /* Receive buffers and CQ entries for one more peer, before its QP can receive anything
     * (the loopback receives nothing: its few CQ entries are in every CQ's size). */
    status = peer != c->rank ? vbt_ib_rx_reserve(c, peer) : VBT_OK;
    if (status != VBT_OK)
        return status;
    /* The per-slot arrays come with the connection: a rank pays for the peers it talks to. */
    p->sq_bounce = calloc(c->sq_depth, sizeof(*p->sq_bounce));
    p->sq_put = calloc(c->sq_depth, sizeof(*p->sq_put));
    if (p->sq_bounce == NULL || p->sq_put == NULL) {
        vbt_error("out of memory for the send-queue bookkeeping of rank %d", peer);
        status = VBT_ERR_NO_MEMORY;
        goto err_free;
    }
    status = rc_qp_new(c, peer, &p->qp);
    if (status != VBT_OK)
        goto err_free;

    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_INIT;
    attr.pkey_index = 0;
    attr.port_num = c->choice.port;
    attr.qp_access_flags = c->qp_access;
    rc = ibv_modify_qp(p->qp, &attr,
                       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    status = vbt_ib_check_rc(rc, 0, "ibv_modify_qp(RESET->INIT) of the QP for rank %d", peer);
    if (status != VBT_OK)
        goto err_destroy_qp;
    p->psn = random_psn();
    p->state = VBT_IB_PEER_INIT;
    if (peer != c->rank)
        c->nqps++; /* its QP is never destroyed before finalize: its buffers stay accounted */
    return VBT_OK;

err_destroy_qp:
    ibv_destroy_qp(p->qp);
    p->qp = NULL;
err_free:
    free(p->sq_bounce);
    free(p->sq_put);
    p->sq_bounce = NULL;
    p->sq_put = NULL;
    return status;
}

void vbt_ib_ah_attr(const vbt_ib_iface_t *c, struct ibv_ah_attr *ah, uint16_t lid,
                    const uint8_t *gid)
{
    memset(ah, 0, sizeof(*ah));
    ah->dlid = lid;
    ah->sl = 0;
    ah->src_path_bits = 0;
    ah->port_num = c->choice.port;
    if (c->choice.gid_index >= 0) {
        ah->is_global = 1;
        memcpy(ah->grh.dgid.raw, gid, sizeof(ah->grh.dgid.raw));
        ah->grh.sgid_index = (uint8_t)c->choice.gid_index;
        ah->grh.hop_limit = VBT_IB_GRH_HOP_LIMIT;
        ah->grh.traffic_class = 0;
        ah->grh.flow_label = 0;
    }
}

vbt_status_t vbt_ib_qp_connect(vbt_ib_iface_t *c, int peer, const vbt_ib_cm_msg_t *m)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    uint32_t rqpn = m->qpn, rpsn = m->psn;
    enum ibv_mtu path_mtu = m->active_mtu < c->choice.port_attr.active_mtu
                                ? (enum ibv_mtu)m->active_mtu
                                : c->choice.port_attr.active_mtu;
    struct ibv_qp_attr attr;
    vbt_status_t status;
    int rc;

    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_RTR;
    attr.path_mtu = path_mtu;
    attr.dest_qp_num = rqpn;
    attr.rq_psn = rpsn;
    attr.max_dest_rd_atomic = (uint8_t)c->rd_atomic;
    attr.min_rnr_timer = VBT_IB_MIN_RNR_TIMER;
    vbt_ib_ah_attr(c, &attr.ah_attr, m->lid, m->gid);
    rc = ibv_modify_qp(p->qp, &attr,
                       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                           IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    status =
        vbt_ib_check_rc(rc, 0, "ibv_modify_qp(INIT->RTR) towards rank %d (QP 0x%x)", peer, rqpn);
    if (status != VBT_OK)
        return status;

    memset(&attr, 0, sizeof(attr));
    attr.qp_state = IBV_QPS_RTS;
    attr.timeout = VBT_IB_QP_TIMEOUT;
    attr.retry_cnt = VBT_IB_QP_RETRY_CNT;
    attr.rnr_retry = VBT_IB_QP_RNR_RETRY;
    attr.sq_psn = p->psn;
    attr.max_rd_atomic = (uint8_t)rd_atomic(c->choice.dev_attr.max_qp_init_rd_atom, m->rd_atomic);
    rc = ibv_modify_qp(p->qp, &attr,
                       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                           IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
    status = vbt_ib_check_rc(rc, 0, "ibv_modify_qp(RTR->RTS) towards rank %d", peer);
    if (status != VBT_OK)
        return status;
    p->rqpn = rqpn;
    p->state = VBT_IB_PEER_RTS;
    if (peer == c->rank) /* the loopback is no peer (vbt_ib_loopback_connect says it) */
        return VBT_OK;
    c->nconnected++;
    vbt_debug("QP 0x%x -> rank %d QP 0x%x: RTS, path MTU %s, PSN 0x%x/0x%x (%d connected)",
              p->qp->qp_num, peer, rqpn, vbt_ib_mtu_str(path_mtu), p->psn, rpsn, c->nconnected);
    return VBT_OK;
}

/* ---- the address blob ---------------------------------------------------------------------- */

void vbt_ib_addr_pack(const vbt_ib_iface_t *c, vbt_ib_addr_t *a)
{
    memset(a, 0, sizeof(*a));
    a->version = VBT_IB_ADDR_VERSION;
    a->link_layer = c->choice.port_attr.link_layer;
    a->active_mtu = (uint8_t)c->choice.port_attr.active_mtu;
    a->use_grh = c->choice.gid_index >= 0;
    a->lid = c->choice.port_attr.lid;
    a->eager_limit = (uint32_t)c->super.max_send;
    a->ud_qpn = c->ud_qp->qp_num;
    memcpy(a->gid, c->choice.gid.raw, sizeof(a->gid));
}

vbt_status_t vbt_ib_addr_check(const vbt_ib_iface_t *c, int peer, const void *blob, size_t len,
                               vbt_ib_addr_t *addr_p)
{
    const char *bad = vbt_ib_addr_decode(blob, len, addr_p);
    const vbt_ib_addr_t *ra = addr_p;

    if (bad != NULL) {
        vbt_error("rank %d published a malformed InfiniBand address (%zu bytes, version %u; "
                  "expected %zu bytes, version %u): bad %s: do all ranks run the same Verbatim?",
                  peer, len, len ? *(const uint8_t *)blob : 0, sizeof(*ra), VBT_IB_ADDR_VERSION,
                  bad);
        return VBT_ERR_INVALID_PARAM;
    }
    if (ra->eager_limit != c->super.max_send) {
        vbt_error("VBT_EAGER_LIMIT differs between ranks: %u on rank %d, %zu on rank %d: set it "
                  "to the same value for the whole job",
                  ra->eager_limit, peer, c->super.max_send, c->rank);
        return VBT_ERR_INVALID_PARAM;
    }
    if (ra->use_grh != (c->choice.gid_index >= 0) ||
        ra->link_layer != c->choice.port_attr.link_layer) {
        vbt_error("rank %d uses a %s port%s and this rank (%d) a %s port%s: they cannot reach "
                  "each other (VBT_IB_DEVICE, VBT_IB_GID_INDEX)",
                  peer, ra->link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand",
                  ra->use_grh ? " addressed by GID" : "", c->rank,
                  c->choice.port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand",
                  c->choice.gid_index >= 0 ? " addressed by GID" : "");
        return VBT_ERR_UNREACHABLE;
    }
    if (ra->link_layer == IBV_LINK_LAYER_ETHERNET &&
        vbt_ib_gid_is_v4mapped(ra->gid) != vbt_ib_gid_is_v4mapped(c->choice.gid.raw)) {
        vbt_error("rank %d is addressed by an %s GID and this rank (%d) by an %s one: RoCE v2 "
                  "cannot route between IPv4 and IPv6; give every node's RoCE interface an IPv4 "
                  "address, or choose GIDs of one kind with VBT_IB_GID_INDEX (verbatim-info "
                  "lists them)",
                  peer, vbt_ib_gid_is_v4mapped(ra->gid) ? "IPv4" : "IPv6", c->rank,
                  vbt_ib_gid_is_v4mapped(c->choice.gid.raw) ? "IPv4" : "IPv6");
        return VBT_ERR_UNREACHABLE;
    }
    return VBT_OK;
}

/* ---- teardown and the probe at init ------------------------------------------------------ */

void vbt_ib_qp_destroy_all(vbt_ib_iface_t *c)
{
    for (int r = 0; c->peers != NULL && r < c->size; r++) {
        vbt_ib_peer_t *p = &c->peers[r];
        if (p->qp != NULL)
            vbt_ib_check_rc(ibv_destroy_qp(p->qp), 0, "ibv_destroy_qp (rank %d)", r);
        free(p->sq_bounce);
        free(p->sq_put);
        p->qp = NULL;
        p->sq_bounce = NULL;
        p->sq_put = NULL;
        p->state = VBT_IB_PEER_NONE;
    }
}

vbt_status_t vbt_ib_qp_probe(vbt_ib_iface_t *c)
{
    struct ibv_qp *qp;
    vbt_status_t status;

    c->max_inline = VBT_IB_INLINE_WANT;
    if (c->npeers == 0) {
        c->max_inline = 0; /* no QP will ever be made */
        return VBT_OK;
    }
    status = rc_qp_new(c, -1, &qp);
    if (status != VBT_OK)
        return status;
    vbt_ib_check_rc(ibv_destroy_qp(qp), 0, "ibv_destroy_qp (inline probe)");
    return VBT_OK;
}

/* ---- loopback ---------------------------------------------------------------------------------
 * One-sided operations on our own memory through the device (VBT_TL_CAP_RMA_SELF), so that a
 * rank's own atomics on its window go through the same NIC as its peers' and stay atomic with
 * them. Made at wireup where the device has atomics (a failure there clears the capability, so
 * no window counts on it). The QP of our own slot is connected to itself: no connection
 * manager, nothing on the wire, no receive buffers. It carries no messages: its FIN is marked
 * exchanged, so finalize and the liveness checks pass it by. */
vbt_status_t vbt_ib_loopback_connect(vbt_ib_iface_t *c)
{
    vbt_ib_peer_t *p = &c->peers[c->rank];
    vbt_ib_cm_msg_t m;
    vbt_status_t status;

    if (p->state == VBT_IB_PEER_FAILED)
        return VBT_ERR_IO;
    status = vbt_ib_qp_create(c, c->rank);
    if (status == VBT_OK) {
        memset(&m, 0, sizeof(m));
        m.active_mtu = (uint8_t)c->choice.port_attr.active_mtu;
        m.lid = c->choice.port_attr.lid;
        m.rd_atomic = (uint8_t)c->rd_atomic;
        m.qpn = p->qp->qp_num;
        m.psn = p->psn;
        memcpy(m.gid, c->choice.gid.raw, sizeof(m.gid));
        status = vbt_ib_qp_connect(c, c->rank, &m);
    }
    if (status != VBT_OK) {
        vbt_warn("the loopback QP of %s (one-sided operations on our own memory) could not "
                 "be set up: windows keep their accumulates as messages (the lines above say "
                 "why)",
                 c->choice.name);
        p->state = VBT_IB_PEER_FAILED;
        return status;
    }
    vbt_ib_eager_peer_ready(c, c->rank);
    p->fin_received = p->fin_posted = 1;
    vbt_debug("QP 0x%x: loopback for one-sided operations on our own memory", p->qp->qp_num);
    return VBT_OK;
}
