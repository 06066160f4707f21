/* Temporary buffers of the collectives, kept for reuse. A reduction's or a Bruck exchange's
 * temporary is written from its first byte to its last on every call; taken fresh from malloc
 * each time, a large one comes back from the kernel (glibc returns the top of the heap and
 * munmaps large blocks at free), and every page of it then costs a page fault and a clearing
 * again: for the 1 MiB reduce at 4 ranks on 2 cores, ~480 faults a call at the middle rank,
 * ~18 times the time Open MPI takes (README, Collectives on one node). So up to
 * four (vbt_rt.coll_tmp's slots) freed blocks of at most VBT_COLL_TMP_CACHE bytes stay in the
 * runtime object (vbt_rt.coll_tmp) and the next call takes the smallest that fits: in steady state
 * a collective allocates nothing. Larger ones are allocated and freed each time, so that one huge
 * call does not keep its memory for good. */
#include "vbt_coll_int.h"
#include "vbt_config.h"
#include "vbt_log.h"
#include "vbt_runtime.h"

#include <stdint.h>
#include <stdlib.h>

/* Each slot holds one freed block or NULL, taken and put back with atomic exchanges, so
 * threads calling collectives at once (MPI_THREAD_MULTIPLE) never share a block. A call holds
 * up to three at once (the binomial reduce's two under reduce_scatterv's result). */
#define SLOTS ((int)(sizeof(vbt_rt.coll_tmp) / sizeof(vbt_rt.coll_tmp[0])))

/* In front of each block: its usable bytes. 16 bytes keep malloc's alignment for the data. */
typedef struct {
    size_t cap;
    size_t pad;
} tmp_hdr_t;

#define PAGE 4096

static void *data_of(tmp_hdr_t *h)
{
    return h + 1;
}

static tmp_hdr_t *hdr_of(void *data)
{
    return (tmp_hdr_t *)data - 1;
}

/* Give a block to the cache, or back to malloc when it is too large. With every slot taken it
 * goes first and the others move down a slot, the last one out: the least recently freed is
 * dropped. A block is only read by whoever took it out of a slot. */
static void put(void **slot, tmp_hdr_t *h)
{
    if (h->cap > vbt_cfg.coll_tmp_cache) {
        free(h);
        return;
    }
    for (int i = 0; i < SLOTS; i++) {
        void *expected = NULL;

        if (__atomic_compare_exchange_n(&slot[i], &expected, h, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            return;
    }
    for (int i = 0; i < SLOTS && h != NULL; i++)
        h = __atomic_exchange_n(&slot[i], h, __ATOMIC_ACQ_REL);
    free(h);
}

/* The smallest kept block of at least bytes, taken out of the cache, or NULL. */
static tmp_hdr_t *take(void **slot, size_t bytes)
{
    tmp_hdr_t *best = NULL;

    if (bytes > vbt_cfg.coll_tmp_cache)
        return NULL;
    for (int i = 0; i < SLOTS; i++) {
        tmp_hdr_t *h;

        if (__atomic_load_n(&slot[i], __ATOMIC_RELAXED) == NULL)
            continue;
        h = __atomic_exchange_n(&slot[i], NULL, __ATOMIC_ACQ_REL);
        if (h == NULL)
            continue;
        if (h->cap >= bytes && (best == NULL || h->cap < best->cap)) {
            tmp_hdr_t *t = best;
            best = h;
            h = t;
        }
        if (h != NULL)
            put(slot, h);
    }
    return best;
}

void *vbt_coll_tmp_alloc(size_t count, MPI_Datatype dt)
{
    MPI_Aint lo, hi;
    size_t bytes;
    tmp_hdr_t *h;

    vbt_coll_range(count, dt, &lo, &hi);
    bytes = hi > lo ? (size_t)(hi - lo) : 1;
    h = take(vbt_rt.coll_tmp, bytes);
    if (h == NULL) {
        /* Whole pages: a slightly longer vector next time still fits. */
        size_t cap = bytes <= SIZE_MAX - PAGE ? (bytes + PAGE - 1) / PAGE * PAGE : bytes;

        h = cap <= SIZE_MAX - sizeof(*h) ? malloc(sizeof(*h) + cap) : NULL;
        if (h == NULL) {
            vbt_error("collective: no memory for a %zu-byte temporary buffer", bytes);
            return NULL;
        }
        h->cap = cap;
    }
    /* The lowest byte the elements touch is the block's first. */
    return (void *)((uintptr_t)data_of(h) - (uintptr_t)lo);
}

void vbt_coll_tmp_free(void *tmp, size_t count, MPI_Datatype dt)
{
    MPI_Aint lo, hi;

    if (tmp == NULL)
        return;
    vbt_coll_range(count, dt, &lo, &hi);
    put(vbt_rt.coll_tmp, hdr_of((void *)((uintptr_t)tmp + (uintptr_t)lo)));
}

void vbt_coll_tmp_cache_clear(void)
{
    void **slot = vbt_rt.coll_tmp;

    for (int i = 0; i < SLOTS; i++)
        free(__atomic_exchange_n(&slot[i], NULL, __ATOMIC_ACQ_REL));
}
