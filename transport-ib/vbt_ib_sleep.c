/* Blocking and finalize: the completion channel's fd, arming the CQ before a sleep and
 * consuming its event after, a poll(2) on it, and finalize's drain.
 *
 * Finalize: a signalled FIN to every READY peer; done with a peer when our FIN is acknowledged
 * (so is everything before it: no unsignalled tail is left in doubt) or its FIN arrived (it is
 * finalizing too and may close its QP at any moment; we send it no more credits). Peers never
 * connected, or half connected (our REQ unanswered, or their REQ answered but nothing heard
 * since), are not waited for: we posted nothing to them, and the runtime flushed every send
 * (connections included) before the finalize barrier, so nothing of theirs is owed to us. */
#include "vbt_ib_int.h"
#include "vbt_log.h"

#include <poll.h>

/* ---- blocking ----------------------------------------------------------------------------- */

int vbt_ib_wait_fd(vbt_tl_iface_t *iface)
{
    return vbt_ib_of(iface)->channel->fd;
}

vbt_status_t vbt_ib_sleep_begin(vbt_tl_iface_t *iface, int *sleep_p)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);
    vbt_status_t status;
    int n;

    *sleep_p = 0;
    status = vbt_ib_check_rc(ibv_req_notify_cq(c->cq, 0), 0,
                             "arming the completion queue (ibv_req_notify_cq)");
    if (status != VBT_OK)
        return status;
    /* A completion that arrived before the arm raises no event: poll once more. */
    n = vbt_ib_progress(iface);
    if (n != 0)
        return n < 0 ? (vbt_status_t)n : VBT_OK;
    *sleep_p = 1;
    return VBT_OK;
}

vbt_status_t vbt_ib_sleep_end(vbt_tl_iface_t *iface, int readable, int timed_out)
{
    vbt_ib_iface_t *c = vbt_ib_of(iface);
    struct ibv_cq *ev_cq;
    void *ev_ctx;

    if (!readable)
        return VBT_OK;
    /* The channel fd is non-blocking (set at init), so a spurious readiness costs nothing. */
    if (ibv_get_cq_event(c->channel, &ev_cq, &ev_ctx) == 0)
        ibv_ack_cq_events(ev_cq, 1);
    else if (errno != EAGAIN)
        return vbt_ib_check_rc(-1, 0, "ibv_get_cq_event");
    return VBT_OK;
}

vbt_status_t vbt_ib_block(vbt_ib_iface_t *c, int timeout_ms)
{
    struct pollfd pfd;
    vbt_status_t status;
    int sleep, rc;

    status = vbt_ib_sleep_begin(&c->super, &sleep);
    if (status != VBT_OK || !sleep)
        return status;
    pfd.fd = c->channel->fd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    if (unlikely(c->conn_pending != 0)) {
        int max = vbt_ib_max_sleep_ms(&c->super);
        if (timeout_ms < 0 || timeout_ms > max)
            timeout_ms = max;
    }
    rc = poll(&pfd, 1, timeout_ms);
    if (rc < 0 && errno != EINTR) {
        vbt_error("poll() on the completion channel of %s failed: %m", c->choice.name);
        return VBT_ERR_IO;
    }
    return vbt_ib_sleep_end(&c->super, rc > 0, rc == 0);
}

/* ---- finalize ----------------------------------------------------------------------------- */

void vbt_ib_eager_drain(vbt_ib_iface_t *c, int timeout_ms)
{
    uint64_t deadline = vbt_now_ms() + (uint64_t)timeout_ms;

    for (;;) {
        int pending = 0, first = -1;
        for (int r = 0; r < c->size; r++) {
            vbt_ib_peer_t *p = &c->peers[r];
            if (p->state != VBT_IB_PEER_READY || p->fin_received)
                continue;
            if (!p->fin_posted)
                vbt_ib_ctl_send(c, r, VBT_IB_MSG_FIN);
            if (p->fin_posted && (int32_t)(p->sq_tail - p->fin_seq) > 0)
                continue; /* our FIN, and all before it, acknowledged */
            if (p->state != VBT_IB_PEER_READY)
                continue;
            if (first < 0)
                first = r;
            pending++;
        }
        if (pending == 0)
            return;
        if (vbt_now_ms() > deadline) {
            vbt_warn("finalize: %d rank(s) (rank %d first) neither acknowledged our last messages "
                     "nor said goodbye within %d ms; closing anyway",
                     pending, first, timeout_ms);
            return;
        }
        if (vbt_ib_progress(&c->super) == 0)
            vbt_ib_block(c, 20);
    }
}
