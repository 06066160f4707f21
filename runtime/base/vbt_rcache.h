/* The registration cache: registrations by page-aligned address range, reused across messages,
 * least recently used ones evicted over a byte limit, never one in use, and invalidated when
 * the memory under them is unmapped (vbt_memhook.h). Pure logic over a register/deregister op
 * pair, so the unit tests drive it with a fake op and a transport plugs in its own.
 *
 * Single-threaded: one thread (the MPI thread) calls every function here. Memory events from
 * any thread reach it through vbt_memhook's lock-free queue, drained at each lookup. */
#ifndef VBT_RCACHE_H
#define VBT_RCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "vbt_status.h"

/* What a registration allows beyond local reads (bit for bit the contract's VBT_TL_MEM_*). */
#define VBT_RCACHE_WRITE       0x1u /* remote (and local) write: the target of an RDMA WRITE */
#define VBT_RCACHE_READ        0x2u /* remote read: the source of a peer's RDMA READ */
#define VBT_RCACHE_ATOMIC      0x4u /* remote atomics (and local write) */
#define VBT_RCACHE_LOCAL_WRITE 0x8u /* the destination of our READ or of an atomic's result */

/* The register op: register [addr, addr + len) (page-aligned) with exactly `need` (a
 * VBT_RCACHE_* set: no more, so no region lets a peer write where no receive needs it); on
 * success set *handle_p and *got_p (the VBT_RCACHE_* set granted). VBT_ERR_NO_MEMORY or
 * VBT_ERR_MEMLOCK make the cache evict every unused registration and try once more. The op
 * logs its own failures. */
typedef struct {
    vbt_status_t (*reg)(void *ctx, void *addr, size_t len, unsigned need, void **handle_p,
                        unsigned *got_p);
    void (*dereg)(void *ctx, void *handle);
    void *ctx;
} vbt_rcache_ops_t;

typedef struct vbt_rcache_region {
    uintptr_t start; /* page-aligned */
    uintptr_t end;   /* page-aligned, exclusive */
    void *handle;    /* from the register op (what the transport registered) */
    unsigned access; /* VBT_RCACHE_* granted */
    int refcount;    /* operations using it; never evicted nor deregistered while > 0 */
    int detached;    /* invalidated or replaced while in use: deregistered at the last put */
    struct vbt_rcache_region *lru_prev, *lru_next; /* unused and attached: the LRU list */
} vbt_rcache_region_t;

typedef struct {
    uint64_t hits;
    uint64_t misses;
    uint64_t evictions;     /* unused registrations dropped to stay under the limit */
    uint64_t invalidations; /* registrations dropped because their memory was unmapped */
    uint64_t flushes;       /* memory-event queue overflows: everything dropped */
    size_t bytes;           /* registered now (cached and in use) */
    size_t peak_bytes;
    size_t regions; /* in the lookup table now */
} vbt_rcache_stats_t;

typedef struct vbt_rcache vbt_rcache_t;

/* max_bytes: registered bytes above which unused registrations are evicted (in-use ones may
 * exceed it). page_size: a power of two. watch_memory: receive the process's memory events;
 * only one cache at a time can (vbt_memhook has one queue): while another one watches,
 * VBT_ERR_NO_RESOURCE and nothing is created. */
vbt_status_t vbt_rcache_create(const vbt_rcache_ops_t *ops, size_t max_bytes, size_t page_size,
                               int watch_memory, vbt_rcache_t **rcache_p);
/* Deregister everything (in-use registrations too: the caller is shutting down). */
void vbt_rcache_destroy(vbt_rcache_t *rc);

/* A registration covering [addr, addr + len) with at least `need`, its refcount taken.
 * len > 0. */
vbt_status_t vbt_rcache_get(vbt_rcache_t *rc, const void *addr, size_t len, unsigned need,
                            vbt_rcache_region_t **region_p);
/* Drop the reference vbt_rcache_get took. */
void vbt_rcache_put(vbt_rcache_t *rc, vbt_rcache_region_t *region);

/* The memory [start, end) changed under us (unmapped, remapped, discarded): drop every
 * registration overlapping it (in-use ones at their last put). */
void vbt_rcache_invalidate(vbt_rcache_t *rc, uintptr_t start, uintptr_t end);

void vbt_rcache_stats(const vbt_rcache_t *rc, vbt_rcache_stats_t *stats_p);

#endif
