/* One-sided errors under MPI_ERRORS_RETURN on the window: the class the standard names (read
 * with MPI_Error_class) and nothing changed. An out-of-range target displacement or count is
 * MPI_ERR_RMA_RANGE and writes nothing anywhere; an operation outside an epoch, unlock without
 * lock, complete without start, wait without post are MPI_ERR_RMA_SYNC; MPI_WIN_NULL is
 * MPI_ERR_WIN; attach on a window not made by MPI_Win_create_dynamic and shared_query on a
 * dynamic one are MPI_ERR_RMA_FLAVOR (MPI-4.1 allows shared_query on the other flavors: a
 * process's own memory is always there, a create window's other parts are not). After each
 * error the window still works. Usage: rma_errors TEST... (or "all"), any number of ranks. */
#define MPITEST_NAME "rma_errors"
#include "mpitest.h"
#include "rma_common.h"

#define WBYTES 4096

static void expect_class(int rc, int cls, const char *what)
{
    int got;
    if (rc == MPI_SUCCESS)
        FAIL("%s succeeded, expected error class %d", what, cls);
    MPI_Error_class(rc, &got);
    if (got != cls)
        FAIL("%s: error class %d, expected %d", what, got, cls);
}

/* Our window memory still all 0x11, and a put to the right neighbour still works. */
static void expect_intact(rma_win_t *w, const char *what)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    unsigned char v = (unsigned char)(0x20 + rank);
    MPI_Barrier(MPI_COMM_WORLD);
    rma_local_begin(w);
    for (int i = 0; i < WBYTES; i++)
        if (w->base[i] != 0x11)
            FAIL("after %s: byte %d of the window is 0x%02x, expected untouched 0x11", what, i,
                 w->base[i]);
    rma_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w->win);
    CHECK(MPI_Put(&v, 1, MPI_BYTE, right, rma_disp(w, right, 0), 1, MPI_BYTE, w->win) ==
          MPI_SUCCESS);
    MPI_Win_unlock(right, w->win);
    MPI_Barrier(MPI_COMM_WORLD);
    rma_local_begin(w);
    if (w->base[0] != 0x20 + left)
        FAIL("after %s: the window no longer works (byte 0 is 0x%02x)", what, w->base[0]);
    w->base[0] = 0x11;
    rma_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void make(rma_win_t *w, int flavor)
{
    CHECK(rma_win_make(w, flavor, WBYTES, 1, MPI_COMM_WORLD));
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    rma_local_begin(w);
    memset(w->base, 0x11, WBYTES);
    rma_local_end(w);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Fetch_and_op's 8 bytes moved 60 on, so that the first displacement straddles the end; a
 * negative one stays as it is (-1 + 60 would be inside the window). */
static MPI_Aint fop_disp(MPI_Aint d)
{
    return d < 0 ? d : d + 60;
}

/* Past the end (by a byte, by a lot, negative), under fence and lock; the get's buffer
 * unchanged too. Dynamic windows have no size to check against and are left out. */
static void test_range(void)
{
    int right = (rank + 1) % size;
    int flavors[] = {RMA_CREATE, RMA_ALLOCATE, RMA_ALLOC_MEM};
    for (int f = 0; f < 3; f++) {
        rma_win_t w;
        unsigned char src[64], dst[64];
        MPI_Aint disps[] = {WBYTES - 63, WBYTES, (MPI_Aint)1 << 40, -1};
        int64_t one = 1, res;
        make(&w, flavors[f]);
        memset(src, 0xaa, sizeof(src));
        memset(dst, 0x33, sizeof(dst));
        for (int d = 0; d < 4; d++) {
            MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win);
            expect_class(MPI_Put(src, 64, MPI_BYTE, right, disps[d], 64, MPI_BYTE, w.win),
                         MPI_ERR_RMA_RANGE, "MPI_Put out of range");
            expect_class(MPI_Get(dst, 64, MPI_BYTE, right, disps[d], 64, MPI_BYTE, w.win),
                         MPI_ERR_RMA_RANGE, "MPI_Get out of range");
            expect_class(MPI_Accumulate(src, 8, MPI_INT64_T, right, disps[d], 8, MPI_INT64_T,
                                        MPI_SUM, w.win),
                         MPI_ERR_RMA_RANGE, "MPI_Accumulate out of range");
            expect_class(MPI_Fetch_and_op(&one, &res, MPI_INT64_T, right, fop_disp(disps[d]),
                                          MPI_SUM, w.win),
                         MPI_ERR_RMA_RANGE, "MPI_Fetch_and_op out of range");
            MPI_Win_unlock(right, w.win);
            for (int i = 0; i < 64; i++)
                if (dst[i] != 0x33)
                    FAIL("a failed MPI_Get wrote byte %d of its buffer", i);
        }
        MPI_Win_fence(0, w.win);
        expect_class(MPI_Put(src, 1, MPI_BYTE, right, WBYTES, 1, MPI_BYTE, w.win),
                     MPI_ERR_RMA_RANGE, "MPI_Put one past the end under fence");
        MPI_Win_fence(0, w.win);
        expect_intact(&w, "out-of-range operations");
        rma_win_free(&w);
    }
}

static void test_sync(void)
{
    int right = (rank + 1) % size;
    rma_win_t w;
    unsigned char v = 0xcc;
    MPI_Request req;

    make(&w, RMA_ALLOCATE);
    expect_class(MPI_Put(&v, 1, MPI_BYTE, right, 0, 1, MPI_BYTE, w.win), MPI_ERR_RMA_SYNC,
                 "MPI_Put with no epoch");
    expect_class(MPI_Get(&v, 1, MPI_BYTE, right, 0, 1, MPI_BYTE, w.win), MPI_ERR_RMA_SYNC,
                 "MPI_Get with no epoch");
    expect_class(MPI_Win_unlock(right, w.win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock without lock");
    expect_class(MPI_Win_unlock_all(w.win), MPI_ERR_RMA_SYNC,
                 "MPI_Win_unlock_all without lock_all");
    expect_class(MPI_Win_flush(right, w.win), MPI_ERR_RMA_SYNC, "MPI_Win_flush with no lock");
    expect_class(MPI_Win_complete(w.win), MPI_ERR_RMA_SYNC, "MPI_Win_complete without start");
    expect_class(MPI_Win_wait(w.win), MPI_ERR_RMA_SYNC, "MPI_Win_wait without post");
    /* Request-based operations belong to passive-target epochs only. */
    MPI_Win_fence(0, w.win);
    expect_class(MPI_Rput(&v, 1, MPI_BYTE, right, 0, 1, MPI_BYTE, w.win, &req), MPI_ERR_RMA_SYNC,
                 "MPI_Rput under fence");
    MPI_Win_fence(0, w.win);
    /* A second lock on the same target from the same process. */
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win);
    expect_class(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win), MPI_ERR_RMA_SYNC,
                 "MPI_Win_lock twice on one target");
    MPI_Win_unlock(right, w.win);
    expect_intact(&w, "synchronization errors");
    rma_win_free(&w);
}

/* MPI_WIN_NULL where a window is needed. (A freed handle is erroneous too, but the standard
 * does not ask for it to be detected: MPICH 4.0.2 accepts it, Open MPI 4.1 crashes.) */
static void test_handle(void)
{
    unsigned char v = 0;
    int flag;
    MPI_Group g;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_class(MPI_Put(&v, 1, MPI_BYTE, 0, 0, 1, MPI_BYTE, MPI_WIN_NULL), MPI_ERR_WIN,
                 "MPI_Put on MPI_WIN_NULL");
    expect_class(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN, "MPI_Win_fence on MPI_WIN_NULL");
    expect_class(MPI_Win_lock_all(0, MPI_WIN_NULL), MPI_ERR_WIN,
                 "MPI_Win_lock_all on MPI_WIN_NULL");
    expect_class(MPI_Win_test(MPI_WIN_NULL, &flag), MPI_ERR_WIN, "MPI_Win_test on MPI_WIN_NULL");
    expect_class(MPI_Win_get_group(MPI_WIN_NULL, &g), MPI_ERR_WIN,
                 "MPI_Win_get_group on MPI_WIN_NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_flavor(void)
{
    rma_win_t w;
    unsigned char mem[64];
    MPI_Aint sz;
    int du;
    void *p;
    make(&w, RMA_ALLOCATE);
    expect_class(MPI_Win_attach(w.win, mem, 64), MPI_ERR_RMA_FLAVOR,
                 "MPI_Win_attach on an MPI_Win_allocate window");
    expect_class(MPI_Win_detach(w.win, mem), MPI_ERR_RMA_FLAVOR,
                 "MPI_Win_detach on an MPI_Win_allocate window");
    CHECK(MPI_Win_shared_query(w.win, rank, &sz, &du, &p) == MPI_SUCCESS);
    if (sz != WBYTES || du != 1 || p != w.base)
        FAIL("MPI_Win_shared_query of oneself on an MPI_Win_allocate window: size %ld, "
             "disp_unit %d, base %p; expected %d, 1, %p",
             (long)sz, du, p, WBYTES, (void *)w.base);
    expect_intact(&w, "flavor errors");
    rma_win_free(&w);
    make(&w, RMA_CREATE);
    expect_class(MPI_Win_attach(w.win, mem, 64), MPI_ERR_RMA_FLAVOR,
                 "MPI_Win_attach on an MPI_Win_create window");
    /* Only our own part of the user's memory can be reached: it is the lowest with memory. */
    CHECK(MPI_Win_shared_query(w.win, MPI_PROC_NULL, &sz, &du, &p) == MPI_SUCCESS);
    if (sz != WBYTES || p != w.base)
        FAIL("MPI_Win_shared_query(MPI_PROC_NULL) on an MPI_Win_create window: size %ld base "
             "%p, expected our own %d bytes at %p",
             (long)sz, p, WBYTES, (void *)w.base);
    for (int r = 0; r < size; r++) {
        CHECK(MPI_Win_shared_query(w.win, r, &sz, &du, &p) == MPI_SUCCESS);
        if (r != rank && (sz != 0 || p != NULL))
            FAIL("MPI_Win_shared_query(%d) on an MPI_Win_create window: size %ld base %p, "
                 "expected 0 and NULL (not shared memory)",
                 r, (long)sz, p);
    }
    expect_intact(&w, "flavor errors");
    rma_win_free(&w);
    make(&w, RMA_DYNAMIC);
    expect_class(MPI_Win_shared_query(w.win, 0, &sz, &du, &p), MPI_ERR_RMA_FLAVOR,
                 "MPI_Win_shared_query on an MPI_Win_create_dynamic window");
    expect_intact(&w, "flavor errors");
    rma_win_free(&w);
}

static const mpitest_t tests[] = {
    {"range", test_range},
    {"sync", test_sync},
    {"handle", test_handle},
    {"flavor", test_flavor},
};

int main(int argc, char **argv)
{
    return mpitest_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
