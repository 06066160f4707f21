/* Object pools: reserving the range, mapping it as it fills, giving it back. See vbt_objpool.h. */
#include "vbt_objpool.h"

#include "vbt_log.h"

#include <sys/mman.h>
#include <unistd.h>

/* Map this much at a time: a few hundred requests, few enough system calls. */
#define VBT_OBJPOOL_STEP (64 * 1024)

/* Reserve the range, halving the request when the address space is limited (ulimit -v). */
static int reserve(vbt_objpool_t *pool)
{
    size_t len = pool->max_reserve;
    long page = sysconf(_SC_PAGESIZE);

    len = (len + VBT_OBJPOOL_STEP - 1) / VBT_OBJPOOL_STEP * VBT_OBJPOOL_STEP;
    for (;;) {
        void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            pool->base = (uintptr_t)p;
            pool->reserved = len;
            return 0;
        }
        if (len <= (size_t)(page > 0 ? page : 4096) || len / 2 < pool->stride) {
            vbt_error("cannot reserve address space for %ss: mmap of %zu bytes failed: %m",
                      pool->what, len);
            return -1;
        }
        len /= 2;
    }
}

void *vbt_objpool_grow(vbt_objpool_t *pool)
{
    size_t used = pool->count * pool->stride;
    void *obj;

    if (pool->base == 0 && reserve(pool) != 0)
        return NULL;
    if (used + pool->stride > pool->mapped) {
        size_t step = VBT_OBJPOOL_STEP;
        if (step > pool->reserved - pool->mapped)
            step = pool->reserved - pool->mapped;
        if (used + pool->stride > pool->mapped + step) {
            vbt_error("more than %zu %ss at once: the %zu bytes of address space reserved for "
                      "them are full (complete or free some before starting more)",
                      pool->count, pool->what, pool->reserved);
            return NULL;
        }
        if (mprotect((void *)(pool->base + pool->mapped), step, PROT_READ | PROT_WRITE) != 0) {
            vbt_error("cannot map %zu more bytes for %ss: %m", step, pool->what);
            return NULL;
        }
        pool->mapped += step;
    }
    obj = (void *)(pool->base + used);
    pool->count++;
    return obj;
}

void vbt_objpool_destroy(vbt_objpool_t *pool)
{
    if (pool->base != 0)
        munmap((void *)pool->base, pool->reserved);
    pool->base = 0;
    pool->count = pool->mapped = pool->reserved = 0;
    pool->free_list = NULL;
}
