/* The registration cache (see vbt_rcache.h for the contract, vbt_memhook.c for how
 * unmapped memory is detected and why that is enough).
 *
 * Layout. The registrations a lookup can find ("attached") never overlap; they sit in an
 * array sorted by start address, so a lookup is one binary search: the only candidate is the
 * last region starting at or before the page-aligned request. A miss registers the
 * page-aligned request merged with every attached region it overlaps that has the access
 * needed (so a buffer that is sent from at shifting offsets converges to one registration);
 * the regions it overlaps are deregistered, or, when in use, detached: still valid for their
 * users, deregistered at their last put. Invalidation does the same to every region
 * overlapping the changed range.
 *
 * Only whole pages of live buffers are ever registered (page-aligned expansions of request
 * ranges, merged only where they overlap): the memory-hook argument depends on it, so there
 * is no rounding up to bigger chunks and no merging of merely adjacent regions.
 *
 * Eviction. Attached regions with no user sit on an LRU list (least recently released
 * first); when the registered bytes exceed the limit after a put or a new registration, the
 * head is deregistered until they fit or the list is empty. A region in use is never on the
 * list, so it is never evicted.
 *
 * Cost of a hit: the memory-event check (one atomic load when nothing happened), a binary
 * search and two list operations. No allocation: region structures are recycled through a
 * free list (freeing them would also report their memory as changed, see the hooks), and only
 * a miss, which registers (a system call) anyway, may grow the array or the free list. */
#include "vbt_rcache.h"
#include "vbt_compiler.h"
#include "vbt_memhook.h"
#include "vbt_log.h"

#include <stdlib.h>
#include <string.h>

struct vbt_rcache {
    vbt_rcache_ops_t ops;
    size_t max_bytes;
    uintptr_t page_mask;
    int watch;
    vbt_rcache_region_t **sorted; /* attached regions by start address */
    size_t count;
    size_t capacity;
    vbt_rcache_region_t lru; /* sentinel: lru.lru_next is the least recently used */
    vbt_rcache_region_t *spare;
    vbt_rcache_region_t **blocks; /* every allocation of region structures, for destroy */
    size_t nblocks;
    vbt_rcache_stats_t stats;
};

#define REGION_BLOCK 64

/* ---- bookkeeping ----------------------------------------------------------------------------- */

static void lru_remove(vbt_rcache_region_t *r)
{
    r->lru_prev->lru_next = r->lru_next;
    r->lru_next->lru_prev = r->lru_prev;
    r->lru_prev = r->lru_next = NULL;
}

static void lru_append(vbt_rcache_t *rc, vbt_rcache_region_t *r)
{
    r->lru_prev = rc->lru.lru_prev;
    r->lru_next = &rc->lru;
    rc->lru.lru_prev->lru_next = r;
    rc->lru.lru_prev = r;
}

static vbt_rcache_region_t *region_alloc(vbt_rcache_t *rc)
{
    vbt_rcache_region_t *r, **blocks;

    if (rc->spare == NULL) {
        r = calloc(REGION_BLOCK, sizeof(*r));
        blocks = realloc(rc->blocks, (rc->nblocks + 1) * sizeof(*blocks));
        if (r == NULL || blocks == NULL) {
            free(r);
            if (blocks != NULL)
                rc->blocks = blocks;
            return NULL;
        }
        rc->blocks = blocks;
        rc->blocks[rc->nblocks++] = r;
        for (int i = 0; i < REGION_BLOCK; i++) {
            r[i].lru_next = rc->spare;
            rc->spare = &r[i];
        }
    }
    r = rc->spare;
    rc->spare = r->lru_next;
    memset(r, 0, sizeof(*r));
    return r;
}

static void region_release(vbt_rcache_t *rc, vbt_rcache_region_t *r)
{
    rc->ops.dereg(rc->ops.ctx, r->handle);
    rc->stats.bytes -= r->end - r->start;
    r->handle = NULL;
    r->lru_next = rc->spare;
    rc->spare = r;
}

/* Tell the hooks where registrations are, so frees elsewhere cost nothing. */
static void publish_span(vbt_rcache_t *rc)
{
    rc->stats.regions = rc->count;
    if (!rc->watch)
        return;
    if (rc->count == 0)
        vbt_memhook_set_span(0, 0);
    else
        vbt_memhook_set_span(rc->sorted[0]->start, rc->sorted[rc->count - 1]->end);
}

/* Index of the first attached region ending after addr (count if none). Attached regions do
 * not overlap, so their ends are sorted too. */
static size_t first_ending_after(const vbt_rcache_t *rc, uintptr_t addr)
{
    size_t lo = 0, hi = rc->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rc->sorted[mid]->end > addr)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Take sorted[i] out of the lookup table: deregister it, or detach it when in use. */
static void drop_at(vbt_rcache_t *rc, size_t i)
{
    vbt_rcache_region_t *r = rc->sorted[i];

    memmove(&rc->sorted[i], &rc->sorted[i + 1], (rc->count - i - 1) * sizeof(*rc->sorted));
    rc->count--;
    if (r->refcount > 0) {
        r->detached = 1;
        return;
    }
    lru_remove(r);
    region_release(rc, r);
}

static void evict(vbt_rcache_t *rc, size_t limit)
{
    while (rc->stats.bytes > limit && rc->lru.lru_next != &rc->lru) {
        vbt_rcache_region_t *r = rc->lru.lru_next;
        size_t i = first_ending_after(rc, r->start);
        vbt_debug("rcache: evicting [%#lx, %#lx) (%zu bytes; %zu registered, limit %zu)",
                  (unsigned long)r->start, (unsigned long)r->end, (size_t)(r->end - r->start),
                  rc->stats.bytes, rc->max_bytes);
        rc->stats.evictions++;
        drop_at(rc, i);
    }
    publish_span(rc);
}

static void invalidate_range(vbt_rcache_t *rc, uintptr_t start, uintptr_t end)
{
    size_t i = first_ending_after(rc, start);
    int dropped = 0;

    while (i < rc->count && rc->sorted[i]->start < end) {
        vbt_rcache_region_t *r = rc->sorted[i];
        vbt_debug("rcache: memory at [%#lx, %#lx) changed: dropping registration [%#lx, %#lx)%s",
                  (unsigned long)start, (unsigned long)end, (unsigned long)r->start,
                  (unsigned long)r->end, r->refcount > 0 ? " (in use: at its last release)" : "");
        rc->stats.invalidations++;
        drop_at(rc, i);
        dropped = 1;
    }
    if (dropped)
        publish_span(rc);
}

static void on_memory_event(void *arg, uintptr_t start, uintptr_t end)
{
    vbt_rcache_t *rc = arg;

    if (start == 0 && end == UINTPTR_MAX) {
        rc->stats.flushes++;
        vbt_debug("rcache: memory events were lost (queue overflow): dropping all %zu "
                  "registrations",
                  rc->count);
    }
    invalidate_range(rc, start, end);
}

/* ---- the interface --------------------------------------------------------------------------- */

vbt_status_t vbt_rcache_create(const vbt_rcache_ops_t *ops, size_t max_bytes, size_t page_size,
                               int watch_memory, vbt_rcache_t **rcache_p)
{
    vbt_rcache_t *rc;

    if (watch_memory && !vbt_memhook_subscribe())
        return VBT_ERR_NO_RESOURCE;
    rc = calloc(1, sizeof(*rc));
    if (rc == NULL) {
        if (watch_memory)
            vbt_memhook_unsubscribe();
        return VBT_ERR_NO_MEMORY;
    }
    rc->ops = *ops;
    rc->max_bytes = max_bytes;
    rc->page_mask = (uintptr_t)page_size - 1;
    rc->lru.lru_next = rc->lru.lru_prev = &rc->lru;
    rc->watch = watch_memory;
    *rcache_p = rc;
    return VBT_OK;
}

void vbt_rcache_destroy(vbt_rcache_t *rc)
{
    if (rc == NULL)
        return;
    if (rc->watch)
        vbt_memhook_unsubscribe();
    vbt_debug("rcache: %llu hits, %llu misses, %llu evictions, %llu invalidations, %llu "
              "flushes; %zu bytes in %zu registrations at the end, peak %zu bytes",
              (unsigned long long)rc->stats.hits, (unsigned long long)rc->stats.misses,
              (unsigned long long)rc->stats.evictions, (unsigned long long)rc->stats.invalidations,
              (unsigned long long)rc->stats.flushes, rc->stats.bytes, rc->count,
              rc->stats.peak_bytes);
    /* Attached regions; detached ones still in use were leaked by their users and die with the
     * protection domain. */
    for (size_t i = 0; i < rc->count; i++)
        rc->ops.dereg(rc->ops.ctx, rc->sorted[i]->handle);
    for (size_t i = 0; i < rc->nblocks; i++)
        free(rc->blocks[i]);
    free(rc->blocks);
    free(rc->sorted);
    free(rc);
}

void vbt_rcache_invalidate(vbt_rcache_t *rc, uintptr_t start, uintptr_t end)
{
    invalidate_range(rc, start, end);
}

static VBT_NOINLINE_COLD vbt_status_t miss(vbt_rcache_t *rc, uintptr_t start, uintptr_t end,
                                           unsigned need, vbt_rcache_region_t **region_p)
{
    vbt_rcache_region_t *r;
    size_t i = first_ending_after(rc, start), j;
    uintptr_t mstart = start, mend = end;
    vbt_status_t status;
    void *handle = NULL;
    unsigned got = 0, want = need;

    rc->stats.misses++;
    /* Merge with every attached region the request overlaps, unless it lacks the access
     * needed (read-only memory next to the request would make the merged registration fail):
     * such a region is only dropped. A merged region keeps the access it had: a receive buffer
     * that a send overlaps stays a receive target instead of flipping at every use. */
    for (j = i; j < rc->count && rc->sorted[j]->start < end; j++) {
        if ((rc->sorted[j]->access & need) != need)
            continue;
        want |= rc->sorted[j]->access;
        if (rc->sorted[j]->start < mstart)
            mstart = rc->sorted[j]->start;
        if (rc->sorted[j]->end > mend)
            mend = rc->sorted[j]->end;
    }
    if (rc->count == rc->capacity) {
        size_t cap = rc->capacity ? 2 * rc->capacity : 64;
        vbt_rcache_region_t **s = realloc(rc->sorted, cap * sizeof(*s));
        if (s == NULL)
            return VBT_ERR_NO_MEMORY;
        rc->sorted = s;
        rc->capacity = cap;
    }
    r = region_alloc(rc);
    if (r == NULL)
        return VBT_ERR_NO_MEMORY;

    vbt_debug("rcache: miss for [%#lx, %#lx): registering [%#lx, %#lx) (%zu bytes, %zu "
              "registered)",
              (unsigned long)start, (unsigned long)end, (unsigned long)mstart, (unsigned long)mend,
              (size_t)(mend - mstart), rc->stats.bytes);
    status = rc->ops.reg(rc->ops.ctx, (void *)mstart, mend - mstart, want, &handle, &got);
    if (status == VBT_ERR_NO_MEMORY || status == VBT_ERR_MEMLOCK) {
        /* Pinned memory ran out: give back everything unused and try once more. */
        vbt_debug("rcache: registration failed (%s): evicting every unused registration and "
                  "trying again",
                  vbt_status_string(status));
        evict(rc, 0);
        status = rc->ops.reg(rc->ops.ctx, (void *)mstart, mend - mstart, want, &handle, &got);
    }
    if (status != VBT_OK && want != need) {
        /* The merge asked for more than the request needs (write access over a send buffer
         * that cannot be written, a const one): register the request alone, as it needs. */
        vbt_debug("rcache: registration of the merged [%#lx, %#lx) failed (%s): registering "
                  "[%#lx, %#lx) alone",
                  (unsigned long)mstart, (unsigned long)mend, vbt_status_string(status),
                  (unsigned long)start, (unsigned long)end);
        mstart = start;
        mend = end;
        status = rc->ops.reg(rc->ops.ctx, (void *)mstart, mend - mstart, need, &handle, &got);
    }
    if (status != VBT_OK) {
        r->lru_next = rc->spare;
        rc->spare = r;
        return status;
    }

    /* The regions merged in leave the table (their users keep them until their put). */
    i = first_ending_after(rc, mstart);
    while (i < rc->count && rc->sorted[i]->start < mend)
        drop_at(rc, i);
    r->start = mstart;
    r->end = mend;
    r->handle = handle;
    r->access = got;
    r->refcount = 1;
    memmove(&rc->sorted[i + 1], &rc->sorted[i], (rc->count - i) * sizeof(*rc->sorted));
    rc->sorted[i] = r;
    rc->count++;
    rc->stats.bytes += mend - mstart;
    if (rc->stats.bytes > rc->stats.peak_bytes)
        rc->stats.peak_bytes = rc->stats.bytes;
    evict(rc, rc->max_bytes); /* also publishes the span */
    *region_p = r;
    return VBT_OK;
}

vbt_status_t vbt_rcache_get(vbt_rcache_t *rc, const void *addr, size_t len, unsigned need,
                            vbt_rcache_region_t **region_p)
{
    uintptr_t start = (uintptr_t)addr & ~rc->page_mask;
    uintptr_t end = ((uintptr_t)addr + len + rc->page_mask) & ~rc->page_mask;
    size_t i;

    if (rc->watch)
        vbt_memhook_drain(on_memory_event, rc);
    i = first_ending_after(rc, start);
    if (likely(i < rc->count)) {
        vbt_rcache_region_t *r = rc->sorted[i];
        if (likely(r->start <= start && r->end >= end && (r->access & need) == need)) {
            if (r->refcount++ == 0)
                lru_remove(r);
            rc->stats.hits++;
            vbt_trace("rcache: hit [%#lx, %#lx) in [%#lx, %#lx)", (unsigned long)start,
                      (unsigned long)end, (unsigned long)r->start, (unsigned long)r->end);
            *region_p = r;
            return VBT_OK;
        }
    }
    return miss(rc, start, end, need, region_p);
}

void vbt_rcache_put(vbt_rcache_t *rc, vbt_rcache_region_t *r)
{
    if (--r->refcount > 0)
        return;
    if (r->detached) {
        region_release(rc, r);
        return;
    }
    lru_append(rc, r);
    if (unlikely(rc->stats.bytes > rc->max_bytes))
        evict(rc, rc->max_bytes);
}

void vbt_rcache_stats(const vbt_rcache_t *rc, vbt_rcache_stats_t *stats_p)
{
    *stats_p = rc->stats;
    stats_p->regions = rc->count;
}
