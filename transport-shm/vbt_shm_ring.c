/* Ring set-up: sizes, formatting, attaching each side's private view (vbt_shm_ring.h). */
#include "vbt_shm_ring.h"

_Static_assert(offsetof(vbt_shm_cell_t, data) == 8, "a cell's data follows seq and len");
_Static_assert(sizeof(vbt_shm_cell_t) % VBT_SHM_CACHE_LINE == 0, "cells are whole cache lines");
_Static_assert(offsetof(vbt_shm_ring_ctrl_t, waiting) == VBT_SHM_CACHE_LINE &&
                   sizeof(vbt_shm_ring_ctrl_t) == 2 * VBT_SHM_CACHE_LINE,
               "head and waiting have a cache line each");
_Static_assert((VBT_SHM_RING_DEPTH & (VBT_SHM_RING_DEPTH - 1)) == 0,
               "the ring depth is a power of two");

size_t vbt_shm_ring_cells_bytes(uint32_t depth)
{
    return (size_t)depth * sizeof(vbt_shm_cell_t);
}

void vbt_shm_ring_format(vbt_shm_ring_ctrl_t *ctrl, vbt_shm_cell_t *cells, uint32_t depth,
                         uint64_t start)
{
    /* Cell i is first used at the position p = start + ((i - start) mod depth); it must not read
     * as full (p + 1) before then. Zero does not when start is 0. */
    for (uint32_t i = 0; start != 0 && i < depth; i++) {
        uint64_t p = start + ((i - start) & (depth - 1));
        atomic_store_explicit(&cells[i].seq, (uint32_t)p, memory_order_relaxed);
    }
    atomic_store_explicit(&ctrl->waiting, 0, memory_order_relaxed);
    atomic_store_explicit(&ctrl->head, start, memory_order_release);
}

void vbt_shm_producer_attach(vbt_shm_producer_t *p, vbt_shm_ring_ctrl_t *ctrl,
                             vbt_shm_cell_t *cells, uint32_t depth)
{
    p->ctrl = ctrl;
    p->cells = cells;
    p->mask = depth - 1;
    p->head_cache = atomic_load_explicit(&ctrl->head, memory_order_acquire);
    p->tail = p->head_cache;
}

void vbt_shm_consumer_attach(vbt_shm_consumer_t *c, vbt_shm_ring_ctrl_t *ctrl,
                             vbt_shm_cell_t *cells, uint32_t depth)
{
    c->ctrl = ctrl;
    c->cells = cells;
    c->mask = depth - 1;
    c->head = atomic_load_explicit(&ctrl->head, memory_order_acquire);
}
