/* MPI_Win_allocate windows in shared memory: the parts of the ranks of one node are in one
 * segment, reached by the origin with loads and stores, while the other ranks' parts are
 * reached by messages, in the same window. Which ranks share is worked out here as the library
 * does it: the same node (MPI_COMM_TYPE_SHARED), neither started with VBT_WIN_ALLOCATE_SHM=0,
 * and at least two such ranks on the node. rma.sh starts some ranks with that knob to stand for
 * ranks of other nodes, which gives one window both paths on one machine;
 * RMA_EXPECT_SEGMENT=0 says no segment can be had at all (rma_fallback.sh: /dev/shm too small),
 * so every part is private.
 * - query: MPI_Win_shared_query (MPI-4.1 12.2.3) gives size, disp_unit and base for a rank we
 *   share with, and loads there see what its owner wrote; size 0 and NULL for the others;
 *   MPI_PROC_NULL the lowest rank with memory among those we share with; the window's flavor
 *   attribute is still MPI_WIN_FLAVOR_ALLOCATE and its model MPI_WIN_UNIFIED.
 * - paths: every rank puts into, gets back from (contiguous, strided, request-based) and
 *   accumulates into its slot of every rank's part in one epoch each; every value checked.
 * - atomic: every rank increments a counter at every rank with MPI_Fetch_and_op, with
 *   compare-and-swap loops, and accumulates into an array there: the fetched values at each
 *   target are all different and the totals exact, which an update lost between a direct
 *   accumulate and one the target serves from a message would break.
 * - large: 16 MiB parts (what rma_fallback.sh cannot fit), a pattern at both ends of each.
 * Usage: rma_allocate TEST... (or "all"), any number of ranks. */
#define MPITEST_NAME "rma_allocate"
#include "mpitest.h"
#include "rma_common.h"

#include <stdint.h>

static int *share; /* share[r]: this rank's loads and stores reach rank r's part */

static void work_out_sharing(void)
{
    MPI_Comm node;
    int me[2], *all = xmalloc(2 * sizeof(int) * (size_t)size), members = 0;
    const char *knob = getenv("VBT_WIN_ALLOCATE_SHM"), *seg = getenv("RMA_EXPECT_SEGMENT");
    int noseg = seg != NULL && strcmp(seg, "0") == 0;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    me[0] = rank;
    MPI_Allreduce(MPI_IN_PLACE, &me[0], 1, MPI_INT, MPI_MIN, node); /* the node's name */
    me[1] = knob != NULL && strcmp(knob, "0") == 0;                 /* stays out */
    MPI_Allgather(me, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    for (int r = 0; r < size; r++)
        members += all[2 * r] == me[0] && !all[2 * r + 1];
    share = xmalloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++)
        share[r] = r == rank ||
                   (!noseg && !me[1] && members >= 2 && all[2 * r] == me[0] && !all[2 * r + 1]);
    free(all);
}

/* Rank r's part: 4-byte elements, rank 1 none when there are more than two ranks. */
static MPI_Aint elems_of(int r)
{
    return size > 2 && r == 1 ? 0 : 100 * (MPI_Aint)r + 16;
}

static void test_query(void)
{
    MPI_Win win;
    int32_t *mine, *p;
    MPI_Aint sz, n = elems_of(rank);
    int du, flag, *fl, *model, low = -1;

    CHECK(MPI_Win_allocate(n * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win) == MPI_SUCCESS);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag) == MPI_SUCCESS && flag);
    if (*fl != MPI_WIN_FLAVOR_ALLOCATE)
        FAIL("MPI_WIN_CREATE_FLAVOR %d, expected MPI_WIN_FLAVOR_ALLOCATE (%d)", *fl,
             MPI_WIN_FLAVOR_ALLOCATE);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag) == MPI_SUCCESS && flag);
    if (*model != MPI_WIN_UNIFIED)
        FAIL("MPI_WIN_MODEL %d, expected MPI_WIN_UNIFIED", *model);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (MPI_Aint i = 0; i < n; i++)
        mine[i] = (int32_t)(rank * 100003 + i);
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int r = 0; r < size; r++) {
        CHECK(MPI_Win_shared_query(win, r, &sz, &du, &p) == MPI_SUCCESS);
        if (!share[r]) {
            if (sz != 0 || p != NULL)
                FAIL("shared_query(%d), a rank we do not share memory with: size %ld base %p, "
                     "expected 0 and NULL",
                     r, (long)sz, (void *)p);
            continue;
        }
        if (sz != elems_of(r) * 4 || du != 4)
            FAIL("shared_query(%d): size %ld disp_unit %d, expected %ld 4", r, (long)sz, du,
                 (long)elems_of(r) * 4);
        if (r == rank && p != mine)
            FAIL("shared_query of oneself: %p, MPI_Win_allocate gave %p", (void *)p, (void *)mine);
        for (MPI_Aint i = 0; i < sz / 4; i++)
            if (p[i] != (int32_t)(r * 100003 + i))
                FAIL("load from rank %d's part, element %ld: %d, expected %d", r, (long)i,
                     (int)p[i], (int)(r * 100003 + i));
        if (low < 0 && sz > 0)
            low = r;
    }
    CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p) == MPI_SUCCESS);
    if (low < 0 ? sz != 0 : sz != elems_of(low) * 4 || p[0] != (int32_t)(low * 100003))
        FAIL("shared_query(MPI_PROC_NULL): size %ld, expected rank %d's %ld bytes", (long)sz, low,
             low < 0 ? 0L : (long)elems_of(low) * 4);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

#define SLOT 1031 /* elements of each origin's slot in every part */

static int32_t value(int origin, int target, int i)
{
    return (int32_t)(origin * 1000003 + target * 7919 + i);
}

/* Our part, slot of each origin: mult times its values (0: untouched, 0). */
static void check_part(const int32_t *mine, int mult, const char *what)
{
    for (int o = 0; o < size; o++)
        for (int i = 0; i < SLOT; i++)
            if (mine[o * SLOT + i] != mult * value(o, rank, i))
                FAIL("%s: rank %d's slot in our part (%s), element %d: %d, expected %d", what, o,
                     share[o] ? "loads and stores" : "messages", i, (int)mine[o * SLOT + i],
                     (int)(mult * value(o, rank, i)));
}

static void test_paths(void)
{
    MPI_Win win;
    int32_t *mine, *src = xmalloc(sizeof(int32_t) * SLOT * (size_t)size),
                   *back = xmalloc(sizeof(int32_t) * SLOT), *half = xmalloc(sizeof(int32_t) * SLOT);
    MPI_Datatype every2;

    CHECK(MPI_Win_allocate((MPI_Aint)size * SLOT * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &mine,
                           &win) == MPI_SUCCESS);
    MPI_Type_vector(SLOT / 2, 1, 2, MPI_INT32_T, &every2);
    MPI_Type_commit(&every2);
    for (int t = 0; t < size; t++)
        for (int i = 0; i < SLOT; i++)
            src[t * SLOT + i] = value(rank, t, i);
    /* Puts into every part in one fence epoch. */
    MPI_Win_fence(0, win);
    memset(mine, 0, sizeof(int32_t) * SLOT * (size_t)size);
    MPI_Win_fence(0, win);
    for (int t = 0; t < size; t++)
        CHECK(MPI_Put(src + t * SLOT, SLOT, MPI_INT32_T, t, (MPI_Aint)rank * SLOT, SLOT,
                      MPI_INT32_T, win) == MPI_SUCCESS);
    MPI_Win_fence(0, win);
    check_part(mine, 1, "after puts and a fence");
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    /* Gets back, contiguous, strided into a contiguous buffer, and request-based. */
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < size; t++) {
        MPI_Request req;
        memset(back, 0, sizeof(int32_t) * SLOT);
        CHECK(MPI_Get(back, SLOT, MPI_INT32_T, t, (MPI_Aint)rank * SLOT, SLOT, MPI_INT32_T, win) ==
              MPI_SUCCESS);
        CHECK(MPI_Get(half, SLOT / 2, MPI_INT32_T, t, (MPI_Aint)rank * SLOT, 1, every2, win) ==
              MPI_SUCCESS);
        MPI_Win_flush(t, win);
        for (int i = 0; i < SLOT; i++)
            if (back[i] != value(rank, t, i))
                FAIL("get from rank %d (%s), element %d: %d, expected %d", t,
                     share[t] ? "loads" : "messages", i, (int)back[i], (int)value(rank, t, i));
        for (int i = 0; i < SLOT / 2; i++)
            if (half[i] != value(rank, t, 2 * i))
                FAIL("strided get from rank %d (%s), element %d: %d, expected %d", t,
                     share[t] ? "loads" : "messages", i, (int)half[i], (int)value(rank, t, 2 * i));
        memset(back, 0, sizeof(int32_t) * SLOT);
        CHECK(MPI_Rget(back, SLOT, MPI_INT32_T, t, (MPI_Aint)rank * SLOT, SLOT, MPI_INT32_T, win,
                       &req) == MPI_SUCCESS);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < SLOT; i++)
            if (back[i] != value(rank, t, i))
                FAIL("MPI_Rget from rank %d (%s), element %d: %d, expected %d", t,
                     share[t] ? "loads" : "messages", i, (int)back[i], (int)value(rank, t, i));
    }
    /* Accumulates of the same values: each slot doubles. */
    for (int t = 0; t < size; t++)
        CHECK(MPI_Accumulate(src + t * SLOT, SLOT, MPI_INT32_T, t, (MPI_Aint)rank * SLOT, SLOT,
                             MPI_INT32_T, MPI_SUM, win) == MPI_SUCCESS);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    check_part(mine, 2, "after accumulates and unlock_all");
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&every2);
    MPI_Win_free(&win);
    free(src);
    free(back);
    free(half);
}

#define NFOP 600       /* fetch-and-adds per origin per target */
#define NCAS 20        /* compare-and-swap increments per origin per target */
#define NACC 100       /* accumulates of the whole array per origin per target */
#define NARR (1 << 15) /* its elements: long updates, so that the two paths overlap */

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_atomic(void)
{
    MPI_Win win;
    /* Our part: the fetch-and-add counter, the CAS counter, then the array. */
    int64_t *mine, one = 1, *ones = xmalloc(sizeof(int64_t) * NARR);
    int64_t *old = xmalloc(sizeof(int64_t) * NFOP * (size_t)size),
            *all = xmalloc(sizeof(int64_t) * NFOP * (size_t)size);

    CHECK(MPI_Win_allocate((2 + NARR) * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win) ==
          MPI_SUCCESS);
    for (int i = 0; i < NARR; i++)
        ones[i] = 1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    memset(mine, 0, (2 + NARR) * 8);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < NACC; i++)
        for (int k = 0; k < size; k++) /* everyone on a different target at first */
            CHECK(MPI_Accumulate(ones, NARR, MPI_INT64_T, (rank + k) % size, 2, NARR, MPI_INT64_T,
                                 MPI_SUM, win) == MPI_SUCCESS);
    MPI_Win_flush_all(win);
    for (int i = 0; i < NFOP; i++) {
        for (int k = 0; k < size; k++) {
            int t = (rank + k) % size;
            CHECK(MPI_Fetch_and_op(&one, &old[t * NFOP + i], MPI_INT64_T, t, 0, MPI_SUM, win) ==
                  MPI_SUCCESS);
        }
        MPI_Win_flush_all(win);
    }
    for (int k = 0; k < size; k++) {
        int t = (rank + k) % size;
        for (int done = 0; done < NCAS;) {
            int64_t cur, next, got;
            CHECK(MPI_Fetch_and_op(&one, &cur, MPI_INT64_T, t, 1, MPI_NO_OP, win) == MPI_SUCCESS);
            MPI_Win_flush(t, win);
            next = cur + 1;
            CHECK(MPI_Compare_and_swap(&next, &cur, &got, MPI_INT64_T, t, 1, win) == MPI_SUCCESS);
            MPI_Win_flush(t, win);
            done += got == cur;
        }
    }
    MPI_Win_unlock_all(win);
    /* Each target gathers what every origin fetched from it: 0 .. NFOP * size - 1, once each. */
    for (int t = 0; t < size; t++)
        MPI_Gather(old + t * NFOP, NFOP, MPI_INT64_T, all, NFOP, MPI_INT64_T, t, MPI_COMM_WORLD);
    qsort(all, (size_t)NFOP * (size_t)size, sizeof(int64_t), cmp64);
    for (int64_t v = 0; v < (int64_t)NFOP * size; v++)
        if (all[v] != v)
            FAIL("the fetch-and-adds on our counter fetched %lld where %lld was due (each value "
                 "once): two increments saw the same count",
                 (long long)all[v], (long long)v);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    if (mine[0] != (int64_t)NFOP * size || mine[1] != (int64_t)NCAS * size)
        FAIL("our counters: %lld fetch-and-adds, %lld compare-and-swaps; expected %lld, %lld",
             (long long)mine[0], (long long)mine[1], (long long)NFOP * size,
             (long long)NCAS * size);
    for (int i = 0; i < NARR; i++)
        if (mine[2 + i] != (int64_t)NACC * size)
            FAIL("accumulated array, element %d: %lld, expected %lld (an update lost)", i,
                 (long long)mine[2 + i], (long long)NACC * size);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(old);
    free(all);
    free(ones);
}

#define LARGE ((MPI_Aint)16 << 20)

static void test_large(void)
{
    MPI_Win win;
    unsigned char *mine, v[64], back[64];
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    MPI_Aint sz;
    int du;
    void *p;

    CHECK(MPI_Win_allocate(LARGE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win) == MPI_SUCCESS);
    CHECK(MPI_Win_shared_query(win, right, &sz, &du, &p) == MPI_SUCCESS);
    if (share[right] ? sz != LARGE || p == NULL : sz != 0 || p != NULL)
        FAIL("shared_query(%d) of a %ld-byte part: size %ld base %p; expected %s", right,
             (long)LARGE, (long)sz, p, share[right] ? "all of it" : "0 and NULL");
    fill(v, sizeof(v), (unsigned)rank + 3);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    CHECK(MPI_Put(v, 64, MPI_BYTE, right, 0, 64, MPI_BYTE, win) == MPI_SUCCESS);
    CHECK(MPI_Put(v, 64, MPI_BYTE, right, LARGE - 64, 64, MPI_BYTE, win) == MPI_SUCCESS);
    MPI_Win_flush(right, win);
    CHECK(MPI_Get(back, 64, MPI_BYTE, right, LARGE - 64, 64, MPI_BYTE, win) == MPI_SUCCESS);
    MPI_Win_unlock(right, win);
    verify(back, 64, (unsigned)rank + 3, "get back from the end of a large part");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    verify(mine, 64, (unsigned)left + 3, "the start of our large part");
    verify(mine + LARGE - 64, 64, (unsigned)left + 3, "the end of our large part");
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
}

static const mpitest_t tests[] = {
    {"query", test_query},
    {"paths", test_paths},
    {"atomic", test_atomic},
    {"large", test_large},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    work_out_sharing();
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    if (argc < 2)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), "all");
    free(share);
    MPI_Finalize();
    return 0;
}
