/* Pool and queue sizes for a number of peers: credits per peer, receive and bounce buffers,
 * send-queue depth and CQ entries, and estimates of what they pin (vbt_ib_int.h has the
 * constants and why). Arithmetic only: init sizes the transport with it, verbatim-info shows
 * it for a few world sizes, and the connect path asks what more peers would pin. */
#include "vbt_ib_int.h"

static uint32_t pow2_at_least(uint32_t v)
{
    uint32_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

/* Queue memory a hardware provider pins per QP: send WQEs with inline room. */
static size_t qp_bytes(const vbt_ib_sizes_t *s)
{
    return vbt_ib_page_align((size_t)s->sq_depth * (64 + VBT_IB_INLINE_WANT));
}

uint32_t vbt_ib_cq_entries(const vbt_ib_sizes_t *s, int peers)
{
    /* + the loopback's one-sided WRs (vbt_ib_loopback_connect), at most a put window. */
    return (uint32_t)peers * (s->rx_per_peer + s->sq_depth) + VBT_IB_UD_RECV + VBT_IB_UD_SEND +
           VBT_IB_PUT_WINDOW;
}

size_t vbt_ib_sizes_pinned(const vbt_ib_sizes_t *s, int peers)
{
    size_t more = 0;

    if (peers < s->first_peers)
        peers = s->first_peers;
    if (peers > s->first_peers)
        more = vbt_ib_page_align((size_t)(peers - s->first_peers) * s->rx_per_peer * s->stride);
    /* Queues a hardware provider pins too (rxe keeps them in the kernel): send WQEs, CQEs, and
     * the SRQ's ring, made for the whole world at init (vbt_ib_eager_init in vbt_ib_pool.c says
     * why). */
    return s->pool_bytes + more + (size_t)peers * qp_bytes(s) +
           vbt_ib_page_align((size_t)vbt_ib_cq_entries(s, peers) * 64) +
           vbt_ib_page_align((size_t)s->rx_count * 32) +
           vbt_ib_page_align((size_t)(VBT_IB_UD_RECV + VBT_IB_UD_SEND) * VBT_IB_UD_SLOT);
}

void vbt_ib_sizes(int npeers, size_t eager_limit, int first_peers, vbt_ib_sizes_t *s)
{
    uint32_t n = npeers > 0 ? (uint32_t)npeers : 1; /* a singleton still exercises the pool */
    int credits = (int)(VBT_IB_RX_TARGET / n) - VBT_IB_CTL_RESERVE;
    int first = first_peers > 0 ? first_peers : 1;
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
    s->pool_bytes = vbt_ib_page_align((size_t)(s->rx_first + bounce) * s->stride);
    s->pinned_bytes = vbt_ib_sizes_pinned(s, s->first_peers);
    s->pinned_all = vbt_ib_sizes_pinned(s, (int)n);
    s->peer_bytes = (size_t)s->rx_per_peer * s->stride + qp_bytes(s) +
                    (size_t)(s->rx_per_peer + s->sq_depth) * 64;
}
