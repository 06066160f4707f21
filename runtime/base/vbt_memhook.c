/* Memory hooks: tell the registration cache when memory under a registration may be replaced.
 *
 * The problem. A registration pins the physical pages that backed [addr, addr + len) when it
 * was made. If the application unmaps that memory and later gets new memory at the same
 * virtual address (the kernel reuses the hole; glibc's malloc hands back the same block), the
 * cached registration still names the OLD pages: a send from there would transmit stale
 * bytes, a receive would land where the application never looks. So every cached registration
 * must be dropped before its virtual range can be given new pages.
 *
 * Where pages change: munmap, mremap (old range; the new one with MREMAP_FIXED), mmap with
 * MAP_FIXED over a live mapping, madvise DONTNEED/FREE/REMOVE (new zero pages on the next
 * touch), brk/sbrk shrinking the heap, shmdt. Applications and most libraries call these
 * through the PLT, so defining the symbols in libverbatim (which precedes libc in the lookup
 * scope) catches them. But glibc's malloc calls its internal __munmap/__madvise/__sbrk
 * directly, not through the PLT: free() of a large block (mmap-backed, >= M_MMAP_THRESHOLD,
 * 128 KiB by default) unmaps it invisibly to symbol interposition, and that is the most
 * common way big buffers die. UCX solves it by replacing the allocator (its own ptmalloc,
 * whose munmap it controls) and, for other allocators, patching the code of the syscall
 * wrappers in libc ("bistro"); Open MPI's patcher component also rewrites the first bytes of
 * munmap/mremap/madvise/brk/shmdt in libc with a jump to its hooks, which then catches the
 * internal calls too (they share the code).
 *
 * What Verbatim does, and why. Code patching is architecture-specific machine code written
 * into libc's text at run time (mprotect of executable pages, instruction-boundary
 * assumptions, breaks under some hardening), and shipping a malloc replaces the
 * application's allocator. Instead we interpose the allocator's release functions, free and
 * realloc (glibc documents malloc functions as interposable and routes its own internal calls
 * through the PLT as well, so libc's own frees, C++ operator delete and reallocarray land
 * here too), and forward each call to the real one (dlsym RTLD_NEXT: glibc's, or whatever
 * allocator comes after us). Before forwarding, the whole block, [ptr, ptr +
 * malloc_usable_size(ptr)), is reported as possibly released. That is conservative and
 * sufficient for glibc's malloc: it only ever returns to the kernel pages that lie entirely
 * inside free chunks (the unmapped mmap chunk itself, a trimmed heap top, an arena shrunk by
 * madvise), while every page of a registration holds bytes of a buffer that was live when it
 * was registered (the cache registers page-aligned expansions of buffers, merged only when
 * they overlap); such a page can only be released after that buffer is freed, and that free
 * went through this hook first. Other allocators (jemalloc, tcmalloc) call munmap/madvise
 * through the PLT, which the syscall hooks catch. The syscall hooks themselves issue the raw
 * system calls (syscall(2)), so no lookup of the real function is needed on that path.
 *
 * Cost. Every free pays one relaxed atomic load while no cache subscribes; afterwards a
 * comparison against the span of registered addresses, and only frees inside the span call
 * malloc_usable_size and record a range. A false positive (a small block sharing a page with a
 * registered buffer) costs one re-registration later, never correctness.
 *
 * Threads and signals. The MPI library runs on one thread per rank, but any thread of the
 * application may free memory. A hook never touches the cache: it appends the range to a
 * bounded multi-producer queue (Vyukov's array queue: one CAS to claim a cell, one release
 * store to publish it), with no lock, no allocation and no syscall, so it is safe from any
 * thread, from inside a driver library's own frees while the cache is mid-update, and re-entrantly.
 * The cache drains the queue at every lookup, so an unmap that happened before the lookup
 * (in the happens-before order the application must establish anyway before reusing memory
 * in MPI) is always applied first. If the queue is full, or a producer has claimed a cell but
 * not yet filled it when the consumer arrives (it is preempted, or a signal handler
 * interrupted it), the consumer reports "everything changed" and the cache drops every
 * registration: a lost event costs performance, never correctness. Not caught: raw
 * syscall(SYS_munmap) by the application, memory changed by another process (shared
 * mappings), and mremap/madvise issued by glibc's allocator on blocks not released through
 * free/realloc (there are none in glibc 2.36). */
#include "config.h"

#include "vbt_compiler.h"
#include "vbt_memhook.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#define VBT_EXPORT __attribute__((visibility("default")))

#define RING_SIZE 256 /* a power of two */
#define RING_MASK (RING_SIZE - 1)
/* How long the consumer waits for a producer that claimed a cell to fill it. */
#define STUCK_SPINS 4096

typedef struct {
    _Atomic uint64_t seq; /* == position: free for it; == position + 1: filled */
    uintptr_t start;
    uintptr_t end;
} cell_t;

static struct {
    _Atomic int owned; /* a subscriber holds the queue (producers read only active) */
    _Atomic int active;
    _Atomic uintptr_t lo, hi;
    _Atomic uint64_t head; /* next position producers claim */
    uint64_t tail;         /* next position the consumer reads */
    _Atomic int overflow;  /* an event was dropped: report everything */
    _Atomic uint64_t recorded, overflows;
    cell_t cells[RING_SIZE];
} hk;

/* ---- the queue ------------------------------------------------------------------------------- */

/* The hooks run before anything else in the process, sanitizers included: AddressSanitizer
 * calls free and mmap during its own start-up, before its shadow memory exists, so nothing on
 * the hooks' path may be instrumented. */
#define VBT_HOOK_FN __attribute__((no_sanitize("address", "undefined")))

VBT_HOOK_FN static void record(uintptr_t start, uintptr_t end)
{
    uint64_t pos = atomic_load_explicit(&hk.head, memory_order_relaxed);
    cell_t *cell;

    for (;;) {
        uint64_t seq;
        int64_t dif;
        cell = &hk.cells[pos & RING_MASK];
        seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
        dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&hk.head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed))
                break;
        } else if (dif < 0) {
            /* Full: the consumer will drop everything, which covers this range. */
            atomic_store(&hk.overflow, 1);
            atomic_fetch_add_explicit(&hk.overflows, 1, memory_order_relaxed);
            return;
        } else {
            pos = atomic_load_explicit(&hk.head, memory_order_relaxed);
        }
    }
    cell->start = start;
    cell->end = end;
    atomic_store_explicit(&cell->seq, pos + 1, memory_order_release);
    atomic_fetch_add_explicit(&hk.recorded, 1, memory_order_relaxed);
}

/* [start, end) may get new pages: record it if it touches what is registered. */
VBT_HOOK_FN static inline void note_range(uintptr_t start, uintptr_t end)
{
    uintptr_t lo, hi;

    if (likely(!atomic_load_explicit(&hk.active, memory_order_relaxed)))
        return;
    lo = atomic_load_explicit(&hk.lo, memory_order_acquire);
    hi = atomic_load_explicit(&hk.hi, memory_order_acquire);
    if (end <= lo || start >= hi || end <= start)
        return;
    record(start, end);
}

int vbt_memhook_subscribe(void)
{
    if (atomic_exchange(&hk.owned, 1))
        return 0;
    atomic_store(&hk.active, 0);
    for (uint64_t i = 0; i < RING_SIZE; i++)
        atomic_store_explicit(&hk.cells[i].seq, i, memory_order_relaxed);
    atomic_store(&hk.head, 0);
    hk.tail = 0;
    atomic_store(&hk.overflow, 0);
    atomic_store(&hk.recorded, 0);
    atomic_store(&hk.overflows, 0);
    atomic_store(&hk.lo, 0);
    atomic_store(&hk.hi, 0);
    atomic_store(&hk.active, 1);
    return 1;
}

void vbt_memhook_unsubscribe(void)
{
    atomic_store(&hk.active, 0);
    atomic_store(&hk.owned, 0);
}

void vbt_memhook_set_span(uintptr_t lo, uintptr_t hi)
{
    /* Widening must be visible before the registration is used; narrowing only saves work. */
    atomic_store_explicit(&hk.lo, lo, memory_order_release);
    atomic_store_explicit(&hk.hi, hi, memory_order_release);
}

size_t vbt_memhook_drain(vbt_memhook_fn_t fn, void *arg)
{
    size_t n = 0;

    for (;;) {
        cell_t *cell = &hk.cells[hk.tail & RING_MASK];
        uint64_t seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
        uintptr_t start, end;

        if (seq != hk.tail + 1) {
            unsigned spins = 0;
            /* Empty, or claimed but not filled yet: wait briefly for the producer, whose
             * caller has not released the memory yet; then give up on precision. */
            if (atomic_load_explicit(&hk.head, memory_order_acquire) == hk.tail)
                break;
            while (seq != hk.tail + 1 && ++spins < STUCK_SPINS) {
                vbt_cpu_relax();
                seq = atomic_load_explicit(&cell->seq, memory_order_acquire);
            }
            if (seq != hk.tail + 1) {
                atomic_store(&hk.overflow, 1);
                break;
            }
        }
        start = cell->start;
        end = cell->end;
        atomic_store_explicit(&cell->seq, hk.tail + RING_SIZE, memory_order_release);
        hk.tail++;
        fn(arg, start, end);
        n++;
    }
    if (unlikely(atomic_load_explicit(&hk.overflow, memory_order_relaxed)) &&
        atomic_exchange(&hk.overflow, 0)) {
        fn(arg, 0, UINTPTR_MAX);
        n++;
    }
    return n;
}

void vbt_memhook_counts(uint64_t *recorded_p, uint64_t *overflows_p)
{
    *recorded_p = atomic_load(&hk.recorded);
    *overflows_p = atomic_load(&hk.overflows);
}

/* ---- the real allocator functions ------------------------------------------------------------ */

/* glibc's own entry points, used only while dlsym itself is running (it does not free on its
 * success path, but a recursive call must not loop). Weak: absent outside glibc. Not under
 * AddressSanitizer: a block freed during its start-up is its own, which glibc's free aborts
 * on; such a free leaks, as it does without glibc. */
#ifdef __SANITIZE_ADDRESS__
#define VBT_LIBC_FREE    ((void (*)(void *))NULL)
#define VBT_LIBC_REALLOC ((void *(*)(void *, size_t))NULL)
#else
extern void __libc_free(void *ptr) __attribute__((weak));
extern void *__libc_realloc(void *ptr, size_t size) __attribute__((weak));
#define VBT_LIBC_FREE    __libc_free
#define VBT_LIBC_REALLOC __libc_realloc
#endif
extern void *__sbrk(intptr_t increment) __attribute__((weak));
extern int __brk(void *addr) __attribute__((weak));

typedef void (*free_fn_t)(void *);
typedef void *(*realloc_fn_t)(void *, size_t);
typedef size_t (*usable_fn_t)(void *);
typedef void *(*sbrk_fn_t)(intptr_t);
typedef int (*brk_fn_t)(void *);

static struct {
    _Atomic(free_fn_t) free;
    _Atomic(realloc_fn_t) realloc;
    _Atomic(usable_fn_t) usable;
    _Atomic(sbrk_fn_t) sbrk;
    _Atomic(brk_fn_t) brk;
    _Atomic int resolving;
} real;

/* The next definition of name after this library (the allocator's own). NULL while another
 * lookup is running: the caller falls back. */
VBT_HOOK_FN static void *resolve(const char *name)
{
    void *p;

    if (atomic_exchange(&real.resolving, 1))
        return NULL;
    p = dlsym(RTLD_NEXT, name);
    atomic_store(&real.resolving, 0);
    return p;
}

/* The real function behind field _name of `real`, looked up as symbol _sym on first use. */
#define REAL(_name, _type, _sym)                                                                   \
    __extension__({                                                                                \
        _type _fn = atomic_load_explicit(&real._name, memory_order_acquire);                       \
        if (unlikely(_fn == NULL)) {                                                               \
            _fn = (_type)resolve(_sym);                                                            \
            if (_fn != NULL)                                                                       \
                atomic_store_explicit(&real._name, _fn, memory_order_release);                     \
        }                                                                                          \
        _fn;                                                                                       \
    })

/* Resolve early, while the process is still single-threaded (library constructors). */
VBT_HOOK_FN __attribute__((constructor(101))) static void memhook_init(void)
{
    (void)REAL(free, free_fn_t, "free");
    (void)REAL(realloc, realloc_fn_t, "realloc");
    (void)REAL(usable, usable_fn_t, "malloc_usable_size");
}

VBT_HOOK_FN static inline void note_block(void *ptr)
{
    uintptr_t p = (uintptr_t)ptr;
    usable_fn_t usable;
    size_t n;

    if (likely(!atomic_load_explicit(&hk.active, memory_order_relaxed)) ||
        p >= atomic_load_explicit(&hk.hi, memory_order_acquire))
        return;
    usable = REAL(usable, usable_fn_t, "malloc_usable_size");
    n = usable != NULL ? usable(ptr) : SIZE_MAX - p; /* unknown size: everything above */
    note_range(p, p + n);
}

/* ---- the hooks ------------------------------------------------------------------------------- */

VBT_HOOK_FN VBT_EXPORT void free(void *ptr)
{
    free_fn_t f;

    if (ptr == NULL)
        return;
    note_block(ptr);
    f = REAL(free, free_fn_t, "free");
    if (likely(f != NULL))
        f(ptr);
    else if (VBT_LIBC_FREE != NULL)
        VBT_LIBC_FREE(ptr);
    /* else: a free from inside dlsym before any allocator is known: leaked, once. */
}

VBT_HOOK_FN VBT_EXPORT void *realloc(void *ptr, size_t size)
{
    realloc_fn_t f;

    if (ptr != NULL)
        note_block(ptr); /* it may move (mremap or a new block): the old range dies */
    f = REAL(realloc, realloc_fn_t, "realloc");
    if (likely(f != NULL))
        return f(ptr, size);
    if (VBT_LIBC_REALLOC != NULL)
        return VBT_LIBC_REALLOC(ptr, size);
    errno = ENOMEM;
    return NULL;
}

VBT_HOOK_FN VBT_EXPORT int munmap(void *addr, size_t len)
{
    note_range((uintptr_t)addr, (uintptr_t)addr + len);
    return (int)syscall(SYS_munmap, addr, len);
}

VBT_HOOK_FN VBT_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    va_list ap;

    if (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) {
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    note_range((uintptr_t)old, (uintptr_t)old + old_len);
    if (flags & MREMAP_FIXED) /* whatever was mapped at the target is replaced */
        note_range((uintptr_t)new_addr, (uintptr_t)new_addr + new_len);
    return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
}

VBT_HOOK_FN VBT_EXPORT int madvise(void *addr, size_t len, int advice)
{
    if (advice == MADV_DONTNEED || advice == MADV_FREE || advice == MADV_REMOVE
#ifdef MADV_DONTNEED_LOCKED
        || advice == MADV_DONTNEED_LOCKED
#endif
    )
        note_range((uintptr_t)addr, (uintptr_t)addr + len);
    return (int)syscall(SYS_madvise, addr, len, advice);
}

VBT_HOOK_FN static void *mmap_common(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if ((flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE))
        note_range((uintptr_t)addr, (uintptr_t)addr + len); /* replaces what is mapped there */
    return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

VBT_HOOK_FN VBT_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return mmap_common(addr, len, prot, flags, fd, off);
}

VBT_HOOK_FN VBT_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
                                    off64_t off)
{
    return mmap_common(addr, len, prot, flags, fd, (off_t)off);
}

/* brk and sbrk keep glibc's idea of the break (__curbrk) right: forward to the real ones. */
VBT_HOOK_FN VBT_EXPORT void *sbrk(intptr_t increment)
{
    sbrk_fn_t f = REAL(sbrk, sbrk_fn_t, "sbrk");

    if (f == NULL)
        f = __sbrk;
    if (f == NULL) {
        errno = ENOSYS;
        return (void *)-1;
    }
    if (increment < 0) {
        uintptr_t cur = (uintptr_t)f(0);
        note_range(cur + (uintptr_t)increment, cur);
    }
    return f(increment);
}

VBT_HOOK_FN VBT_EXPORT int brk(void *addr)
{
    brk_fn_t f = REAL(brk, brk_fn_t, "brk");
    sbrk_fn_t s = REAL(sbrk, sbrk_fn_t, "sbrk");

    if (f == NULL)
        f = __brk;
    if (s == NULL)
        s = __sbrk;
    if (f == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (s != NULL) {
        uintptr_t cur = (uintptr_t)s(0);
        if ((uintptr_t)addr < cur)
            note_range((uintptr_t)addr, cur);
    }
    return f(addr);
}

/* The segment's size is not known here (it would take a read of /proc/self/maps): report
 * everything. Detaching shared memory is rare. */
VBT_HOOK_FN VBT_EXPORT int shmdt(const void *addr)
{
    note_range(0, UINTPTR_MAX);
    return (int)syscall(SYS_shmdt, addr);
}
