/* Shared by the one-sided test programs (rma_*.c), after mpitest.h: a window of any creation
 * flavor behind one struct (so a test runs unchanged over all five), target displacements that
 * work on dynamic windows too, the local-access epoch a process uses to read or write its own
 * window memory, and the synchronization modes of chapter 12 as open/close pairs. */
#ifndef RMA_COMMON_H
#define RMA_COMMON_H

#include <stdint.h>

enum {
    RMA_CREATE,    /* MPI_Win_create on malloc'd memory */
    RMA_ALLOC_MEM, /* MPI_Win_create on MPI_Alloc_mem memory */
    RMA_ALLOCATE,  /* MPI_Win_allocate */
    RMA_SHARED,    /* MPI_Win_allocate_shared (only when the communicator is one node) */
    RMA_DYNAMIC,   /* MPI_Win_create_dynamic + MPI_Win_attach, addresses exchanged */
    RMA_NFLAVORS
};

static const char *const rma_flavor_name[RMA_NFLAVORS] = {"create", "alloc_mem", "allocate",
                                                          "shared", "dynamic"};

typedef struct {
    MPI_Win win;
    MPI_Comm comm;
    int flavor;
    int me, n; /* rank and size in comm */
    unsigned char *base;
    MPI_Aint size;  /* bytes of this process's memory */
    int disp_unit;  /* of every process (dynamic windows: emulated in rma_disp) */
    MPI_Aint *addr; /* dynamic: each rank's attached address (MPI_Get_address); else 0 */
} rma_win_t;

/* A window of flavor over size bytes at every process of comm, zeroed. Returns 0 (and makes
 * nothing) when the flavor cannot be had here: shared memory across nodes. */
static inline int rma_win_make(rma_win_t *w, int flavor, MPI_Aint size, int disp_unit,
                               MPI_Comm comm)
{
    memset(w, 0, sizeof(*w));
    w->flavor = flavor;
    w->comm = comm;
    w->size = size;
    w->disp_unit = disp_unit;
    MPI_Comm_rank(comm, &w->me);
    MPI_Comm_size(comm, &w->n);
    w->addr = xmalloc(sizeof(MPI_Aint) * (size_t)w->n);
    memset(w->addr, 0, sizeof(MPI_Aint) * (size_t)w->n);
    switch (flavor) {
    case RMA_CREATE:
        w->base = xmalloc((size_t)size);
        memset(w->base, 0, (size_t)size);
        CHECK(MPI_Win_create(w->base, size, disp_unit, MPI_INFO_NULL, comm, &w->win) ==
              MPI_SUCCESS);
        break;
    case RMA_ALLOC_MEM:
        CHECK(MPI_Alloc_mem(size, MPI_INFO_NULL, &w->base) == MPI_SUCCESS);
        memset(w->base, 0, (size_t)size);
        CHECK(MPI_Win_create(w->base, size, disp_unit, MPI_INFO_NULL, comm, &w->win) ==
              MPI_SUCCESS);
        break;
    case RMA_ALLOCATE:
        CHECK(MPI_Win_allocate(size, disp_unit, MPI_INFO_NULL, comm, &w->base, &w->win) ==
              MPI_SUCCESS);
        break;
    case RMA_SHARED: {
        MPI_Comm node;
        int nn;
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &nn);
        MPI_Comm_free(&node);
        if (nn != w->n) {
            free(w->addr);
            return 0;
        }
        CHECK(MPI_Win_allocate_shared(size, disp_unit, MPI_INFO_NULL, comm, &w->base, &w->win) ==
              MPI_SUCCESS);
        break;
    }
    case RMA_DYNAMIC: {
        MPI_Aint a;
        w->base = xmalloc((size_t)size);
        memset(w->base, 0, (size_t)size);
        CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &w->win) == MPI_SUCCESS);
        CHECK(MPI_Win_attach(w->win, w->base, size) == MPI_SUCCESS);
        MPI_Get_address(w->base, &a);
        MPI_Allgather(&a, 1, MPI_AINT, w->addr, 1, MPI_AINT, comm);
        break;
    }
    default:
        FAIL("no flavor %d", flavor);
    }
    /* Allocated memory comes zeroed from nobody: zero it, then make that the public copy
     * before anyone accesses it. */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w->me, 0, w->win);
    memset(w->base, 0, (size_t)size);
    MPI_Win_unlock(w->me, w->win);
    MPI_Barrier(comm);
    return 1;
}

static inline void rma_win_free(rma_win_t *w)
{
    if (w->flavor == RMA_DYNAMIC)
        CHECK(MPI_Win_detach(w->win, w->base) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&w->win) == MPI_SUCCESS);
    CHECK(w->win == MPI_WIN_NULL);
    if (w->flavor == RMA_CREATE || w->flavor == RMA_DYNAMIC)
        free(w->base);
    else if (w->flavor == RMA_ALLOC_MEM)
        CHECK(MPI_Free_mem(w->base) == MPI_SUCCESS);
    free(w->addr);
}

/* The target displacement of element off (of disp_unit bytes) at target: on a dynamic window
 * the displacement is an address (disp_unit 1), so it is the target's attached address plus
 * the offset in bytes. */
static inline MPI_Aint rma_disp(const rma_win_t *w, int target, MPI_Aint off)
{
    if (w->flavor == RMA_DYNAMIC)
        return MPI_Aint_add(w->addr[target], off * w->disp_unit);
    return off;
}

/* buf[0..n) holds bytes start..start+n of pattern seed (verify() with an offset). */
static inline void verify_at(const unsigned char *buf, size_t n, unsigned seed, size_t start,
                             const char *what)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != pattern(seed, start + i))
            FAIL("%s: %zu-byte payload wrong at byte %zu (0x%02x, expected 0x%02x)", what, n, i,
                 buf[i], pattern(seed, start + i));
    }
}

/* Read or write one's own window memory with no other epoch open on it: an exclusive lock on
 * oneself makes the accesses between begin and end consistent with remote ones (ends with the
 * public and private copies agreeing). */
static inline void rma_local_begin(const rma_win_t *w)
{
    CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w->me, 0, w->win) == MPI_SUCCESS);
}

static inline void rma_local_end(const rma_win_t *w)
{
    CHECK(MPI_Win_unlock(w->me, w->win) == MPI_SUCCESS);
}

/* Synchronization modes: rma_epoch_open/close around operations from this process to target
 * (its right neighbour in the window's communicator), every process doing the same at once.
 * Passive modes leave the target out; active ones (fence, PSCW) need it to take part, which
 * it does in the same calls: with PSCW each process posts to its left neighbour and starts
 * towards its right one. */
enum {
    SYNC_FENCE,
    SYNC_FENCE_ASSERT, /* NOPRECEDE / NOSTORE / NOSUCCEED (NOPUT when only gets target us) */
    SYNC_PSCW,
    SYNC_PSCW_TEST,    /* the exposure epoch ended by polling MPI_Win_test */
    SYNC_PSCW_NOCHECK, /* post and start with MPI_MODE_NOCHECK, ordered by a barrier */
    SYNC_LOCK_EXCL,
    SYNC_LOCK_SHARED,
    SYNC_LOCK_NOCHECK, /* exclusive, MPI_MODE_NOCHECK: only our left neighbour locks us */
    SYNC_LOCK_ALL,
    SYNC_FLUSH,           /* lock_all, ops, MPI_Win_flush(target), unlock_all */
    SYNC_FLUSH_ALL,       /* lock_all, ops, MPI_Win_flush_all, unlock_all */
    SYNC_FLUSH_LOCAL,     /* lock, ops, MPI_Win_flush_local, origin reused, unlock */
    SYNC_FLUSH_LOCAL_ALL, /* lock_all, ops, MPI_Win_flush_local_all, origin reused, unlock */
    SYNC_NMODES
};

static const char *const rma_sync_name[SYNC_NMODES] = {
    "fence",     "fence_assert", "pscw",           "pscw_test", "pscw_nocheck",
    "lock_excl", "lock_shared",  "lock_nocheck",   "lock_all",  "flush",
    "flush_all", "flush_local",  "flush_local_all"};

static inline int rma_sync_passive(int mode)
{
    return mode >= SYNC_LOCK_EXCL;
}

/* One-element group of comm rank r of w's communicator. */
static inline MPI_Group rma_group_of(const rma_win_t *w, int r)
{
    MPI_Group g, one;
    CHECK(MPI_Win_get_group(w->win, &g) == MPI_SUCCESS);
    MPI_Group_incl(g, 1, &r, &one);
    MPI_Group_free(&g);
    return one;
}

/* Open the epoch of mode towards target; only_gets says no process puts or accumulates into
 * us in this epoch (which the fence assertions may then say). */
static inline void rma_epoch_open(const rma_win_t *w, int mode, int target, int only_gets)
{
    int left = (w->me - 1 + w->n) % w->n;
    MPI_Group g;

    switch (mode) {
    case SYNC_FENCE:
        CHECK(MPI_Win_fence(0, w->win) == MPI_SUCCESS);
        break;
    case SYNC_FENCE_ASSERT:
        /* NOSTORE and NOPUT only when nothing writes our memory: put rounds clear it. */
        CHECK(
            MPI_Win_fence(MPI_MODE_NOPRECEDE | (only_gets ? MPI_MODE_NOPUT | MPI_MODE_NOSTORE : 0),
                          w->win) == MPI_SUCCESS);
        break;
    case SYNC_PSCW:
    case SYNC_PSCW_TEST:
        g = rma_group_of(w, left);
        CHECK(MPI_Win_post(g, 0, w->win) == MPI_SUCCESS);
        MPI_Group_free(&g);
        g = rma_group_of(w, target);
        CHECK(MPI_Win_start(g, 0, w->win) == MPI_SUCCESS);
        MPI_Group_free(&g);
        break;
    case SYNC_PSCW_NOCHECK:
        g = rma_group_of(w, left);
        CHECK(MPI_Win_post(g, MPI_MODE_NOCHECK, w->win) == MPI_SUCCESS);
        MPI_Group_free(&g);
        MPI_Barrier(w->comm);
        g = rma_group_of(w, target);
        CHECK(MPI_Win_start(g, MPI_MODE_NOCHECK, w->win) == MPI_SUCCESS);
        MPI_Group_free(&g);
        break;
    case SYNC_LOCK_EXCL:
    case SYNC_FLUSH_LOCAL:
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, w->win) == MPI_SUCCESS);
        break;
    case SYNC_LOCK_SHARED:
        CHECK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w->win) == MPI_SUCCESS);
        break;
    case SYNC_LOCK_NOCHECK:
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, MPI_MODE_NOCHECK, w->win) == MPI_SUCCESS);
        break;
    case SYNC_LOCK_ALL:
    case SYNC_FLUSH:
    case SYNC_FLUSH_ALL:
    case SYNC_FLUSH_LOCAL_ALL:
        CHECK(MPI_Win_lock_all(0, w->win) == MPI_SUCCESS);
        break;
    default:
        FAIL("no sync mode %d", mode);
    }
}

/* After the operations, before closing: the flush modes complete them here (remotely, or
 * locally only); returns 1 when the origin buffers may be reused already. */
static inline int rma_epoch_flush(const rma_win_t *w, int mode, int target)
{
    switch (mode) {
    case SYNC_FLUSH:
        CHECK(MPI_Win_flush(target, w->win) == MPI_SUCCESS);
        return 1;
    case SYNC_FLUSH_ALL:
        CHECK(MPI_Win_flush_all(w->win) == MPI_SUCCESS);
        return 1;
    case SYNC_FLUSH_LOCAL:
        CHECK(MPI_Win_flush_local(target, w->win) == MPI_SUCCESS);
        return 1;
    case SYNC_FLUSH_LOCAL_ALL:
        CHECK(MPI_Win_flush_local_all(w->win) == MPI_SUCCESS);
        return 1;
    default:
        return 0;
    }
}

static inline void rma_epoch_close(const rma_win_t *w, int mode, int target)
{
    int flag = 0;

    switch (mode) {
    case SYNC_FENCE:
        CHECK(MPI_Win_fence(0, w->win) == MPI_SUCCESS);
        break;
    case SYNC_FENCE_ASSERT:
        CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win) == MPI_SUCCESS);
        break;
    case SYNC_PSCW:
    case SYNC_PSCW_NOCHECK:
        CHECK(MPI_Win_complete(w->win) == MPI_SUCCESS);
        CHECK(MPI_Win_wait(w->win) == MPI_SUCCESS);
        break;
    case SYNC_PSCW_TEST:
        CHECK(MPI_Win_complete(w->win) == MPI_SUCCESS);
        while (!flag)
            CHECK(MPI_Win_test(w->win, &flag) == MPI_SUCCESS);
        break;
    case SYNC_LOCK_EXCL:
    case SYNC_LOCK_SHARED:
    case SYNC_LOCK_NOCHECK:
    case SYNC_FLUSH_LOCAL:
        CHECK(MPI_Win_unlock(target, w->win) == MPI_SUCCESS);
        break;
    default:
        CHECK(MPI_Win_unlock_all(w->win) == MPI_SUCCESS);
        break;
    }
}

/* After rma_epoch_close at every process: begin (and end) reading what the others did to our
 * memory. Active modes have made it visible already; passive ones need the others to be done
 * (a barrier) and a local epoch. */
static inline void rma_target_begin(const rma_win_t *w, int mode)
{
    if (rma_sync_passive(mode)) {
        MPI_Barrier(w->comm);
        rma_local_begin(w);
    }
}

static inline void rma_target_end(const rma_win_t *w, int mode)
{
    if (rma_sync_passive(mode))
        rma_local_end(w);
    MPI_Barrier(w->comm);
}

#endif
