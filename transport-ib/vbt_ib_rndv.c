/* Rendezvous support in the transport: memory registration through the registration cache
 * (runtime/base/vbt_rcache.c, with ibv_reg_mr as its register op) and RDMA WRITE from registered
 * memory into a peer's registered memory. The protocol itself (RTS, CTS, FIN) is the runtime's
 * (runtime/vbt_p2p_rndv.c); this file only moves bytes.
 *
 * WRITEs share the peer's send queue with eager sends: each takes a slot, at most
 * VBT_IB_PUT_WINDOW are in flight per peer, each is signalled, and the completion of the last
 * WRITE of a put (which on RC implies every earlier WR on the QP) reports the put done through
 * the rma_done upcall. A failed WRITE makes the peer unusable, and every put still in
 * flight towards it is reported failed at once (the rest of the queue is only flushed).
 *
 * The memory hooks (runtime/base/vbt_memhook.c) that keep cached registrations right have one
 * queue per process, so one cache may watch them: the first instance's. A second instance in
 * the same process (a second NIC, a test with two) caches nothing instead: its registrations
 * are dropped at their last mem_put, so none outlives the operation that holds it, and no
 * unmap can leave it stale. Logged at debug.
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

/* The contract's access bits are the cache's (vbt_rcache.h), so mem_get passes them through. */
_Static_assert(VBT_TL_MEM_REMOTE_WRITE == VBT_RCACHE_WRITE &&
                   VBT_TL_MEM_REMOTE_READ == VBT_RCACHE_READ &&
                   VBT_TL_MEM_REMOTE_ATOMIC == VBT_RCACHE_ATOMIC &&
                   VBT_TL_MEM_LOCAL_WRITE == VBT_RCACHE_LOCAL_WRITE,
               "VBT_TL_MEM_* and VBT_RCACHE_* differ");
#define VBT_IB_MEM_ACCESS                                                                          \
    (VBT_RCACHE_WRITE | VBT_RCACHE_READ | VBT_RCACHE_ATOMIC | VBT_RCACHE_LOCAL_WRITE)

/* Register with the access asked for and no more: the target of a peer's WRITE (a receive
 * buffer) gets remote write, the source of our WRITE (a send buffer, maybe const memory in
 * .rodata) gets none (local reads need no flag). Remote write and remote atomics need local
 * write too (the verbs rule); it is reported granted. Failures are logged by vbt_ib_mem_get,
 * once. */
static vbt_status_t reg_op(void *ctx, void *addr, size_t len, unsigned need, void **handle_p,
                           unsigned *got_p)
{
    vbt_ib_iface_t *c = ctx;
    struct ibv_mr *mr;
    unsigned got = need;
    int access = 0;

    if (len > c->choice.dev_attr.max_mr_size) {
        c->reg_errno = E2BIG;
        return VBT_ERR_INVALID_PARAM;
    }
    if (need & (VBT_RCACHE_WRITE | VBT_RCACHE_ATOMIC))
        got |= VBT_RCACHE_LOCAL_WRITE;
    if (got & VBT_RCACHE_LOCAL_WRITE)
        access |= IBV_ACCESS_LOCAL_WRITE;
    if (got & VBT_RCACHE_WRITE)
        access |= IBV_ACCESS_REMOTE_WRITE;
    if (got & VBT_RCACHE_READ)
        access |= IBV_ACCESS_REMOTE_READ;
    if (got & VBT_RCACHE_ATOMIC)
        access |= IBV_ACCESS_REMOTE_ATOMIC;
    mr = ibv_reg_mr(c->pd, addr, len, access);
    if (mr == NULL) {
        c->reg_errno = errno;
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

static VBT_NOINLINE_COLD vbt_status_t mem_failed(const vbt_ib_iface_t *c, const void *addr,
                                                 size_t len, vbt_status_t status)
{
    char hint[512] = "";

    if (c->reg_errno == E2BIG) {
        vbt_error("cannot register %zu bytes at %p for a large message: %s takes at most %llu "
                  "bytes in one memory region",
                  len, addr, c->choice.name, (unsigned long long)c->choice.dev_attr.max_mr_size);
        return status;
    }
    if (c->reg_errno == ENOMEM) {
        size_t n = (size_t)snprintf(hint, sizeof(hint), ": ");
        vbt_ib_memlock_explain(hint + n, sizeof(hint) - n);
    }
    vbt_error("cannot register %zu bytes at %p for a message above VBT_RNDV_THRESHOLD or a "
              "one-sided operation (ibv_reg_mr on %s): %s (errno %d)%s",
              len, addr, c->choice.name, strerror(c->reg_errno), c->reg_errno, hint);
    return status;
}

/* A registration is the cache's region (vbt_tl_mem_t is opaque to the runtime). */
static inline vbt_rcache_region_t *region_of(vbt_tl_mem_t *mem)
{
    return (vbt_rcache_region_t *)mem;
}

static inline const struct ibv_mr *mr_of(const vbt_tl_mem_t *mem)
{
    return ((const vbt_rcache_region_t *)mem)->handle;
}

vbt_status_t vbt_ib_mem_get(vbt_tl_iface_t *iface, const void *addr, size_t len, unsigned access,
                            vbt_tl_mem_t **mem_p)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);
    vbt_rcache_region_t *r;
    vbt_status_t status;

    status = vbt_rcache_get(c->rcache, addr, len, access & VBT_IB_MEM_ACCESS, &r);
    if (unlikely(status != VBT_OK))
        return mem_failed(c, addr, len, status);
    *mem_p = (vbt_tl_mem_t *)r;
    return VBT_OK;
}

void vbt_ib_mem_put(vbt_tl_iface_t *iface, vbt_tl_mem_t *mem)
{
    vbt_rcache_put(vbt_ib_of(iface)->rcache, region_of(mem));
}

uint64_t vbt_ib_mem_rkey(vbt_tl_iface_t *iface, const vbt_tl_mem_t *mem)
{
    return mr_of(mem)->rkey;
}

/* ---- RDMA WRITE and READ -----------------------------------------------------------------------
 */

/* Why peer takes no one-sided WR now: not a rank, the capability (cap) missing, else
 * vbt_ib_peer_refused (not connected yet: connect; failed: say so once). */
static VBT_NOINLINE_COLD vbt_status_t rma_refused(vbt_ib_iface_t *c, int peer, unsigned cap,
                                                  const char *call)
{
    if ((unsigned)peer >= (unsigned)c->size) {
        vbt_error("%s to rank %d: no such rank (world size %d)", call, peer, c->size);
        return VBT_ERR_INVALID_PARAM;
    }
    if (peer == c->rank && !(c->super.caps & VBT_TL_CAP_RMA_SELF)) {
        vbt_error("%s to ourselves (rank %d): %s has no loopback QP", call, peer, c->choice.name);
        return VBT_ERR_UNSUPPORTED;
    }
    if (!(c->super.caps & cap)) {
        vbt_error("%s to rank %d: %s does not offer it (verbatim-info shows the device's "
                  "capabilities)",
                  call, peer, c->choice.name);
        return VBT_ERR_UNSUPPORTED;
    }
    return vbt_ib_peer_refused(c, peer, call);
}

/* A put (IBV_WR_RDMA_WRITE) or a get (IBV_WR_RDMA_READ) of len bytes: WRs of at most max_put,
 * as many as the window and the send queue take. */
static inline vbt_status_t rdma_post(vbt_ib_iface_t *c, int peer, enum ibv_wr_opcode opcode,
                                     vbt_ib_op_t op, uintptr_t laddr, size_t len, vbt_tl_mem_t *mem,
                                     uint64_t raddr, uint64_t rkey, void *cookie, size_t *posted_p)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    struct ibv_send_wr *bad;
    size_t posted = 0;

    c->put_wr.opcode = opcode;
    c->put_sge.lkey = mr_of(mem)->lkey;
    c->put_wr.wr.rdma.rkey = (uint32_t)rkey;
    while (posted < len) {
        size_t chunk = len - posted;
        uint32_t seq = p->sq_head;
        int last, rc;

        if (p->puts >= VBT_IB_PUT_WINDOW || p->sq_head - p->sq_tail >= c->sq_depth)
            break;
        if (chunk > c->max_put)
            chunk = c->max_put;
        last = chunk == len - posted;
        c->put_sge.addr = laddr + posted;
        c->put_sge.length = (uint32_t)chunk;
        c->put_wr.wr.rdma.remote_addr = raddr + posted;
        c->put_wr.wr_id = vbt_ib_send_wrid(op, peer, seq);
        /* Every WRITE and READ is signalled: its completion frees a window slot (unsignalled
         * ones would fill the window with nothing to retire them), and at up to 1 MiB each
         * that is a negligible number of completions. It retires every WR before it too. */
        c->put_wr.send_flags = IBV_SEND_SIGNALED;
        p->unsig = p->unsig_bounce = 0;
        rc = ibv_post_send(p->qp, &c->put_wr, &bad);
        if (unlikely(rc != 0)) {
            *posted_p = posted;
            return vbt_ib_post_failed(c, peer, rc, op);
        }
        p->sq_put[seq & c->sq_mask] = last ? VBT_IB_RMA_COOKIE(cookie) : VBT_IB_PUT_MORE;
        p->puts++;
        p->sq_head = seq + 1;
        posted += chunk;
    }
    *posted_p = posted;
    return posted == len ? VBT_OK : VBT_ERR_NO_RESOURCE;
}

vbt_status_t vbt_ib_put(vbt_tl_iface_t *iface, int peer, const void *laddr, size_t len,
                        vbt_tl_mem_t *mem, uint64_t raddr, uint64_t rkey, void *cookie,
                        size_t *posted_p)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);

    *posted_p = 0;
    if (unlikely((unsigned)peer >= (unsigned)c->size || c->peers[peer].state != VBT_IB_PEER_READY))
        return rma_refused(c, peer, VBT_TL_CAP_PUT, "put");
    return rdma_post(c, peer, IBV_WR_RDMA_WRITE, VBT_IB_OP_WRITE, (uintptr_t)laddr, len, mem, raddr,
                     rkey, cookie, posted_p);
}

/* A READ is not ordered before the WRs posted after it (IBA: a later SEND or WRITE may be
 * executed at the responder before the READ's data is read), and nothing here fences it: its
 * completion, rma_done, is what says the data is in place. */
vbt_status_t vbt_ib_get(vbt_tl_iface_t *iface, int peer, void *laddr, size_t len, vbt_tl_mem_t *mem,
                        uint64_t raddr, uint64_t rkey, void *cookie, size_t *posted_p)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);

    *posted_p = 0;
    if (unlikely((unsigned)peer >= (unsigned)c->size || !(c->super.caps & VBT_TL_CAP_GET) ||
                 c->peers[peer].state != VBT_IB_PEER_READY))
        return rma_refused(c, peer, VBT_TL_CAP_GET, "get");
    return rdma_post(c, peer, IBV_WR_RDMA_READ, VBT_IB_OP_READ, (uintptr_t)laddr, len, mem, raddr,
                     rkey, cookie, posted_p);
}

/* ---- atomics ------------------------------------------------------------------------------- */

static VBT_NOINLINE_COLD vbt_status_t atomic_bad(vbt_ib_iface_t *c, int peer, vbt_tl_atomic_op_t op,
                                                 uint64_t raddr, const uint64_t *result)
{
    vbt_error("atomic (op %d) to rank %d at 0x%llx, result at %p: %s", (int)op, peer,
              (unsigned long long)raddr, (const void *)result,
              op != VBT_TL_ATOMIC_FADD && op != VBT_TL_ATOMIC_CSWAP
                  ? "no such operation"
                  : "the target and the result must be 8-byte aligned");
    return VBT_ERR_INVALID_PARAM;
}

vbt_status_t vbt_ib_atomic(vbt_tl_iface_t *iface, int peer, vbt_tl_atomic_op_t op, uint64_t operand,
                           uint64_t compare, uint64_t *result, vbt_tl_mem_t *result_mem,
                           uint64_t raddr, uint64_t rkey, void *cookie)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);
    unsigned cap = op == VBT_TL_ATOMIC_CSWAP ? VBT_TL_CAP_ATOMIC_CSWAP64 : VBT_TL_CAP_ATOMIC_FADD64;
    struct ibv_send_wr *bad;
    vbt_ib_peer_t *p;
    uint32_t seq;
    int rc;

    if (unlikely((op != VBT_TL_ATOMIC_FADD && op != VBT_TL_ATOMIC_CSWAP) || (raddr & 7) != 0 ||
                 ((uintptr_t)result & 7) != 0))
        return atomic_bad(c, peer, op, raddr, result);
    if (unlikely((unsigned)peer >= (unsigned)c->size || !(c->super.caps & cap) ||
                 c->peers[peer].state != VBT_IB_PEER_READY))
        return rma_refused(c, peer, cap, "atomic");
    p = &c->peers[peer];
    if (p->puts >= VBT_IB_PUT_WINDOW || p->sq_head - p->sq_tail >= c->sq_depth)
        return VBT_ERR_NO_RESOURCE;
    seq = p->sq_head;
    c->atomic_sge.addr = (uintptr_t)result;
    c->atomic_sge.lkey = mr_of(result_mem)->lkey;
    c->atomic_wr.wr_id = vbt_ib_send_wrid(VBT_IB_OP_ATOMIC, peer, seq);
    c->atomic_wr.opcode =
        op == VBT_TL_ATOMIC_FADD ? IBV_WR_ATOMIC_FETCH_AND_ADD : IBV_WR_ATOMIC_CMP_AND_SWP;
    c->atomic_wr.wr.atomic.remote_addr = raddr;
    c->atomic_wr.wr.atomic.rkey = (uint32_t)rkey;
    c->atomic_wr.wr.atomic.compare_add = op == VBT_TL_ATOMIC_FADD ? operand : compare;
    c->atomic_wr.wr.atomic.swap = operand;
    /* Signalled, as a READ: its completion says the old value is in *result. */
    p->unsig = p->unsig_bounce = 0;
    rc = ibv_post_send(p->qp, &c->atomic_wr, &bad);
    if (unlikely(rc != 0))
        return vbt_ib_post_failed(c, peer, rc, VBT_IB_OP_ATOMIC);
    p->sq_put[seq & c->sq_mask] = VBT_IB_RMA_COOKIE(cookie);
    p->puts++;
    p->sq_head = seq + 1;
    return VBT_OK;
}

void vbt_ib_put_fail_from(vbt_ib_iface_t *c, int peer, uint32_t seq, vbt_status_t status)
{
    vbt_ib_peer_t *p = &c->peers[peer];

    for (uint32_t s = seq; s != p->sq_head; s++) {
        uint32_t slot = s & c->sq_mask;
        void *put = p->sq_put[slot];
        if (put == NULL)
            continue;
        p->sq_put[slot] = NULL;
        p->puts--;
        if (put != VBT_IB_PUT_MORE)
            c->up.rma_done(c->up.arg, put != VBT_IB_RMA_NULL ? put : NULL, status);
    }
}

/* ---- setup ----------------------------------------------------------------------------------- */

vbt_status_t vbt_ib_rndv_init(vbt_ib_iface_t *c)
{
    vbt_status_t status;
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
    memset(&c->atomic_wr, 0, sizeof(c->atomic_wr));
    c->atomic_wr.sg_list = &c->atomic_sge;
    c->atomic_wr.num_sge = 1;
    c->atomic_wr.send_flags = IBV_SEND_SIGNALED;
    c->atomic_sge.length = sizeof(uint64_t);
    vbt_debug("one-sided: WRITEs and READs of up to %zu bytes (port max_msg_sz %u), %d in flight "
              "per peer; registration cache limit %zu bytes",
              c->max_put, c->choice.port_attr.max_msg_sz, VBT_IB_PUT_WINDOW, limit);
    status = vbt_rcache_create(&ops, limit, page > 0 ? (size_t)page : 4096, 1, &c->rcache);
    if (status == VBT_ERR_NO_RESOURCE) {
        /* Another instance's cache watches the memory hooks: cache nothing (at the top). */
        vbt_debug("rendezvous: the memory hooks serve another InfiniBand instance of this "
                  "process: this one caches no registration");
        status = vbt_rcache_create(&ops, 0, page > 0 ? (size_t)page : 4096, 0, &c->rcache);
    } else if (status == VBT_OK) {
        c->hooks_held = 1;
    }
    c->super.rcache = c->rcache;
    return status;
}

void vbt_ib_rndv_cleanup(vbt_ib_iface_t *c)
{
    vbt_rcache_destroy(c->rcache);
    c->rcache = NULL;
}
