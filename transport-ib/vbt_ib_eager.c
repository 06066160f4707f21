/* Eager messages: the send path, the shared receive pool, credits, CQ polling and blocking.
 *
 * Memory: one region registered at init holds the first chunk of receive buffers (posted to the
 * SRQ) and every bounce buffer (non-inline sends are copied there). Buffers are `stride` bytes:
 * the 8-byte transport header plus the eager limit. The first chunk covers
 * vbt_ib_rx_first_peers peers; when a QP is about to be created for one peer more than the
 * posted buffers cover, vbt_ib_rx_reserve (the connect path, never the message path) registers
 * and posts another chunk that doubles the peers covered (at most the world) and grows the CQ
 * to match. A receive wr_id names its chunk and the buffer in it: finding the buffer is one
 * load from rx_chunk[] (as the single rx_base was), and its lkey is on the same line.
 *
 * Credits: each peer may have `credits_max` DATA messages towards us that we have not
 * re-posted and reported back; the SRQ holds credits_max + VBT_IB_CTL_RESERVE buffers per peer.
 * A receive buffer is re-posted right after the callback (batched per poll) and only then
 * counted as owed to its sender. Owed credits ride on every message we send to that peer; when
 * half a window is owed and nothing flows back, an explicit CREDIT message carries them. It
 * takes no credit: a CREDIT message returns at least half a window (ceil(credits_max / 2)),
 * the credits a sender has not seen returned never exceed one window, and credits count as
 * seen only when the buffer carrying them is re-posted; so at most 2 CREDIT messages per peer
 * are ever un-reposted here. With the one FIN of finalize that is the reserve of 3. No receive
 * can find the SRQ empty, so the QPs use rnr_retry 0: an RNR NAK means a bug here and fails at
 * once, loudly, instead of a retry storm.
 *
 * Finalize: a signalled FIN to every READY peer; done with a peer when our FIN is acknowledged
 * (so is everything before it: no unsignalled tail is left in doubt) or its FIN arrived (it is
 * finalizing too and may close its QP at any moment; we send it no more credits). Peers never
 * connected, or half connected (our REQ unanswered, or their REQ answered but nothing heard
 * since), are not waited for: we posted nothing to them, and the runtime flushed every send
 * (connections included) before the finalize barrier, so nothing of theirs is owed to us.
 *
 * Send queue: selective signalling. Every sig_every-th WR on a QP is signalled, and every
 * sig_every_bounce-th one that holds a bounce buffer; the signalled completion retires all WRs
 * before it and frees their bounce buffers. sig_every_bounce keeps the unsignalled bounce
 * buffers of all QPs under half the pool, so an empty pool always has signalled completions
 * coming that refill it. No malloc, lock or syscall of ours per message (rxe's doorbell is a
 * write(2) inside ibv_post_send: the soft device's cost, not ours). */
#include "vbt_config.h"
#include "vbt_ib_int.h"
#include "vbt_ib_wire.h"
#include "vbt_log.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint32_t pow2_at_least(uint32_t v)
{
    uint32_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

static size_t page_align(size_t n)
{
    size_t page = 4096;
    return (n + page - 1) & ~(page - 1);
}

int vbt_ib_rx_first_peers = VBT_IB_RX_FIRST_PEERS;

/* Queue memory a hardware provider pins per QP: send WQEs with inline room. */
static size_t qp_bytes(const vbt_ib_sizes_t *s)
{
    return page_align((size_t)s->sq_depth * (64 + VBT_IB_INLINE_WANT));
}

uint32_t vbt_ib_cq_entries(const vbt_ib_sizes_t *s, int peers)
{
    return (uint32_t)peers * (s->rx_per_peer + s->sq_depth) + VBT_IB_UD_RECV + VBT_IB_UD_SEND;
}

size_t vbt_ib_sizes_pinned(const vbt_ib_sizes_t *s, int peers)
{
    size_t more = 0;

    if (peers < s->first_peers)
        peers = s->first_peers;
    if (peers > s->first_peers)
        more = page_align((size_t)(peers - s->first_peers) * s->rx_per_peer * s->stride);
    /* Queues a hardware provider pins too (rxe keeps them in the kernel): send WQEs, CQEs, and
     * the SRQ's ring, made for the whole world at init (vbt_ib_eager_init says why). */
    return s->pool_bytes + more + (size_t)peers * qp_bytes(s) +
           page_align((size_t)vbt_ib_cq_entries(s, peers) * 64) +
           page_align((size_t)s->rx_count * 32) +
           page_align((size_t)(VBT_IB_UD_RECV + VBT_IB_UD_SEND) * VBT_IB_UD_SLOT);
}

void vbt_ib_sizes(int npeers, size_t eager_limit, vbt_ib_sizes_t *s)
{
    uint32_t n = npeers > 0 ? (uint32_t)npeers : 1; /* a singleton still exercises the pool */
    int credits = (int)(VBT_IB_RX_TARGET / n) - VBT_IB_CTL_RESERVE;
    int first = vbt_ib_rx_first_peers > 0 ? vbt_ib_rx_first_peers : 1;
    uint32_t bounce;

    if (credits > VBT_IB_CREDITS_MAX)
        credits = VBT_IB_CREDITS_MAX;
    if (credits < VBT_IB_CREDITS_MIN)
        credits = VBT_IB_CREDITS_MIN;
    bounce = n * (uint32_t)credits;
    if (bounce < VBT_IB_BOUNCE_MIN)
        bounce = VBT_IB_BOUNCE_MIN;
    if (bounce > VBT_IB_BOUNCE_MAX)
        bounce = VBT_IB_BOUNCE_MAX;

    s->npeers = (int)n;
    s->credits = credits;
    s->first_peers = first < (int)n ? first : (int)n;
    s->rx_per_peer = (uint32_t)(credits + VBT_IB_CTL_RESERVE);
    s->rx_count = n * s->rx_per_peer;
    s->rx_first = (uint32_t)s->first_peers * s->rx_per_peer;
    s->bounce_count = bounce;
    /* Room for a window of data, the control messages, an unsignalled tail, the rendezvous
     * WRITEs in flight and one liveness probe (vbt_ib_liveness.c). */
    s->sq_depth = pow2_at_least((uint32_t)credits + VBT_IB_CTL_RESERVE + VBT_IB_SIG_EVERY +
                                VBT_IB_PUT_WINDOW + 1);
    s->cq_size = vbt_ib_cq_entries(s, (int)n);
    s->cq_first = vbt_ib_cq_entries(s, s->first_peers);
    s->stride = (uint32_t)((sizeof(vbt_ib_hdr_t) + eager_limit + 63) & ~(size_t)63);
    s->pool_bytes = page_align((size_t)(s->rx_first + bounce) * s->stride);
    s->pinned_bytes = vbt_ib_sizes_pinned(s, s->first_peers);
    s->pinned_all = vbt_ib_sizes_pinned(s, (int)n);
    s->peer_bytes = (size_t)s->rx_per_peer * s->stride + qp_bytes(s) +
                    (size_t)(s->rx_per_peer + s->sq_depth) * 64;
}

/* The chunk of a receive wr_id (masked: a corrupt wr_id cannot index out of the table). */
static inline const vbt_ib_rx_chunk_t *rx_chunk_of(const vbt_ib_ctx_t *c, uint64_t wr_id)
{
    return &c->rx_chunk[(wr_id >> VBT_IB_WRID_CHUNK_SHIFT) & (VBT_IB_RX_CHUNKS_MAX - 1)];
}

static inline char *rx_buf(const vbt_ib_ctx_t *c, uint64_t wr_id)
{
    return rx_chunk_of(c, wr_id)->base + (size_t)(uint32_t)wr_id * c->stride;
}

static inline char *bounce_buf(const vbt_ib_ctx_t *c, uint32_t idx)
{
    return c->bounce_base + (size_t)idx * c->stride;
}

/* ---- setup and teardown ------------------------------------------------------------------- */

/* Post every receive buffer of chunk ci to the SRQ. Its own work requests, not rx_wr[]: a chunk
 * may be added from inside vbt_ib_progress (a REQ, or a send from a receive callback, connects a
 * peer) while rx_wr[] holds buffers collected for re-posting. */
static vbt_status_t post_receives(int ci)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
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

vbt_status_t vbt_ib_eager_init(void)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
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
    status = post_receives(0);
    if (status != VBT_OK)
        goto err_cleanup;
    return VBT_OK;

err_cleanup:
    /* The cleanup undoes whatever part of the set-up happened (it checks each piece). */
    vbt_ib_eager_cleanup();
    return status;
}

void vbt_ib_eager_cleanup(void)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;

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
static int peers_that_fit(const vbt_ib_ctx_t *c, int need, int want)
{
    uint32_t cq_max = c->cq_resizable ? (uint32_t)c->choice.dev_attr.max_cqe : c->cq_cap;
    int t = want;

    while (t >= need && ((uint64_t)t * c->sizes.rx_per_peer > c->srq_max_wr ||
                         vbt_ib_cq_entries(&c->sizes, t) > cq_max))
        t--;
    return t;
}

vbt_status_t vbt_ib_rx_reserve(int peer)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
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
    bytes = page_align((size_t)count * s->stride);
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
    status = post_receives(ci);
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

void vbt_ib_eager_peer_ready(int peer)
{
    vbt_ib_peer_t *p = &vbt_ib_ctx.peers[peer];

    p->credits = vbt_ib_ctx.credits_max;
    p->owed = 0;
    p->sq_head = p->sq_tail = 0;
    p->unsig = p->unsig_bounce = 0;
    p->puts = 0;
    p->fin_received = p->fin_posted = 0;
    p->state = VBT_IB_PEER_READY;
}

/* ---- send completions --------------------------------------------------------------------- */

/* Retire every WR of peer up to and including seq: free their bounce buffers, and report the
 * rendezvous puts whose last WRITE is among them as done. */
static inline void sq_retire(vbt_ib_ctx_t *c, vbt_ib_peer_t *p, uint32_t seq)
{
    uint32_t end = seq + 1;

    if (unlikely((int32_t)(end - p->sq_tail) <= 0))
        return; /* already retired (an error completion after a signalled one) */
    while (p->sq_tail != end) {
        uint32_t slot = p->sq_tail & c->sq_mask;
        uint32_t b = p->sq_bounce[slot];
        void *put = p->sq_put[slot];
        if (b != 0) {
            c->bounce_free[c->bounce_nfree++] = b - 1;
            p->sq_bounce[slot] = 0;
        }
        p->sq_tail++;
        if (put != NULL) {
            p->sq_put[slot] = NULL;
            p->puts--;
            if (put != VBT_IB_PUT_MORE)
                c->put_cb(put, VBT_OK);
        }
    }
}

/* ---- errors (cold) ------------------------------------------------------------------------ */

static const char *op_name(int op)
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
    }
    return "receive";
}

static void likely_cause(enum ibv_wc_status st, int peer, char *buf, size_t len)
{
    switch (st) {
    case IBV_WC_RETRY_EXC_ERR:
        snprintf(buf, len,
                 "rank %d did not acknowledge: it exited or hangs, or the network "
                 "path to it is broken (on RoCE: a wrong GID index, see VBT_IB_GID_INDEX and "
                 "verbatim-info)%s",
                 peer,
                 vbt_ib_device_is_software()
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
        snprintf(buf, len,
                 "a message did not fit the receive buffer: do all ranks use the same "
                 "VBT_EAGER_LIMIT?");
        break;
    case IBV_WC_REM_ACCESS_ERR:
        snprintf(buf, len,
                 "rank %d refused the write: no registration of its covers that range with "
                 "remote write (its buffer was freed or unmapped while the transfer was in "
                 "flight, or a bug in Verbatim: please report it)",
                 peer);
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

static int peer_by_qpn(uint32_t qpn)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    for (int r = 0; r < c->size; r++) {
        if (c->peers[r].qp != NULL && c->peers[r].qp->qp_num == qpn)
            return r;
    }
    return -1;
}

/* Queue receive buffer idx for re-posting without crediting anyone. */
static void rx_recycle(vbt_ib_ctx_t *c, uint64_t wr_id)
{
    uint32_t k = c->rx_batch++;
    c->rx_wr[k].wr_id = wr_id;
    c->rx_sge[k].addr = (uintptr_t)rx_buf(c, wr_id);
    c->rx_sge[k].lkey = rx_chunk_of(c, wr_id)->lkey;
    c->rx_src[k] = -1;
    c->rx_credits[k] = 0;
    c->rx_is_data[k] = 0;
}

static void peer_fail(vbt_ib_peer_t *p, int op, int wc_status)
{
    if (p->state == VBT_IB_PEER_FAILED)
        return;
    p->state = VBT_IB_PEER_FAILED;
    p->credits = 0;
    p->fail_op = (uint8_t)op;
    p->fail_status = wc_status;
}

/* A completion with an error status: one sentence saying what failed, towards whom, and the
 * likely cause. Returns a fatal status, or 0 when nothing the caller sent is lost (a credit
 * or finalize message towards a rank that has exited). */
static VBT_NOINLINE_COLD int wc_error(const struct ibv_wc *wc)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    char cause[256];
    vbt_ib_peer_t *p;
    int peer, op, first;

    if (wc->wr_id & VBT_IB_WRID_UD)
        return vbt_ib_cm_completion(wc);
    if (wc->wr_id & VBT_IB_WRID_RECV) {
        peer = peer_by_qpn(wc->qp_num);
        rx_recycle(c, wc->wr_id);
        if (peer < 0 || wc->status == IBV_WC_WR_FLUSH_ERR) {
            vbt_debug("receive on QP 0x%x (rank %d) flushed: %s", wc->qp_num, peer,
                      ibv_wc_status_str(wc->status));
            if (peer >= 0)
                peer_fail(&c->peers[peer], -1, wc->status);
            return 0;
        }
        likely_cause(wc->status, peer, cause, sizeof(cause));
        vbt_error("receive from rank %d failed: %s (status %d, vendor error 0x%x): %s", peer,
                  ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, cause);
        peer_fail(&c->peers[peer], -1, wc->status);
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
    sq_retire(c, p, (uint32_t)wc->wr_id - 1);
    vbt_ib_put_fail_from(peer, (uint32_t)wc->wr_id, VBT_ERR_PEER_FAILED);
    sq_retire(c, p, (uint32_t)wc->wr_id);
    first = p->state != VBT_IB_PEER_FAILED;
    peer_fail(p, op, wc->status);

    /* A failed liveness probe is what tells a waiting rank that an idle peer died
     * (vbt_ib_liveness.c): reported like a failed send, unless the peer said goodbye. */
    if (op != VBT_IB_OP_DATA && op != VBT_IB_OP_WRITE &&
        (op != VBT_IB_OP_LIVENESS || !vbt_ib_liveness_failure_matters(peer))) {
        if (first)
            vbt_debug("%s to rank %d failed: %s: rank %d has probably exited; a later send to it "
                      "will fail",
                      op_name(op), peer, ibv_wc_status_str(wc->status), peer);
        return 0;
    }
    if (p->fail_reported)
        return 0;
    p->fail_reported = 1;
    if (first || wc->status != IBV_WC_WR_FLUSH_ERR) {
        likely_cause(wc->status, peer, cause, sizeof(cause));
        vbt_error("%s to rank %d failed: %s (status %d, vendor error 0x%x): %s", op_name(op), peer,
                  ibv_wc_status_str(wc->status), wc->status, wc->vendor_err, cause);
    } else {
        likely_cause((enum ibv_wc_status)p->fail_status, peer, cause, sizeof(cause));
        vbt_error("%s to rank %d failed: the connection had failed earlier with %s on a %s: %s",
                  op_name(op), peer, ibv_wc_status_str((enum ibv_wc_status)p->fail_status),
                  op_name(p->fail_op), cause);
    }
    return VBT_ERR_PEER_FAILED;
}

/* A message that failed vbt_ib_hdr_check (field: what is wrong) or came on the wrong QP. */
static VBT_NOINLINE_COLD int bad_message(const struct ibv_wc *wc, const char *field)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    const vbt_ib_hdr_t *th = (const vbt_ib_hdr_t *)rx_buf(c, wc->wr_id);
    int peer = peer_by_qpn(wc->qp_num);

    vbt_error("malformed message from rank %d (QP 0x%x): bad %s (%u bytes, header version %u "
              "type %u source %u credits %u): do all ranks run the same Verbatim?",
              peer, wc->qp_num, field, wc->byte_len, wc->byte_len >= 1 ? th->version : 0,
              wc->byte_len >= 2 ? th->type : 0, wc->byte_len >= 8 ? th->src : 0,
              wc->byte_len >= 4 ? th->credits : 0);
    rx_recycle(c, wc->wr_id);
    if (peer >= 0) {
        peer_fail(&c->peers[peer], -1, IBV_WC_GENERAL_ERR);
        c->peers[peer].fail_reported = 1;
    }
    return VBT_ERR_PEER_FAILED;
}

static VBT_NOINLINE_COLD int poll_failed(int rc)
{
    vbt_error("ibv_poll_cq failed (%d): the completion queue of %s is broken", rc,
              vbt_ib_ctx.choice.name);
    return VBT_ERR_IO;
}

static VBT_NOINLINE_COLD int repost_failed(int rc)
{
    return vbt_ib_check_rc(rc, 0, "re-posting receive buffers (ibv_post_srq_recv)");
}

/* ---- credits ------------------------------------------------------------------------------ */

static inline void owe_push(vbt_ib_ctx_t *c, int peer)
{
    vbt_ib_peer_t *p = &c->peers[peer];
    if (!p->owe_listed) {
        p->owe_listed = 1;
        c->owe_list[c->owe_count++] = peer;
    }
}

/* Send a message that takes no credit (CREDIT or FIN; the receiver reserves buffers for
 * them). 1: sent, or moot as the peer is unusable; 0: no send-queue room now, try later. */
static int send_ctl(int peer, vbt_ib_msg_type_t type)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    vbt_ib_peer_t *p = &c->peers[peer];
    vbt_ib_op_t op = type == VBT_IB_MSG_FIN ? VBT_IB_OP_FIN : VBT_IB_OP_CREDIT;
    struct ibv_send_wr *bad;
    vbt_ib_hdr_t th;
    uint32_t seq = p->sq_head, b = 0;
    unsigned flags = 0;
    int rc;

    if (p->state != VBT_IB_PEER_READY)
        return 1;
    if (p->sq_head - p->sq_tail >= c->sq_depth)
        return 0;
    th.version = VBT_IB_WIRE_VERSION;
    th.type = (uint8_t)type;
    th.credits = (uint16_t)p->owed;
    th.src = (uint32_t)c->rank;
    if (c->max_inline >= sizeof(th)) {
        c->send_sge[0].addr = (uintptr_t)&th;
        c->send_sge[0].lkey = 0;
        flags = IBV_SEND_INLINE;
    } else {
        char *buf;
        if (c->bounce_nfree == 0)
            return 0;
        b = c->bounce_free[--c->bounce_nfree] + 1;
        buf = bounce_buf(c, b - 1);
        memcpy(buf, &th, sizeof(th));
        c->send_sge[0].addr = (uintptr_t)buf;
        c->send_sge[0].lkey = c->lkey;
    }
    c->send_sge[0].length = sizeof(th);
    c->send_wr.num_sge = 1;
    c->send_wr.opcode = IBV_WR_SEND;
    c->send_wr.wr_id = vbt_ib_send_wrid(op, peer, seq);
    /* A FIN is always signalled: its completion says everything before it arrived. */
    if (vbt_ib_sq_signal(c, p, b != 0) || type == VBT_IB_MSG_FIN) {
        flags |= IBV_SEND_SIGNALED;
        p->unsig = p->unsig_bounce = 0;
    }
    c->send_wr.send_flags = flags;
    rc = ibv_post_send(p->qp, &c->send_wr, &bad);
    if (unlikely(rc != 0)) {
        if (b != 0)
            c->bounce_free[c->bounce_nfree++] = b - 1;
        vbt_ib_check_rc(rc, VBT_IB_PROBE, "%s to rank %d (ibv_post_send)", op_name(op), peer);
        peer_fail(p, op, IBV_WC_GENERAL_ERR);
        return 1;
    }
    p->sq_bounce[seq & c->sq_mask] = b;
    p->sq_head = seq + 1;
    p->owed = 0;
    if (type == VBT_IB_MSG_FIN) {
        p->fin_posted = 1;
        p->fin_seq = seq;
    }
    return 1;
}

static void service_owed(vbt_ib_ctx_t *c)
{
    int i = 0;

    while (i < c->owe_count) {
        int peer = c->owe_list[i];
        vbt_ib_peer_t *p = &c->peers[peer];
        /* A finalizing peer may close its QP any moment: it needs no credits any more. */
        if (p->owed < c->credit_thresh || p->fin_received || send_ctl(peer, VBT_IB_MSG_CREDIT)) {
            p->owe_listed = 0;
            c->owe_list[i] = c->owe_list[--c->owe_count];
            continue;
        }
        i++;
    }
}

/* Re-post the receive buffers collected by this poll, then credit their senders. */
static inline int rx_repost(vbt_ib_ctx_t *c)
{
    uint32_t n = c->rx_batch;
    struct ibv_recv_wr *bad;
    int rc;

    c->rx_wr[n - 1].next = NULL;
    rc = ibv_post_srq_recv(c->srq, c->rx_wr, &bad);
    c->rx_wr[n - 1].next = n < VBT_IB_POLL_BATCH ? &c->rx_wr[n] : NULL;
    c->rx_batch = 0;
    if (unlikely(rc != 0))
        return repost_failed(rc);
    for (uint32_t k = 0; k < n; k++) {
        int src = c->rx_src[k];
        vbt_ib_peer_t *p;
        if (src < 0)
            continue;
        p = &c->peers[src];
        p->credits += c->rx_credits[k];
        if (c->rx_is_data[k] && ++p->owed >= c->credit_thresh)
            owe_push(c, src);
    }
    return 0;
}

/* ---- the fast path ------------------------------------------------------------------------ */

size_t vbt_ib_max_send(void)
{
    return vbt_ib_ctx.max_send;
}

static VBT_NOINLINE_COLD vbt_status_t send_refused(int peer, size_t hdr_len, size_t len)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;

    if (peer < 0 || peer >= c->size) {
        vbt_error("vbt_ib_send to rank %d: no such rank (world size %d)", peer, c->size);
        return VBT_ERR_INVALID_PARAM;
    }
    if (hdr_len > VBT_IB_HDR_MAX || hdr_len + len > c->max_send) {
        vbt_error("vbt_ib_send to rank %d: header %zu + payload %zu bytes exceed the eager limit "
                  "%zu (or the header the 64-byte maximum)",
                  peer, hdr_len, len, c->max_send);
        return VBT_ERR_INVALID_PARAM;
    }
    return vbt_ib_peer_refused(peer, "vbt_ib_send");
}

vbt_status_t vbt_ib_peer_refused(int peer, const char *call)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    vbt_ib_peer_t *p = &c->peers[peer];

    switch (p->state) {
    case VBT_IB_PEER_READY:
        return VBT_ERR_NO_RESOURCE; /* no credit, send-queue slot or bounce buffer now */
    case VBT_IB_PEER_INIT:
        return VBT_ERR_NO_RESOURCE; /* our REQ is out: progress retransmits it */
    case VBT_IB_PEER_RTS:
        /* We answered its REQ but do not know its QP is past RTR: ask with our own REQ. */
        return vbt_ib_cm_connect(peer);
    case VBT_IB_PEER_FAILED:
        if (!p->fail_reported) {
            char cause[256];
            p->fail_reported = 1;
            likely_cause((enum ibv_wc_status)p->fail_status, peer, cause, sizeof(cause));
            vbt_error("cannot send to rank %d: the connection failed earlier with %s on a %s: %s",
                      peer, ibv_wc_status_str((enum ibv_wc_status)p->fail_status),
                      op_name(p->fail_op), cause);
        }
        return VBT_ERR_PEER_FAILED;
    default:
        if (peer == c->rank) {
            vbt_error("%s to rank %d, this process: self messages never reach the transport", call,
                      peer);
            return VBT_ERR_UNREACHABLE;
        }
        if (!c->wired) {
            vbt_error("%s to rank %d before vbt_ib_wireup", call, peer);
            return VBT_ERR_UNREACHABLE;
        }
        return vbt_ib_cm_connect(peer); /* the first send to it: connect */
    }
}

vbt_status_t vbt_ib_post_failed(int peer, int rc, vbt_ib_op_t op)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    vbt_status_t status;

    status = vbt_ib_check_rc(rc, 0, "%s to rank %d (ibv_post_send)", op_name(op), peer);
    peer_fail(&c->peers[peer], op, IBV_WC_GENERAL_ERR);
    c->peers[peer].fail_reported = 1;
    return status == VBT_ERR_NO_RESOURCE ? VBT_ERR_IO : status;
}

static VBT_NOINLINE_COLD vbt_status_t send_post_failed(int peer, int rc, uint32_t b)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;

    if (b != 0)
        c->bounce_free[c->bounce_nfree++] = b - 1;
    return vbt_ib_post_failed(peer, rc, VBT_IB_OP_DATA);
}

vbt_status_t vbt_ib_send(int peer, const void *hdr, size_t hdr_len, const void *payload, size_t len)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    struct ibv_send_wr *bad;
    vbt_ib_peer_t *p;
    vbt_ib_hdr_t th;
    size_t total = sizeof(th) + hdr_len + len;
    uint32_t seq, b = 0;
    unsigned flags;
    int rc;

    if (unlikely((unsigned)peer >= (unsigned)c->size || hdr_len > VBT_IB_HDR_MAX ||
                 hdr_len + len > c->max_send))
        return send_refused(peer, hdr_len, len);
    p = &c->peers[peer];
    if (unlikely(p->credits <= 0 || p->sq_head - p->sq_tail >= c->sq_depth))
        return send_refused(peer, hdr_len, len);

    seq = p->sq_head;
    th.version = VBT_IB_WIRE_VERSION;
    th.type = VBT_IB_MSG_DATA;
    th.credits = (uint16_t)p->owed;
    th.src = (uint32_t)c->rank;
    if (total <= c->max_inline) {
        /* Inline: the provider copies the gather list into the WQE; no registration. */
        int n = 1;
        c->send_sge[0].addr = (uintptr_t)&th;
        c->send_sge[0].length = sizeof(th);
        if (hdr_len != 0) {
            c->send_sge[n].addr = (uintptr_t)hdr;
            c->send_sge[n++].length = (uint32_t)hdr_len;
        }
        if (len != 0) {
            c->send_sge[n].addr = (uintptr_t)payload;
            c->send_sge[n++].length = (uint32_t)len;
        }
        c->send_wr.num_sge = n;
        flags = IBV_SEND_INLINE;
    } else {
        char *buf;
        if (unlikely(c->bounce_nfree == 0))
            return VBT_ERR_NO_RESOURCE;
        b = c->bounce_free[--c->bounce_nfree] + 1;
        buf = bounce_buf(c, b - 1);
        memcpy(buf, &th, sizeof(th));
        memcpy(buf + sizeof(th), hdr, hdr_len);
        memcpy(buf + sizeof(th) + hdr_len, payload, len);
        c->send_sge[0].addr = (uintptr_t)buf;
        c->send_sge[0].length = (uint32_t)total;
        c->send_sge[0].lkey = c->lkey;
        c->send_wr.num_sge = 1;
        flags = 0;
    }
    if (vbt_ib_sq_signal(c, p, b != 0))
        flags |= IBV_SEND_SIGNALED;
    c->send_wr.wr_id = vbt_ib_send_wrid(VBT_IB_OP_DATA, peer, seq);
    c->send_wr.opcode = IBV_WR_SEND;
    c->send_wr.send_flags = flags;
    rc = ibv_post_send(p->qp, &c->send_wr, &bad);
    if (unlikely(rc != 0))
        return send_post_failed(peer, rc, b);
    p->sq_bounce[seq & c->sq_mask] = b;
    p->sq_head = seq + 1;
    p->credits--;
    p->owed = 0;
    return VBT_OK;
}

/* A header that is malformed, or comes from a peer not READY: 1 to go on with the message,
 * else the status to return. The first message on a QP in RTS proves the peer's QP is past
 * RTR: the connection is ready. */
static VBT_NOINLINE_COLD int rx_unusual(vbt_ib_ctx_t *c, const struct ibv_wc *wc, const char *bad,
                                        const vbt_ib_hdr_t *th)
{
    uint32_t src;

    if (bad != NULL)
        return bad_message(wc, bad);
    src = th->src;
    if (c->peers[src].qp == NULL || c->peers[src].qp->qp_num != wc->qp_num)
        return bad_message(wc, "src (not the rank connected to this QP)");
    if (c->peers[src].state == VBT_IB_PEER_RTS)
        vbt_ib_cm_peer_ready((int)src);
    return 1;
}

/* One arrival: check the header, hand the payload up, queue the buffer for re-posting. */
static inline int rx_one(vbt_ib_ctx_t *c, const struct ibv_wc *wc)
{
    const vbt_ib_rx_chunk_t *ch = rx_chunk_of(c, wc->wr_id);
    char *buf = ch->base + (size_t)(uint32_t)wc->wr_id * c->stride;
    const vbt_ib_hdr_limits_t lim = {.world_size = (uint32_t)c->size,
                                     .credits_max = (uint32_t)c->credits_max};
    vbt_ib_hdr_t th;
    const char *bad = vbt_ib_hdr_check(buf, wc->byte_len, &lim, &th);
    uint32_t src;
    uint32_t k;

    /* Everything the peer wrote is checked (vbt_ib_wire.h), and the rank it names must be the
     * one connected to the QP the message came on. */
    if (unlikely(bad != NULL || c->peers[th.src].qp == NULL ||
                 c->peers[th.src].qp->qp_num != wc->qp_num ||
                 c->peers[th.src].state != VBT_IB_PEER_READY)) {
        int st = rx_unusual(c, wc, bad, &th);
        if (st != 1)
            return st;
    }
    src = th.src;
    k = c->rx_batch++;
    c->rx_wr[k].wr_id = wc->wr_id;
    c->rx_sge[k].addr = (uintptr_t)buf;
    c->rx_sge[k].lkey = ch->lkey;
    c->rx_src[k] = (int)src;
    c->rx_credits[k] = th.credits;
    c->rx_is_data[k] = th.type == VBT_IB_MSG_DATA;
    if (likely(th.type == VBT_IB_MSG_DATA))
        c->recv_cb((int)src, buf + sizeof(th), wc->byte_len - sizeof(th));
    else if (th.type == VBT_IB_MSG_FIN)
        c->peers[src].fin_received = 1;
    return 0;
}

int vbt_ib_progress(void)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    struct ibv_wc wc[VBT_IB_POLL_BATCH];
    int n, fatal = 0;

    if (unlikely(c->in_progress))
        return 0;
    if (unlikely(c->conn_pending != 0))
        vbt_ib_cm_progress();
    n = ibv_poll_cq(c->cq, VBT_IB_POLL_BATCH, wc);
    if (likely(n == 0)) {
        if (unlikely(c->owe_count != 0))
            service_owed(c);
        return 0;
    }
    if (unlikely(n < 0))
        return poll_failed(n);

    c->in_progress = 1;
    for (int i = 0; i < n; i++) {
        int st;
        if (unlikely(wc[i].status != IBV_WC_SUCCESS))
            st = wc_error(&wc[i]);
        else if (wc[i].wr_id & (VBT_IB_WRID_RECV | VBT_IB_WRID_UD)) {
            /* The connection manager's UD QP shares the CQ (so a blocked rank wakes for it). */
            if (likely(!(wc[i].wr_id & VBT_IB_WRID_UD)))
                st = rx_one(c, &wc[i]);
            else
                st = vbt_ib_cm_completion(&wc[i]);
        } else {
            const vbt_ib_peer_t *p;
            p = &c->peers[(wc[i].wr_id >> VBT_IB_WRID_PEER_SHIFT) & 0xffffff];
            sq_retire(c, (vbt_ib_peer_t *)p, (uint32_t)wc[i].wr_id);
            st = 0;
        }
        if (unlikely(st < 0) && fatal == 0)
            fatal = st;
    }
    if (c->rx_batch != 0) {
        int st = rx_repost(c);
        if (unlikely(st < 0) && fatal == 0)
            fatal = st;
    }
    if (c->owe_count != 0)
        service_owed(c);
    c->in_progress = 0;
    return fatal != 0 ? fatal : n;
}

/* ---- blocking ----------------------------------------------------------------------------- */

int vbt_ib_wait_fd(void)
{
    return vbt_ib_ctx.channel->fd;
}

vbt_status_t vbt_ib_sleep_begin(int *sleep_p)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    vbt_status_t status;
    int n;

    *sleep_p = 0;
    status = vbt_ib_check_rc(ibv_req_notify_cq(c->cq, 0), 0,
                             "arming the completion queue (ibv_req_notify_cq)");
    if (status != VBT_OK)
        return status;
    /* A completion that arrived before the arm raises no event: poll once more. */
    n = vbt_ib_progress();
    if (n != 0)
        return n < 0 ? (vbt_status_t)n : VBT_OK;
    *sleep_p = 1;
    return VBT_OK;
}

vbt_status_t vbt_ib_sleep_end(int readable)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
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

vbt_status_t vbt_ib_block(int timeout_ms)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    struct pollfd pfd;
    vbt_status_t status;
    int sleep, rc;

    status = vbt_ib_sleep_begin(&sleep);
    if (status != VBT_OK || !sleep)
        return status;
    pfd.fd = c->channel->fd;
    pfd.events = POLLIN;
    pfd.revents = 0;
    if (unlikely(c->conn_pending != 0)) {
        int max = vbt_ib_max_sleep_ms();
        if (timeout_ms < 0 || timeout_ms > max)
            timeout_ms = max;
    }
    rc = poll(&pfd, 1, timeout_ms);
    if (rc < 0 && errno != EINTR) {
        vbt_error("poll() on the completion channel of %s failed: %m", c->choice.name);
        return VBT_ERR_IO;
    }
    return vbt_ib_sleep_end(rc > 0);
}

/* ---- finalize ----------------------------------------------------------------------------- */

void vbt_ib_eager_drain(int timeout_ms)
{
    vbt_ib_ctx_t *c = &vbt_ib_ctx;
    uint64_t deadline = vbt_now_ms() + (uint64_t)timeout_ms;

    for (;;) {
        int pending = 0, first = -1;
        for (int r = 0; r < c->size; r++) {
            vbt_ib_peer_t *p = &c->peers[r];
            if (p->state != VBT_IB_PEER_READY || p->fin_received)
                continue;
            if (!p->fin_posted)
                send_ctl(r, VBT_IB_MSG_FIN);
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
        if (vbt_ib_progress() == 0)
            vbt_ib_block(20);
    }
}
