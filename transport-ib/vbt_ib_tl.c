/* transport-ib's entry in the transport table: the contract (vbt_tl_ops.h) over vbt_ib.h.
 * Transitional: transport-ib still keeps one process-wide context (vbt_ib_ctx), so this is the
 * one instance there can be, until the context becomes the interface object itself. */
#include "vbt_config.h"
#include "vbt_ib.h"
#include "vbt_tl_ops.h"

#include <stdio.h>

extern const vbt_tl_ops_t vbt_ib_tl_ops;

static struct {
    vbt_tl_iface_t base;
    vbt_tl_upcalls_t up;
} ib_tl;

static void recv_thunk(int src, const void *data, size_t len)
{
    ib_tl.up.recv(ib_tl.up.arg, src, data, len);
}

static void put_thunk(void *cookie, vbt_status_t status)
{
    ib_tl.up.rma_done(ib_tl.up.arg, cookie, status);
}

static vbt_status_t send_op(vbt_tl_iface_t *iface, int peer, const void *hdr, size_t hdr_len,
                            const void *payload, size_t len)
{
    return vbt_ib_send(peer, hdr, hdr_len, payload, len);
}

static vbt_status_t init_op(const vbt_tl_job_t *job, const vbt_tl_upcalls_t *up,
                            vbt_tl_iface_t **iface_p, void *addr, size_t *addr_len_p, char *why,
                            size_t why_len)
{
    vbt_proc_info_t proc = {.rank = job->rank,
                            .size = job->size,
                            .local_size = job->local_size,
                            .local_peers = (int *)job->local_peers};
    vbt_status_t status;

    ib_tl.up = *up;
    status = vbt_ib_init(&proc, recv_thunk, put_thunk);
    if (status == VBT_ERR_NO_DEVICE)
        snprintf(why, why_len,
                 "this node has no usable RDMA device (%s; verbatim-info lists the devices and "
                 "ports)",
                 vbt_ib_unavailable_reason());
    if (status != VBT_OK)
        return status;
    *addr_len_p = 0; /* vbt_ib_init published it */
    ib_tl.base.ops = &vbt_ib_tl_ops;
    ib_tl.base.send = send_op;
    *iface_p = &ib_tl.base;
    return VBT_OK;
}

static vbt_status_t wireup_op(vbt_tl_iface_t *iface)
{
    vbt_status_t status = vbt_ib_wireup();

    iface->max_send = vbt_ib_max_send();
    iface->rndv_threshold = vbt_cfg.rndv_threshold;
    iface->caps = VBT_TL_CAP_PUT | VBT_TL_CAP_STREAM;
    /* Measured on Soft-RoCE with ranks bound one per core: spinning 4096 polls put 8-byte
     * latency near 4 ms (rxe's kernel work waits for the scheduler tick); 64 gave ~30 us. */
    iface->spin_polls = vbt_ib_device_is_software() ? 64 : 0;
    return status;
}

static int reaches_op(vbt_tl_iface_t *iface, int peer)
{
    return 1;
}

static void finalize_op(vbt_tl_iface_t *iface)
{
    vbt_ib_finalize();
}

static int progress_op(vbt_tl_iface_t *iface)
{
    return vbt_ib_progress();
}

static int wait_fd_op(vbt_tl_iface_t *iface)
{
    return vbt_ib_wait_fd();
}

static vbt_status_t sleep_begin_op(vbt_tl_iface_t *iface, int *sleep_p)
{
    return vbt_ib_sleep_begin(sleep_p);
}

static vbt_status_t sleep_end_op(vbt_tl_iface_t *iface, int readable, int timed_out)
{
    return vbt_ib_sleep_end(readable);
}

static int max_sleep_ms_op(vbt_tl_iface_t *iface)
{
    return vbt_ib_max_sleep_ms();
}

static vbt_status_t check_liveness_op(vbt_tl_iface_t *iface)
{
    return vbt_ib_check_liveness();
}

static vbt_status_t mem_get_op(vbt_tl_iface_t *iface, const void *addr, size_t len, unsigned access,
                               vbt_tl_mem_t **mem_p)
{
    return vbt_ib_mem_get(addr, len,
                          (access & VBT_TL_MEM_REMOTE_WRITE) ? VBT_IB_MEM_REMOTE_WRITE : 0,
                          (vbt_ib_mem_t **)mem_p);
}

static void mem_put_op(vbt_tl_iface_t *iface, vbt_tl_mem_t *mem)
{
    vbt_ib_mem_put((vbt_ib_mem_t *)mem);
}

static uint64_t mem_rkey_op(vbt_tl_iface_t *iface, const vbt_tl_mem_t *mem)
{
    return vbt_ib_mem_rkey((const vbt_ib_mem_t *)mem);
}

static vbt_status_t put_op(vbt_tl_iface_t *iface, int peer, const void *laddr, size_t len,
                           vbt_tl_mem_t *mem, uint64_t raddr, uint64_t rkey, void *cookie,
                           size_t *posted_p)
{
    return vbt_ib_put(peer, laddr, len, (vbt_ib_mem_t *)mem, raddr, (uint32_t)rkey, cookie,
                      posted_p);
}

const vbt_tl_ops_t vbt_ib_tl_ops = {
    .name = "ib",
    .init = init_op,
    .wireup = wireup_op,
    .reaches = reaches_op,
    .finalize = finalize_op,
    .progress = progress_op,
    .wait_fd = wait_fd_op,
    .sleep_begin = sleep_begin_op,
    .sleep_end = sleep_end_op,
    .max_sleep_ms = max_sleep_ms_op,
    .check_liveness = check_liveness_op,
    .send = send_op,
    .mem_get = mem_get_op,
    .mem_put = mem_put_op,
    .mem_rkey = mem_rkey_op,
    .put = put_op,
    .describe = vbt_ib_describe,
};
