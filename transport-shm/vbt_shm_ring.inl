/* The hot path of the ring (vbt_shm_ring.h explains the ordering): static inline, no lock, no
 * system call, no allocation. */
#ifndef VBT_SHM_RING_INL
#define VBT_SHM_RING_INL

#include <string.h>

#include "vbt_compiler.h"
#include "vbt_shm_ring.h"

/* ---- producer ---------------------------------------------------------------------------------
 */

/* The next free cell, or NULL when the ring is full. Fill data and len, then
 * vbt_shm_ring_commit(). */
static inline vbt_shm_cell_t *vbt_shm_ring_reserve(vbt_shm_producer_t *p)
{
    if (unlikely(p->tail - p->head_cache > p->mask)) {
        /* Acquire: the consumer's reads of the cell we are about to reuse come first. */
        p->head_cache = atomic_load_explicit(&p->ctrl->head, memory_order_acquire);
        if (p->tail - p->head_cache > p->mask)
            return NULL;
    }
    return &p->cells[p->tail & p->mask];
}

/* Publish the reserved cell: the consumer may read it from now on. */
static inline void vbt_shm_ring_commit(vbt_shm_producer_t *p, vbt_shm_cell_t *cell)
{
    p->tail++;
    atomic_store_explicit(&cell->seq, (uint32_t)p->tail, memory_order_release);
}

/* Copy hdr then payload into one cell and publish it. VBT_ERR_NO_RESOURCE when full. */
static inline vbt_status_t vbt_shm_ring_push(vbt_shm_producer_t *p, const void *hdr, size_t hdr_len,
                                             const void *payload, size_t len)
{
    vbt_shm_cell_t *cell;

    if (unlikely(hdr_len > VBT_SHM_CELL_DATA || len > VBT_SHM_CELL_DATA - hdr_len))
        return VBT_ERR_INVALID_PARAM;
    cell = vbt_shm_ring_reserve(p);
    if (unlikely(cell == NULL))
        return VBT_ERR_NO_RESOURCE;
    if (hdr_len > 0)
        memcpy(cell->data, hdr, hdr_len);
    if (len > 0)
        memcpy(cell->data + hdr_len, payload, len);
    cell->len = (uint32_t)(hdr_len + len);
    vbt_shm_ring_commit(p, cell);
    return VBT_OK;
}

/* Is there room now (head looked at again)? */
static inline int vbt_shm_ring_has_space(vbt_shm_producer_t *p)
{
    p->head_cache = atomic_load_explicit(&p->ctrl->head, memory_order_acquire);
    return p->tail - p->head_cache <= p->mask;
}

/* The ring being full: ask the consumer to say when a cell is free, then look again. 1: there
 * is room already (retry); 0: the request stands, the consumer will answer it. */
static inline int vbt_shm_ring_want_space(vbt_shm_producer_t *p)
{
    if (atomic_load_explicit(&p->ctrl->waiting, memory_order_relaxed) == 0) {
        atomic_store_explicit(&p->ctrl->waiting, 1, memory_order_relaxed);
        atomic_thread_fence(memory_order_seq_cst);
    }
    return vbt_shm_ring_has_space(p);
}

/* Having found room: withdraw a request the consumer has not answered. */
static inline void vbt_shm_ring_withdraw(vbt_shm_producer_t *p)
{
    atomic_store_explicit(&p->ctrl->waiting, 0, memory_order_relaxed);
}

/* ---- consumer ---------------------------------------------------------------------------------
 */

/* The oldest unread message's cell, or NULL when the ring is empty. Check it with
 * vbt_shm_ring_check(), read it, then vbt_shm_ring_release(). */
static inline const vbt_shm_cell_t *vbt_shm_ring_peek(const vbt_shm_consumer_t *c)
{
    const vbt_shm_cell_t *cell = &c->cells[c->head & c->mask];

    /* Acquire: the producer's writes to the cell are visible once we see its sequence. */
    if (atomic_load_explicit(&cell->seq, memory_order_acquire) != (uint32_t)(c->head + 1))
        return NULL;
    return cell;
}

/* The producer is another process: trust nothing it wrote. The cell's length, or -1 when it
 * does not fit. Read once: a corrupt producer cannot change it between the check and the
 * use. */
static inline int64_t vbt_shm_ring_check(const vbt_shm_cell_t *cell)
{
    uint32_t len = *(const volatile uint32_t *)&cell->len;

    return likely(len <= VBT_SHM_CELL_DATA) ? (int64_t)len : -1;
}

/* Hand the cell back to the producer. */
static inline void vbt_shm_ring_release(vbt_shm_consumer_t *c)
{
    c->head++;
    atomic_store_explicit(&c->ctrl->head, c->head, memory_order_release);
}

/* After releasing cells AND a seq_cst fence (or its asymmetric form, vbt_shm_ring.h): 1 when
 * the producer asked to be told about room (the request is consumed: tell it). */
static inline int vbt_shm_ring_take_waiter(vbt_shm_consumer_t *c)
{
    return atomic_load_explicit(&c->ctrl->waiting, memory_order_relaxed) != 0 &&
           atomic_exchange_explicit(&c->ctrl->waiting, 0, memory_order_acq_rel) != 0;
}

/* Messages waiting (looks at up to depth cells; not for the hot path). */
static inline uint64_t vbt_shm_ring_pending(const vbt_shm_consumer_t *c)
{
    uint64_t n = 0;

    while (n <= c->mask) {
        const vbt_shm_cell_t *cell = &c->cells[(c->head + n) & c->mask];
        if (atomic_load_explicit(&cell->seq, memory_order_acquire) != (uint32_t)(c->head + n + 1))
            break;
        n++;
    }
    return n;
}

#endif
