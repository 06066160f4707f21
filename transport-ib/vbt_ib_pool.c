/* The eager pools and queues. At init: the CQ and its completion channel, the SRQ, the
 * registered region of receive and bounce buffers, the free lists, the pre-built work requests
 * and the signalling intervals. As peers connect: more receive buffers and CQ entries
 * (vbt_ib_rx_reserve).
 *
 * Memory: one region registered at init holds the first chunk of receive buffers (posted to the
 * SRQ) and every bounce buffer (non-inline sends are copied there). Buffers are `stride` bytes:
 * the 8-byte transport header plus the eager limit. The first chunk covers
 * VBT_IB_RX_FIRST_PEERS peers (vbt_ib_params_t: fewer in a white-box test); when a QP is about to
 * be created for one peer more than the posted buffers cover, vbt_ib_rx_reserve (the connect path,
 * never the message path) registers and posts another chunk that doubles the peers covered (at most
 * the world) and grows the CQ to match. A receive wr_id names its chunk and the buffer in it:
 * finding the buffer is one load from rx_chunk[] (as the single rx_base was), and its lkey is on
 * the same line.
 *
 * Whole chunks are posted here (post_receives); the poll loop re-posts each buffer after its
 * callback (rx_repost, vbt_ib_eager.c). */
#include "vbt_ib_int.h"
#include "vbt_log.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- setup and teardown ------------------------------------------------------------------- */

/* Post every receive buffer of chunk ci to the SRQ. Its own work requests, not rx_wr[]: a chunk
 * may be added from inside vbt_ib_progress (a REQ, or a send from a receive callback, connects a
 * peer) while rx_wr[] holds buffers collected for re-posting. */
static vbt_status_t post_receives(vbt_ib_iface_t *c, int ci)
{
    const vbt_ib_rx_chunk_t *ch = &c->rx_chunk[ci];
    struct ibv_recv_wr wr[VBT_IB_POLL_BATCH], *bad;
    struct ibv_sge sge[VBT_IB_POLL_BATCH];
    uint32_t first = 0, count = ch->count;

    while (count > 0) {
        uint32_t n = count < VBT_IB_POLL_BATCH ? count : VBT_IB_POLL_BATCH;
        vbt_status_t status;
        for (uint32_t k = 0; k < n; k++) {
            sge[k].addr = (uintptr_t)(ch->base + (size_t)(first + k) * c->stride);
            sge[k].length = c->stride;
            sge[k].lkey = ch->lkey;
            wr[k].wr_id = VBT_IB_WRID_RECV | (uint64_t)ci << VBT_IB_WRID_CHUNK_SHIFT | (first + k);
            wr[k].sg_list = &sge[k];
            wr[k].num_sge = 1;
            wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
        }
        status = vbt_ib_check_rc(ibv_post_srq_recv(c->srq, wr, &bad), 0,
                                 "ibv_post_srq_recv(%u receive buffers)", n);
        if (status != VBT_OK)
            return status;
        first += n;
        count -= n;
        c->rx_posted += n;
    }
    return VBT_OK;
}

vbt_status_t vbt_ib_eager_init(vbt_ib_iface_t *c)
{
    const vbt_ib_sizes_t *s = &c->sizes;
    struct ibv_srq_init_attr sa;
    vbt_status_t status;
    void *pool = NULL;
    int rc;

    c->stride = s->stride;
    c->sq_depth = s->sq_depth;
    c->sq_mask = s->sq_depth - 1;
    c->credits_max = s->credits;
    c->credit_thresh = (s->credits + 1) / 2;
    c->sig_every = VBT_IB_SIG_EVERY < s->sq_depth / 2 ? VBT_IB_SIG_EVERY : s->sq_depth / 2;
    c->sig_every_bounce = s->bounce_count / (2u * (uint32_t)(c->npeers > 0 ? c->npeers : 1));
    if (c->sig_every_bounce < 1)
        c->sig_every_bounce = 1;
    if (c->sig_every_bounce > c->sig_every)
        c->sig_every_bounce = c->sig_every;

    c->channel = ibv_create_comp_channel(c->dev);
    status = vbt_ib_check_ptr(c->channel, 0, "ibv_create_comp_channel(%s)", c->choice.name);
    if (status != VBT_OK)
        return status;
    /* The fd is only read after poll() says so; non-blocking keeps a spurious wake harmless. */
    if (fcntl(c->channel->fd, F_SETFL, fcntl(c->channel->fd, F_GETFL) | O_NONBLOCK) != 0) {
        vbt_error("cannot make the completion channel non-blocking: %m");
        status = VBT_ERR_IO;
        goto err_cleanup;
    }

    /* A CQ overrun is fatal (the CQ, and every QP on it, goes to error), so the CQ must cover
     * every completion a QP can produce before the QP exists. It is made for the first peers and
     * grown with ibv_resize_cq as the receive pool grows (vbt_ib_rx_reserve). Not every provider
     * can resize a CQ: a resize to the current size tells, and without it the CQ is made at
     * once for the whole world (at most max_cqe; ~64 bytes an entry: 2.4 MiB at 1,000 ranks,
     * 24 MiB at 10,000, the price of never risking an overrun, still far below the world's
     * receive buffers); a connection it cannot cover is then refused with a clear error. The
     * completion channel stays with a resized CQ, and the CQ is re-armed before every sleep
     * (vbt_ib_sleep_begin), so blocking mode needs nothing more. */
    c->cq = ibv_create_cq(c->dev, (int)s->cq_first, NULL, c->channel, 0);
    status = vbt_ib_check_ptr(c->cq, VBT_IB_PINS, "ibv_create_cq(%s, %u entries)", c->choice.name,
                              s->cq_first);
    if (status != VBT_OK)
        goto err_cleanup;
    c->cq_cap = s->cq_first;
    if (s->first_peers < s->npeers) {
        rc = ibv_resize_cq(c->cq, (int)s->cq_first);
        if (rc == 0) {
            c->cq_resizable = 1;
        } else {
            uint32_t max = (uint32_t)c->choice.dev_attr.max_cqe;
            vbt_ib_check_rc(rc, VBT_IB_PROBE, "ibv_resize_cq(%s) (can the CQ grow?)",
                            c->choice.name);
            vbt_debug("%s cannot resize a completion queue: making it for all %d peers at once",
                      c->choice.name, s->npeers);
            vbt_ib_check_rc(ibv_destroy_cq(c->cq), 0, "ibv_destroy_cq");
            c->cq_cap = s->cq_size < max ? s->cq_size : max;
            c->cq = ibv_create_cq(c->dev, (int)c->cq_cap, NULL, c->channel, 0);
            status = vbt_ib_check_ptr(c->cq, VBT_IB_PINS, "ibv_create_cq(%s, %u entries)",
                                      c->choice.name, c->cq_cap);
            if (status != VBT_OK)
                goto err_cleanup;
        }
    }

    /* The SRQ is made at once for the whole world's receive buffers (at most the device's
     * max_srq_wr), though they are posted as peers connect: its ring costs 32-64 bytes an entry
     * (~2 MiB at 10,000 ranks), and many hardware providers cannot resize an SRQ
     * (ibv_modify_srq with IBV_SRQ_MAX_WR; rxe can). A world that needs more than the device
     * holds fails at the connection that exceeds it (vbt_ib_rx_reserve), not here. */
    memset(&sa, 0, sizeof(sa));
    sa.attr.max_wr = s->rx_count < (uint32_t)c->choice.dev_attr.max_srq_wr
                         ? s->rx_count
                         : (uint32_t)c->choice.dev_attr.max_srq_wr;
    sa.attr.max_sge = 1;
    c->srq = ibv_create_srq(c->pd, &sa);
    status = vbt_ib_check_ptr(c->srq, VBT_IB_PINS, "ibv_create_srq(%s, %u receives)",
                              c->choice.name, sa.attr.max_wr);
    if (status != VBT_OK)
        goto err_cleanup;
    c->srq_max_wr = sa.attr.max_wr; /* what was granted (at least what was asked) */

    rc = posix_memalign(&pool, 4096, s->pool_bytes);
    if (rc != 0) {
        vbt_error("cannot allocate the %zu-byte InfiniBand buffer pool: %s", s->pool_bytes,
                  strerror(rc));
        status = VBT_ERR_NO_MEMORY;
        goto err_cleanup;
    }
    memset(pool, 0, s->pool_bytes);
    c->pool = pool;
    c->mr = ibv_reg_mr(c->pd, pool, s->pool_bytes, IBV_ACCESS_LOCAL_WRITE);
    status = vbt_ib_check_ptr(c->mr, VBT_IB_PINS, "ibv_reg_mr(%s, %zu-byte buffer pool)",
                              c->choice.name, s->pool_bytes);
    if (status != VBT_OK)
        goto err_cleanup;
    c->lkey = c->mr->lkey;
    c->rx_chunk[0].base = pool;
    c->rx_chunk[0].lkey = c->lkey;
    c->rx_chunk[0].count = s->rx_first;
    c->rx_nchunks = 1;
    c->rx_peers = s->first_peers;
    c->pinned = s->pinned_bytes;
    c->bounce_base = (char *)pool + (size_t)s->rx_first * s->stride;

    c->bounce_free = malloc(s->bounce_count * sizeof(*c->bounce_free));
    c->owe_list = malloc((size_t)c->size * sizeof(*c->owe_list));
    if (c->bounce_free == NULL || c->owe_list == NULL) {
        vbt_error("out of memory for the InfiniBand free lists");
        status = VBT_ERR_NO_MEMORY;
        goto err_cleanup;
    }
    for (uint32_t i = 0; i < s->bounce_count; i++)
        c->bounce_free[i] = s->bounce_count - 1 - i;
    c->bounce_nfree = s->bounce_count;

    /* Pre-built work requests: the hot path fills in only what changes. */
    memset(&c->send_wr, 0, sizeof(c->send_wr));
    c->send_wr.sg_list = c->send_sge;
    c->send_wr.opcode = IBV_WR_SEND;
    for (int k = 0; k < VBT_IB_POLL_BATCH; k++) {
        memset(&c->rx_wr[k], 0, sizeof(c->rx_wr[k]));
        c->rx_wr[k].sg_list = &c->rx_sge[k];
        c->rx_wr[k].num_sge = 1;
        c->rx_wr[k].next = k + 1 < VBT_IB_POLL_BATCH ? &c->rx_wr[k + 1] : NULL;
        c->rx_sge[k].length = c->stride;
        c->rx_sge[k].lkey = c->lkey;
    }
    status = post_receives(c, 0);
    if (status != VBT_OK)
        goto err_cleanup;
    return VBT_OK;

err_cleanup:
    /* The cleanup undoes whatever part of the set-up happened (it checks each piece). */
    vbt_ib_eager_cleanup(c);
    return status;
}

void vbt_ib_eager_cleanup(vbt_ib_iface_t *c)
{
    if (c->srq != NULL)
        vbt_ib_check_rc(ibv_destroy_srq(c->srq), 0, "ibv_destroy_srq");
    if (c->cq != NULL)
        vbt_ib_check_rc(ibv_destroy_cq(c->cq), 0, "ibv_destroy_cq");
    if (c->channel != NULL)
        vbt_ib_check_rc(ibv_destroy_comp_channel(c->channel), 0, "ibv_destroy_comp_channel");
    if (c->mr != NULL)
        vbt_ib_check_rc(ibv_dereg_mr(c->mr), 0, "ibv_dereg_mr");
    for (int i = 1; i < c->rx_nchunks; i++) {
        if (c->rx_chunk[i].mr != NULL)
            vbt_ib_check_rc(ibv_dereg_mr(c->rx_chunk[i].mr), 0, "ibv_dereg_mr (receive chunk)");
        free(c->rx_chunk[i].mem);
    }
    memset(c->rx_chunk, 0, sizeof(c->rx_chunk));
    c->rx_nchunks = 0;
    c->rx_posted = 0;
    free(c->pool);
    free(c->bounce_free);
    free(c->owe_list);
    c->srq = NULL;
    c->cq = NULL;
    c->channel = NULL;
    c->mr = NULL;
    c->pool = NULL;
    c->bounce_free = NULL;
    c->owe_list = NULL;
}

/* ---- growth: more receive buffers and CQ entries as peers connect (cold) ------------------ */

/* The most peers, at most want and at least need, that the SRQ and the CQ (what it holds now,
 * or max_cqe when it can grow) can cover; fewer than need when even need does not fit. */
static int peers_that_fit(const vbt_ib_iface_t *c, int need, int want)
{
    uint32_t cq_max = c->cq_resizable ? (uint32_t)c->choice.dev_attr.max_cqe : c->cq_cap;
    int t = want;

    while (t >= need && ((uint64_t)t * c->sizes.rx_per_peer > c->srq_max_wr ||
                         vbt_ib_cq_entries(&c->sizes, t) > cq_max))
        t--;
    return t;
}

vbt_status_t vbt_ib_rx_reserve(vbt_ib_iface_t *c, int peer)
{
    const vbt_ib_sizes_t *s = &c->sizes;
    int need = c->nqps + 1, want, t, ci = c->rx_nchunks;
    vbt_ib_rx_chunk_t *ch;
    uint32_t count, cqe;
    size_t bytes, pinned;
    char what[160];
    vbt_status_t status;
    void *mem = NULL;
    int rc;

    if (need <= c->rx_peers)
        return VBT_OK;
    want = c->rx_peers * 2 > need ? c->rx_peers * 2 : need;
    if (want > s->npeers)
        want = s->npeers;
    t = peers_that_fit(c, need, want);
    if (t < need) {
        if ((uint64_t)need * s->rx_per_peer > c->srq_max_wr)
            vbt_error("cannot connect to rank %d: %d peers need %llu receive buffers (%u each) but "
                      "the shared receive queue of %s holds %u (max_srq_wr): this rank can talk "
                      "to at most %u peers; run fewer ranks, or use another device "
                      "(VBT_IB_DEVICE)",
                      peer, need, (unsigned long long)need * s->rx_per_peer, s->rx_per_peer,
                      c->choice.name, c->srq_max_wr, c->srq_max_wr / s->rx_per_peer);
        else
            vbt_error("cannot connect to rank %d: %d peers need a %u-entry completion queue but "
                      "%s holds %u (%s): run fewer ranks, or use another device (VBT_IB_DEVICE)",
                      peer, need, vbt_ib_cq_entries(s, need), c->choice.name,
                      c->cq_resizable ? (uint32_t)c->choice.dev_attr.max_cqe : c->cq_cap,
                      c->cq_resizable ? "max_cqe" : "and cannot resize it");
        return VBT_ERR_UNSUPPORTED;
    }
    if (ci >= VBT_IB_RX_CHUNKS_MAX) { /* cannot happen: 2^24 peers take 25 chunks */
        vbt_error("cannot connect to rank %d: the receive pool has %d chunks already", peer, ci);
        return VBT_ERR_IO;
    }

    /* RLIMIT_MEMLOCK: getrlimit is a system call, fine on the connect path. */
    count = (uint32_t)(t - c->rx_peers) * s->rx_per_peer;
    bytes = vbt_ib_page_align((size_t)count * s->stride);
    pinned = vbt_ib_sizes_pinned(s, t);
    snprintf(what, sizeof(what),
             "the InfiniBand receive buffers and queues for %d connected peers (connecting to "
             "rank %d)",
             t, peer);
    status = vbt_ib_memlock_check(pinned, what);
    if (status != VBT_OK)
        return status;

    /* The CQ first: it must cover the new buffers before they are posted. */
    cqe = vbt_ib_cq_entries(s, t);
    if (cqe > c->cq_cap) {
        rc = ibv_resize_cq(c->cq, (int)cqe);
        status = vbt_ib_check_rc(rc, VBT_IB_PINS,
                                 "growing the completion queue of %s from %u to %u entries "
                                 "(ibv_resize_cq) to connect to rank %d",
                                 c->choice.name, c->cq_cap, cqe, peer);
        if (status != VBT_OK)
            return status == VBT_ERR_NO_RESOURCE ? VBT_ERR_IO : status;
        c->cq_cap = cqe;
    }

    rc = posix_memalign(&mem, 4096, bytes);
    if (rc != 0) {
        vbt_error("cannot allocate %zu bytes of receive buffers to connect to rank %d: %s", bytes,
                  peer, strerror(rc));
        return VBT_ERR_NO_MEMORY;
    }
    memset(mem, 0, bytes);
    ch = &c->rx_chunk[ci];
    ch->mem = mem;
    ch->mr = ibv_reg_mr(c->pd, mem, bytes, IBV_ACCESS_LOCAL_WRITE);
    status = vbt_ib_check_ptr(ch->mr, VBT_IB_PINS,
                              "ibv_reg_mr(%s, %zu bytes of receive buffers for %d peers) to "
                              "connect to rank %d",
                              c->choice.name, bytes, t, peer);
    if (status != VBT_OK) {
        free(mem);
        memset(ch, 0, sizeof(*ch));
        return status == VBT_ERR_NO_RESOURCE ? VBT_ERR_IO : status;
    }
    ch->base = mem;
    ch->lkey = ch->mr->lkey;
    ch->count = count;
    c->rx_nchunks = ci + 1; /* kept even if posting fails: posted buffers may lie in it */
    status = post_receives(c, ci);
    if (status != VBT_OK)
        return status == VBT_ERR_NO_RESOURCE ? VBT_ERR_IO : status;
    vbt_debug("receive pool: %u buffers for %d connected peers (room for %d), +%zu KiB pinned "
              "(%zu KiB of buffers; about %zu KiB in all); completion queue %u entries",
              c->rx_posted, need, t, (pinned - c->pinned + 1023) / 1024, (bytes + 1023) / 1024,
              (pinned + 1023) / 1024, c->cq_cap);
    c->rx_peers = t;
    c->pinned = pinned;
    return VBT_OK;
}
