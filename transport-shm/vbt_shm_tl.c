/* transport-shm's entry in the transport table: the contract (vbt_tl_ops.h) over vbt_shm.h.
 * Transitional: transport-shm still keeps one process-wide context (vbt_shm_ctx), so this is
 * the one instance there can be, until the context becomes the interface object itself. */
#include "vbt_config.h"
#include "vbt_shm.h"
#include "vbt_tl_ops.h"

#include <stdint.h>
#include <stdio.h>

extern const vbt_tl_ops_t vbt_shm_tl_ops;

static struct {
    vbt_tl_iface_t base;
    vbt_tl_upcalls_t up;
} shm_tl;

static void recv_thunk(int src, const void *data, size_t len)
{
    shm_tl.up.recv(shm_tl.up.arg, src, data, len);
}

static vbt_status_t send_op(vbt_tl_iface_t *iface, int peer, const void *hdr, size_t hdr_len,
                            const void *payload, size_t len)
{
    return vbt_shm_send(peer, hdr, hdr_len, payload, len);
}

static vbt_status_t init_op(const vbt_tl_job_t *job, const vbt_tl_upcalls_t *up,
                            vbt_tl_iface_t **iface_p, void *addr, size_t *addr_len_p, char *why,
                            size_t why_len)
{
    vbt_proc_info_t proc = {.rank = job->rank,
                            .size = job->size,
                            .local_size = job->local_size,
                            .local_peers = (int *)job->local_peers};

    if (job->local_size <= 1) {
        snprintf(why, why_len, "no other rank is on this node");
        return VBT_ERR_NO_DEVICE;
    }
    shm_tl.up = *up;
    if (vbt_shm_init(&proc, recv_thunk) != VBT_OK) {
        /* Logged; nothing was published: the peers reach us over the network. */
        snprintf(why, why_len, "its shared memory could not be mapped (see the warning above)");
        return VBT_ERR_NO_DEVICE;
    }
    *addr_len_p = 0; /* vbt_shm_init published it */
    shm_tl.base.ops = &vbt_shm_tl_ops;
    shm_tl.base.send = send_op;
    *iface_p = &shm_tl.base;
    return VBT_OK;
}

static vbt_status_t wireup_op(vbt_tl_iface_t *iface)
{
    vbt_status_t status = vbt_shm_wireup();

    iface->max_send = vbt_shm_max_send();
    iface->rndv_threshold = vbt_cfg.shm_rndv_threshold;
    iface->caps = VBT_TL_CAP_STREAM;
    if (vbt_cfg.shm_cma && vbt_shm_cma_available())
        iface->caps |= VBT_TL_CAP_READ_PEER;
    return status;
}

static int reaches_op(vbt_tl_iface_t *iface, int peer)
{
    return vbt_shm_is_local(peer);
}

static void finalize_op(vbt_tl_iface_t *iface)
{
    vbt_shm_finalize();
}

static int progress_op(vbt_tl_iface_t *iface)
{
    return vbt_shm_progress();
}

static int wait_fd_op(vbt_tl_iface_t *iface)
{
    return vbt_shm_wait_fd();
}

static vbt_status_t sleep_begin_op(vbt_tl_iface_t *iface, int *sleep_p)
{
    return vbt_shm_sleep_begin(sleep_p);
}

static vbt_status_t sleep_end_op(vbt_tl_iface_t *iface, int readable, int timed_out)
{
    return vbt_shm_sleep_end(timed_out);
}

static int max_sleep_ms_op(vbt_tl_iface_t *iface)
{
    return vbt_shm_max_sleep_ms();
}

static vbt_status_t check_liveness_op(vbt_tl_iface_t *iface)
{
    return vbt_shm_check_liveness();
}

static vbt_status_t read_peer_op(vbt_tl_iface_t *iface, int peer, void *local, uint64_t remote,
                                 size_t len)
{
    vbt_status_t status = vbt_shm_cma_read(peer, local, (const void *)(uintptr_t)remote, len);

    if (status == VBT_ERR_UNSUPPORTED)
        iface->caps &= ~(unsigned)VBT_TL_CAP_READ_PEER;
    return status;
}

const vbt_tl_ops_t vbt_shm_tl_ops = {
    .name = "shm",
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
    .read_peer = read_peer_op,
};
