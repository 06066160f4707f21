#include "vbt_tl.h"
#include "vbt_config.h"
#include "vbt_log.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vbt_tl_state_t vbt_tl;

/* shm's send already has the transport's signature; ib's too. */
static vbt_tl_t tl_shm = {.kind = VBT_TL_SHM, .name = "shm", .send = vbt_shm_send};
static vbt_tl_t tl_ib = {.kind = VBT_TL_IB, .name = "ib", .send = vbt_ib_send};

static struct {
    int want_self, want_shm, want_ib;
    const char *ib_why;     /* why ib is not up, for the unreachable-peer message */
    char ib_no_device[832]; /* ib_why when vbt_ib_init found no usable device */
    int nib;                /* peers over verbs */
} tl;

/* VBT_TRANSPORTS: a comma-separated subset of self, shm, ib (any order, spaces allowed). */
static vbt_status_t parse_transports(const char *list)
{
    const char *p = list;

    tl.want_self = tl.want_shm = tl.want_ib = 0;
    while (*p != '\0') {
        size_t n;
        while (*p == ' ' || *p == ',')
            p++;
        n = strcspn(p, ", ");
        if (n == 0)
            break;
        if (n == 4 && strncmp(p, "self", 4) == 0) {
            tl.want_self = 1;
        } else if (n == 3 && strncmp(p, "shm", 3) == 0) {
            tl.want_shm = 1;
        } else if (n == 2 && strncmp(p, "ib", 2) == 0) {
            tl.want_ib = 1;
        } else {
            vbt_error("VBT_TRANSPORTS=%s: unknown transport '%.*s' (known: self, shm, ib; e.g. "
                      "VBT_TRANSPORTS=self,ib)",
                      list, (int)n, p);
            return VBT_ERR_INVALID_PARAM;
        }
        p += n;
    }
    if (!tl.want_self) {
        vbt_error("VBT_TRANSPORTS=%s leaves out self, which carries a rank's messages to itself: "
                  "add it (e.g. VBT_TRANSPORTS=self,%s)",
                  list, tl.want_ib ? "ib" : "shm");
        return VBT_ERR_INVALID_PARAM;
    }
    return VBT_OK;
}

static int on_my_node(const vbt_proc_info_t *proc, int world)
{
    for (int i = 0; i < proc->local_size; i++)
        if (proc->local_peers[i] == world)
            return 1;
    return 0;
}

/* The first listed transport that reaches each peer; the reason when none does. */
static vbt_status_t select_per_peer(const vbt_proc_info_t *proc)
{
    for (int r = 0; r < proc->size; r++) {
        const vbt_tl_t *t = NULL;
        int local = on_my_node(proc, r);

        if (r == proc->rank) {
            vbt_debug("transport to rank %d (ourselves): self", r);
            continue;
        }
        if (vbt_tl.shm_up && vbt_shm_is_local(r))
            t = &tl_shm;
        else if (vbt_tl.ib_up)
            t = &tl_ib;
        if (t == NULL) {
            vbt_error("rank %d cannot reach rank %d (%s): %s%s%s; VBT_TRANSPORTS=%s", proc->rank, r,
                      local ? "on this node" : "on another node",
                      local
                          ? (tl.want_shm ? "its shared memory could not be mapped (see the warning "
                                           "above), and "
                                         : "shm is not in VBT_TRANSPORTS, and ")
                          : "",
                      tl.ib_why, local ? "" : " (ranks on other nodes need the ib transport)",
                      vbt_cfg.transports);
            return VBT_ERR_UNREACHABLE;
        }
        vbt_tl.peer[r] = t;
        if (t == &tl_ib)
            tl.nib++;
        vbt_info("transport to rank %d (%s): %s%s", r, local ? "on this node" : "on another node",
                 t->name,
                 t != &tl_shm ? ""
                 : vbt_tl.cma ? " (large messages: one copy with CMA)"
                              : " (large messages: two copies through the rings)");
    }
    return VBT_OK;
}

vbt_status_t vbt_tl_init(const vbt_proc_info_t *proc, vbt_tl_recv_cb_t recv_cb,
                         vbt_tl_put_cb_t put_cb)
{
    vbt_status_t status;

    memset(&vbt_tl, 0, sizeof(vbt_tl));
    memset(&tl, 0, sizeof(tl));
    status = parse_transports(vbt_cfg.transports);
    if (status != VBT_OK)
        return status;
    vbt_tl.peer = calloc((size_t)proc->size, sizeof(*vbt_tl.peer));
    if (vbt_tl.peer == NULL)
        return VBT_ERR_NO_MEMORY;
    if (proc->size == 1)
        return VBT_OK;

    /* Both transports publish their addresses before the one fence. */
    tl.ib_why = "ib is not in VBT_TRANSPORTS";
    if (tl.want_ib) {
        status = vbt_ib_init(proc, recv_cb, put_cb);
        if (status == VBT_ERR_NO_DEVICE) {
            snprintf(tl.ib_no_device, sizeof(tl.ib_no_device),
                     "this node has no usable RDMA device (%s; verbatim-info lists the devices "
                     "and ports)",
                     vbt_ib_unavailable_reason());
            tl.ib_why = tl.ib_no_device;
        } else if (status != VBT_OK) {
            return status;
        } else {
            vbt_tl.ib_up = 1;
        }
    }
    if (tl.want_shm && proc->local_size > 1 && vbt_shm_init(proc, recv_cb) == VBT_OK)
        vbt_tl.shm_up = 1; /* on failure (logged) nothing was published: peers use ib */

    status = vbt_modex_fence();
    if (status != VBT_OK)
        return status;
    if (vbt_tl.ib_up) {
        status = vbt_ib_wireup();
        if (status != VBT_OK)
            return status;
        tl_ib.max_send = vbt_ib_max_send();
        tl_ib.rndv_threshold = vbt_cfg.rndv_threshold;
    }
    if (vbt_tl.shm_up) {
        status = vbt_shm_wireup();
        if (status != VBT_OK)
            return status;
        tl_shm.max_send = vbt_shm_max_send();
        tl_shm.rndv_threshold = vbt_cfg.shm_rndv_threshold;
        vbt_tl.cma = vbt_cfg.shm_cma && vbt_shm_cma_available();
    }
    status = select_per_peer(proc);
    if (status != VBT_OK)
        return status;
    /* A peer maps our segment through our /proc entry after the fence: until every rank of
     * the node has done so, none may leave MPI_Init, or one that exits at once (a failing
     * program) makes the others fail to map it. Every rank of the node calls this, whatever
     * its VBT_TRANSPORTS says, so the fence always completes. */
    return vbt_pmix_barrier_local(proc->local_peers, proc->local_size);
}

int vbt_tl_uses_ib(void)
{
    return tl.nib > 0;
}

vbt_status_t vbt_tl_check_peers(void)
{
    vbt_status_t status = vbt_tl.ib_up ? vbt_ib_check_liveness() : VBT_OK;
    vbt_status_t st = vbt_tl.shm_up ? vbt_shm_check_liveness() : VBT_OK;

    return status != VBT_OK ? status : st;
}

vbt_status_t vbt_tl_block(int timeout_ms)
{
    struct pollfd fds[2];
    int nfds = 0, sleep_ib = 0, sleep_shm = 0, rc;
    vbt_status_t status, st;

    if (vbt_tl.ib_up) {
        /* Probes due go out before the sleep: a peer's death then wakes it (the probe's error
         * completion raises an event like any other). */
        status = vbt_ib_check_liveness();
        if (status != VBT_OK)
            return status;
        status = vbt_ib_sleep_begin(&sleep_ib);
        if (status != VBT_OK || !sleep_ib)
            return status;
        fds[nfds++] = (struct pollfd){.fd = vbt_ib_wait_fd(), .events = POLLIN};
        /* A connection request may be due for retransmission before anything arrives. */
        int max = vbt_ib_max_sleep_ms();
        if (max >= 0 && (timeout_ms < 0 || timeout_ms > max))
            timeout_ms = max;
    }
    if (vbt_tl.shm_up) {
        /* The CQ stays armed if we call the sleep off: its event is taken by the next sleep. */
        status = vbt_shm_sleep_begin(&sleep_shm);
        if (status != VBT_OK || !sleep_shm)
            return status;
        fds[nfds++] = (struct pollfd){.fd = vbt_shm_wait_fd(), .events = POLLIN};
        /* Dead local peers are noticed only between sleeps. */
        if (timeout_ms < 0 || timeout_ms > vbt_shm_max_sleep_ms())
            timeout_ms = vbt_shm_max_sleep_ms();
    }
    if (nfds == 0)
        return VBT_OK;
    rc = poll(fds, (nfds_t)nfds, timeout_ms);
    if (rc < 0 && errno != EINTR) {
        vbt_error("poll() on the transports' wake-up descriptors failed: %m");
        rc = 0;
    }
    status = VBT_OK;
    if (sleep_ib)
        status = vbt_ib_sleep_end(rc > 0 && (fds[0].revents & POLLIN));
    if (sleep_shm) {
        st = vbt_shm_sleep_end(rc == 0);
        if (status == VBT_OK)
            status = st;
    }
    return status;
}

void vbt_tl_finalize(void)
{
    if (vbt_tl.shm_up)
        vbt_shm_finalize();
    if (vbt_tl.ib_up)
        vbt_ib_finalize();
    free(vbt_tl.peer);
    memset(&vbt_tl, 0, sizeof(vbt_tl));
    memset(&tl, 0, sizeof(tl));
}
