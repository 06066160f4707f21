/* transport-ib's entry in the transport table (vbt_ib.h says what it does under the contract):
 * the instance's life cycle, which puts the device (vbt_ib_device.c), the eager pools
 * (vbt_ib_pool.c), the registration cache (vbt_ib_rndv.c), the connection manager
 * (vbt_ib_cm.c) and the QPs (vbt_ib_ep.c) together, and the ops table. Every piece of state
 * lives in the instance init allocates; two instances in one process share nothing but the
 * memory hooks (vbt_ib_rndv.c says what the second does about them). */
#include "vbt_config.h"
#include "vbt_ib_int.h"
#include "vbt_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VBT_IB_DRAIN_TIMEOUT 10000 /* ms finalize waits for acknowledgements */
/* Measured on Soft-RoCE with ranks bound one per core: spinning 4096 polls put 8-byte latency
 * near 4 ms (rxe's kernel work waits for the scheduler tick); 64 gave ~30 us. */
#define VBT_IB_SPIN_POLLS_SOFTWARE 64

static vbt_status_t check_device_limits(vbt_ib_iface_t *c)
{
    const struct ibv_device_attr *da = &c->choice.dev_attr;
    vbt_ib_sizes_t *s = &c->sizes;

    /* Only what init needs is checked here: a world that needs more of the SRQ or the CQ than
     * the device holds fails when a connection exceeds it (vbt_ib_rx_reserve). */
    if (da->max_srq == 0 || (uint32_t)da->max_srq_wr < s->rx_first) {
        vbt_error("%s cannot hold %u receive buffers in a shared receive queue (max_srq %d, "
                  "max_srq_wr %d): run fewer ranks, or use another device (VBT_IB_DEVICE)",
                  c->choice.name, s->rx_first, da->max_srq, da->max_srq_wr);
        return VBT_ERR_UNSUPPORTED;
    }
    if (s->sq_depth > (uint32_t)da->max_qp_wr) {
        while (s->sq_depth > (uint32_t)da->max_qp_wr && s->sq_depth > 2u * VBT_IB_CTL_RESERVE)
            s->sq_depth /= 2;
        s->cq_size = vbt_ib_cq_entries(s, s->npeers);
        s->cq_first = vbt_ib_cq_entries(s, s->first_peers);
        s->pinned_bytes = vbt_ib_sizes_pinned(s, s->first_peers);
        s->pinned_all = vbt_ib_sizes_pinned(s, s->npeers);
    }
    if ((uint32_t)da->max_cqe < s->cq_first) {
        vbt_error("%s cannot hold a %u-entry completion queue (max_cqe %d): run fewer ranks",
                  c->choice.name, s->cq_first, da->max_cqe);
        return VBT_ERR_UNSUPPORTED;
    }
    return VBT_OK;
}

/* What the runtime reads of the instance: the send op, the limits and the capabilities; and
 * what the QPs then let a peer do. GET where the device does RDMA READ (it takes some in flight
 * as initiator and as responder); the atomics where it does 64-bit atomics too (atomic_cap:
 * IBV_ATOMIC_HCA is enough, as the operations on a target all go through its NIC) and hands
 * back the old value in our byte order. */
static void iface_fill(vbt_ib_iface_t *c)
{
    const struct ibv_device_attr *da = &c->choice.dev_attr;

    c->super.ops = &vbt_ib_tl_ops;
    c->super.send = vbt_ib_send;
    c->super.caps = VBT_TL_CAP_PUT | VBT_TL_CAP_STREAM | VBT_TL_CAP_RMA_SELF;
    c->qp_access = IBV_ACCESS_REMOTE_WRITE;
    if (da->max_qp_rd_atom > 0 && da->max_qp_init_rd_atom > 0) {
        c->super.caps |= VBT_TL_CAP_GET;
        c->qp_access |= IBV_ACCESS_REMOTE_READ;
        if (da->atomic_cap != IBV_ATOMIC_NONE && !vbt_ib_atomic_reply_be(&c->choice)) {
            c->super.caps |= VBT_TL_CAP_ATOMIC_FADD64 | VBT_TL_CAP_ATOMIC_CSWAP64;
            c->qp_access |= IBV_ACCESS_REMOTE_ATOMIC;
        }
    }
    c->rd_atomic = vbt_ib_rd_atomic_offer(&c->choice);
    c->super.max_send = vbt_cfg.eager_limit;
    c->super.rndv_threshold = vbt_cfg.rndv_threshold;
    c->super.spin_polls = vbt_ib_device_is_software(&c->choice) ? VBT_IB_SPIN_POLLS_SOFTWARE : 0;
}

vbt_status_t vbt_ib_open(const vbt_tl_job_t *job, const vbt_tl_upcalls_t *up,
                         const vbt_ib_params_t *params, vbt_tl_iface_t **iface_p, void *addr,
                         size_t *addr_len_p, char *why, size_t why_len)
{
    vbt_ib_iface_t *c;
    char err[768], what[128];
    vbt_ib_addr_t a;
    vbt_status_t status;
    void *mem;
    int rc;

    if (job->size < 1 || job->rank < 0 || job->rank >= job->size || up->recv == NULL ||
        up->rma_done == NULL || up->peer_addr == NULL || *addr_len_p < sizeof(a)) {
        vbt_error("ib: init with rank %d of %d, upcalls recv %p rma_done %p peer_addr %p and "
                  "room for a %zu-byte address: outside the contract (vbt_tl_ops.h)",
                  job->rank, job->size, (void *)up->recv, (void *)up->rma_done,
                  (void *)up->peer_addr, *addr_len_p);
        return VBT_ERR_INVALID_PARAM;
    }
    if (vbt_cfg.eager_limit < VBT_IB_EAGER_MIN || vbt_cfg.eager_limit > VBT_IB_EAGER_MAX) {
        vbt_error("VBT_EAGER_LIMIT=%zu is out of range: use %u to %u bytes", vbt_cfg.eager_limit,
                  VBT_IB_EAGER_MIN, VBT_IB_EAGER_MAX);
        return VBT_ERR_INVALID_PARAM;
    }
    rc = posix_memalign(&mem, 64, sizeof(*c));
    if (rc != 0) {
        vbt_error("cannot allocate the InfiniBand instance (%zu bytes): %s", sizeof(*c),
                  strerror(rc));
        return VBT_ERR_NO_MEMORY;
    }
    c = mem;
    memset(c, 0, sizeof(*c));
    c->rank = job->rank;
    c->size = job->size;
    c->npeers = job->size - 1;
    c->up = *up;

    status = vbt_ib_device_select(&c->choice, &c->dev, err, sizeof(err));
    if (status == VBT_ERR_NO_DEVICE) {
        vbt_info("InfiniBand transport unavailable: %s", err);
        snprintf(why, why_len,
                 "this node has no usable RDMA device (%s; verbatim-info lists the devices and "
                 "ports)",
                 err);
        free(c);
        return status;
    }
    if (status != VBT_OK) {
        vbt_error("%s", err);
        free(c);
        return status;
    }
    iface_fill(c);
    vbt_ib_sizes(c->npeers, c->super.max_send, params->rx_first_peers, &c->sizes);
    status = check_device_limits(c);
    if (status != VBT_OK)
        goto err_close;
    if (c->npeers > c->sizes.first_peers)
        snprintf(what, sizeof(what),
                 "the InfiniBand buffers and queues at init (receive buffers for %d of %d peers)",
                 c->sizes.first_peers, c->npeers);
    else
        snprintf(what, sizeof(what), "the InfiniBand buffers and queues at init");
    status = vbt_ib_memlock_check(c->sizes.pinned_bytes, what);
    if (status != VBT_OK)
        goto err_close;

    c->pd = ibv_alloc_pd(c->dev);
    status = vbt_ib_check_ptr(c->pd, 0, "ibv_alloc_pd(%s)", c->choice.name);
    if (status != VBT_OK)
        goto err_close;
    c->peers = calloc((size_t)c->size, sizeof(*c->peers));
    if (c->peers == NULL) {
        vbt_error("out of memory for the InfiniBand endpoints of %d ranks", c->size);
        status = VBT_ERR_NO_MEMORY;
        goto err_dealloc_pd;
    }
    status = vbt_ib_eager_init(c);
    if (status != VBT_OK)
        goto err_free_peers;
    status = vbt_ib_rndv_init(c);
    if (status != VBT_OK)
        goto err_eager_cleanup;
    status = vbt_ib_qp_probe(c);
    if (status != VBT_OK)
        goto err_rndv_cleanup;
    status = vbt_ib_cm_init(c);
    if (status != VBT_OK)
        goto err_rndv_cleanup;

    vbt_ib_addr_pack(c, &a);
    memcpy(addr, &a, sizeof(a));
    *addr_len_p = sizeof(a);
    vbt_info("InfiniBand: %s port %u, %s, path MTU up to %s (%s); %d credits per peer, %u "
             "receive buffers (for %d of %d peers; more as peers connect) and %u bounce buffers "
             "of %u bytes, %u bytes inline, eager limit %zu; one-sided: put%s%s",
             c->choice.name, c->choice.port,
             c->choice.port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand",
             vbt_ib_mtu_str(c->choice.port_attr.active_mtu), c->choice.why, c->credits_max,
             c->rx_posted, c->rx_peers, c->npeers, c->sizes.bounce_count, c->stride, c->max_inline,
             c->super.max_send, (c->super.caps & VBT_TL_CAP_GET) ? ", get" : "",
             (c->super.caps & VBT_TL_CAP_ATOMIC_FADD64) ? ", atomics"
             : c->choice.dev_attr.atomic_cap != IBV_ATOMIC_NONE &&
                     vbt_ib_atomic_reply_be(&c->choice)
                 ? " (no atomics: the device returns their old values big-endian)"
                 : "");
    *iface_p = &c->super;
    return VBT_OK;

err_rndv_cleanup:
    vbt_ib_rndv_cleanup(c);
err_eager_cleanup:
    vbt_ib_eager_cleanup(c);
err_free_peers:
    free(c->peers);
err_dealloc_pd:
    ibv_dealloc_pd(c->pd);
err_close:
    ibv_close_device(c->dev);
    free(c);
    return status;
}

static vbt_status_t vbt_ib_init(const vbt_tl_job_t *job, const vbt_tl_upcalls_t *up,
                                vbt_tl_iface_t **iface_p, void *addr, size_t *addr_len_p, char *why,
                                size_t why_len)
{
    const vbt_ib_params_t params = VBT_IB_PARAMS_DEFAULT;

    return vbt_ib_open(job, up, &params, iface_p, addr, addr_len_p, why, why_len);
}

static vbt_status_t vbt_ib_wireup(vbt_tl_iface_t *iface)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);

    /* The runtime fenced: every peer's address can be fetched, so connections may start (on
     * first use: vbt_ib_cm_connect). */
    c->wired = 1;
    vbt_debug("InfiniBand: %d peer(s) reachable, connected on first use", c->npeers);
    /* The loopback is for atomics (a failure is said by it). */
    if (!(c->super.caps & VBT_TL_CAP_ATOMIC_FADD64) || vbt_ib_loopback_connect(c) != VBT_OK)
        c->super.caps &= ~(unsigned)VBT_TL_CAP_RMA_SELF;
    return VBT_OK;
}

/* Every other rank: whether it runs ib is learnt when its address is fetched at the first send
 * (asking here would fetch every peer's address at start, which connecting on first use
 * avoids). A peer without one fails that connection, saying so. */
static int vbt_ib_reaches(vbt_tl_iface_t *iface, int peer)
{
    const vbt_ib_iface_t *c = vbt_ib_of(iface);

    return peer >= 0 && peer < c->size && peer != c->rank;
}

static void vbt_ib_finalize(vbt_tl_iface_t *iface)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);

    c->finalizing = 1;
    if (c->wired)
        vbt_ib_eager_drain(c, VBT_IB_DRAIN_TIMEOUT);
    vbt_debug("InfiniBand: connected to %d of %d peer(s)", c->nconnected, c->npeers);
    vbt_ib_qp_destroy_all(c);
    vbt_ib_cm_cleanup(c);
    vbt_ib_rndv_cleanup(c);
    vbt_ib_eager_cleanup(c);
    free(c->peers);
    vbt_ib_check_rc(ibv_dealloc_pd(c->pd), 0, "ibv_dealloc_pd");
    vbt_ib_check_rc(ibv_close_device(c->dev), 0, "ibv_close_device");
    free(c);
}

const vbt_tl_ops_t vbt_ib_tl_ops = {
    .name = "ib",
    .init = vbt_ib_init,
    .wireup = vbt_ib_wireup,
    .reaches = vbt_ib_reaches,
    .finalize = vbt_ib_finalize,
    .progress = vbt_ib_progress,
    .wait_fd = vbt_ib_wait_fd,
    .sleep_begin = vbt_ib_sleep_begin,
    .sleep_end = vbt_ib_sleep_end,
    .max_sleep_ms = vbt_ib_max_sleep_ms,
    .check_liveness = vbt_ib_check_liveness,
    .send = vbt_ib_send,
    .mem_get = vbt_ib_mem_get,
    .mem_put = vbt_ib_mem_put,
    .mem_rkey = vbt_ib_mem_rkey,
    .put = vbt_ib_put,
    .get = vbt_ib_get,
    .atomic = vbt_ib_atomic,
    .describe = vbt_ib_describe,
    /* No read_peer: nothing reads another process's memory without registration over ib. */
};
