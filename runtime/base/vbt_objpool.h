/* Object pools for the runtime objects whose address is an MPI handle (requests, messages,
 * groups, user ops): validating a handle must not dereference it, since it may be made up, point
 * anywhere, or name an object already freed.
 *
 * A pool reserves one range of address space at its first allocation (PROT_NONE, so it costs
 * no memory) and makes it readable in steps as it grows; objects are carved from it one after
 * the other, a power of two apart, and once freed go to a free list, never back to malloc, until
 * the pool is destroyed at MPI_Finalize. So "is h one of our objects?" is computed from h without
 * reading memory: rotating h - base right by log2(stride) gives the object's index when h is at
 * an object's start and a huge number when it is not (low bits rotate into the top), so one
 * compare with the number of objects checks range and alignment at once. "Is it live?" then
 * reads our own memory: the object's first 32 bits, its magic number, which the pool zeroes when
 * the object is freed. On the fast path (MPI_Wait, MPI_Test) that is a subtract, a rotate and
 * two compares, where a chunk list needs a search and a table of handles a dependent load.
 *
 * A freed object's handle stays refused until the object is handed out again (a stale handle
 * then names the new object: erroneous in MPI, and what any pointer handle does). A pool takes
 * no lock of its own: with MPI_THREAD_MULTIPLE its users hold the runtime's critical section
 * (vbt_lock.h, vbt_rt.cs). */
#ifndef VBT_OBJPOOL_H
#define VBT_OBJPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vbt_compiler.h"

typedef struct vbt_objpool {
    uintptr_t base;     /* start of the reserved range; 0 until the first allocation */
    size_t count;       /* objects carved so far, live or free: indexes 0..count-1 */
    size_t mapped;      /* [base, base + mapped) is readable and writable */
    size_t reserved;    /* bytes of address space reserved */
    size_t stride;      /* VBT_OBJPOOL_STRIDE of the object size */
    size_t max_reserve; /* address space to ask for: the most objects the pool can hold */
    size_t link;        /* offset of the pointer that links a free object to the next one */
    void *free_list;
    const char *what; /* "request": for the message when the pool is full */
} vbt_objpool_t;

/* Objects of size bytes lie this far apart: the power of two that holds them (a constant
 * expression for a constant size). */
#define VBT_OBJPOOL_STRIDE(_size)                                                                  \
    ((size_t)1 << (64 - __builtin_clzll((unsigned long long)(_size)-1)))
#define VBT_OBJPOOL_SHIFT(_size) ((unsigned)__builtin_ctzll(VBT_OBJPOOL_STRIDE(_size)))

/* A pool of objects of _type, able to hold up to _max of them at once. Every pooled type starts
 * with a uint32_t magic (offset 0: zeroed when the object is freed, so its handle is refused) and
 * has a pointer member _link, which links the object into the free list while it is free (the
 * pool writes nothing else into a freed object). */
#define VBT_OBJPOOL_INITIALIZER(_type, _what, _max, _link)                                         \
    {                                                                                              \
        0, 0, 0, 0, VBT_OBJPOOL_STRIDE(sizeof(_type)),                                             \
            (size_t)(_max)*VBT_OBJPOOL_STRIDE(sizeof(_type)), offsetof(_type, _link), NULL, _what  \
    }

/* Out of line: carve a new object past the others, mapping more of the range if needed.
 * NULL (logged) when the range is full or cannot be reserved or mapped. */
void *vbt_objpool_grow(vbt_objpool_t *pool);

/* Unmap the range: every object and handle of the pool is gone, lookups fail from now on. */
void vbt_objpool_destroy(vbt_objpool_t *pool);

/* An object, its contents undefined (zeroes when new, the old object's when reused, magic 0). */
static inline void *vbt_objpool_alloc(vbt_objpool_t *pool)
{
    void *obj = pool->free_list;

    if (unlikely(obj == NULL))
        return vbt_objpool_grow(pool);
    memcpy(&pool->free_list, (char *)obj + pool->link, sizeof(void *));
    return obj;
}

/* Back to the free list; its magic is zeroed, so its handle is refused from now on. */
static inline void vbt_objpool_free(vbt_objpool_t *pool, void *obj)
{
    memset(obj, 0, sizeof(uint32_t));
    memcpy((char *)obj + pool->link, &pool->free_list, sizeof(void *));
    pool->free_list = obj;
}

/* In the functions below, size is sizeof the pooled type, so that stride and shift are
 * constants. */

/* The index of an object of the pool (0..count-1): a number for it that fits in 32 bits. */
static inline size_t vbt_objpool_index(const vbt_objpool_t *pool, const void *obj, size_t size)
{
    return ((uintptr_t)obj - pool->base) >> VBT_OBJPOOL_SHIFT(size);
}

/* The object of an index (live or free), or NULL when the pool has no such object. */
static inline void *vbt_objpool_at(const vbt_objpool_t *pool, size_t index, size_t size)
{
    if (unlikely(index >= pool->count))
        return NULL;
    return (void *)(pool->base + (index << VBT_OBJPOOL_SHIFT(size)));
}

/* A predefined handle (a small constant) inlined here makes the compiler see a read at a fixed
 * address on the path where it is in the pool, which it cannot rule out: not a real read. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"

/* The live object h points to (one of the pool's, its magic is magic), or NULL; nothing is read
 * unless h is the start of one of the pool's objects. */
static inline void *vbt_objpool_get(const vbt_objpool_t *pool, const void *h, size_t size,
                                    uint32_t magic)
{
    const unsigned shift = VBT_OBJPOOL_SHIFT(size);
    uintptr_t off = (uintptr_t)h - pool->base;
    uintptr_t index = off >> shift | off << (sizeof(off) * 8 - shift);
    uint32_t m;

    if (unlikely(index >= pool->count))
        return NULL;
    memcpy(&m, h, sizeof(m));
    return likely(m == magic) ? (void *)(uintptr_t)h : NULL;
}

#pragma GCC diagnostic pop

/* Loop over the live objects (those whose magic is _magic): slow paths and cleanup only. */
#define VBT_OBJPOOL_FOREACH(_pool, _type, _var, _magic)                                            \
    for (size_t _i = 0; _i < (_pool)->count; _i++)                                                 \
        for (_type *_var = vbt_objpool_at((_pool), _i, sizeof(_type)); _var != NULL; _var = NULL)  \
            if (_var->magic == (_magic))

#endif
