/* Errors on a connection, each in one sentence: a completion with an error status (the
 * status, the peer's rank, the operation and its likely cause), a failed post, a malformed
 * message. Each marks the peer failed (vbt_ib_peer_fail); a later send to it is refused with
 * the first failure's sentence (vbt_ib_peer_refused). All of it is cold: the poll loop and the
 * send path only call in here. */
#include "vbt_ib_eager.inl"
#include "vbt_log.h"

#include <stdio.h>

const char *vbt_ib_op_name(int op)
{
    switch (op) {
    case VBT_IB_OP_DATA:
        return "eager send";
    case VBT_IB_OP_CREDIT:
        return "credit message";
    case VBT_IB_OP_FIN:
        return "finalize message";
    case VBT_IB_OP_WRITE:
        return "RDMA write";
    case VBT_IB_OP_LIVENESS:
        return "liveness probe";
    case VBT_IB_OP_READ:
        return "RDMA read";
    case VBT_IB_OP_ATOMIC:
        return "atomic";
    }
    return "receive";
}

void vbt_ib_likely_cause(const vbt_ib_iface_t *c, enum ibv_wc_status st, int op, int peer,
                         char *buf, size_t len)
{
    const char *what = op == VBT_IB_OP_READ ? "read" : op == VBT_IB_OP_ATOMIC ? "atomic" : "write";
    int rma = op == VBT_IB_OP_WRITE || op == VBT_IB_OP_READ || op == VBT_IB_OP_ATOMIC;

    switch (st) {
    case IBV_WC_RETRY_EXC_ERR:
        snprintf(buf, len,
                 "rank %d did not acknowledge: it exited or hangs, or the network "
                 "path to it is broken (on RoCE: a wrong GID index, see VBT_IB_GID_INDEX and "
                 "verbatim-info)%s",
                 peer,
                 vbt_ib_device_is_software(&c->choice)
                     ? "; or, on Soft-RoCE, a lossy link: try VBT_IB_WRITE_MAX=16k"
                     : "");
        break;
    case IBV_WC_RNR_RETRY_EXC_ERR:
        snprintf(buf, len,
                 "rank %d had no receive buffer posted: a flow-control (credit) bug in "
                 "Verbatim, please report it",
                 peer);
        break;
    case IBV_WC_WR_FLUSH_ERR:
        snprintf(buf, len, "the connection to rank %d had already failed", peer);
        break;
    case IBV_WC_LOC_LEN_ERR:
    case IBV_WC_REM_INV_REQ_ERR:
        if (rma)
            snprintf(buf, len,
                     "rank %d found the %s invalid (an atomic's target not 8-byte aligned, a "
                     "range its registration does not hold, or more READs in flight than it "
                     "takes: a bug in Verbatim, please report it)",
                     peer, what);
        else
            snprintf(buf, len,
                     "a message did not fit the receive buffer: do all ranks use the same "
                     "VBT_EAGER_LIMIT?");
        break;
    case IBV_WC_REM_ACCESS_ERR:
        snprintf(buf, len,
                 "rank %d refused the %s: no registration of its covers that range with "
                 "remote %s (its memory was freed or unmapped while the transfer was in "
                 "flight, a key or address the application got wrong, or a bug in Verbatim: "
                 "please report it)",
                 peer, what, op == VBT_IB_OP_ATOMIC ? "atomics" : what);
        break;
    case IBV_WC_LOC_PROT_ERR:
    case IBV_WC_LOC_ACCESS_ERR:
        snprintf(buf, len,
                 "our registration does not cover the buffer (freed or unmapped while the "
                 "transfer was in flight, or a bug in Verbatim: please report it)");
        break;
    case IBV_WC_MW_BIND_ERR:
        snprintf(buf, len, "a memory-registration bug in Verbatim, please report it");
        break;
    case IBV_WC_REM_OP_ERR:
        snprintf(buf, len, "rank %d could not complete the operation (its queue pair failed)",
                 peer);
        break;
    case IBV_WC_LOC_QP_OP_ERR:
        snprintf(buf, len, "an invalid work request: a bug in Verbatim, please report it");
        break;
    default:
        snprintf(buf, len, "the device reported a failure on the connection to rank %d", peer);
        break;
    }
}

static int peer_by_qpn(const vbt_ib_iface_t *c, uint32_t qpn)
{
    for (int r = 0; r < c->size; r++) {
        if (c->peers[r].qp != NULL && c->peers[r].qp->qp_num == qpn)
            return r;
    }
    return -1;
}

/* Queue receive buffer idx for re-posting without crediting anyone. */
static void rx_recycle(vbt_ib_iface_t *c, uint64_t wr_id)
{
    uint32_t k = c->rx_batch++;
    c->rx_wr[k].wr_id = wr_id;
    c->rx_sge[k].addr = (uintptr_t)vbt_ib_rx_buf(c, wr_id);
    c->rx_sge[k].lkey = vbt_ib_rx_chunk_of(c, wr_id)->lkey;
    c->rx_src[k] = -1;
    c->rx_credits[k] = 0;
    c->rx_is_data[k] = 0;
}

void vbt_ib_peer_fail(vbt_ib_peer_t *p, int op, int wc_status)
{
    if (p->state == VBT_IB_PEER_FAILED)
        return;
    p->state = VBT_IB_PEER_FAILED;
    p->credits = 0;
    p->fail_op = (uint8_t)op;
    p->fail_status = wc_status;
}

int vbt_ib_wc_error(vbt_ib_iface_t *c, const struct ibv_wc *wc)
{
    char cause[256];
    vbt_ib_peer_t *p;
    int peer, op, first;

    if (wc->wr_id & VBT_IB_WRID_UD)
        return vbt_ib_cm_completion(c, wc);
    if (wc->wr_id & VBT_IB_WRID_RECV) {
        peer = peer_by_qpn(c, wc->qp_num);
        rx_recycle(c, wc->wr_id);
        if (peer < 0 || wc->status == IBV_WC_WR_FLUSH_ERR) {
            vbt_debug("receive on QP 0x%x (rank %d) flushed: %s", wc->qp_num, peer,
                      ibv_wc_status_str(wc->status));
            if (peer >= 0)
                vbt_ib_peer_fail(&c->peers[peer], -1, wc->status);
            return 0;
        }
        vbt_ib_likely_cause(c, wc->status, -1, peer, cause, sizeof(cause));
        vbt_error("receive from rank %d failed: %s (status %d, vendor error 0x%x): %s", peer,
                  ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, cause);
        vbt_ib_peer_fail(&c->peers[peer], -1, wc->status);
        c->peers[peer].fail_reported = 1;
        return VBT_ERR_PEER_FAILED;
    }

    op = (int)((wc->wr_id >> VBT_IB_WRID_KIND_SHIFT) & 0x7f);
    peer = (int)((wc->wr_id >> VBT_IB_WRID_PEER_SHIFT) & 0xffffff);
    if (peer >= c->size) {
        vbt_error("completion error %s for an unknown work request 0x%llx",
                  ibv_wc_status_str(wc->status), (unsigned long long)wc->wr_id);
        return VBT_ERR_IO;
    }
    p = &c->peers[peer];
    /* The WRs before this one completed (RC reports every error); this one and every one
     * after it failed, or will only be flushed. */
    vbt_ib_sq_retire(c, p, (uint32_t)wc->wr_id - 1);
    vbt_ib_put_fail_from(c, peer, (uint32_t)wc->wr_id, VBT_ERR_PEER_FAILED);
    vbt_ib_sq_retire(c, p, (uint32_t)wc->wr_id);
    first = p->state != VBT_IB_PEER_FAILED;
    vbt_ib_peer_fail(p, op, wc->status);

    /* A failed liveness probe is what tells a waiting rank that an idle peer died
     * (vbt_ib_liveness.c): reported like a failed send, unless the peer said goodbye. */
    if (op != VBT_IB_OP_DATA && op != VBT_IB_OP_WRITE && op != VBT_IB_OP_READ &&
        op != VBT_IB_OP_ATOMIC &&
        (op != VBT_IB_OP_LIVENESS || !vbt_ib_liveness_failure_matters(c, peer))) {
        if (first)
            vbt_debug("%s to rank %d failed: %s: rank %d has probably exited; a later send to it "
                      "will fail",
                      vbt_ib_op_name(op), peer, ibv_wc_status_str(wc->status), peer);
        return 0;
    }
    if (p->fail_reported)
        return 0;
    p->fail_reported = 1;
    if (first || wc->status != IBV_WC_WR_FLUSH_ERR) {
        vbt_ib_likely_cause(c, wc->status, op, peer, cause, sizeof(cause));
        vbt_error("%s to rank %d failed: %s (status %d, vendor error 0x%x): %s", vbt_ib_op_name(op),
                  peer, ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, cause);
    } else {
        vbt_ib_likely_cause(c, (enum ibv_wc_status)p->fail_status, p->fail_op, peer, cause,
                            sizeof(cause));
        vbt_error("%s to rank %d failed: the connection had failed earlier with %s on a %s: %s",
                  vbt_ib_op_name(op), peer, ibv_wc_status_str((enum ibv_wc_status)p->fail_status),
                  vbt_ib_op_name(p->fail_op), cause);
    }
    return VBT_ERR_PEER_FAILED;
}

int vbt_ib_bad_message(vbt_ib_iface_t *c, const struct ibv_wc *wc, const char *field)
{
    const vbt_ib_hdr_t *th = (const vbt_ib_hdr_t *)vbt_ib_rx_buf(c, wc->wr_id);
    int peer = peer_by_qpn(c, wc->qp_num);

    vbt_error("malformed message from rank %d (QP 0x%x): bad %s (%u bytes, header version %u "
              "type %u source %u credits %u): do all ranks run the same Verbatim?",
              peer, wc->qp_num, field, wc->byte_len, wc->byte_len >= 1 ? th->version : 0,
              wc->byte_len >= 2 ? th->type : 0, wc->byte_len >= 8 ? th->src : 0,
              wc->byte_len >= 4 ? th->credits : 0);
    rx_recycle(c, wc->wr_id);
    if (peer >= 0) {
        vbt_ib_peer_fail(&c->peers[peer], -1, IBV_WC_GENERAL_ERR);
        c->peers[peer].fail_reported = 1;
    }
    return VBT_ERR_PEER_FAILED;
}

vbt_status_t vbt_ib_post_failed(vbt_ib_iface_t *c, int peer, int rc, vbt_ib_op_t op)
{
    vbt_status_t status;

    status = vbt_ib_check_rc(rc, 0, "%s to rank %d (ibv_post_send)", vbt_ib_op_name(op), peer);
    vbt_ib_peer_fail(&c->peers[peer], op, IBV_WC_GENERAL_ERR);
    c->peers[peer].fail_reported = 1;
    return status == VBT_ERR_NO_RESOURCE ? VBT_ERR_IO : status;
}
