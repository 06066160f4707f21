/* The memory of MPI_Win_allocate_shared: one POSIX shared-memory segment for the window's
 * ranks (all on one node), every rank's part contiguous after the previous one (the standard's
 * default layout; alloc_shared_noncontig is allowed to be ignored), after a header with one
 * lock per rank (a cache line each). Rank 0 creates it under a name made of its pid and the
 * window's context id (unique on the node), the others map it, and it is unlinked as soon as
 * every rank has it mapped, so nothing is left behind if the job dies.
 *
 * Operations on a shared window never go through the target: the origin copies into or out
 * of the target's part itself (the direct path, vbt_win_shm_apply). Accumulates take the
 * target's lock in the header around the update. Every origin of the window takes this same
 * path for every target, so all accumulates to a location are serialised by the one lock,
 * which is what gives them MPI's per-element atomicity (mixing this with the target-served
 * path would not be atomic: the two would not exclude each other). Puts and gets need no lock
 * (MPI leaves concurrent conflicting puts undefined). */
#include "vbt_coll.h"
#include "vbt_log.h"
#include "vbt_runtime.h"
#include "vbt_win_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The header: rank r's accumulate lock is the first word of cache line r. */
#define VBT_WIN_SHM_LINE 64

static size_t header_len(int nranks)
{
    return ((size_t)nranks * VBT_WIN_SHM_LINE + 4095) & ~(size_t)4095;
}

typedef struct {
    int32_t node; /* the smallest world rank of the node: the same for ranks of one node */
    int32_t pid;
    uint64_t size;
} shm_peer_t;

/* Every rank's verdict, so all fail together. */
static vbt_status_t agree(vbt_win_t *w, vbt_status_t mine)
{
    int32_t *all = malloc((size_t)w->size * sizeof(*all)), me = mine;
    vbt_status_t st;

    if (all == NULL)
        return VBT_ERR_NO_MEMORY;
    st = vbt_coll_allgather(w->comm, &me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE);
    for (int r = 0; r < w->size && st == VBT_OK; r++)
        if (all[r] != VBT_OK)
            st = (vbt_status_t)all[r];
    free(all);
    return st;
}

vbt_status_t vbt_win_shm_create(vbt_win_t *w, size_t size)
{
    shm_peer_t me = {.node = vbt_rt.proc.local_peers[0], .pid = (int32_t)getpid(), .size = size};
    shm_peer_t *all = malloc((size_t)w->size * sizeof(*all));
    size_t total = header_len(w->size), mine = 0;
    char name[64];
    vbt_status_t st;
    void *seg = MAP_FAILED;
    int fd = -1;

    if (all == NULL)
        return VBT_ERR_NO_MEMORY;
    st = vbt_coll_allgather(w->comm, &me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE);
    if (st != VBT_OK) {
        free(all);
        return st;
    }
    for (int r = 0; r < w->size; r++) {
        if (all[r].node != me.node) {
            free(all);
            return VBT_ERR_UNREACHABLE; /* every rank sees the same: all refuse */
        }
        if (r == w->rank)
            mine = total;
        total += all[r].size;
    }
    snprintf(name, sizeof(name), "/vbt-win-%d-%u", (int)all[0].pid, w->comm->context_id);
    free(all);
    if (w->rank == 0) {
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)total) != 0) {
            vbt_error("cannot create the shared memory of a window (%s, %zu bytes): %m", name,
                      total);
            st = VBT_ERR_NO_MEMORY;
        }
    }
    st = agree(w, st); /* created before anyone opens it */
    if (st == VBT_OK && w->rank != 0) {
        fd = shm_open(name, O_RDWR, 0);
        if (fd < 0) {
            vbt_error("cannot open the shared memory of a window (%s): %m", name);
            st = VBT_ERR_IO;
        }
    }
    if (st == VBT_OK) {
        seg = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (seg == MAP_FAILED) {
            vbt_error("cannot map the shared memory of a window (%zu bytes): %m", total);
            st = VBT_ERR_NO_MEMORY;
        }
    }
    if (fd >= 0)
        close(fd);
    st = agree(w, st); /* everyone mapped it (or gave up): the name can go */
    if (w->rank == 0 && fd >= 0)
        shm_unlink(name);
    if (st != VBT_OK) {
        if (seg != MAP_FAILED)
            munmap(seg, total);
        return st;
    }
    w->seg = seg;
    w->seg_len = total;
    w->base = (char *)seg + mine;
    return VBT_OK;
}

void vbt_win_shm_destroy(vbt_win_t *w)
{
    munmap(w->seg, w->seg_len);
    w->seg = NULL;
}

void vbt_win_shared_query(vbt_win_t *w, int rank, size_t *size_p, int *disp_unit_p, void **base_p)
{
    if (rank == MPI_PROC_NULL) { /* the first rank with memory, as the standard says */
        rank = 0;
        for (int r = 0; r < w->size; r++)
            if (w->peers[r].size > 0) {
                rank = r;
                break;
            }
    }
    *size_p = w->peers[rank].size;
    *disp_unit_p = w->peers[rank].disp_unit;
    *base_p = (char *)w->seg + w->peers[rank].base;
}

static void lock_target(vbt_win_t *w, int target)
{
    uint32_t *l = (uint32_t *)((char *)w->seg + (size_t)target * VBT_WIN_SHM_LINE);
    unsigned spins = 0;

    while (__atomic_exchange_n(l, 1u, __ATOMIC_ACQUIRE) != 0)
        while (__atomic_load_n(l, __ATOMIC_RELAXED) != 0)
            if (++spins % 256 == 0)
                sched_yield(); /* the holder may be descheduled (oversubscribed node) */
}

static void unlock_target(vbt_win_t *w, int target)
{
    __atomic_store_n((uint32_t *)((char *)w->seg + (size_t)target * VBT_WIN_SHM_LINE), 0u,
                     __ATOMIC_RELEASE);
}

vbt_status_t vbt_win_shm_apply(vbt_win_t *w, int target, const vbt_win_req_t *h,
                               const vbt_win_wblock_t *b, const char *data, void *rbuf,
                               size_t rcount, vbt_dtype_t *rtype)
{
    int atomic = h->kind == VBT_WIN_ACC || h->kind == VBT_WIN_GET_ACC || h->kind == VBT_WIN_CAS;
    void *out;
    size_t outlen;
    int rc;

    if (atomic)
        lock_target(w, target);
    rc = vbt_win_apply(w, (char *)w->seg + w->peers[target].base, w->peers[target].size, h, b, data,
                       &out, &outlen);
    if (atomic)
        unlock_target(w, target);
    if (rc == MPI_ERR_NO_MEM)
        return VBT_ERR_NO_MEMORY;
    if (rc != MPI_SUCCESS) /* the origin checked the range: only a corrupt request gets here */
        return VBT_ERR_INVALID_PARAM;
    if (out != NULL) {
        vbt_dtype_unpack(rtype, rbuf, rcount, 0, out, outlen);
        vbt_win_pool_put(w, out, outlen);
    }
    return VBT_OK;
}
