/* Storage for unexpected messages, sized by the message. The transports copy every arrival
 * out at once (the shm ring cell and the ib receive buffer, with its credit, go back as soon as
 * the upcall returns), so what an unexpected message holds is only this storage:
 *   - a 128-byte record, from a free list of records that grows 256 at a time, which keeps
 *     payloads up to VBT_UNEXP_INLINE bytes itself;
 *   - above that, a buffer of the smallest of VBT_UNEXP_CLASSES size classes that holds the
 *     payload (64 bytes to 64 KiB, two classes to an octave), from that class's free list,
 *     which grows a chunk of about 64 KiB at a time;
 *   - above VBT_UNEXP_CLASS_MAX (a fragmented message under a rendezvous threshold raised
 *     past 64k), a buffer malloc'ed to size and freed when the message is received.
 * So a steady flow allocates nothing, and a flood of small messages takes memory in proportion
 * to its bytes. Chunks go back to the system at MPI_Finalize (a flood's high-water mark stays,
 * as with Open MPI's free lists). Like MPICH and Open MPI, the storage grows as long as malloc
 * gives memory, or up to VBT_UNEXP_MAX bytes when set; past that the arrival is refused with an
 * error naming the cause, and the rank's MPI calls fail with MPI_ERR_NO_MEM. Each VCI has its
 * own storage; the bound is the rank's, over all of them (one atomic counter, touched only
 * when a store grows or a large buffer is freed). */
#include "vbt_config.h"
#include "vbt_p2p_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(vbt_unexp_t) == 128, "an unexpected-message record is 128 bytes");

/* Where a record's payload is (vbt_unexp_t.store): 0 .. VBT_UNEXP_CLASSES - 1: that class. */
#define STORE_INLINE 0xfe /* in the record (or none: a rendezvous) */
#define STORE_MALLOC 0xff /* malloc'ed to size */

#define RECORDS_PER_CHUNK 256
#define CHUNK_BYTES       65536
/* A chunk starts with the link to the next chunk, padded so its buffers stay 16-byte aligned. */
#define CHUNK_HEAD 16

/* Bytes every VCI's storage took from malloc, against VBT_UNEXP_MAX. */
static _Atomic size_t unexp_mem;

/* The class of a payload of len bytes (len <= VBT_UNEXP_CLASS_MAX): class 0 (64 bytes) up to
 * 64 bytes; above, with 2^b < len <= 2^(b+1), class 2(b-6)+1 (3 * 2^(b-1) bytes) when len fits
 * it, else class 2(b-6)+2 (2^(b+1) bytes). */
static inline unsigned class_of(size_t len)
{
    size_t n = len - 1; /* 2^b <= n < 2^(b+1) */
    unsigned b;

    if (len <= 64)
        return 0;
    b = 63u - (unsigned)__builtin_clzll((unsigned long long)n);
    return 2u * (b - 6u) + 1u + (unsigned)((n >> (b - 1u)) & 1u);
}

/* 64, 96, 128, 192, 256, ...: even classes 64 * 2^(cls/2), odd ones 96 * 2^(cls/2). */
static inline size_t class_size(unsigned cls)
{
    return (size_t)((cls & 1u) ? 96 : 64) << (cls / 2u);
}

void vbt_p2p_unexp_init(vbt_vci_t *vci)
{
    memset(&vci->unexp, 0, sizeof(vci->unexp));
    vci->unexp.max = vbt_cfg.unexp_max;
}

void vbt_p2p_unexp_cleanup(vbt_vci_t *vci)
{
    vbt_unexp_store_t *s = &vci->unexp;

    if (s->live > 0)
        vbt_debug("%zu unexpected message(s) of %zu bytes were never received", s->live,
                  s->live_bytes);
    while (s->chunks != NULL) {
        void *c = s->chunks;
        s->chunks = *(void **)c;
        free(c);
    }
    atomic_fetch_sub_explicit(&unexp_mem, s->mem, memory_order_relaxed);
    memset(s, 0, sizeof(*s));
}

/* No room for a message of len bytes from src_world: say why and what to do, once. */
static VBT_NOINLINE_COLD void refused(const vbt_unexp_store_t *s, size_t len, int src_world,
                                      size_t want)
{
    size_t total = atomic_load_explicit(&unexp_mem, memory_order_relaxed);

    if (s->max != 0 && total + want > s->max)
        vbt_error("no room for an unexpected message of %zu bytes from rank %d: unexpected "
                  "messages take %zu bytes (%zu messages of %zu payload bytes wait for their "
                  "receives) and VBT_UNEXP_MAX is %zu. The program sends faster than it posts "
                  "receives: post them earlier, or raise VBT_UNEXP_MAX (0: no bound)",
                  len, src_world, total, s->live, s->live_bytes, s->max);
    else
        vbt_error("out of memory for an unexpected message of %zu bytes from rank %d (malloc of "
                  "%zu bytes failed): unexpected messages take %zu bytes (%zu messages of %zu "
                  "payload bytes wait for their receives). The program sends faster than it "
                  "posts receives: post them earlier",
                  len, src_world, want, s->mem, s->live, s->live_bytes);
}

/* want bytes from malloc within the bound, or NULL (logged). */
static void *take(vbt_unexp_store_t *s, size_t want, size_t len, int src_world)
{
    void *p = NULL;
    size_t before = atomic_fetch_add_explicit(&unexp_mem, want, memory_order_relaxed);

    if (s->max == 0 || before + want <= s->max)
        p = malloc(want);
    if (p == NULL) {
        atomic_fetch_sub_explicit(&unexp_mem, want, memory_order_relaxed);
        refused(s, len, src_world, want);
        return NULL;
    }
    s->mem += want;
    return p;
}

/* A new chunk of n objects of size bytes onto the free list *list_p; 0 when refused. */
static VBT_NOINLINE_COLD int grow(vbt_unexp_store_t *s, void **list_p, size_t size, size_t n,
                                  size_t len, int src_world)
{
    char *c = take(s, CHUNK_HEAD + n * size, len, src_world);

    if (c == NULL)
        return 0;
    *(void **)c = s->chunks;
    s->chunks = c;
    for (size_t i = n; i-- > 0;) {
        void *obj = c + CHUNK_HEAD + i * size;
        *(void **)obj = *list_p;
        *list_p = obj;
    }
    return 1;
}

vbt_unexp_t *vbt_p2p_unexp_alloc(vbt_vci_t *vci, size_t len, int with_data, int src_world)
{
    vbt_unexp_store_t *s = &vci->unexp;
    vbt_unexp_t *u;

    if (unlikely(s->records == NULL) &&
        !grow(s, (void **)&s->records, sizeof(vbt_unexp_t), RECORDS_PER_CHUNK, len, src_world))
        return NULL;
    u = s->records;
    s->records = u->next;
    memset(u, 0, offsetof(vbt_unexp_t, inline_data));
    if (!with_data) {
        u->store = STORE_INLINE; /* data NULL: a rendezvous keeps its payload at the sender */
        len = 0;
    } else if (len <= VBT_UNEXP_INLINE) {
        u->store = STORE_INLINE;
        u->data = u->inline_data;
    } else if (likely(len <= VBT_UNEXP_CLASS_MAX)) {
        unsigned cls = class_of(len);
        size_t size = class_size(cls);
        if (unlikely(s->slots[cls] == NULL) &&
            !grow(s, &s->slots[cls], size, size < CHUNK_BYTES / 4 ? CHUNK_BYTES / size : 4, len,
                  src_world))
            goto err_give_record;
        u->data = s->slots[cls];
        s->slots[cls] = *(void **)u->data;
        u->store = (uint8_t)cls;
    } else {
        if ((u->data = take(s, len, len, src_world)) == NULL)
            goto err_give_record;
        u->store = STORE_MALLOC;
    }
    u->len = len;
    s->live++;
    s->live_bytes += len;
    vci->stats.unexp_len++;
    vci->stats.unexp_hwm =
        vci->stats.unexp_len > vci->stats.unexp_hwm ? vci->stats.unexp_len : vci->stats.unexp_hwm;
    return u;

err_give_record:
    u->next = s->records;
    s->records = u;
    return NULL;
}

void vbt_p2p_unexp_release(vbt_vci_t *vci, vbt_unexp_t *u)
{
    vbt_unexp_store_t *s = &vci->unexp;
    size_t len = u->data != NULL ? u->len : 0;

    if (u->store < VBT_UNEXP_CLASSES) {
        *(void **)u->data = s->slots[u->store];
        s->slots[u->store] = u->data;
    } else if (u->store == STORE_MALLOC) {
        free(u->data);
        s->mem -= u->len;
        atomic_fetch_sub_explicit(&unexp_mem, u->len, memory_order_relaxed);
    }
    s->live--;
    s->live_bytes -= len;
    u->next = s->records;
    s->records = u;
    vci->stats.unexp_len--;
}
