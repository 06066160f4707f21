/* One-sided put and get: every window flavor (rma_common.h) under every synchronization mode
 * (fence with and without assertions, PSCW ended by wait or test, with and without NOCHECK,
 * exclusive, shared and NOCHECK locks, lock_all, flush, flush_all, flush_local and
 * flush_local_all), at odd sizes from 1 B to 1 MiB + 3 and 16 MiB; request-based MPI_Rput and
 * MPI_Rget; a disp_unit that differs between processes; 1000 operations before one flush;
 * several windows at once and a window on a sub-communicator, each seeing only its own data.
 * Every process writes to (or reads from) its right neighbour at once; the bytes around the
 * target region are checked too. Usage: rma_basic TEST... (or "all"), any number of ranks. */
#define MPITEST_NAME "rma_basic"
#include "mpitest.h"
#include "rma_common.h"

static const MPI_Aint sizes[] = {1, 7, 4093, 65537, (1 << 20) + 3};
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))
#define GUARD  64
/* A round window size: odd-sized windows are the subtest odd_window. */
#define WSIZE ((MPI_Aint)(1 << 20) + 8192)

/* Byte ranges [from, to) of our window must be zero. */
static void check_zero(const unsigned char *p, MPI_Aint from, MPI_Aint to, const char *what)
{
    for (MPI_Aint i = from; i < to; i++) {
        if (p[i] != 0)
            FAIL("%s: byte %ld outside the target region is 0x%02x, expected untouched (0)", what,
                 (long)i, p[i]);
    }
}

static unsigned seed_of(int origin, MPI_Aint n, int mode, int flavor)
{
    return (unsigned)(origin * 1009 + (int)(n % 997) * 31 + mode * 7 + flavor);
}

/* Each process puts n bytes at offset off of its right neighbour's memory in mode, then checks
 * what its left neighbour put into its own. Leaves the window zeroed. */
static void put_round(rma_win_t *w, int mode, MPI_Aint n, int rput)
{
    int right = (w->me + 1) % w->n, left = (w->me - 1 + w->n) % w->n;
    MPI_Aint off = 1 + mode * 3 + (rput ? 5 : 0);
    unsigned char *src = xmalloc((size_t)n);
    char what[160];

    snprintf(what, sizeof(what), "%s %s %s of %ld B", rma_flavor_name[w->flavor],
             rma_sync_name[mode], rput ? "rput" : "put", (long)n);
    fill(src, (size_t)n, seed_of(w->me, n, mode, w->flavor));
    rma_epoch_open(w, mode, right, 0);
    if (rput) {
        MPI_Request r;
        CHECK(MPI_Rput(src, (int)n, MPI_BYTE, right, rma_disp(w, right, off), (int)n, MPI_BYTE,
                       w->win, &r) == MPI_SUCCESS);
        /* Completion of the request is local: the buffer may be reused, the data is not
         * remote yet (the epoch's end or a flush does that). */
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        memset(src, 0xee, (size_t)n);
    } else {
        CHECK(MPI_Put(src, (int)n, MPI_BYTE, right, rma_disp(w, right, off), (int)n, MPI_BYTE,
                      w->win) == MPI_SUCCESS);
        if (rma_epoch_flush(w, mode, right))
            memset(src, 0xee, (size_t)n); /* complete at least locally: reusable */
    }
    rma_epoch_close(w, mode, right);
    rma_target_begin(w, mode);
    check_zero(w->base, 0, off, what);
    verify(w->base + off, (size_t)n, seed_of(left, n, mode, w->flavor), what);
    check_zero(w->base, off + n, w->size < off + n + 4096 ? w->size : off + n + 4096, what);
    memset(w->base + off, 0, (size_t)n);
    rma_target_end(w, mode);
    free(src);
}

/* Each process fills its memory with its own pattern; each gets n bytes at off from its right
 * neighbour in mode, into a buffer with guards. */
static void get_round(rma_win_t *w, int mode, MPI_Aint n, int rget)
{
    int right = (w->me + 1) % w->n;
    MPI_Aint off = 2 + mode * 5;
    unsigned char *dst = xmalloc((size_t)n + 2 * GUARD);
    char what[160];

    snprintf(what, sizeof(what), "%s %s %s of %ld B", rma_flavor_name[w->flavor],
             rma_sync_name[mode], rget ? "rget" : "get", (long)n);
    rma_local_begin(w);
    fill(w->base, (size_t)(off + n + GUARD), seed_of(w->me, n, mode, w->flavor));
    rma_local_end(w);
    MPI_Barrier(w->comm);
    memset(dst, 0, (size_t)n + 2 * GUARD);
    rma_epoch_open(w, mode, right, 1);
    if (rget) {
        MPI_Request r;
        int done = 0;
        CHECK(MPI_Rget(dst + GUARD, (int)n, MPI_BYTE, right, rma_disp(w, right, off), (int)n,
                       MPI_BYTE, w->win, &r) == MPI_SUCCESS);
        /* An Rget's completion means the data is here, within the epoch. */
        while (!done)
            CHECK(MPI_Test(&r, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(r == MPI_REQUEST_NULL);
        verify_at(dst + GUARD, (size_t)n, seed_of(right, n, mode, w->flavor), (size_t)off, what);
    } else {
        CHECK(MPI_Get(dst + GUARD, (int)n, MPI_BYTE, right, rma_disp(w, right, off), (int)n,
                      MPI_BYTE, w->win) == MPI_SUCCESS);
        /* Complete, at least locally: for a get that means the data is here. */
        if (rma_epoch_flush(w, mode, right))
            verify_at(dst + GUARD, (size_t)n, seed_of(right, n, mode, w->flavor), (size_t)off,
                      what);
    }
    rma_epoch_close(w, mode, right);
    verify_at(dst + GUARD, (size_t)n, seed_of(right, n, mode, w->flavor), (size_t)off, what);
    check_zero(dst, 0, GUARD, what);
    check_zero(dst, GUARD + n, n + 2 * GUARD, what);
    MPI_Barrier(w->comm);
    rma_local_begin(w);
    memset(w->base, 0, (size_t)(off + n + GUARD));
    rma_local_end(w);
    MPI_Barrier(w->comm);
    free(dst);
}

static void for_flavors(void (*fn)(rma_win_t *w), MPI_Aint wsize)
{
    for (int f = 0; f < RMA_NFLAVORS; f++) {
        rma_win_t w;
        if (!rma_win_make(&w, f, wsize, 1, MPI_COMM_WORLD))
            continue;
        fn(&w);
        rma_win_free(&w);
    }
}

/* MPI_MODE_NOCHECK (locks, PSCW) has a subtest of its own (nocheck): the rivals get it wrong. */
static int nocheck_mode(int m)
{
    return m == SYNC_LOCK_NOCHECK || m == SYNC_PSCW_NOCHECK;
}

static void put_all(rma_win_t *w)
{
    for (int s = 0; s < NSIZES; s++)
        for (int m = 0; m < SYNC_NMODES; m++)
            if (!nocheck_mode(m))
                put_round(w, m, sizes[s], 0);
}

static void get_all(rma_win_t *w)
{
    for (int s = 0; s < NSIZES; s++)
        for (int m = 0; m < SYNC_NMODES; m++)
            if (!nocheck_mode(m))
                get_round(w, m, sizes[s], 0);
}

/* MPI_MODE_NOCHECK: exclusive locks (only our left neighbour ever locks us, and we lock
 * ourselves only between barriers, so the assertion holds), then a lock_all epoch; and PSCW
 * with NOCHECK on both post and start, the posts ordered before the starts by a barrier. Valid
 * by MPI-4.1 12.5.5, but: MPICH 4.0.2 hangs in the MPI_Win_lock_all after a NOCHECK lock on
 * oneself (1 rank); Open MPI 4.1 osc/pt2pt hangs in a 64 KiB MPI_Put under a NOCHECK lock, and
 * osc/sm hangs in MPI_Win_wait after NOCHECK PSCW at 1 rank and loses the data at more. */
static void nocheck_all(rma_win_t *w)
{
    for (int s = 0; s < NSIZES; s++) {
        put_round(w, SYNC_PSCW_NOCHECK, sizes[s], 0);
        get_round(w, SYNC_PSCW_NOCHECK, sizes[s], 0);
        put_round(w, SYNC_LOCK_NOCHECK, sizes[s], 0);
        get_round(w, SYNC_LOCK_NOCHECK, sizes[s], 0);
        put_round(w, SYNC_LOCK_ALL, sizes[s], 0);
    }
}

/* Request-based operations are only allowed in passive-target epochs. */
static void req_all(rma_win_t *w)
{
    for (int s = 0; s < NSIZES; s++) {
        for (int m = SYNC_LOCK_EXCL; m < SYNC_NMODES; m++) {
            if (nocheck_mode(m))
                continue;
            put_round(w, m, sizes[s], 1);
            get_round(w, m, sizes[s], 1);
        }
    }
}

static void test_put(void)
{
    for_flavors(put_all, WSIZE);
}

static void test_get(void)
{
    for_flavors(get_all, WSIZE);
}

static void test_rput_rget(void)
{
    for_flavors(req_all, WSIZE);
}

static void test_nocheck(void)
{
    for_flavors(nocheck_all, WSIZE);
}

/* Windows of odd sizes, different at every process (100 + 7 * rank bytes), of every flavor:
 * a put to the last byte and to the first of each neighbour. MPICH 4.0.2 gets MPI_Win_allocate
 * of a size not a multiple of 64 wrong on one node (a put to byte 1 of rank 1 lands in rank
 * 0's memory): the standard allows any size. */
static void test_odd_window(void)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_Aint rsize = 100 + 7 * right, msize = 100 + 7 * rank;

    for (int f = 0; f < RMA_NFLAVORS; f++) {
        rma_win_t w;
        unsigned char v[2] = {(unsigned char)(0x40 + rank), (unsigned char)(0x80 + rank)};
        if (!rma_win_make(&w, f, msize, 1, MPI_COMM_WORLD))
            continue;
        MPI_Win_fence(0, w.win);
        MPI_Put(&v[0], 1, MPI_BYTE, right, rma_disp(&w, right, 0), 1, MPI_BYTE, w.win);
        MPI_Put(&v[1], 1, MPI_BYTE, right, rma_disp(&w, right, rsize - 1), 1, MPI_BYTE, w.win);
        MPI_Win_fence(0, w.win);
        if (w.base[0] != 0x40 + left || w.base[msize - 1] != 0x80 + left)
            FAIL("%s window of %ld B: first byte 0x%02x, last 0x%02x; expected 0x%02x, 0x%02x",
                 rma_flavor_name[f], (long)msize, w.base[0], w.base[msize - 1], 0x40 + left,
                 0x80 + left);
        check_zero(w.base, 1, msize - 1, "odd-sized window");
        rma_win_free(&w);
    }
}

/* 16 MiB each way, under fence and an exclusive lock, on two flavors. */
static void test_big(void)
{
    const MPI_Aint n = 16 << 20;
    int flavors[] = {RMA_CREATE, RMA_ALLOCATE};
    for (int f = 0; f < 2; f++) {
        rma_win_t w;
        CHECK(rma_win_make(&w, flavors[f], n + 4096, 1, MPI_COMM_WORLD));
        put_round(&w, SYNC_FENCE, n, 0);
        put_round(&w, SYNC_LOCK_EXCL, n, 0);
        get_round(&w, SYNC_LOCK_SHARED, n, 0);
        get_round(&w, SYNC_FENCE, n, 0);
        rma_win_free(&w);
    }
}

/* MPI_Win_create lets every process choose its disp_unit: the target's applies. Even ranks
 * count in doubles, odd ranks in 4-byte ints; the origin puts at "element 5" of each. */
static void test_disp_unit(void)
{
    int unit = rank % 2 ? 4 : 8, right = (rank + 1) % size, left = (rank - 1 + size) % size;
    int runit = right % 2 ? 4 : 8;
    unsigned char *mem = xmalloc(128), src[16];
    MPI_Win win;
    int *u, flag;

    memset(mem, 0, 128);
    CHECK(MPI_Win_create(mem, 128, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &u, &flag) == MPI_SUCCESS && flag);
    CHECK(*u == unit);
    fill(src, 16, (unsigned)rank);
    MPI_Win_fence(0, win);
    MPI_Put(src, 16, MPI_BYTE, right, 5, 16, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    check_zero(mem, 0, 5 * unit, "disp_unit put");
    verify(mem + 5 * unit, 16, (unsigned)left, "disp_unit put");
    check_zero(mem, 5 * unit + 16, 128, "disp_unit put");
    /* And a get at element 2 of the right neighbour reads byte 2 * its unit. */
    fill(mem, 128, (unsigned)rank + 100);
    MPI_Win_fence(0, win);
    memset(src, 0, 16);
    MPI_Get(src, 16, MPI_BYTE, right, 2, 16, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 16; i++)
        CHECK(src[i] == pattern((unsigned)right + 100, (size_t)(2 * runit + i)));
    MPI_Win_free(&win);
    free(mem);
}

/* 1000 puts of 8 bytes each to distinct places before one flush, then 1000 gets before one
 * flush; and 1000 puts inside one fence epoch. */
static void test_many(void)
{
    enum { K = 1000 };
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    uint64_t *src = xmalloc(sizeof(uint64_t) * K), *dst = xmalloc(sizeof(uint64_t) * K);

    for (int f = 0; f < RMA_NFLAVORS; f++) {
        rma_win_t w;
        if (!rma_win_make(&w, f, K * 8, 8, MPI_COMM_WORLD))
            continue;
        uint64_t *mine = (uint64_t *)w.base;
        for (int i = 0; i < K; i++)
            src[i] = ((uint64_t)rank << 32) | (uint64_t)(i * 2654435761u);
        MPI_Win_lock_all(0, w.win);
        for (int i = 0; i < K; i++) /* reversed order: places K-1-i */
            CHECK(MPI_Put(&src[i], 1, MPI_UINT64_T, right, rma_disp(&w, right, K - 1 - i), 1,
                          MPI_UINT64_T, w.win) == MPI_SUCCESS);
        MPI_Win_flush(right, w.win);
        for (int i = 0; i < K; i++)
            dst[i] = 0;
        for (int i = 0; i < K; i++)
            CHECK(MPI_Get(&dst[i], 1, MPI_UINT64_T, right, rma_disp(&w, right, K - 1 - i), 1,
                          MPI_UINT64_T, w.win) == MPI_SUCCESS);
        MPI_Win_flush(right, w.win);
        for (int i = 0; i < K; i++)
            if (dst[i] != src[i])
                FAIL("%s many: get %d read 0x%lx, put 0x%lx", rma_flavor_name[f], i,
                     (unsigned long)dst[i], (unsigned long)src[i]);
        MPI_Win_unlock_all(w.win);
        MPI_Barrier(MPI_COMM_WORLD);
        rma_local_begin(&w);
        for (int i = 0; i < K; i++) {
            uint64_t want = ((uint64_t)left << 32) | (uint64_t)((K - 1 - i) * 2654435761u);
            if (mine[i] != want)
                FAIL("%s many: element %d is 0x%lx, expected 0x%lx", rma_flavor_name[f], i,
                     (unsigned long)mine[i], (unsigned long)want);
            mine[i] = 0;
        }
        rma_local_end(&w);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_fence(0, w.win);
        for (int i = 0; i < K; i++)
            MPI_Put(&src[i], 1, MPI_UINT64_T, right, rma_disp(&w, right, i), 1, MPI_UINT64_T,
                    w.win);
        MPI_Win_fence(0, w.win);
        for (int i = 0; i < K; i++) {
            uint64_t want = ((uint64_t)left << 32) | (uint64_t)(i * 2654435761u);
            if (mine[i] != want)
                FAIL("%s many fence: element %d is 0x%lx, expected 0x%lx", rma_flavor_name[f], i,
                     (unsigned long)mine[i], (unsigned long)want);
        }
        rma_win_free(&w);
    }
    free(src);
    free(dst);
}

/* Three windows at once, all open in epochs of different kinds at the same time, and a window
 * on the even/odd halves of the world: each window's memory gets only what was put through it. */
static void test_windows(void)
{
    enum { N = 256 };
    rma_win_t a, b, c, s;
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    unsigned char src[3][N];
    MPI_Comm half;
    int hr, hn, hright, hleft;

    CHECK(rma_win_make(&a, RMA_ALLOCATE, N, 1, MPI_COMM_WORLD));
    CHECK(rma_win_make(&b, RMA_CREATE, N, 1, MPI_COMM_WORLD));
    CHECK(rma_win_make(&c, RMA_DYNAMIC, N, 1, MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++)
        fill(src[i], N, (unsigned)(rank * 3 + i));
    MPI_Win_fence(0, a.win);
    MPI_Win_lock_all(0, b.win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, c.win);
    MPI_Put(src[2], N, MPI_BYTE, right, rma_disp(&c, right, 0), N, MPI_BYTE, c.win);
    MPI_Put(src[0], N, MPI_BYTE, right, 0, N, MPI_BYTE, a.win);
    MPI_Put(src[1], N, MPI_BYTE, right, 0, N, MPI_BYTE, b.win);
    MPI_Win_unlock(right, c.win);
    MPI_Win_unlock_all(b.win);
    MPI_Win_fence(0, a.win);
    MPI_Barrier(MPI_COMM_WORLD);
    verify(a.base, N, (unsigned)(left * 3 + 0), "window a");
    rma_local_begin(&b);
    verify(b.base, N, (unsigned)(left * 3 + 1), "window b");
    rma_local_end(&b);
    rma_local_begin(&c);
    verify(c.base, N, (unsigned)(left * 3 + 2), "window c");
    rma_local_end(&c);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Halves: rank r is rank r/2 of its half; puts to the right neighbour within the half. */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hn);
    hright = (hr + 1) % hn;
    hleft = (hr - 1 + hn) % hn;
    CHECK(rma_win_make(&s, RMA_ALLOCATE, N, 1, half));
    rma_local_begin(&a);
    memset(a.base, 0, N);
    rma_local_end(&a);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_fence(0, s.win);
    MPI_Win_fence(0, a.win);
    MPI_Put(src[0], N, MPI_BYTE, hright, 0, N, MPI_BYTE, s.win); /* half rank, not world rank */
    MPI_Win_fence(0, a.win);
    MPI_Win_fence(0, s.win);
    verify(s.base, N, (unsigned)((2 * hleft + rank % 2) * 3), "sub-communicator window");
    check_zero(a.base, 0, N, "world window while the halves' windows were used");
    rma_win_free(&s);
    MPI_Comm_free(&half);
    rma_win_free(&c);
    rma_win_free(&b);
    rma_win_free(&a);
}

/* Operations to oneself, mixed with local stores made under a local epoch. */
static void test_self(void)
{
    for (int f = 0; f < RMA_NFLAVORS; f++) {
        rma_win_t w;
        unsigned char src[100], dst[100];
        if (!rma_win_make(&w, f, 256, 1, MPI_COMM_WORLD))
            continue;
        fill(src, 100, 7);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w.win);
        MPI_Put(src, 100, MPI_BYTE, rank, rma_disp(&w, rank, 10), 100, MPI_BYTE, w.win);
        MPI_Win_flush(rank, w.win);
        memset(dst, 0, sizeof(dst));
        MPI_Get(dst, 100, MPI_BYTE, rank, rma_disp(&w, rank, 10), 100, MPI_BYTE, w.win);
        MPI_Win_unlock(rank, w.win);
        verify(dst, 100, 7, "get from self after put to self");
        rma_local_begin(&w);
        verify(w.base + 10, 100, 7, "own memory after put to self");
        rma_local_end(&w);
        MPI_Win_fence(0, w.win);
        MPI_Get(dst, 50, MPI_BYTE, rank, rma_disp(&w, rank, 10), 50, MPI_BYTE, w.win);
        MPI_Win_fence(0, w.win);
        verify(dst, 50, 7, "get from self under fence");
        rma_win_free(&w);
    }
}

static const mpitest_t tests[] = {
    {"put", test_put},
    {"get", test_get},
    {"rput_rget", test_rput_rget},
    {"big", test_big},
    {"disp_unit", test_disp_unit},
    {"many", test_many},
    {"windows", test_windows},
    {"self", test_self},
    {"nocheck", test_nocheck},
    {"odd_window", test_odd_window},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
