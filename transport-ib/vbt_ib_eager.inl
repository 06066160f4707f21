/* Hot-path helpers shared by the eager files: the send path and the poll loop (vbt_ib_eager.c),
 * the control messages (vbt_ib_credit.c) and the completion errors (vbt_ib_wc_error.c). Static
 * inline, so each is inlined where it is called, as when these files were one. */
#ifndef VBT_IB_EAGER_INL
#define VBT_IB_EAGER_INL

#include "vbt_ib_int.h"

/* The chunk of a receive wr_id (masked: a corrupt wr_id cannot index out of the table). */
static inline const vbt_ib_rx_chunk_t *vbt_ib_rx_chunk_of(const vbt_ib_iface_t *c, uint64_t wr_id)
{
    return &c->rx_chunk[(wr_id >> VBT_IB_WRID_CHUNK_SHIFT) & (VBT_IB_RX_CHUNKS_MAX - 1)];
}

static inline char *vbt_ib_rx_buf(const vbt_ib_iface_t *c, uint64_t wr_id)
{
    return vbt_ib_rx_chunk_of(c, wr_id)->base + (size_t)(uint32_t)wr_id * c->stride;
}

static inline char *vbt_ib_bounce_buf(const vbt_ib_iface_t *c, uint32_t idx)
{
    return c->bounce_base + (size_t)idx * c->stride;
}

/* Whether to signal the WR about to be posted on p, updating the unsignalled counters: one in
 * sig_every WRs, and one in sig_every_bounce of those holding a bounce buffer. */
static inline int vbt_ib_sq_signal(const vbt_ib_iface_t *c, vbt_ib_peer_t *p, int bounce)
{
    uint32_t unsig = p->unsig + 1u;
    uint32_t ub = p->unsig_bounce + (uint32_t)bounce;

    if (unsig >= c->sig_every || ub >= c->sig_every_bounce) {
        p->unsig = 0;
        p->unsig_bounce = 0;
        return 1;
    }
    p->unsig = (uint16_t)unsig;
    p->unsig_bounce = (uint16_t)ub;
    return 0;
}

/* Retire every WR of peer up to and including seq: free their bounce buffers, and report the
 * one-sided operations whose last WR is among them as done. */
static inline void vbt_ib_sq_retire(vbt_ib_iface_t *c, vbt_ib_peer_t *p, uint32_t seq)
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
                c->up.rma_done(c->up.arg, put != VBT_IB_RMA_NULL ? put : NULL, VBT_OK);
        }
    }
}

#endif
