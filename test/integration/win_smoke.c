/* One-sided communication, a smoke test of the engine: each window flavor (create, allocate,
 * allocate_shared, dynamic) and each synchronisation mode (fence, post/start/complete/wait,
 * lock/unlock shared and exclusive, lock_all with flushes and request-based operations), with
 * every payload checked element by element, plus the window error classes. Usage: win_smoke
 * [TEST...] (default all); rank 0 prints "win_smoke TEST: ok (N ranks) in T s". Any size. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPITEST_NAME "win_smoke"
#include "mpitest.h"

#define N 64 /* ints per rank and window */

static int value(int owner, int writer, int i)
{
    return owner * 100000 + writer * 1000 + i;
}

/* Fence: every rank puts a block into every rank's window, gets its neighbour's back through
 * a strided datatype, and everybody accumulates into rank 0. */
static void t_fence(void)
{
    int *mem = xmalloc(sizeof(int) * (size_t)N * (size_t)size), *src = xmalloc(sizeof(int) * N);
    int *back = xmalloc(sizeof(int) * N);
    MPI_Datatype every_other;
    MPI_Win win;

    for (int i = 0; i < N * size; i++)
        mem[i] = -1;
    MPI_Win_create(mem, (MPI_Aint)(sizeof(int) * (size_t)N * (size_t)size), sizeof(int),
                   MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int t = 0; t < size; t++) {
        for (int i = 0; i < N; i++)
            src[i] = value(t, rank, i);
        MPI_Put(src, N, MPI_INT, t, (MPI_Aint)rank * N, N, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    for (int w = 0; w < size; w++)
        for (int i = 0; i < N; i++)
            if (mem[w * N + i] != value(rank, w, i))
                FAIL("fence put: mem[%d] from rank %d is %d, expected %d", w * N + i, w,
                     mem[w * N + i], value(rank, w, i));
    /* The even elements of the neighbour's block written by us, into contiguous memory. */
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int right = (rank + 1) % size;
    memset(back, 0, sizeof(int) * N);
    MPI_Get(back, N / 2, MPI_INT, right, (MPI_Aint)rank * N, 1, every_other, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N / 2; i++)
        if (back[i] != value(right, rank, 2 * i))
            FAIL("fence get (vector): element %d is %d, expected %d", i, back[i],
                 value(right, rank, 2 * i));
    /* Accumulates from everybody into rank 0's first block, in two ops. */
    for (int i = 0; i < N; i++)
        src[i] = rank + i;
    MPI_Accumulate(src, N, MPI_INT, 0, 0, N, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(src, N, MPI_INT, 0, 0, N, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0)
        for (int i = 0; i < N; i++) {
            long expect = value(0, 0, i);
            for (int r = 0; r < size; r++)
                expect += 2L * (r + i);
            if (mem[i] != expect)
                FAIL("fence accumulate: mem[%d] is %d, expected %ld", i, mem[i], expect);
        }
    MPI_Type_free(&every_other);
    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL);
    free(mem);
    free(src);
    free(back);
}

/* Post/start/complete/wait around a ring: we expose to the left neighbour and access the
 * right one. */
static void t_pscw(void)
{
    int *base, left = (rank + size - 1) % size, right = (rank + 1) % size, flag = 0;
    MPI_Group world, lg, rg;
    MPI_Win win;
    int src[N];

    MPI_Win_allocate((MPI_Aint)(sizeof(int) * N), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    for (int i = 0; i < N; i++)
        base[i] = -1;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &lg);
    MPI_Group_incl(world, 1, &right, &rg);
    for (int round = 0; round < 3; round++) {
        MPI_Barrier(MPI_COMM_WORLD); /* our stores are done before anyone may put */
        MPI_Win_post(lg, 0, win);
        MPI_Win_start(rg, 0, win);
        for (int i = 0; i < N; i++)
            src[i] = value(right, rank, i + round);
        MPI_Put(src, N, MPI_INT, right, 0, N, MPI_INT, win);
        MPI_Win_complete(win);
        if (round == 1) {
            while (!flag)
                MPI_Win_test(win, &flag);
        } else {
            MPI_Win_wait(win);
        }
        for (int i = 0; i < N; i++)
            if (base[i] != value(rank, left, i + round))
                FAIL("pscw round %d: base[%d] is %d, expected %d", round, i, base[i],
                     value(rank, left, i + round));
    }
    MPI_Group_free(&lg);
    MPI_Group_free(&rg);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
}

/* Passive target: a counter on rank 0 incremented under exclusive locks with fetch-and-op
 * (every old value seen exactly once), compare-and-swap, shared-lock puts and gets with
 * flushes, and lock_all with request-based operations. */
static void t_lock(void)
{
    const int reps = 20;
    long *base, one = 1, old, *seen = xmalloc(sizeof(long) * (size_t)reps * (size_t)size);
    MPI_Win win;

    MPI_Alloc_mem((MPI_Aint)(sizeof(long) * (N + 1)), MPI_INFO_NULL, &base);
    for (int i = 0; i <= N; i++)
        base[i] = 0;
    MPI_Win_create(base, (MPI_Aint)(sizeof(long) * (N + 1)), sizeof(long), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < reps; k++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, N, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        seen[rank * reps + k] = old;
    }
    /* Shared lock from everyone: each writes its own slot of every target and reads it back. */
    for (int t = 0; t < size; t++) {
        long v = value(t, rank, 0), got = -1;
        if (rank >= N)
            break;
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        MPI_Put(&v, 1, MPI_LONG, t, rank, 1, MPI_LONG, win);
        MPI_Win_flush(t, win);
        MPI_Get(&got, 1, MPI_LONG, t, rank, 1, MPI_LONG, win);
        MPI_Win_flush_local(t, win);
        if (got != v)
            FAIL("lock: got %ld back from rank %d, expected %ld", got, t, v);
        MPI_Win_unlock(t, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, seen, reps, MPI_LONG, MPI_COMM_WORLD);
    if (base[N] != (long)reps * size && rank == 0)
        FAIL("lock: counter is %ld, expected %ld", base[N], (long)reps * size);
    {
        char *hit = calloc((size_t)reps * (size_t)size, 1);
        for (int i = 0; i < reps * size; i++) {
            if (seen[i] < 0 || seen[i] >= (long)reps * size || hit[seen[i]])
                FAIL("lock: fetch_and_op returned %ld twice or out of range", seen[i]);
            hit[seen[i]] = 1;
        }
        free(hit);
    }
    /* Compare-and-swap: only one rank wins slot 0 of rank 0 (reset to -1 first). */
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        base[0] = -1;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    {
        long cmp = -1, mine = rank, res = -7;
        int won, nwon;
        MPI_Win_lock_all(0, win);
        MPI_Compare_and_swap(&mine, &cmp, &res, MPI_LONG, 0, 0, win);
        MPI_Win_flush(0, win);
        MPI_Win_unlock_all(win);
        won = res == -1;
        if (!won && (res < 0 || res >= size))
            FAIL("compare_and_swap returned %ld", res);
        MPI_Allreduce(&won, &nwon, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (nwon != 1)
            FAIL("compare_and_swap: %d ranks won, expected 1", nwon);
    }
    /* lock_all with Rput/Rget and MPI_Wait, into the right neighbour's slot. */
    {
        int right = (rank + 1) % size;
        long v = 7000 + rank, got = 0;
        MPI_Request rq[2];
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock_all(0, win);
        if (rank < N) {
            MPI_Rput(&v, 1, MPI_LONG, right, rank, 1, MPI_LONG, win, &rq[0]);
            MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
            MPI_Win_flush(right, win);
            MPI_Rget(&got, 1, MPI_LONG, right, rank, 1, MPI_LONG, win, &rq[1]);
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
            if (got != v)
                FAIL("lock_all Rget: %ld, expected %ld", got, v);
        }
        MPI_Win_flush_all(win);
        MPI_Win_unlock_all(win);
    }
    MPI_Win_free(&win);
    MPI_Free_mem(base);
    free(seen);
}

/* A shared window over each node: loads and stores of the neighbour's part, and operations. */
static void t_shared(void)
{
    MPI_Comm node;
    MPI_Win win;
    int nrank, nsize, *mine, *theirs, du;
    MPI_Aint sz;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Win_allocate_shared((MPI_Aint)(sizeof(int) * N), sizeof(int), MPI_INFO_NULL, node, &mine,
                            &win);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < N; i++)
        mine[i] = value(nrank, nrank, i);
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    int right = (nrank + 1) % nsize;
    MPI_Win_shared_query(win, right, &sz, &du, &theirs);
    CHECK(sz == (MPI_Aint)(sizeof(int) * N) && du == (int)sizeof(int));
    for (int i = 0; i < N; i++)
        if (theirs[i] != value(right, right, i))
            FAIL("shared: load of rank %d's element %d is %d, expected %d", right, i, theirs[i],
                 value(right, right, i));
    /* Contiguous by default: rank r's part follows rank r-1's. */
    if (right == nrank + 1 && theirs != mine + N)
        FAIL("shared: rank %d's part is at %p, not right after ours (%p)", right, (void *)theirs,
             (void *)(mine + N));
    MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &theirs);
    CHECK(sz == (MPI_Aint)(sizeof(int) * N));
    MPI_Barrier(node);
    /* Accumulate into the right neighbour's element 0 through the window; a counter in rank
     * 0's last element that everybody increments (the direct path's lock makes it atomic);
     * a strided get of the neighbour's part. */
    int one = 1, old, got[N / 2];
    MPI_Datatype every_other;
    MPI_Accumulate(&one, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win);
    for (int k = 0; k < 100; k++)
        MPI_Fetch_and_op(&one, &old, MPI_INT, 0, N - 1, MPI_SUM, win);
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Get(got, N / 2, MPI_INT, right, 1, 1, every_other, win);
    MPI_Win_flush(right, win);
    for (int i = 0; i < N / 2 - 1; i++) /* the last is the counter */
        if (got[i] != value(right, right, 1 + 2 * i))
            FAIL("shared: strided get element %d is %d, expected %d", i, got[i],
                 value(right, right, 1 + 2 * i));
    MPI_Type_free(&every_other);
    MPI_Win_unlock_all(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    if (mine[0] != value(nrank, nrank, 0) + 1)
        FAIL("shared: accumulate gave %d, expected %d", mine[0], value(nrank, nrank, 0) + 1);
    if (nrank == 0 && mine[N - 1] != value(0, 0, N - 1) + 100 * nsize)
        FAIL("shared: counter is %d, expected %d", mine[N - 1], value(0, 0, N - 1) + 100 * nsize);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* A dynamic window: attach, exchange addresses, put and get under lock_all; an access outside
 * the attached memory is reported at unlock with MPI_ERR_RMA_RANGE. */
static void t_dynamic(void)
{
    int *buf = xmalloc(sizeof(int) * N), got[N], src[N], cls, rc;
    MPI_Aint *addrs = xmalloc(sizeof(MPI_Aint) * (size_t)size), my;
    MPI_Win win;
    int right = (rank + 1) % size;

    for (int i = 0; i < N; i++)
        buf[i] = -1;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, buf, (MPI_Aint)(sizeof(int) * N));
    MPI_Get_address(buf, &my);
    MPI_Allgather(&my, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        src[i] = value(right, rank, i);
    MPI_Win_lock_all(0, win);
    MPI_Put(src, N, MPI_INT, right, addrs[right], N, MPI_INT, win);
    MPI_Win_flush(right, win);
    MPI_Get(got, N, MPI_INT, right, addrs[right], N, MPI_INT, win);
    MPI_Win_flush(right, win);
    for (int i = 0; i < N; i++)
        if (got[i] != src[i])
            FAIL("dynamic: element %d is %d, expected %d", i, got[i], src[i]);
    MPI_Win_unlock_all(win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Put(src, N, MPI_INT, right, addrs[right] + (MPI_Aint)sizeof(int), N, MPI_INT, win);
    rc = MPI_Win_unlock(right, win);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_RMA_RANGE)
        FAIL("dynamic: a put past the attached memory gave error class %d at unlock, expected "
             "MPI_ERR_RMA_RANGE (%d)",
             cls, MPI_ERR_RMA_RANGE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (buf[N - 1] != value(rank, (rank + size - 1) % size, N - 1))
        FAIL("dynamic: the refused put wrote into the window (last element %d)", buf[N - 1]);
    MPI_Win_detach(win, buf);
    MPI_Win_free(&win);
    free(buf);
    free(addrs);
}

static int deleted;
static int count_delete(MPI_Win w, int key, void *val, void *extra)
{
    (void)w;
    (void)key;
    (void)extra;
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

static int handler_calls, handler_code;
static void win_handler(MPI_Win *w, int *code, ...)
{
    (void)w;
    handler_calls++;
    handler_code = *code;
}

static int error_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Attributes, names, error handlers, and the window error classes (nothing written). */
static void t_attrs_errors(void)
{
    int *base, *flavor, *model, *du, flag, key, val = 3, rc, x = 5;
    MPI_Aint *sz;
    void *b;
    MPI_Win win, shwin;
    MPI_Errhandler eh;
    char name[MPI_MAX_OBJECT_NAME];
    int len;

    MPI_Win_allocate((MPI_Aint)(sizeof(int) * N), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    for (int i = 0; i < N; i++)
        base[i] = 11;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &b, &flag);
    CHECK(flag && b == base);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &sz, &flag);
    CHECK(flag && *sz == (MPI_Aint)(sizeof(int) * N));
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag);
    CHECK(flag && *du == (int)sizeof(int));
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED);
    {
        MPI_Info in, used;
        char v[MPI_MAX_INFO_VAL];
        MPI_Info_create(&in);
        MPI_Info_set(in, "no_locks", "true");
        MPI_Info_set(in, "same_size", "maybe"); /* invalid: ignored */
        MPI_Win_set_info(win, in);
        MPI_Info_free(&in);
        MPI_Win_get_info(win, &used);
        MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL - 1, v, &flag);
        CHECK(flag && strcmp(v, "true") == 0);
        MPI_Info_get(used, "same_size", MPI_MAX_INFO_VAL - 1, v, &flag);
        CHECK(flag && strcmp(v, "false") == 0);
        MPI_Info_get(used, "accumulate_ordering", MPI_MAX_INFO_VAL - 1, v, &flag);
        CHECK(flag && strcmp(v, "rar,raw,war,waw") == 0);
        MPI_Info_free(&used);
    }
    MPI_Win_set_name(win, "smoke window");
    MPI_Win_get_name(win, name, &len);
    CHECK(strcmp(name, "smoke window") == 0 && len == 12);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &key, NULL);
    MPI_Win_set_attr(win, key, &val);
    MPI_Win_get_attr(win, key, &b, &flag);
    CHECK(flag && b == &val);

    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    /* No epoch open. */
    rc = MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    rc = MPI_Win_unlock(0, win);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    rc = MPI_Win_complete(win);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    rc = MPI_Win_wait(win);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    rc = MPI_Win_flush(0, win);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    rc = MPI_Win_fence(0x7, win);
    CHECK(error_class(rc) == MPI_ERR_ASSERT);
    /* Out of range, and a nested lock. */
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    rc = MPI_Put(&x, 1, MPI_INT, 0, N, 1, MPI_INT, win);
    CHECK(error_class(rc) == MPI_ERR_RMA_RANGE);
    rc = MPI_Put(&x, 2, MPI_INT, 0, N - 1, 2, MPI_INT, win);
    CHECK(error_class(rc) == MPI_ERR_RMA_RANGE);
    rc = MPI_Get(&x, 1, MPI_INT, 0, -1, 1, MPI_INT, win);
    CHECK(error_class(rc) == MPI_ERR_RMA_RANGE);
    rc = MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    CHECK(error_class(rc) == MPI_ERR_RMA_SYNC);
    rc = MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win);
    CHECK(error_class(rc) == MPI_ERR_OP);
    rc = MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win);
    CHECK(error_class(rc) == MPI_ERR_OP);
    MPI_Win_unlock(0, win);
    /* Wrong flavors. */
    rc = MPI_Win_attach(win, &x, sizeof(x));
    CHECK(error_class(rc) == MPI_ERR_RMA_FLAVOR);
    {
        /* Not a wrong flavor since MPI-4.1: a process's own part can always be queried. */
        MPI_Aint qsz;
        int qdu;
        CHECK(MPI_Win_shared_query(win, rank, &qsz, &qdu, &b) == MPI_SUCCESS);
        CHECK(qsz == (MPI_Aint)(sizeof(int) * N) && qdu == (int)sizeof(int) && b == base);
    }
    /* A user handler on the window. */
    MPI_Win_create_errhandler(win_handler, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Errhandler_free(&eh);
    rc = MPI_Win_unlock(0, win);
    CHECK(handler_calls == 1 && error_class(handler_code) == MPI_ERR_RMA_SYNC);
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER);
    /* Nothing was written by any refused call. */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        if (base[i] != 11)
            FAIL("a refused call wrote element %d (%d)", i, base[i]);
    /* A bad window handle. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_fence(0, MPI_WIN_NULL);
    CHECK(error_class(rc) == MPI_ERR_WIN);
    rc = MPI_Free_mem(&x);
    CHECK(error_class(rc) == MPI_ERR_BASE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Win_free(&win);
    CHECK(deleted == 3);
    MPI_Win_free_keyval(&key);
    /* A shared window over ranks of several nodes is refused; all on one node here, so check
     * it works over the world when the world is one node. */
    {
        MPI_Comm node;
        int nsize;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &nsize);
        MPI_Comm_free(&node);
        if (nsize == size) {
            int *p;
            MPI_Win_allocate_shared(0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &shwin);
            MPI_Win_free(&shwin);
        }
    }
}

/* Get_accumulate with MPI_NO_OP and MPI_REPLACE, accumulates on a derived (vector) target
 * type, in lock epochs with many operations to one location (ordered, atomic). */
static void t_get_acc(void)
{
    double *base, in[N], res[N];
    MPI_Datatype vec;
    MPI_Win win;
    const int reps = 50;

    MPI_Win_allocate((MPI_Aint)(sizeof(double) * 2 * N), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < 2 * N; i++)
        base[i] = 0;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        in[i] = 1.0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    for (int k = 0; k < reps; k++)
        MPI_Accumulate(in, N, MPI_DOUBLE, 0, 0, 1, vec, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, res, N, MPI_DOUBLE, 0, 0, 1, vec, MPI_NO_OP, win);
    MPI_Win_unlock(0, win);
    for (int i = 0; i < N; i++)
        if (res[i] != (double)reps * size)
            FAIL("get_accumulate NO_OP: element %d is %g, expected %g", i, res[i],
                 (double)reps * size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < N; i++)
            if (base[2 * i + 1] != 0)
                FAIL("accumulate on a vector wrote an odd element %d", 2 * i + 1);
    /* The ordering check below writes element 1: not before rank 0 has looked at it (rank 0
     * serves a request that arrives while it is still in the barrier above). */
    MPI_Barrier(MPI_COMM_WORLD);
    /* Ordering: one origin's replaces to one place land in program order. */
    if (rank == size - 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (int k = 0; k <= reps; k++) {
            double v = k;
            MPI_Accumulate(&v, 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE, MPI_REPLACE, win);
        }
        double prev = -1;
        MPI_Get_accumulate(in, 1, MPI_DOUBLE, &prev, 1, MPI_DOUBLE, 0, 1, 1, MPI_DOUBLE,
                           MPI_REPLACE, win);
        MPI_Win_unlock(0, win);
        if (prev != reps)
            FAIL("accumulate order: the last replace left %g, expected %d", prev, reps);
    }
    MPI_Type_free(&vec);
    MPI_Win_free(&win);
}

/* Large operations (past every eager and fragment limit: the rendezvous path) with a strided
 * origin, in both directions, and a large accumulate. */
static void t_large(void)
{
    const size_t n = (size_t)3 << 20; /* doubles: 24 MiB per rank */
    double *base, *src = xmalloc(sizeof(double) * n), *back = xmalloc(sizeof(double) * n / 2);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype strided;
    MPI_Win win;

    MPI_Win_allocate((MPI_Aint)(sizeof(double) * n), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    for (size_t i = 0; i < n; i++)
        src[i] = (double)rank * 1e7 + (double)i;
    MPI_Type_vector((int)(n / 2), 1, 2, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);
    MPI_Win_fence(0, win);
    MPI_Put(src, 1, strided, right, 0, (int)(n / 2), MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    for (size_t i = 0; i < n / 2; i++)
        if (base[i] != (double)left * 1e7 + (double)(2 * i))
            FAIL("large put: element %zu is %g, expected %g", i, base[i],
                 (double)left * 1e7 + (double)(2 * i));
    MPI_Get(back, (int)(n / 2), MPI_DOUBLE, right, 0, (int)(n / 2), MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    for (size_t i = 0; i < n / 2; i++)
        if (back[i] != (double)rank * 1e7 + (double)(2 * i))
            FAIL("large get: element %zu is %g, expected %g", i, back[i],
                 (double)rank * 1e7 + (double)(2 * i));
    MPI_Accumulate(src, (int)(n / 2), MPI_DOUBLE, right, 0, (int)(n / 2), MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (size_t i = 0; i < n / 2; i++)
        if (base[i] != (double)left * 1e7 + (double)(2 * i) + (double)left * 1e7 + (double)i)
            FAIL("large accumulate: element %zu is %g", i, base[i]);
    MPI_Type_free(&strided);
    MPI_Win_free(&win);
    free(src);
    free(back);
}

/* Every predefined op on MPI_INT from every rank into rank 0 (and MINLOC / MAXLOC on the pair
 * types, MPI_SHORT_INT being padded inside), on a created window (served by the target) and a
 * shared one over the node (the direct path). */
typedef struct {
    short v;
    int i;
} short_int_t;
typedef struct {
    double v;
    int i;
} double_int_t;

static int apply_int(MPI_Op op, int a, int b)
{
    if (op == MPI_SUM)
        return a + b;
    if (op == MPI_PROD)
        return a * b;
    if (op == MPI_MAX)
        return a > b ? a : b;
    if (op == MPI_MIN)
        return a < b ? a : b;
    if (op == MPI_BAND)
        return a & b;
    if (op == MPI_BOR)
        return a | b;
    if (op == MPI_BXOR)
        return a ^ b;
    if (op == MPI_LAND)
        return a && b;
    if (op == MPI_LOR)
        return a || b;
    if (op == MPI_LXOR)
        return !a != !b;
    return a; /* MPI_REPLACE */
}

static void ops_on(MPI_Comm comm, int shared)
{
    static const MPI_Op ops[] = {MPI_SUM,  MPI_PROD, MPI_MAX, MPI_MIN,  MPI_BAND,   MPI_BOR,
                                 MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE};
    const int nops = (int)(sizeof(ops) / sizeof(ops[0]));
    int me, n;
    char *mem;
    MPI_Win win;
    MPI_Aint bytes = 256;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (shared)
        MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, comm, &mem, &win);
    else
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, comm, &mem, &win);
    int *iv = (int *)mem;
    short_int_t *si = (short_int_t *)(mem + 64);
    double_int_t *di = (double_int_t *)(mem + 128);
    for (int k = 0; k < nops; k++)
        iv[k] = 3 + k;
    si->v = 1000;
    si->i = -1;
    di->v = -1e9;
    di->i = -1;
    MPI_Win_fence(0, win);
    /* MPI_REPLACE from several ranks leaves one of their values: only rank n-1 replaces. */
    for (int k = 0; k < nops; k++) {
        int x = (ops[k] == MPI_PROD) ? 2 : 5 + me;
        if (ops[k] == MPI_REPLACE && me != n - 1)
            continue;
        MPI_Accumulate(&x, 1, MPI_INT, 0, (MPI_Aint)(k * sizeof(int)), 1, MPI_INT, ops[k], win);
    }
    short_int_t s = {(short)(500 - me), me};
    double_int_t d = {(double)me * 1.5, me};
    MPI_Accumulate(&s, 1, MPI_SHORT_INT, 0, 64, 1, MPI_SHORT_INT, MPI_MINLOC, win);
    MPI_Accumulate(&d, 1, MPI_DOUBLE_INT, 0, 128, 1, MPI_DOUBLE_INT, MPI_MAXLOC, win);
    MPI_Win_fence(0, win);
    if (me == 0) {
        for (int k = 0; k < nops; k++) {
            int expect = 3 + k;
            for (int r = 0; r < n; r++) {
                if (ops[k] == MPI_REPLACE && r != n - 1)
                    continue;
                expect = apply_int(ops[k], ops[k] == MPI_PROD ? 2 : 5 + r, expect);
            }
            if (iv[k] != expect)
                FAIL("ops (%s window): op %d gave %d, expected %d", shared ? "shared" : "allocated",
                     k, iv[k], expect);
        }
        if (si->v != 500 - (n - 1) || si->i != n - 1)
            FAIL("ops: MINLOC on MPI_SHORT_INT gave (%d, %d), expected (%d, %d)", si->v, si->i,
                 500 - (n - 1), n - 1);
        if (di->v != (double)(n - 1) * 1.5 || di->i != n - 1)
            FAIL("ops: MAXLOC on MPI_DOUBLE_INT gave (%g, %d)", di->v, di->i);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);
}

static void t_ops(void)
{
    MPI_Comm node;

    ops_on(MPI_COMM_WORLD, 0);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    ops_on(node, 1);
    MPI_Comm_free(&node);
}

static const mpitest_t tests[] = {
    {"fence", t_fence},     {"pscw", t_pscw},       {"lock", t_lock},
    {"shared", t_shared},   {"dynamic", t_dynamic}, {"attrs_errors", t_attrs_errors},
    {"get_acc", t_get_acc}, {"large", t_large},     {"ops", t_ops},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), argv[i]);
    if (argc < 2)
        mpitest_run(tests, sizeof(tests) / sizeof(tests[0]), "all");
    MPI_Finalize();
    return 0;
}
