/* The registration cache over a fake register op: hits inside cached page ranges, merging,
 * LRU eviction under the byte limit, in-use registrations never evicted, access upgrades,
 * retry after pinning failures; then the memory hooks for real: munmap, mmap MAP_FIXED,
 * madvise, mremap, free and realloc of large blocks (from this thread and another), a queue
 * overflow, and frees elsewhere costing nothing. */
#include "config.h"

#include <check.h>
#include "vbt_check.h"
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vbt_memhook.h"
#include "vbt_rcache.h"

#define PAGE    4096u
#define MAX_MRS 512

typedef struct {
    uintptr_t start, end;
    unsigned access;
    int live;
} fake_mr_t;

static struct {
    fake_mr_t mrs[MAX_MRS];
    int nreg, ndereg;
    int fail_next;            /* fail this many registrations... */
    vbt_status_t fail_status; /* ...with this */
    int readonly;             /* memory cannot be registered for writing */
} fake;

static vbt_status_t fake_reg(void *ctx, void *addr, size_t len, unsigned need, void **handle_p,
                             unsigned *got_p)
{
    fake_mr_t *mr;

    ck_assert_ptr_eq(ctx, &fake);
    ck_assert_uint_eq((uintptr_t)addr % PAGE, 0);
    ck_assert_uint_eq(len % PAGE, 0);
    ck_assert_uint_gt(len, 0);
    if (fake.fail_next > 0) {
        fake.fail_next--;
        return fake.fail_status;
    }
    if (fake.readonly && (need & VBT_RCACHE_WRITE))
        return VBT_ERR_IO;
    ck_assert_int_lt(fake.nreg, MAX_MRS);
    mr = &fake.mrs[fake.nreg++];
    mr->start = (uintptr_t)addr;
    mr->end = (uintptr_t)addr + len;
    mr->access = need; /* exactly what was asked for, like transport-ib's op */
    mr->live = 1;
    *handle_p = mr;
    *got_p = mr->access;
    return VBT_OK;
}

static void fake_dereg(void *ctx, void *handle)
{
    fake_mr_t *mr = handle;

    ck_assert_ptr_eq(ctx, &fake);
    ck_assert_int_eq(mr->live, 1);
    mr->live = 0;
    fake.ndereg++;
}

static const vbt_rcache_ops_t fake_ops = {.reg = fake_reg, .dereg = fake_dereg, .ctx = &fake};

static vbt_rcache_t *make(size_t max_bytes, int watch)
{
    vbt_rcache_t *rc = NULL;

    memset(&fake, 0, sizeof(fake));
    ck_assert_int_eq(vbt_rcache_create(&fake_ops, max_bytes, PAGE, watch, &rc), VBT_OK);
    return rc;
}

static vbt_rcache_region_t *get(vbt_rcache_t *rc, uintptr_t addr, size_t len, unsigned need)
{
    vbt_rcache_region_t *r = NULL;

    ck_assert_int_eq(vbt_rcache_get(rc, (const void *)addr, len, need, &r), VBT_OK);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_le(r->start, addr);
    ck_assert_uint_ge(r->end, addr + len);
    return r;
}

static vbt_rcache_stats_t stats(const vbt_rcache_t *rc)
{
    vbt_rcache_stats_t st;
    vbt_rcache_stats(rc, &st);
    return st;
}

/* Fake addresses far from anything real: only the watch=0 tests use them. */
#define BASE ((uintptr_t)0x100000000000ull)

START_TEST(test_hit_inside)
{
    vbt_rcache_t *rc = make(1 << 20, 0);
    vbt_rcache_region_t *a, *b, *c;

    a = get(rc, BASE + 100, 5000, VBT_RCACHE_WRITE); /* pages 0 and 1 */
    ck_assert_uint_eq(a->start, BASE);
    ck_assert_uint_eq(a->end, BASE + 2 * PAGE);
    ck_assert_int_eq(fake.nreg, 1);
    b = get(rc, BASE + PAGE, 100, VBT_RCACHE_WRITE); /* inside: a hit */
    ck_assert_ptr_eq(a, b);
    ck_assert_int_eq(a->refcount, 2);
    vbt_rcache_put(rc, a);
    vbt_rcache_put(rc, b);
    c = get(rc, BASE, 2 * PAGE, 0); /* cached after its last put */
    ck_assert_ptr_eq(c, a);
    vbt_rcache_put(rc, c);
    ck_assert_int_eq(fake.nreg, 1);
    ck_assert_int_eq(fake.ndereg, 0);
    ck_assert_uint_eq(stats(rc).hits, 2);
    ck_assert_uint_eq(stats(rc).misses, 1);
    ck_assert_uint_eq(stats(rc).bytes, 2 * PAGE);
    /* Just past the end is a miss. */
    c = get(rc, BASE + 2 * PAGE - 1, 2, 0);
    ck_assert_ptr_ne(c, a);
    ck_assert_uint_eq(c->start, BASE);
    ck_assert_uint_eq(c->end, BASE + 3 * PAGE); /* merged with the overlapped region */
    ck_assert_int_eq(fake.ndereg, 1);
    vbt_rcache_put(rc, c);
    vbt_rcache_destroy(rc);
    ck_assert_int_eq(fake.ndereg, fake.nreg);
}
END_TEST

START_TEST(test_many_regions)
{
    vbt_rcache_t *rc = make((size_t)1 << 30, 0);

    /* Out of order, spaced apart: each its own region, all found again. */
    for (int k = 0; k < 300; k++) {
        uintptr_t a = BASE + (uintptr_t)((k * 37) % 300) * 4 * PAGE;
        vbt_rcache_put(rc, get(rc, a + 10, PAGE, 0));
    }
    ck_assert_int_eq(fake.nreg, 300);
    ck_assert_uint_eq(stats(rc).regions, 300);
    for (int k = 0; k < 300; k++) {
        vbt_rcache_region_t *r = get(rc, BASE + (uintptr_t)k * 4 * PAGE + PAGE, 100, 0);
        ck_assert_uint_eq(r->start, BASE + (uintptr_t)k * 4 * PAGE);
        vbt_rcache_put(rc, r);
    }
    ck_assert_int_eq(fake.nreg, 300);
    ck_assert_uint_eq(stats(rc).hits, 300);
    vbt_rcache_destroy(rc);
    ck_assert_int_eq(fake.ndereg, 300);
}
END_TEST

START_TEST(test_merge)
{
    vbt_rcache_t *rc = make(1 << 20, 0);
    vbt_rcache_region_t *r;

    vbt_rcache_put(rc, get(rc, BASE, 2 * PAGE, 0));
    vbt_rcache_put(rc, get(rc, BASE + 4 * PAGE, PAGE, 0));
    /* Overlaps both: one region covering all three, the old two deregistered. */
    r = get(rc, BASE + PAGE, 4 * PAGE, 0);
    ck_assert_uint_eq(r->start, BASE);
    ck_assert_uint_eq(r->end, BASE + 5 * PAGE);
    ck_assert_int_eq(fake.ndereg, 2);
    ck_assert_uint_eq(stats(rc).regions, 1);
    ck_assert_uint_eq(stats(rc).bytes, 5 * PAGE);
    vbt_rcache_put(rc, r);
    /* Adjacent is not overlapping: no merge. */
    r = get(rc, BASE + 5 * PAGE, PAGE, 0);
    ck_assert_uint_eq(r->start, BASE + 5 * PAGE);
    ck_assert_uint_eq(stats(rc).regions, 2);
    vbt_rcache_put(rc, r);
    vbt_rcache_destroy(rc);
}
END_TEST

START_TEST(test_lru_eviction)
{
    vbt_rcache_t *rc = make(2 * PAGE, 0);
    vbt_rcache_region_t *a, *b, *c;

    a = get(rc, BASE, PAGE, 0);
    vbt_rcache_put(rc, a);
    b = get(rc, BASE + 10 * PAGE, PAGE, 0);
    vbt_rcache_put(rc, b);
    /* a used again: b is now the least recently used. */
    vbt_rcache_put(rc, get(rc, BASE, PAGE, 0));
    c = get(rc, BASE + 20 * PAGE, PAGE, 0);
    ck_assert_int_eq(fake.ndereg, 1);
    ck_assert_int_eq(fake.mrs[1].live, 0); /* b */
    ck_assert_int_eq(fake.mrs[0].live, 1); /* a */
    ck_assert_uint_eq(stats(rc).evictions, 1);
    vbt_rcache_put(rc, c);
    ck_assert_uint_eq(stats(rc).bytes, 2 * PAGE);
    /* b is a miss again; a is still a hit. */
    vbt_rcache_put(rc, get(rc, BASE, PAGE, 0));
    ck_assert_uint_eq(stats(rc).misses, 3);
    vbt_rcache_put(rc, get(rc, BASE + 10 * PAGE, PAGE, 0));
    ck_assert_uint_eq(stats(rc).misses, 4);
    vbt_rcache_destroy(rc);
}
END_TEST

START_TEST(test_in_use_never_evicted)
{
    vbt_rcache_t *rc = make(PAGE, 0);
    vbt_rcache_region_t *a, *b;

    a = get(rc, BASE, 4 * PAGE, 0); /* alone above the limit: allowed while in use */
    b = get(rc, BASE + 10 * PAGE, PAGE, 0);
    ck_assert_int_eq(fake.ndereg, 0);
    ck_assert_uint_eq(stats(rc).bytes, 5 * PAGE);
    vbt_rcache_put(rc, b); /* unused and over the limit: dropped at once */
    ck_assert_int_eq(fake.ndereg, 1);
    ck_assert_int_eq(fake.mrs[1].live, 0);
    ck_assert_int_eq(fake.mrs[0].live, 1);
    vbt_rcache_put(rc, a);
    ck_assert_int_eq(fake.ndereg, 2);
    ck_assert_uint_eq(stats(rc).bytes, 0);
    ck_assert_uint_eq(stats(rc).evictions, 2);
    vbt_rcache_destroy(rc);
}
END_TEST

START_TEST(test_invalidate)
{
    vbt_rcache_t *rc = make(1 << 20, 0);
    vbt_rcache_region_t *a, *b, *b2;

    a = get(rc, BASE, 2 * PAGE, 0);
    vbt_rcache_put(rc, a);
    b = get(rc, BASE + 8 * PAGE, 2 * PAGE, 0);                   /* held */
    vbt_rcache_invalidate(rc, BASE + PAGE + 5, BASE + PAGE + 6); /* inside a */
    ck_assert_int_eq(fake.mrs[0].live, 0);
    vbt_rcache_invalidate(rc, BASE + 9 * PAGE, BASE + 20 * PAGE); /* b, in use */
    ck_assert_int_eq(fake.mrs[1].live, 1);                        /* its user still has it */
    ck_assert_uint_eq(stats(rc).invalidations, 2);
    ck_assert_uint_eq(stats(rc).regions, 0);
    b2 = get(rc, BASE + 8 * PAGE, 2 * PAGE, 0); /* never the invalidated one */
    ck_assert_ptr_ne(b2, b);
    ck_assert_int_eq(fake.nreg, 3);
    vbt_rcache_put(rc, b); /* last user: deregistered now */
    ck_assert_int_eq(fake.mrs[1].live, 0);
    ck_assert_int_eq(fake.mrs[2].live, 1);
    vbt_rcache_put(rc, b2);
    /* A range touching nothing changes nothing. */
    vbt_rcache_invalidate(rc, BASE + 100 * PAGE, BASE + 200 * PAGE);
    ck_assert_uint_eq(stats(rc).regions, 1);
    vbt_rcache_destroy(rc);
    ck_assert_int_eq(fake.ndereg, 3);
}
END_TEST

START_TEST(test_access_upgrade)
{
    vbt_rcache_t *rc = make(1 << 20, 0);
    vbt_rcache_region_t *a, *b;

    fake.readonly = 1; /* a const buffer: a send registers it read-only */
    a = get(rc, BASE, PAGE, 0);
    ck_assert_uint_eq(a->access, 0);
    fake.readonly = 0;
    b = get(rc, BASE, PAGE, VBT_RCACHE_WRITE); /* a receive needs write: re-registered */
    ck_assert_ptr_ne(a, b);
    ck_assert_uint_eq(b->access, VBT_RCACHE_WRITE);
    vbt_rcache_put(rc, a); /* it was replaced while in use: gone now */
    ck_assert_int_eq(fake.mrs[0].live, 0);
    vbt_rcache_put(rc, b);
    vbt_rcache_put(rc, get(rc, BASE, PAGE, 0)); /* a writable one serves sends too */
    ck_assert_int_eq(fake.nreg, 2);
    /* A read-only region overlapping a request for write is not merged into it (that would
     * make the registration fail): it is only dropped. */
    fake.readonly = 1;
    vbt_rcache_put(rc, get(rc, BASE + 10 * PAGE, 2 * PAGE, 0));
    fake.readonly = 0;
    b = get(rc, BASE + 11 * PAGE, 2 * PAGE, VBT_RCACHE_WRITE);
    ck_assert_uint_eq(b->start, BASE + 11 * PAGE);
    ck_assert_uint_eq(b->end, BASE + 13 * PAGE);
    ck_assert_int_eq(fake.mrs[2].live, 0);
    vbt_rcache_put(rc, b);
    vbt_rcache_destroy(rc);
}
END_TEST

START_TEST(test_access_narrow)
{
    vbt_rcache_t *rc = make(1 << 20, 0);
    vbt_rcache_region_t *a, *b;

    /* A send buffer is registered for local reads only, even where it could be written. */
    a = get(rc, BASE, PAGE, 0);
    ck_assert_uint_eq(a->access, 0);
    ck_assert_uint_eq(fake.mrs[0].access, 0);
    vbt_rcache_put(rc, a);
    /* A send overlapping a receive buffer merges with it and keeps its write access (no
     * re-registration at every alternation of the two). */
    vbt_rcache_put(rc, get(rc, BASE + 10 * PAGE, 2 * PAGE, VBT_RCACHE_WRITE));
    a = get(rc, BASE + 11 * PAGE, 2 * PAGE, 0);
    ck_assert_uint_eq(a->start, BASE + 10 * PAGE);
    ck_assert_uint_eq(a->end, BASE + 13 * PAGE);
    ck_assert_uint_eq(a->access, VBT_RCACHE_WRITE);
    vbt_rcache_put(rc, a);
    ck_assert_int_eq(fake.nreg, 3);
    /* ...unless the merged range cannot be written (the send's part is const memory): then the
     * send's range alone is registered, read-only. */
    vbt_rcache_put(rc, get(rc, BASE + 20 * PAGE, PAGE, VBT_RCACHE_WRITE));
    fake.readonly = 1;
    a = get(rc, BASE + 20 * PAGE, 2 * PAGE, 0);
    ck_assert_uint_eq(a->start, BASE + 20 * PAGE);
    ck_assert_uint_eq(a->end, BASE + 22 * PAGE);
    ck_assert_uint_eq(a->access, 0);
    fake.readonly = 0;
    /* A receive into it later needs write: registered again, with write. */
    b = get(rc, BASE + 20 * PAGE, PAGE, VBT_RCACHE_WRITE);
    ck_assert_ptr_ne(a, b);
    ck_assert_uint_eq(b->access, VBT_RCACHE_WRITE);
    vbt_rcache_put(rc, a);
    vbt_rcache_put(rc, b);
    vbt_rcache_destroy(rc);
}
END_TEST

/* The one-sided access bits: each is granted only where asked for, a registration serves a
 * request whose access it covers, and one that lacks a bit is registered again with it. */
START_TEST(test_access_rma)
{
    vbt_rcache_t *rc = make(1 << 20, 0);
    vbt_rcache_region_t *a, *b;

    a = get(rc, BASE, PAGE, VBT_RCACHE_READ); /* a peer's get() source */
    ck_assert_uint_eq(fake.mrs[0].access, VBT_RCACHE_READ);
    b = get(rc, BASE + 100, 8, 0); /* a local read inside it: a hit */
    ck_assert_ptr_eq(a, b);
    vbt_rcache_put(rc, b);
    b = get(rc, BASE, 8, VBT_RCACHE_ATOMIC); /* atomics: registered again, for them only */
    ck_assert_ptr_ne(a, b);
    ck_assert_uint_eq(b->access, VBT_RCACHE_ATOMIC);
    vbt_rcache_put(rc, a);
    vbt_rcache_put(rc, b);
    a = get(rc, BASE + 5 * PAGE, PAGE, VBT_RCACHE_LOCAL_WRITE); /* our get()'s destination */
    ck_assert_uint_eq(a->access, VBT_RCACHE_LOCAL_WRITE);
    b = get(rc, BASE + 5 * PAGE, PAGE, VBT_RCACHE_WRITE); /* not remote write: again */
    ck_assert_ptr_ne(a, b);
    ck_assert_uint_eq(b->access & VBT_RCACHE_WRITE, VBT_RCACHE_WRITE);
    vbt_rcache_put(rc, a);
    vbt_rcache_put(rc, b);
    vbt_rcache_destroy(rc);
}
END_TEST

START_TEST(test_registration_failure)
{
    vbt_rcache_t *rc = make(1 << 20, 0);
    vbt_rcache_region_t *held, *r = NULL;

    vbt_rcache_put(rc, get(rc, BASE, PAGE, 0));
    vbt_rcache_put(rc, get(rc, BASE + 4 * PAGE, PAGE, 0));
    held = get(rc, BASE + 8 * PAGE, PAGE, 0);
    /* Pinning refused once: every unused registration is dropped, the retry succeeds. */
    fake.fail_next = 1;
    fake.fail_status = VBT_ERR_MEMLOCK;
    vbt_rcache_put(rc, get(rc, BASE + 12 * PAGE, PAGE, 0));
    ck_assert_int_eq(fake.mrs[0].live, 0);
    ck_assert_int_eq(fake.mrs[1].live, 0);
    ck_assert_int_eq(fake.mrs[2].live, 1); /* in use: kept */
    /* Refused twice: the error comes back, nothing is left half-done. */
    fake.fail_next = 2;
    fake.fail_status = VBT_ERR_NO_MEMORY;
    ck_assert_int_eq(vbt_rcache_get(rc, (void *)(BASE + 20 * PAGE), PAGE, 0, &r),
                     VBT_ERR_NO_MEMORY);
    /* Another error: no retry. */
    fake.fail_next = 1;
    fake.fail_status = VBT_ERR_IO;
    ck_assert_int_eq(vbt_rcache_get(rc, (void *)(BASE + 20 * PAGE), PAGE, 0, &r), VBT_ERR_IO);
    ck_assert_int_eq(fake.fail_next, 0);
    vbt_rcache_put(rc, held);
    vbt_rcache_put(rc, get(rc, BASE + 20 * PAGE, PAGE, 0));
    vbt_rcache_destroy(rc);
    ck_assert_int_eq(fake.ndereg, fake.nreg);
}
END_TEST

/* ---- with the memory hooks ------------------------------------------------------------------- */

#define MAP_LEN (16 * PAGE)

static void *map_at(void *want)
{
    void *p = mmap(want, MAP_LEN, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | (want ? MAP_FIXED_NOREPLACE : 0), -1, 0);
    ck_assert_ptr_ne(p, MAP_FAILED);
    if (want != NULL)
        ck_assert_ptr_eq(p, want);
    return p;
}

/* Register buf (a miss), release it, check the next lookup hits. */
static void cache_it(vbt_rcache_t *rc, void *buf, size_t len)
{
    uint64_t misses = stats(rc).misses;
    vbt_rcache_put(rc, get(rc, (uintptr_t)buf, len, VBT_RCACHE_WRITE));
    vbt_rcache_put(rc, get(rc, (uintptr_t)buf, len, VBT_RCACHE_WRITE));
    ck_assert_uint_eq(stats(rc).misses, misses + 1);
}

/* The next lookup of buf must miss (its registration was invalidated). */
static void expect_miss(vbt_rcache_t *rc, void *buf, size_t len)
{
    uint64_t misses = stats(rc).misses, inval = stats(rc).invalidations;
    vbt_rcache_put(rc, get(rc, (uintptr_t)buf, len, VBT_RCACHE_WRITE));
    ck_assert_uint_eq(stats(rc).misses, misses + 1);
    ck_assert_uint_gt(stats(rc).invalidations, inval);
}

START_TEST(test_hook_munmap_mmap)
{
    vbt_rcache_t *rc = make(1 << 24, 1);
    char *buf = map_at(NULL);
    uint64_t hits;

    cache_it(rc, buf + 100, MAP_LEN - 200);
    ck_assert_int_eq(munmap(buf, MAP_LEN), 0);
    ck_assert_ptr_eq(map_at(buf), buf); /* the same address, new pages */
    expect_miss(rc, buf + 100, MAP_LEN - 200);
    /* MAP_FIXED over a live mapping replaces its pages without any munmap. */
    ck_assert_ptr_eq(
        mmap(buf, MAP_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
        buf);
    expect_miss(rc, buf + 100, MAP_LEN - 200);
    /* madvise(DONTNEED): new zero pages on the next touch. */
    ck_assert_int_eq(madvise(buf + PAGE, PAGE, MADV_DONTNEED), 0);
    expect_miss(rc, buf + 100, MAP_LEN - 200);
    /* Advice that keeps the pages changes nothing. */
    ck_assert_int_eq(madvise(buf, MAP_LEN, MADV_WILLNEED), 0);
    hits = stats(rc).hits;
    vbt_rcache_put(rc, get(rc, (uintptr_t)buf + 100, MAP_LEN - 200, 0));
    ck_assert_uint_eq(stats(rc).hits, hits + 1);
    /* mremap moves the pages away from the old range. */
    {
        char *moved = mremap(buf, MAP_LEN, 2 * MAP_LEN, MREMAP_MAYMOVE);
        ck_assert_ptr_ne(moved, MAP_FAILED);
        expect_miss(rc, moved, MAP_LEN); /* moved or grown in place: dropped either way */
        buf = moved;
    }
    ck_assert_int_eq(munmap(buf, 2 * MAP_LEN), 0);
    vbt_rcache_destroy(rc);
}
END_TEST

/* Whether malloc is glibc's: not under AddressSanitizer (gcc -fsanitize=address) nor under
 * valgrind (it preloads its own, vgpreload_*.so), as test/integration/sanitizers.sh runs us. */
static int glibc_malloc(void)
{
#ifdef __SANITIZE_ADDRESS__
    return 0;
#else
    const char *pre = getenv("LD_PRELOAD");

    return pre == NULL || strstr(pre, "vgpreload") == NULL;
#endif
}

START_TEST(test_hook_free_realloc)
{
    vbt_rcache_t *rc = make(1 << 26, 1);
    size_t len = 1 << 20;
    char *p, *q;

    /* Pin the mmap threshold (this also stops glibc raising it after a free), so a 1 MiB block
     * is mmap-backed and free() unmaps it with its internal __munmap. */
    ck_assert_int_eq(mallopt(M_MMAP_THRESHOLD, 128 * 1024), 1);
    p = malloc(len);
    ck_assert_ptr_nonnull(p);
    memset(p, 1, len);
    cache_it(rc, p, len);
    free(p);
    q = malloc(len);
    ck_assert_ptr_nonnull(q);
    ck_assert_ptr_eq(q, p); /* the kernel gives back the same hole */
    expect_miss(rc, q, len);
    /* realloc that moves (or remaps) the block: the old range (cached by expect_miss) is
     * dropped. */
    p = realloc(q, 4 * len);
    ck_assert_ptr_nonnull(p);
    expect_miss(rc, p, len);
    free(p);
    vbt_rcache_destroy(rc);
}
END_TEST

static void *free_in_thread(void *arg)
{
    free(arg);
    return NULL;
}

START_TEST(test_hook_free_other_thread)
{
    vbt_rcache_t *rc = make(1 << 26, 1);
    size_t len = 1 << 20;
    pthread_t t;
    char *p, *q;

    ck_assert_int_eq(mallopt(M_MMAP_THRESHOLD, 128 * 1024), 1);
    p = malloc(len);
    memset(p, 1, len);
    cache_it(rc, p, len);
    ck_assert_int_eq(pthread_create(&t, NULL, free_in_thread, p), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    q = malloc(len);
    expect_miss(rc, q, len);
    free(q);
    vbt_rcache_destroy(rc);
}
END_TEST

START_TEST(test_hook_elsewhere_free)
{
    vbt_rcache_t *rc = make(1 << 24, 1);
    char *buf = map_at(NULL);
    uint64_t rec0, rec1, ovf;

    cache_it(rc, buf, MAP_LEN);
    vbt_memhook_counts(&rec0, &ovf);
    /* Small heap blocks, nowhere near the registration: not even recorded. */
    for (int i = 0; i < 1000; i++)
        free(malloc(64));
    vbt_memhook_counts(&rec1, &ovf);
    ck_assert_uint_eq(rec1, rec0);
    vbt_rcache_put(rc, get(rc, (uintptr_t)buf, MAP_LEN, 0));
    ck_assert_uint_eq(stats(rc).invalidations, 0);
    munmap(buf, MAP_LEN);
    vbt_rcache_destroy(rc);
}
END_TEST

START_TEST(test_hook_overflow)
{
    vbt_rcache_t *rc = make(1 << 24, 1);
    char *buf = map_at(NULL), *other = map_at(NULL);
    uint64_t rec, ovf;

    cache_it(rc, buf, MAP_LEN);
    cache_it(rc, other, MAP_LEN);
    /* More events than the queue holds before the next lookup drains it. */
    for (int i = 0; i < 1000; i++)
        madvise(buf + (i % 16) * PAGE, PAGE, MADV_DONTNEED);
    vbt_memhook_counts(&rec, &ovf);
    ck_assert_uint_gt(ovf, 0);
    /* Everything is dropped: even the registration nobody touched. */
    expect_miss(rc, other, MAP_LEN);
    ck_assert_uint_eq(stats(rc).flushes, 1);
    ck_assert_uint_eq(stats(rc).regions, 1); /* only the one just registered */
    vbt_rcache_put(rc, get(rc, (uintptr_t)buf, MAP_LEN, 0));
    ck_assert_uint_eq(stats(rc).regions, 2);
    munmap(buf, MAP_LEN);
    munmap(other, MAP_LEN);
    vbt_rcache_destroy(rc);
}
END_TEST

/* The hooks have one queue: a second watching cache is refused while the first lives, and
 * the first keeps receiving its events; once it is gone another may watch. */
START_TEST(test_hook_one_watcher)
{
    vbt_rcache_t *rc = make(1 << 24, 1), *rc2 = NULL;
    char *buf = map_at(NULL);

    ck_assert_int_eq(vbt_rcache_create(&fake_ops, 1 << 24, PAGE, 1, &rc2), VBT_ERR_NO_RESOURCE);
    ck_assert_ptr_null(rc2);
    ck_assert_int_eq(vbt_rcache_create(&fake_ops, 0, PAGE, 0, &rc2), VBT_OK); /* not watching */
    vbt_rcache_destroy(rc2); /* does not unsubscribe the first */
    cache_it(rc, buf, MAP_LEN);
    ck_assert_int_eq(munmap(buf, MAP_LEN), 0);
    ck_assert_ptr_eq(map_at(buf), buf);
    expect_miss(rc, buf, MAP_LEN);
    ck_assert_int_eq(munmap(buf, MAP_LEN), 0);
    vbt_rcache_destroy(rc);
    rc = make(1 << 24, 1);
    vbt_rcache_destroy(rc);
}
END_TEST

START_TEST(test_hook_unsubscribed)
{
    vbt_rcache_t *rc = make(1 << 24, 0); /* not watching: the hooks only forward */
    uint64_t rec0, rec1, ovf;
    char *buf = map_at(NULL);

    vbt_memhook_counts(&rec0, &ovf);
    vbt_rcache_put(rc, get(rc, (uintptr_t)buf, MAP_LEN, 0));
    munmap(buf, MAP_LEN);
    free(malloc(1 << 20));
    vbt_memhook_counts(&rec1, &ovf);
    ck_assert_uint_eq(rec1, rec0);
    vbt_rcache_destroy(rc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rcache");
    TCase *tc = tcase_create("logic");
    TCase *th = tcase_create("hooks");

    tcase_add_test(tc, test_hit_inside);
    tcase_add_test(tc, test_many_regions);
    tcase_add_test(tc, test_merge);
    tcase_add_test(tc, test_lru_eviction);
    tcase_add_test(tc, test_in_use_never_evicted);
    tcase_add_test(tc, test_invalidate);
    tcase_add_test(tc, test_access_upgrade);
    tcase_add_test(tc, test_access_narrow);
    tcase_add_test(tc, test_access_rma);
    tcase_add_test(tc, test_registration_failure);
    suite_add_tcase(s, tc);
    tcase_add_test(th, test_hook_munmap_mmap);
    /* These two need glibc's malloc (mallopt, an mmap-backed block whose hole comes back);
     * ASan's and valgrind's allocators keep freed blocks in quarantine instead. */
    if (glibc_malloc()) {
        tcase_add_test(th, test_hook_free_realloc);
        tcase_add_test(th, test_hook_free_other_thread);
    }
    tcase_add_test(th, test_hook_elsewhere_free);
    tcase_add_test(th, test_hook_overflow);
    tcase_add_test(th, test_hook_one_watcher);
    tcase_add_test(th, test_hook_unsubscribed);
    suite_add_tcase(s, th);
    return vbt_check_run(s);
}
