/* Window memory in POSIX shared memory, and the direct path that uses it.
 *
 * MPI_Win_allocate_shared: one segment for the window's ranks (all on one node), every rank's
 * part contiguous after the previous one (the standard's default layout;
 * alloc_shared_noncontig is allowed to be ignored). MPI_Win_allocate: one segment per node for
 * the window's ranks on that node (parts 64-byte aligned), while ranks alone on their node keep
 * private memory; a rank with VBT_WIN_ALLOCATE_SHM=0, or whose VBT_TRANSPORTS leaves out shm,
 * stays out, as if alone. Either way a header comes first with one lock per window rank (a
 * cache line each). The segment's lowest rank creates it under a name made of its pid and the
 * window's context id (unique on the node), the others map it, and it is unlinked as soon as
 * every member has it mapped, so nothing is left behind if the job dies. Its pages are
 * reserved when it is created, so a full /dev/shm shows then, not as a SIGBUS at the first
 * store: an MPI_Win_allocate window then falls back to private memory (logged at debug), a
 * shared one fails.
 *
 * Operations between ranks of one segment never go through the target: the origin copies into
 * or out of the target's part itself (the direct path, vbt_win_shm_apply). Accumulates take the
 * target's lock in the header around the update, and so does the target when it serves an
 * accumulate that came as a message from a rank outside the segment (vbt_win_apply_served): all
 * accumulates to a location are serialised by the one lock, which is what gives them MPI's
 * per-element atomicity whichever path each origin takes. Puts and gets need no lock (MPI
 * leaves concurrent conflicting puts undefined). */
#include "vbt_config.h"
#include "vbt_coll.h"
#include "vbt_log.h"
#include "vbt_runtime.h"
#include "vbt_win_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    int32_t join; /* wants its part in the node's segment */
    int32_t pad;
    uint64_t size;
} shm_peer_t;

/* VBT_TRANSPORTS without shm (self,ib: on-node ranks over the NIC) says this rank's on-node
 * traffic is not to go through shared memory: its MPI_Win_allocate memory stays out too. */
static int shm_listed(void)
{
    for (const char *p = vbt_cfg.transports; *p != '\0';) {
        size_t n;
        p += strspn(p, ", ");
        n = strcspn(p, ", ");
        if (n == 3 && strncmp(p, "shm", 3) == 0)
            return 1;
        p += n;
    }
    return 0;
}

/* Every rank's verdict (all take part); the first failure among the ranks of our segment (those
 * with an offset), so that they give up together. */
static vbt_status_t agree(vbt_win_t *w, vbt_status_t mine, const uint64_t *off)
{
    int32_t *all = malloc((size_t)w->size * sizeof(*all)), me = mine;
    vbt_status_t st;

    if (all == NULL)
        return VBT_ERR_NO_MEMORY;
    st = vbt_coll_allgather(w->comm, &me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE);
    for (int r = 0; r < w->size && st == VBT_OK; r++)
        if (off[r] != VBT_WIN_NO_SEG && all[r] != VBT_OK)
            st = (vbt_status_t)all[r];
    free(all);
    return st;
}

/* Where each rank's part goes in our node's segment (VBT_WIN_NO_SEG: not in it), its total
 * length and its creator; *creator_p -1 when this rank has no segment. */
static vbt_status_t plan(vbt_win_t *w, const shm_peer_t *all, uint64_t *off, size_t *total_p,
                         int *creator_p)
{
    int shared = w->flavor == MPI_WIN_FLAVOR_SHARED, me = w->rank, members = 0, creator = -1;
    size_t total = header_len(w->size);

    for (int r = 0; r < w->size; r++) {
        off[r] = VBT_WIN_NO_SEG;
        if (shared && all[r].node != all[me].node)
            return VBT_ERR_UNREACHABLE; /* every rank sees the same: all refuse */
        if (all[r].node != all[me].node || !all[r].join)
            continue;
        if (!shared)
            total = (total + 63) & ~(size_t)63;
        off[r] = total;
        total += all[r].size;
        if (creator < 0)
            creator = r;
        members++;
    }
    /* A segment of one rank of an MPI_Win_allocate window would serve nobody. */
    if (!all[me].join || (!shared && members < 2)) {
        for (int r = 0; r < w->size; r++)
            off[r] = VBT_WIN_NO_SEG;
        creator = -1;
    }
    *total_p = total;
    *creator_p = creator;
    return VBT_OK;
}

vbt_status_t vbt_win_shm_create(vbt_win_t *w, size_t size)
{
    int shared = w->flavor == MPI_WIN_FLAVOR_SHARED;
    /* Failures of an MPI_Win_allocate window's segment are not the application's: it falls
     * back to private memory, so they are only told at debug. */
    vbt_log_level_t lvl = shared ? VBT_LOG_ERROR : VBT_LOG_DEBUG;
    shm_peer_t me = {.node = vbt_rt.proc.local_peers[0],
                     .pid = (int32_t)getpid(),
                     .join = shared || (vbt_cfg.win_allocate_shm && shm_listed()),
                     .size = size};
    shm_peer_t *all = malloc((size_t)w->size * sizeof(*all));
    uint64_t *off = malloc((size_t)w->size * sizeof(*off));
    size_t total = 0;
    char name[64];
    vbt_status_t st;
    void *seg = MAP_FAILED;
    int fd = -1, creator = -1, err;

    if (all == NULL || off == NULL) {
        free(all);
        free(off);
        return VBT_ERR_NO_MEMORY;
    }
    st = vbt_coll_allgather(w->comm, &me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE);
    if (st == VBT_OK)
        st = plan(w, all, off, &total, &creator);
    if (st != VBT_OK) {
        free(all);
        free(off);
        return st;
    }
    /* Every rank takes part in both rounds below, with or without a segment of its own. */
    if (creator >= 0)
        snprintf(name, sizeof(name), "/vbt-win-%d-%u", (int)all[creator].pid, w->comm->context_id);
    free(all);
    if (creator == w->rank) {
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)total) != 0) {
            vbt_log(lvl, "cannot create the shared memory of %s (%s, %zu bytes): %m", w->name, name,
                    total);
            st = VBT_ERR_NO_MEMORY;
        } else if ((err = posix_fallocate(fd, 0, (off_t)total)) != 0 && err != EOPNOTSUPP &&
                   err != EINVAL) { /* EOPNOTSUPP, EINVAL: a file system that cannot reserve */
            vbt_log(lvl, "cannot reserve %zu bytes of shared memory for %s (%s): %s", total,
                    w->name, name, strerror(err));
            st = VBT_ERR_NO_MEMORY;
        }
    }
    st = agree(w, st, off); /* created before anyone opens it */
    if (st == VBT_OK && creator >= 0 && creator != w->rank) {
        fd = shm_open(name, O_RDWR, 0);
        if (fd < 0) {
            vbt_log(lvl, "cannot open the shared memory of %s (%s): %m", w->name, name);
            st = VBT_ERR_IO;
        }
    }
    if (st == VBT_OK && creator >= 0) {
        seg = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (seg == MAP_FAILED) {
            vbt_log(lvl, "cannot map the shared memory of %s (%zu bytes): %m", w->name, total);
            st = VBT_ERR_NO_MEMORY;
        }
    }
    if (fd >= 0)
        close(fd);
    st = agree(w, st, off); /* every member mapped it (or gave up): the name can go */
    if (creator == w->rank && fd >= 0)
        shm_unlink(name);
    if (st != VBT_OK || creator < 0) {
        if (seg != MAP_FAILED)
            munmap(seg, total);
        free(off);
        if (shared || creator < 0)
            return st;
        vbt_debug("%s: no shared segment on this node (%s; rank %d, which makes it, logs "
                  "why): this rank's part is private memory, reached by messages from every rank",
                  w->name, vbt_status_string(st), creator);
        return VBT_OK;
    }
    w->seg = seg;
    w->seg_len = total;
    w->seg_off = off;
    w->base = (char *)seg + off[w->rank];
    return VBT_OK;
}

void vbt_win_shm_destroy(vbt_win_t *w)
{
    munmap(w->seg, w->seg_len);
    w->seg = NULL;
    free(w->seg_off);
    w->seg_off = NULL;
}

void vbt_win_shared_query(vbt_win_t *w, int rank, size_t *size_p, int *disp_unit_p, void **base_p)
{
    if (rank == MPI_PROC_NULL) {
        /* The lowest rank with memory that we reach; if none has any, the lowest we reach. */
        int first = -1, reach = -1;
        for (int r = 0; r < w->size && first < 0; r++) {
            if (!vbt_win_direct(w, r) && r != w->rank)
                continue;
            if (reach < 0)
                reach = r;
            if (w->peers[r].size > 0)
                first = r;
        }
        rank = first >= 0 ? first : reach;
    }
    *disp_unit_p = w->peers[rank].disp_unit;
    if (vbt_win_direct(w, rank)) {
        *size_p = w->peers[rank].size;
        *base_p = (char *)w->seg + w->seg_off[rank];
    } else if (rank == w->rank) { /* our own memory, private */
        *size_p = w->win_size;
        *base_p = w->base;
    } else { /* MPI-4.1 12.2.3: size 0 and a base as if from MPI_Alloc_mem of 0 bytes */
        *size_p = 0;
        *base_p = NULL;
    }
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

/* vbt_win_apply to target's memory at base, under target's lock for an accumulate when that
 * memory is in the segment. */
static int apply_locked(vbt_win_t *w, int target, char *base, uint64_t size, const vbt_win_req_t *h,
                        const vbt_win_wblock_t *b, const char *data, void **out_p, size_t *outlen_p)
{
    int atomic = (h->kind == VBT_WIN_ACC || h->kind == VBT_WIN_GET_ACC || h->kind == VBT_WIN_CAS) &&
                 vbt_win_direct(w, target);
    int rc;

    if (atomic)
        lock_target(w, target);
    rc = vbt_win_apply(w, base, size, h, b, data, out_p, outlen_p);
    if (atomic)
        unlock_target(w, target);
    return rc;
}

int vbt_win_apply_served(vbt_win_t *w, char *base, uint64_t size, const vbt_win_req_t *h,
                         const vbt_win_wblock_t *b, const char *data, void **out_p,
                         size_t *outlen_p)
{
    return apply_locked(w, w->rank, base, size, h, b, data, out_p, outlen_p);
}

vbt_status_t vbt_win_shm_apply(vbt_win_t *w, int target, const vbt_win_req_t *h,
                               const vbt_win_wblock_t *b, const char *data, void *rbuf,
                               size_t rcount, vbt_dtype_t *rtype)
{
    void *out;
    size_t outlen;
    int rc = apply_locked(w, target, (char *)w->seg + w->seg_off[target], w->peers[target].size, h,
                          b, data, &out, &outlen);

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
