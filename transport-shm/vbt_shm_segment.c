/* Segments: create ours (a sealed memfd), pack how to map it into our address blob, map the
 * peers' through /proc/<pid>/fd/<fd> and check them, tear everything down. vbt_shm_int.h
 * describes the layout and why there is never a name to unlink. */
#include "config.h"

#include "vbt_clock.h"
#include "vbt_log.h"
#include "vbt_shm_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Newer kernels (6.3+) may refuse executable memfds (vm.memfd_noexec = 2); older ones refuse
 * the flag: try it first, then without. */
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
/* Linux 5.14; older kernels refuse it with EINVAL (vbt_shm_ring_pretouch falls back). */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

_Static_assert(sizeof(vbt_shm_seg_hdr_t) == 2 * VBT_SHM_CACHE_LINE,
               "the segment header is one line of identity and one of state");
_Static_assert(sizeof(vbt_shm_addr_t) <= VBT_TL_ADDR_MAX, "the address blob fits the contract");

static size_t page_align(size_t n)
{
    return (n + VBT_SHM_PAGE - 1) & ~(size_t)(VBT_SHM_PAGE - 1);
}

void vbt_shm_layout(uint32_t nrings, vbt_shm_layout_t *l)
{
    l->ctrl_off = sizeof(vbt_shm_seg_hdr_t);
    l->cells_off = page_align(l->ctrl_off + (size_t)nrings * sizeof(vbt_shm_ring_ctrl_t));
    l->ring_bytes = page_align(vbt_shm_ring_cells_bytes(VBT_SHM_RING_DEPTH));
    l->size = l->cells_off + (size_t)nrings * l->ring_bytes;
}

vbt_shm_ring_ctrl_t *vbt_shm_seg_ctrl(void *seg, const vbt_shm_layout_t *l, int ring)
{
    return (vbt_shm_ring_ctrl_t *)((char *)seg + l->ctrl_off) + ring;
}

vbt_shm_cell_t *vbt_shm_seg_cells(void *seg, const vbt_shm_layout_t *l, int ring)
{
    return (vbt_shm_cell_t *)((char *)seg + l->cells_off + (size_t)ring * l->ring_bytes);
}

static uint64_t make_cookie(void)
{
    uint64_t cookie = 0;

    if (getrandom(&cookie, sizeof(cookie), GRND_NONBLOCK) != (ssize_t)sizeof(cookie))
        cookie = ((uint64_t)getpid() << 32) ^ vbt_now_ns() ^ (uint64_t)(uintptr_t)&cookie;
    return cookie != 0 ? cookie : 1;
}

/* Has pid exited (a zombie not yet reaped counts: its /proc/<pid>/fd is already empty)? */
static int pid_exited(pid_t pid)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int gone = poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
        close(fd);
        return gone;
    }
    if (errno == ESRCH)
        return 1;
#endif
    return kill(pid, 0) != 0 && errno == ESRCH;
}

vbt_status_t vbt_shm_segment_create(vbt_shm_iface_t *shm, const char *job_name, int instance)
{
    vbt_shm_seg_hdr_t *h;
    char name[200];
    void *seg;
    int fd;

    vbt_shm_layout((uint32_t)shm->local_size, &shm->layout);
    shm->cookie = make_cookie();
    /* The name only labels the memory in /proc/<pid>/maps ("/memfd:vbt-shm.<nspace>.<rank>",
     * and ".<instance>" after it for a process's second and later instances). */
    if (instance == 0)
        snprintf(name, sizeof(name), "vbt-shm.%.150s.%d",
                 job_name[0] != '\0' ? job_name : "singleton", shm->rank);
    else
        snprintf(name, sizeof(name), "vbt-shm.%.150s.%d.%d",
                 job_name[0] != '\0' ? job_name : "singleton", shm->rank, instance);
    fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL)
        fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        vbt_error("cannot create the shared-memory segment (memfd_create: %m): messages to "
                  "ranks on this node go through the network");
        return VBT_ERR_IO;
    }
    if (ftruncate(fd, (off_t)shm->layout.size) != 0) {
        vbt_error("cannot size the shared-memory segment to %zu bytes (ftruncate: %m)",
                  shm->layout.size);
        goto err_close;
    }
    /* Nobody can shrink it under a peer's mapping (SIGBUS) or resize it at all. */
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        vbt_debug("cannot seal the shared-memory segment (F_ADD_SEALS: %m)");
    seg = mmap(NULL, shm->layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg == MAP_FAILED) {
        vbt_error("cannot map the %zu-byte shared-memory segment (mmap: %m)", shm->layout.size);
        goto err_close;
    }

    h = seg;
    h->magic = VBT_SHM_MAGIC;
    h->version = VBT_SHM_VERSION;
    h->nrings = (uint32_t)shm->local_size;
    h->depth = VBT_SHM_RING_DEPTH;
    h->cell_size = sizeof(vbt_shm_cell_t);
    h->size = shm->layout.size;
    h->cookie = shm->cookie;
    h->owner_rank = shm->rank;
    h->owner_pid = (int32_t)getpid();
    atomic_init(&h->state, 0);
    for (int i = 0; i < shm->local_size; i++)
        vbt_shm_ring_format(vbt_shm_seg_ctrl(seg, &shm->layout, i),
                            vbt_shm_seg_cells(seg, &shm->layout, i), VBT_SHM_RING_DEPTH, 0);
    atomic_thread_fence(memory_order_release);

    shm->memfd = fd;
    shm->seg = seg;
    shm->seg_size = shm->layout.size;
    shm->hdr = h;
    vbt_debug("shared-memory segment %s: %zu bytes (%d rings of %u cells of %zu bytes), fd %d",
              name, shm->layout.size, shm->local_size, VBT_SHM_RING_DEPTH, sizeof(vbt_shm_cell_t),
              fd);
    return VBT_OK;

err_close:
    close(fd);
    return VBT_ERR_IO;
}

void vbt_shm_segment_pack(const vbt_shm_iface_t *shm, vbt_shm_addr_t *a)
{
    struct stat st;

    memset(a, 0, sizeof(*a));
    a->version = VBT_SHM_VERSION;
    a->local_size = (uint32_t)shm->local_size;
    a->pid = (int32_t)getpid();
    a->fd = shm->memfd;
    a->size = shm->seg_size;
    a->cookie = shm->cookie;
    if (stat("/proc/self/ns/pid", &st) == 0) {
        a->pidns_dev = (uint64_t)st.st_dev;
        a->pidns_ino = (uint64_t)st.st_ino;
    }
    a->cma_addr = (uint64_t)(uintptr_t)&shm->cma_probe;
    a->flags = shm->asym ? VBT_SHM_ADDR_ASYM : 0;
}

/* Open, map and check peer p's segment as its address m describes; then attach our outbound
 * ring in it. VBT_ERR_UNREACHABLE (why says it, logged at debug: the caller sums them up in one
 * warning) when this environment does not let us map it; VBT_ERR_PEER_FAILED when the peer
 * is gone; VBT_ERR_INVALID_PARAM when it is not a segment of this build (both logged). */
vbt_status_t vbt_shm_segment_map_peer(vbt_shm_iface_t *shm, vbt_shm_peer_t *p,
                                      const vbt_shm_addr_t *m, char *why, size_t whylen)
{
    const vbt_shm_seg_hdr_t *h;
    char path[64];
    struct stat st;
    void *seg;
    int fd, err;

    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)m->pid, (int)m->fd);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        err = errno;
        if (pid_exited((pid_t)m->pid)) {
            vbt_error("local rank %d (pid %d) exited before we could map its shared memory",
                      p->world, (int)m->pid);
            return VBT_ERR_PEER_FAILED;
        }
        snprintf(why, whylen, "open %s: %s%s", path, strerror(err),
                 err == EACCES || err == EPERM
                     ? " (a non-dumpable process, another user, or /proc mounted with hidepid?)"
                     : "");
        vbt_debug("rank %d: %s", p->world, why);
        return VBT_ERR_UNREACHABLE;
    }
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < m->size || m->size != shm->layout.size) {
        snprintf(why, whylen, "%s is %lld bytes, the address says %llu, we expect %zu", path,
                 (long long)st.st_size, (unsigned long long)m->size, shm->layout.size);
        vbt_debug("rank %d: %s", p->world, why);
        close(fd);
        return VBT_ERR_UNREACHABLE;
    }
    seg = mmap(NULL, shm->layout.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    err = errno;
    close(fd); /* the mapping keeps the memory */
    if (seg == MAP_FAILED) {
        snprintf(why, whylen, "mmap of %zu bytes: %s", shm->layout.size, strerror(err));
        vbt_debug("rank %d: %s", p->world, why);
        return VBT_ERR_UNREACHABLE;
    }

    h = seg;
    if (h->magic != VBT_SHM_MAGIC || h->cookie != m->cookie) {
        /* Not the file it published: /proc/<pid> is someone else here. */
        snprintf(why, whylen, "%s is not its segment (ranks in different PID namespaces?)", path);
        vbt_debug("rank %d: %s", p->world, why);
        munmap(seg, shm->layout.size);
        return VBT_ERR_UNREACHABLE;
    }
    if (h->version != VBT_SHM_VERSION || h->nrings != (uint32_t)shm->local_size ||
        h->depth != VBT_SHM_RING_DEPTH || h->cell_size != sizeof(vbt_shm_cell_t) ||
        h->size != shm->layout.size || h->owner_rank != p->world || h->owner_pid != m->pid) {
        vbt_error("the shared-memory segment of local rank %d does not match ours (version %u, "
                  "%u rings of %u cells of %u bytes, owner rank %d pid %d; we have version %u, "
                  "%d rings of %u cells of %zu bytes): are all ranks running the same Verbatim "
                  "build?",
                  p->world, h->version, h->nrings, h->depth, h->cell_size, h->owner_rank,
                  h->owner_pid, VBT_SHM_VERSION, shm->local_size, VBT_SHM_RING_DEPTH,
                  sizeof(vbt_shm_cell_t));
        munmap(seg, shm->layout.size);
        return VBT_ERR_INVALID_PARAM;
    }

    p->seg = seg;
    p->seg_size = shm->layout.size;
    p->hdr = seg;
    vbt_shm_producer_attach(&p->tx, vbt_shm_seg_ctrl(seg, &shm->layout, shm->my_local),
                            vbt_shm_seg_cells(seg, &shm->layout, shm->my_local),
                            VBT_SHM_RING_DEPTH);
    return VBT_OK;
}

int vbt_shm_ring_pretouch(vbt_shm_cell_t *cells, uint32_t depth, int outbound)
{
    uintptr_t first = (uintptr_t)cells & ~(uintptr_t)(VBT_SHM_PAGE - 1);
    uintptr_t end = (uintptr_t)&cells[depth];
    int rc = 0;

    /* A write fault's worth of mapping for the whole ring without writing: the peer may be
     * using it. Kernels before 5.14 refuse it: the accesses below map the pages then. */
    if (madvise((void *)first, end - first, MADV_POPULATE_WRITE) != 0)
        rc = -1;
    /* And an access of the kind the ring will make to every page of every cell: under a
     * hypervisor that shadows the guest's page tables (PVM, KVM without EPT) a page the kernel
     * mapped still costs a hidden fault, ~5 us and no minor fault counted, at this process's
     * first load or store; a message of more than a page writes and reads the cell's later
     * pages too (a 32 KiB eager exchange took 50-90 us instead of 4 for the ring's first lap).
     * A store to an outbound cell adds 0 to a word of it, which changes nothing whoever reads
     * or writes it meanwhile (nobody else writes our cells, and the peer reads none before we
     * fill it); an inbound one is only read. Each access is inside the cell, at its start or
     * at a page boundary within it. */
    for (uint32_t k = 0; k < depth; k++) {
        uintptr_t at = (uintptr_t)&cells[k], cell_end = (uintptr_t)&cells[k + 1];

        for (; at < cell_end; at = (at & ~(uintptr_t)(VBT_SHM_PAGE - 1)) + VBT_SHM_PAGE) {
            _Atomic uint32_t *word = (_Atomic uint32_t *)at;

            if (outbound)
                (void)atomic_fetch_add_explicit(word, 0, memory_order_relaxed);
            else
                (void)atomic_load_explicit(word, memory_order_relaxed);
        }
    }
    return rc;
}

void vbt_shm_segment_destroy(vbt_shm_iface_t *shm)
{
    for (int i = 0; shm->peers != NULL && i < shm->local_size; i++) {
        vbt_shm_peer_t *p = &shm->peers[i];
        if (p->seg != NULL)
            munmap(p->seg, p->seg_size);
        p->seg = NULL;
        p->hdr = NULL;
    }
    if (shm->seg != NULL)
        munmap(shm->seg, shm->seg_size);
    if (shm->memfd >= 0)
        close(shm->memfd);
    shm->seg = NULL;
    shm->hdr = NULL;
    shm->memfd = -1;
}
