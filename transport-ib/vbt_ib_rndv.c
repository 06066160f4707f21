/* Rendezvous support in the transport: memory registration through the registration cache
 * (runtime/base/vbt_rcache.c, with ibv_reg_mr as its register op) and RDMA WRITE from registered
 * memory into a peer's registered memory. The protocol itself (RTS, CTS, FIN) is the runtime's
 * (runtime/vbt_p2p.c); this file only moves bytes.
 *
 * WRITEs share the peer's send queue with eager sends: each takes a slot, at most
 * VBT_IB_PUT_WINDOW are in flight per peer, each is signalled, and the completion of the last
 * WRITE of a put (which on RC implies every earlier WR on the QP) reports the put done through
 * put_cb. A failed WRITE makes the peer unusable, and every put still in
 * flight towards it is reported failed at once (the rest of the queue is only flushed).
 *
 * Pinned memory: the cache's limit is VBT_RCACHE_MAX, lowered to what RLIMIT_MEMLOCK leaves
 * after the eager pools and queues (a warning says so). A single message larger than what is
 * left cannot be registered and fails with the RLIMIT_MEMLOCK advice. */
#include "vbt_config.h"
#include "vbt_ib_int.h"
#include "vbt_rcache.h"
#include "vbt_log.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- the register op ------------------------------------------------------------------------- */

static int reg_errno; /* errno of the last failed ibv_reg_mr, for the message */

/* Register with the access asked for and no more: the target of a peer's WRITE (a receive
 * buffer) gets remote write, the source of our WRITE (a send buffer, maybe const memory in
 * .rodata) gets none (local reads need no flag). Failures are logged by vbt_ib_mem_get, once. */
static vbt_status_t reg_op(void *ctx, void *addr, size_t len, unsigned need, void **handle_p,
                           unsigned *got_p)
{
    vbt_ib_ctx_t *c = ctx;
    struct ibv_mr *mr;
    unsigned got = need & VBT_RCACHE_WRITE;

    if (len > c->choice.dev_attr.max_mr_size) {
        reg_errno = E2BIG;
        return VBT_ERR_INVALID_PARAM;
    }
    mr = ibv_reg_mr(c->pd, addr, len, got ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE : 0);
    if (mr == NULL) {
        reg_errno = errno;
        return vbt_ib_check_ptr(mr, VBT_IB_PINS | VBT_IB_PROBE, "ibv_reg_mr(%s, %zu bytes at %p)",
                                c->choice.name, len, addr);
    }
    *handle_p = mr;
    *got_p = got;
    return VBT_OK;
}

static void dereg_op(void *ctx, void *handle)
{
    (void)ctx;
    vbt_ib_check_rc(ibv_dereg_mr(handle), 0, "ibv_dereg_mr");
}

/* ---- registered memory ----------------------------------------------------------------------- */

static VBT_NOINLINE_COLD vbt_status_t mem_failed(const void *addr, size_t len, vbt_status_t status)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    char hint[512] = "";

    if (reg_errno == E2BIG) {
        vbt_error("cannot register %zu bytes at %p for a large message: %s takes at most %llu "
                  "bytes in one memory region",
                  len, addr, c->choice.name, (unsigned long long)c->choice.dev_attr.max_mr_size);
        return status;
    }
    if (reg_errno == ENOMEM) {
        size_t n = (size_t)snprintf(hint, sizeof(hint), ": ");
        vbt_ib_memlock_explain(hint + n, sizeof(hint) - n);
    }
    vbt_error("cannot register %zu bytes at %p for a message above VBT_RNDV_THRESHOLD "
              "(ibv_reg_mr on %s): %s (errno %d)%s",
              len, addr, c->choice.name, strerror(reg_errno), reg_errno, hint);
    return status;
}

vbt_status_t vbt_ib_mem_get(const void *addr, size_t len, unsigned flags, vbt_ib_mem_t **mem_p)
{
    vbt_status_t status;

    status = vbt_rcache_get(vbt_ib_ctx.rcache, addr, len,
                            (flags & VBT_IB_MEM_REMOTE_WRITE) ? VBT_RCACHE_WRITE : 0, mem_p);
    if (unlikely(status != VBT_OK))
        return mem_failed(addr, len, status);
    return VBT_OK;
}

void vbt_ib_mem_put(vbt_ib_mem_t *mem)
{
    vbt_rcache_put(vbt_ib_ctx.rcache, mem);
}

uint32_t vbt_ib_mem_rkey(const vbt_ib_mem_t *mem)
{
    return ((const struct ibv_mr *)mem->handle)->rkey;
}

/* ---- RDMA WRITE ------------------------------------------------------------------------------ */

vbt_status_t vbt_ib_put(int peer, const void *laddr, size_t len, vbt_ib_mem_t *mem, uint64_t raddr,
                        uint32_t rkey, void *cookie, size_t *posted_p)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    struct ibv_send_wr *bad;
    vbt_ib_peer_t *p;
    size_t posted = 0;

    *posted_p = 0;
    if (unlikely((unsigned)peer >= (unsigned)c->size)) {
        vbt_error("vbt_ib_put to rank %d: no such rank (world size %d)", peer, c->size);
        return VBT_ERR_INVALID_PARAM;
    }
    p = &c->peers[peer];
    if (unlikely(p->state != VBT_IB_PEER_READY))
        return vbt_ib_peer_refused(peer, "vbt_ib_put");

    c->put_sge.lkey = ((const struct ibv_mr *)mem->handle)->lkey;
    c->put_wr.wr.rdma.rkey = rkey;
    while (posted < len) {
        size_t chunk = len - posted;
        uint32_t seq = p->sq_head;
        int last, rc;

        if (p->puts >= VBT_IB_PUT_WINDOW || p->sq_head - p->sq_tail >= c->sq_depth)
            break;
        if (chunk > c->max_put)
            chunk = c->max_put;
        last = chunk == len - posted;
        c->put_sge.addr = (uintptr_t)laddr + posted;
        c->put_sge.length = (uint32_t)chunk;
        c->put_wr.wr.rdma.remote_addr = raddr + posted;
        c->put_wr.wr_id = vbt_ib_send_wrid(VBT_IB_OP_WRITE, peer, seq);
        /* Every WRITE is signalled: its completion frees a window slot (unsignalled ones
         * would fill the window with nothing to retire them), and at up to 1 MiB per WRITE
         * that is a negligible number of completions. It retires every WR before it too. */
        c->put_wr.send_flags = IBV_SEND_SIGNALED;
        p->unsig = p->unsig_bounce = 0;
        rc = ibv_post_send(p->qp, &c->put_wr, &bad);
        if (unlikely(rc != 0)) {
            *posted_p = posted;
            return vbt_ib_post_failed(peer, rc, VBT_IB_OP_WRITE);
        }
        p->sq_put[seq & c->sq_mask] = last ? cookie : VBT_IB_PUT_MORE;
        p->puts++;
        p->sq_head = seq + 1;
        posted += chunk;
    }
    *posted_p = posted;
    return posted == len ? VBT_OK : VBT_ERR_NO_RESOURCE;
}

void vbt_ib_put_fail_from(int peer, uint32_t seq, vbt_status_t status)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    vbt_ib_peer_t *p = &c->peers[peer];

    for (uint32_t s = seq; s != p->sq_head; s++) {
        uint32_t slot = s & c->sq_mask;
        void *put = p->sq_put[slot];
        if (put == NULL)
            continue;
        p->sq_put[slot] = NULL;
        p->puts--;
        if (put != VBT_IB_PUT_MORE)
            c->put_cb(put, status);
    }
}

/* ---- setup ----------------------------------------------------------------------------------- */

vbt_status_t vbt_ib_rndv_init(void)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    vbt_rcache_ops_t ops = {.reg = reg_op, .dereg = dereg_op, .ctx = c};
    size_t limit = vbt_cfg.rcache_max;
    /* Room is kept for every peer's receive buffers (they are pinned as peers connect), so a
     * full cache never makes a connection fail. */
    size_t left = vbt_ib_memlock_left(c->sizes.pinned_all);
    long page = sysconf(_SC_PAGESIZE);

    if (left < limit) {
        vbt_warn("RLIMIT_MEMLOCK leaves %zu bytes for the registration cache, less than "
                 "VBT_RCACHE_MAX=%zu: the cache is limited to that, and a message above "
                 "VBT_RNDV_THRESHOLD whose buffer does not fit in it will fail (raise the limit: "
                 "`ulimit -l unlimited`; verbatim-info shows it)",
                 left, limit);
        limit = left;
    }
    /* VBT_IB_WRITE_MAX: small WRITEs are for Soft-RoCE on lossy links (rxe asks for an ACK only
     * every 64 packets or at a WRITE's end, and its retries run out within one long WRITE). */
    if (vbt_cfg.ib_write_max < VBT_IB_WRITE_FLOOR || vbt_cfg.ib_write_max > VBT_IB_WRITE_CEIL) {
        vbt_error("VBT_IB_WRITE_MAX=%zu is out of range: use %u to %lu bytes", vbt_cfg.ib_write_max,
                  VBT_IB_WRITE_FLOOR, VBT_IB_WRITE_CEIL);
        return VBT_ERR_INVALID_PARAM;
    }
    c->max_put = vbt_cfg.ib_write_max;
    if (c->choice.port_attr.max_msg_sz != 0 && c->choice.port_attr.max_msg_sz < c->max_put)
        c->max_put = c->choice.port_attr.max_msg_sz;

    memset(&c->put_wr, 0, sizeof(c->put_wr));
    c->put_wr.sg_list = &c->put_sge;
    c->put_wr.num_sge = 1;
    c->put_wr.opcode = IBV_WR_RDMA_WRITE;
    vbt_debug("rendezvous: WRITEs of up to %zu bytes (port max_msg_sz %u), %d in flight per "
              "peer; registration cache limit %zu bytes",
              c->max_put, c->choice.port_attr.max_msg_sz, VBT_IB_PUT_WINDOW, limit);
    return vbt_rcache_create(&ops, limit, page > 0 ? (size_t)page : 4096, 1, &c->rcache);
}

void vbt_ib_rndv_cleanup(void)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;

    vbt_rcache_destroy(c->rcache);
    c->rcache = NULL;
}
