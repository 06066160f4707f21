/* The shared-memory transport: set-up, the send and receive paths, sleeping and the doorbell,
 * dead peers and CMA, and the ops table (vbt_shm_tl_ops) that is all the runtime sees of them.
 * vbt_shm_int.h describes the segments, the doorbell protocol and the instance, vbt_shm_ring.h
 * the ring, vbt_shm_bell.h the doorbell socket. Every function works on one instance
 * (vbt_shm_iface_t): there is no state outside it.
 *
 * Steady state: a send is a reserve (private counters; the consumer's head is read only when
 * the ring looks full), two copies (inline up to 32 bytes: vbt_copy.h), a release store of the
 * cell's seq and one load of the receiver's state word (behind a seq_cst fence only where
 * membarrier is not available); a system call only when the receiver announced it sleeps.
 * A receive is an acquire load of the next cell's seq, the callback on the cell in place, and a
 * release store of head; a poll that delivered something adds one seq_cst fence and a look at
 * each delivering ring's waiting flag. No lock and no allocation anywhere after wireup.
 *
 * Dead peers: every local peer gets a pidfd (readable once it exits; kill(pid, 0) where the
 * kernel has no pidfd_open). sleep_begin looks at them before sleeping (at most every
 * VBT_SHM_LIVENESS_MS), sleep_end after a timeout, and nobody sleeps more than
 * VBT_SHM_BLOCK_MAX_MS; waits that never sleep call check_liveness (as often);
 * a sender stuck on a full ring looks every VBT_SHM_FULL_CHECK attempts. A peer that exited
 * without finalizing is an error (logged once); one that finalized is not, but sends to it
 * fail. */
#include "config.h"

#include "vbt_clock.h"
#include "vbt_config.h"
#include "vbt_copy.h"
#include "vbt_log.h"
#include "vbt_shm_int.h"
#include "vbt_shm_ring.inl"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif
#ifndef PR_SET_PTRACER_ANY
#define PR_SET_PTRACER_ANY ((unsigned long)-1)
#endif

static vbt_shm_peer_t *peer_of(const vbt_shm_iface_t *shm, int world)
{
    if (shm->tx_peer == NULL || world < 0 || world >= shm->size)
        return NULL;
    return shm->tx_peer[world];
}

/* ---- CMA ------------------------------------------------------------------------------------- */

/* With Yama's ptrace_scope 1 only an ancestor may read a process's memory, and ranks are
 * siblings: like Open MPI, let any process of ours read us (what scope 0 allows anyway). The
 * setting is the process's, not the instance's: with two instances, the first to finalize
 * withdraws it for both, and the other's peers then find their reads refused and copy
 * through the rings (slower, never wrong). */
static void cma_allow_peers(vbt_shm_iface_t *shm)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");

    shm->yama_scope = -1;
    if (f != NULL) {
        if (fscanf(f, "%d", &shm->yama_scope) != 1)
            shm->yama_scope = -1;
        fclose(f);
    }
    if (shm->yama_scope != 1)
        return;
    if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) == 0) {
        shm->ptracer_set = 1;
        vbt_debug("kernel.yama.ptrace_scope is 1: PR_SET_PTRACER_ANY lets the local peers read "
                  "our memory with CMA");
    } else {
        vbt_debug("kernel.yama.ptrace_scope is 1 and PR_SET_PTRACER failed: %m");
    }
}

static const char *cma_hint(const vbt_shm_iface_t *shm, int err)
{
    if (err == ENOSYS)
        return "the kernel, or a seccomp filter, does not offer process_vm_readv";
    if (err != EPERM && err != EACCES)
        return "unexpected";
    if (shm->yama_scope >= 2)
        return shm->yama_scope == 2 ? "kernel.yama.ptrace_scope is 2: only CAP_SYS_PTRACE may read "
                                      "another process; 0 or 1 allow it"
                                    : "kernel.yama.ptrace_scope is 3: no process may read another";
    return "a container or seccomp policy, or a peer that is not dumpable, forbids it; "
           "CAP_SYS_PTRACE allows it";
}

/* Read each local peer's probe word (its cookie) with process_vm_readv: a real attempt under
 * the real permissions. */
static void cma_probe(vbt_shm_iface_t *shm)
{
    int tried = 0, ok = 0, bad_rank = -1, bad_err = 0;

    for (int i = 0; i < shm->local_size; i++) {
        vbt_shm_peer_t *p = &shm->peers[i];
        uint64_t value = 0;
        struct iovec l = {&value, sizeof(value)};
        struct iovec r = {(void *)(uintptr_t)p->cma_addr, sizeof(value)};
        ssize_t n;

        if (i == shm->my_local || !p->reachable)
            continue;
        tried++;
        n = process_vm_readv(p->pid, &l, 1, &r, 1, 0);
        if (n == (ssize_t)sizeof(value) && value == p->cookie) {
            p->cma_ok = 1;
            ok++;
        } else if (bad_rank < 0) {
            bad_rank = p->world;
            bad_err = n < 0 ? errno : 0;
        }
    }
    shm->cma_available = tried > 0 && ok == tried;
    if (tried == 0)
        return;
    if (shm->cma_available)
        vbt_info("CMA single-copy reads of the %d local peers: permitted (process_vm_readv "
                 "probed)",
                 tried);
    else if (bad_err != 0)
        vbt_info("CMA single-copy reads: not permitted for %d of %d local peers (process_vm_readv "
                 "of rank %d: %s: %s): their large messages are copied through the shared-memory "
                 "rings",
                 tried - ok, tried, bad_rank, strerror(bad_err), cma_hint(shm, bad_err));
    else
        vbt_info("CMA single-copy reads: not used for %d of %d local peers (process_vm_readv of "
                 "rank %d read the wrong bytes): their large messages are copied through the "
                 "shared-memory rings",
                 tried - ok, tried, bad_rank);
}

/* READ_PEER goes from the interface with the first read refused: the runtime's rendezvous
 * streams through the rings from then on. */
static VBT_NOINLINE_COLD vbt_status_t cma_refused(vbt_shm_iface_t *shm)
{
    shm->super.caps &= ~(unsigned)VBT_TL_CAP_READ_PEER;
    return VBT_ERR_UNSUPPORTED;
}

static vbt_status_t vbt_shm_read_peer(vbt_tl_iface_t *iface, int peer, void *local, uint64_t remote,
                                      size_t len)
{
    vbt_shm_iface_t *shm = vbt_shm_iface(iface);
    vbt_shm_peer_t *p = peer_of(shm, peer);
    size_t done = 0;

    if (unlikely(p == NULL)) {
        vbt_error("CMA read from rank %d: not a rank on this node reached over shared memory",
                  peer);
        return VBT_ERR_INVALID_PARAM;
    }
    if (!p->cma_ok)
        return cma_refused(shm);
    while (done < len) {
        struct iovec l = {(char *)local + done, len - done};
        struct iovec r = {(char *)(uintptr_t)remote + done, len - done};
        ssize_t n = process_vm_readv(p->pid, &l, 1, &r, 1, 0);

        if (likely(n > 0)) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EPERM || errno == EACCES || errno == ENOSYS)) {
            /* Permission can be withdrawn (a peer that became non-dumpable): fall back. */
            vbt_info("CMA read from rank %d refused (%m): copying through the rings from now on",
                     peer);
            p->cma_ok = 0;
            return cma_refused(shm);
        }
        if (n < 0 && errno == ESRCH) {
            vbt_error("CMA read from local rank %d (pid %d) failed: it has exited", peer,
                      (int)p->pid);
            return VBT_ERR_PEER_FAILED;
        }
        if (n < 0 && errno == ENOMEM) {
            vbt_error("CMA read of %zu bytes from rank %d: out of memory", len, peer);
            return VBT_ERR_NO_MEMORY;
        }
        vbt_error("CMA read of %zu bytes from rank %d failed after %zu bytes (%s): the range "
                  "[0x%llx, +%zu) is not mapped in that process, or [%p, +%zu) in ours",
                  len, peer, done, n < 0 ? strerror(errno) : "nothing read",
                  (unsigned long long)remote, len, local, len);
        return VBT_ERR_INVALID_PARAM;
    }
    return VBT_OK;
}

/* ---- set-up ---------------------------------------------------------------------------------- */

/* What the runtime says when a peer on this node is not reachable because our init failed. */
#define VBT_SHM_INIT_WHY "shared memory could not be set up on this rank (see the error above)"

static void instance_free(vbt_shm_iface_t *shm)
{
    free(shm->peers);
    free(shm->tx_peer);
    free(shm->rx_peers);
    free(shm->pidfds);
    free(shm->pidfd_peer);
    free(shm);
}

/* An instance, and the blob peers map it by. Alone on the node (nothing to publish, reaching
 * nobody): VBT_OK with *addr_len_p = 0. Failing to create the segment, the doorbell or the
 * tables (logged) is not the job's failure: VBT_ERR_NO_DEVICE, and our peers use the network.
 * A job description or upcalls that break the contract are: VBT_ERR_INVALID_PARAM. */
static vbt_status_t vbt_shm_init(const vbt_tl_job_t *job, const vbt_tl_upcalls_t *up,
                                 vbt_tl_iface_t **iface_p, void *addr, size_t *addr_len_p,
                                 char *why, size_t why_len)
{
    vbt_shm_iface_t *shm;
    vbt_shm_addr_t a;
    int n;

    if (up == NULL || up->recv == NULL || up->peer_addr == NULL) {
        vbt_error("the shared-memory transport needs the recv and peer_addr upcalls");
        return VBT_ERR_INVALID_PARAM;
    }
    shm = aligned_alloc(VBT_SHM_CACHE_LINE, sizeof(*shm));
    if (shm == NULL) {
        vbt_error("out of memory for the shared-memory transport (%zu bytes)", sizeof(*shm));
        goto err_no_device;
    }
    memset(shm, 0, sizeof(*shm));
    shm->super.send = vbt_shm_tl_ops.send;
    shm->super.ops = &vbt_shm_tl_ops;
    shm->super.caps = VBT_TL_CAP_STREAM; /* READ_PEER after the probe at wireup */
    shm->super.max_send = VBT_SHM_CELL_DATA;
    shm->super.rndv_threshold = vbt_cfg.shm_rndv_threshold;
    shm->super.spin_polls = 0;
    shm->upcalls = *up;
    shm->memfd = -1;
    shm->bell_fd = -1;
    shm->rank = job->rank;
    shm->size = job->size;
    shm->local_size = job->local_size;
    shm->my_local = -1;
    if (job->local_size <= 1 || job->local_peers == NULL) {
        vbt_debug("no other rank on this node: no shared-memory transport");
        *iface_p = &shm->super;
        *addr_len_p = 0;
        return VBT_OK;
    }
    for (int i = 0; i < job->local_size; i++) {
        if (job->local_peers[i] < 0 || job->local_peers[i] >= job->size) {
            vbt_error("the local peer list names rank %d of a job of %d ranks", job->local_peers[i],
                      job->size);
            goto err_invalid;
        }
        if (job->local_peers[i] == job->rank)
            shm->my_local = i;
    }
    if (shm->my_local < 0) {
        vbt_error("rank %d is not in its own node's local peer list", job->rank);
        goto err_invalid;
    }

    n = job->local_size;
    shm->peers = calloc((size_t)n, sizeof(*shm->peers));
    shm->tx_peer = calloc((size_t)job->size, sizeof(*shm->tx_peer));
    shm->rx_peers = calloc((size_t)n, sizeof(*shm->rx_peers));
    shm->pidfds = calloc((size_t)n, sizeof(*shm->pidfds));
    shm->pidfd_peer = calloc((size_t)n, sizeof(*shm->pidfd_peer));
    if (shm->peers == NULL || shm->tx_peer == NULL || shm->rx_peers == NULL ||
        shm->pidfds == NULL || shm->pidfd_peer == NULL) {
        vbt_error("out of memory for the shared-memory transport's %d local peers", n);
        goto err_free;
    }

    if (vbt_shm_segment_create(shm, job->job_name != NULL ? job->job_name : "", job->instance) !=
        VBT_OK)
        goto err_free;
    /* Bound before we publish: a peer may ring it as soon as it has wired up. */
    shm->bell_fd = vbt_shm_bell_open(getpid(), shm->cookie);
    if (shm->bell_fd < 0) {
        vbt_error("cannot create the shared-memory doorbell (an AF_UNIX datagram socket in the "
                  "abstract namespace: %s): messages to ranks on this node go through the "
                  "network",
                  strerror(-shm->bell_fd));
        shm->bell_fd = -1;
        goto err_destroy_segment;
    }
    cma_allow_peers(shm); /* before we publish: the peers probe after the fence */
    if (vbt_cfg.shm_membarrier) {
        int rc = vbt_shm_bell_asym_register();
        shm->asym = rc == 0;
        if (rc != 0)
            vbt_debug("membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED): %s: every "
                      "on-node send takes a memory fence",
                      strerror(-rc));
    }
    shm->cma_probe = shm->cookie;
    for (int i = 0; i < n; i++) {
        vbt_shm_peer_t *p = &shm->peers[i];
        p->owner = shm;
        p->world = job->local_peers[i];
        p->local = i;
        p->pidfd = -1;
        if (i == shm->my_local)
            continue;
        vbt_shm_consumer_attach(&p->rx, vbt_shm_seg_ctrl(shm->seg, &shm->layout, i),
                                vbt_shm_seg_cells(shm->seg, &shm->layout, i), VBT_SHM_RING_DEPTH);
        shm->rx_peers[shm->nrx++] = p;
    }
    vbt_shm_segment_pack(shm, &a);
    memcpy(addr, &a, sizeof(a));
    shm->up = 1;
    *iface_p = &shm->super;
    *addr_len_p = sizeof(a);
    return VBT_OK;

err_destroy_segment:
    vbt_shm_segment_destroy(shm);
err_free:
    instance_free(shm);
err_no_device:
    if (why != NULL && why_len > 0)
        snprintf(why, why_len, "%s", VBT_SHM_INIT_WHY);
    return VBT_ERR_NO_DEVICE;
err_invalid:
    free(shm);
    return VBT_ERR_INVALID_PARAM;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

static vbt_status_t vbt_shm_wireup(vbt_tl_iface_t *iface)
{
    vbt_shm_iface_t *shm = vbt_shm_iface(iface);
    vbt_status_t status = VBT_OK;
    int unreachable = 0, first = -1, mapped = 0;
    char why[320] = "", first_why[320] = "";
    uint64_t my_dev = 0, my_ino = 0;
    struct stat st;

    if (!shm->up)
        return VBT_OK;
    if (stat("/proc/self/ns/pid", &st) == 0) {
        my_dev = (uint64_t)st.st_dev;
        my_ino = (uint64_t)st.st_ino;
    }
    for (int i = 0; i < shm->local_size; i++) {
        vbt_shm_peer_t *p = &shm->peers[i];
        vbt_shm_addr_t m;
        vbt_status_t st2;
        void *blob = NULL;
        size_t len = 0;

        if (i == shm->my_local)
            continue;
        st2 = shm->upcalls.peer_addr(shm->upcalls.addr_arg, p->world, &blob, &len);
        if (st2 != VBT_OK) {
            /* Its init failed (it said why): it is not reachable over shm. */
            snprintf(why, sizeof(why), "it published no shared-memory segment");
            goto unreachable;
        }
        if (len != sizeof(m)) {
            vbt_error("local rank %d published a %zu-byte shared-memory address, we expect %zu: "
                      "are all ranks running the same Verbatim build?",
                      p->world, len, sizeof(m));
            free(blob);
            status = VBT_ERR_INVALID_PARAM;
            continue;
        }
        memcpy(&m, blob, sizeof(m));
        free(blob);
        if (m.version != VBT_SHM_VERSION || m.local_size != (uint32_t)shm->local_size) {
            vbt_error("local rank %d published shared-memory version %u for %u local ranks; we "
                      "have version %u and %d local ranks: are all ranks running the same "
                      "Verbatim build?",
                      p->world, m.version, m.local_size, VBT_SHM_VERSION, shm->local_size);
            status = VBT_ERR_INVALID_PARAM;
            continue;
        }
        if (m.pidns_dev != my_dev || m.pidns_ino != my_ino) {
            snprintf(why, sizeof(why), "it is in another PID namespace (container?)");
            goto unreachable;
        }
        p->pid = (pid_t)m.pid;
        p->cookie = m.cookie;
        p->cma_addr = m.cma_addr;
        p->send_fence = !(shm->asym && (m.flags & VBT_SHM_ADDR_ASYM));
        vbt_shm_bell_addr((pid_t)m.pid, m.cookie, &p->bell);
        st2 = vbt_shm_segment_map_peer(shm, p, &m, why, sizeof(why));
        if (st2 == VBT_ERR_UNREACHABLE)
            goto unreachable;
        if (st2 != VBT_OK) {
            status = st2;
            continue;
        }
        p->reachable = 1;
        shm->tx_peer[p->world] = p;
        mapped++;
        p->pidfd = open_pidfd(p->pid);
        if (p->pidfd >= 0) {
            shm->pidfds[shm->npidfds] = (struct pollfd){.fd = p->pidfd, .events = POLLIN};
            shm->pidfd_peer[shm->npidfds++] = p;
        } else {
            vbt_debug("pidfd_open(%d) for rank %d: %m: checking it with kill(pid, 0)", (int)p->pid,
                      p->world);
        }
        continue;
    unreachable:
        if (unreachable++ == 0) {
            first = p->world;
            snprintf(first_why, sizeof(first_why), "%s", why);
        }
    }
    if (unreachable > 0)
        vbt_warn("cannot map the shared memory of %d of %d local peers (rank %d: %s): messages "
                 "to them go through the network",
                 unreachable, shm->local_size - 1, first, first_why);
    if (shm->local_size <= VBT_SHM_PRETOUCH_LOCAL) {
        int err = 0;
        for (int i = 0; i < shm->local_size; i++) {
            vbt_shm_peer_t *p = &shm->peers[i];
            if (i != shm->my_local && vbt_shm_ring_pretouch(p->rx.cells, VBT_SHM_RING_DEPTH, 0))
                err = errno;
            if (p->reachable && vbt_shm_ring_pretouch(p->tx.cells, VBT_SHM_RING_DEPTH, 1))
                err = errno;
        }
        if (err != 0)
            vbt_debug("madvise(MADV_POPULATE_WRITE) of the rings: %s: touched them instead",
                      strerror(err));
    }
    cma_probe(shm);
    if (shm->cma_available && vbt_cfg.shm_cma)
        shm->super.caps |= VBT_TL_CAP_READ_PEER;
    shm->last_liveness_ns = vbt_now_ns();
    shm->wired = 1;
    vbt_info("shared memory: %d of %d local peers reachable, rings of %u cells of %u bytes, "
             "sends %s, CMA %s",
             mapped, shm->local_size - 1, VBT_SHM_RING_DEPTH, VBT_SHM_CELL_DATA,
             shm->asym ? "without a fence (membarrier)" : "with a fence",
             (shm->super.caps & VBT_TL_CAP_READ_PEER) ? "on"
             : shm->cma_available                     ? "off (VBT_SHM_CMA=0)"
                                                      : "off");
    return status;
}

static int vbt_shm_reaches(vbt_tl_iface_t *iface, int peer)
{
    return peer_of(vbt_shm_iface(iface), peer) != NULL;
}

/* ---- dead peers ------------------------------------------------------------------------------ */

/* p was found exited: an error unless it finalized first. */
static vbt_status_t peer_died(vbt_shm_peer_t *p)
{
    int finalized = p->hdr != NULL &&
                    (atomic_load_explicit(&p->hdr->state, memory_order_acquire) & VBT_SHM_CLOSED);

    if (p->dead)
        return VBT_OK;
    p->dead = 1;
    if (p->failed || finalized) {
        p->failed = 1;
        vbt_debug("local rank %d (pid %d) has exited after finalizing", p->world, (int)p->pid);
        return VBT_OK;
    }
    p->failed = 1;
    vbt_error("local rank %d (pid %d) died without finalizing: messages to and from it are lost",
              p->world, (int)p->pid);
    return VBT_ERR_PEER_FAILED;
}

static int peer_gone(vbt_shm_peer_t *p)
{
    if (p->pidfd >= 0) {
        struct pollfd pfd = {.fd = p->pidfd, .events = POLLIN};
        return poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
    }
    return kill(p->pid, 0) != 0 && errno == ESRCH;
}

/* Look at every reachable peer once (one poll for all the pidfds). */
static vbt_status_t check_peers(vbt_shm_iface_t *shm)
{
    vbt_status_t status = VBT_OK;

    shm->last_liveness_ns = vbt_now_ns();
    if (shm->npidfds > 0 && poll(shm->pidfds, (nfds_t)shm->npidfds, 0) > 0) {
        for (int k = 0; k < shm->npidfds; k++) {
            if (shm->pidfds[k].fd >= 0 && (shm->pidfds[k].revents & (POLLIN | POLLHUP))) {
                shm->pidfds[k].fd = -1; /* poll ignores it from now on */
                if (peer_died(shm->pidfd_peer[k]) != VBT_OK)
                    status = VBT_ERR_PEER_FAILED;
            }
        }
    }
    for (int i = 0; i < shm->local_size; i++) {
        vbt_shm_peer_t *p = &shm->peers[i];
        if (p->reachable && p->pidfd < 0 && !p->dead && kill(p->pid, 0) != 0 && errno == ESRCH &&
            peer_died(p) != VBT_OK)
            status = VBT_ERR_PEER_FAILED;
    }
    return status;
}

/* ---- sending --------------------------------------------------------------------------------- */

static VBT_NOINLINE_COLD vbt_status_t send_refused(vbt_shm_iface_t *shm, int peer, size_t hdr_len,
                                                   size_t len)
{
    vbt_shm_peer_t *p = peer_of(shm, peer);

    if (p == NULL) {
        vbt_error("shared-memory send to rank %d: not a rank on this node whose segment we "
                  "mapped",
                  peer);
        return VBT_ERR_INVALID_PARAM;
    }
    if (p->failed)
        return VBT_ERR_PEER_FAILED; /* said when it was found */
    vbt_error("shared-memory send of %zu + %zu bytes to rank %d: more than the %u a cell holds",
              hdr_len, len, peer, VBT_SHM_CELL_DATA);
    return VBT_ERR_INVALID_PARAM;
}

static VBT_NOINLINE_COLD vbt_status_t send_closed(vbt_shm_peer_t *p)
{
    p->failed = 1;
    vbt_error("cannot send to local rank %d: it has finalized (a message to a rank that called "
              "MPI_Finalize is lost)",
              p->world);
    return VBT_ERR_PEER_FAILED;
}

/* sendto p's doorbell failed (err): it wakes by its timeout instead. Worth a warning once:
 * every sleep of that peer now lasts up to VBT_SHM_BLOCK_MAX_MS when we post to it. Not when
 * it finalized or exited (its socket is closed, which is no news). */
static VBT_NOINLINE_COLD void bell_failed(vbt_shm_iface_t *shm, vbt_shm_peer_t *p, int err)
{
    shm->stats.bell_errors++;
    if (p->failed ||
        (atomic_load_explicit(&p->hdr->state, memory_order_acquire) & VBT_SHM_CLOSED) ||
        peer_gone(p)) {
        vbt_debug("doorbell of local rank %d: sendto: %s (it finalized or exited)", p->world,
                  strerror(err));
        return;
    }
    if (shm->bell_warned) {
        vbt_debug("doorbell of local rank %d: sendto: %s", p->world, strerror(err));
        return;
    }
    shm->bell_warned = 1;
    vbt_warn("cannot ring the shared-memory doorbell of local rank %d (sendto @%s: %s; are the "
             "ranks in different network namespaces?): it still gets our messages, but up to %d "
             "ms late when it was asleep (said once, for any peer)",
             p->world, p->bell.sa.sun_path + 1, strerror(err), VBT_SHM_BLOCK_MAX_MS);
}

/* Wake p if it announced it sleeps: the first to clear its SLEEPING pays the system call. */
static VBT_NOINLINE_COLD void ring_bell(vbt_shm_iface_t *shm, vbt_shm_peer_t *p)
{
    int rc;

    if (p->hdr == NULL)
        return; /* not mapped: it wakes by its timeout */
    rc = vbt_shm_bell_ring(&p->hdr->state, shm->bell_fd, &p->bell);
    if (rc > 0)
        shm->stats.wakes++;
    else if (rc < 0)
        bell_failed(shm, p, -rc);
}

/* The ring is full: ask the receiver to ring us when it frees a cell, and look once more.
 * VBT_OK: there is room after all. Now and then make sure the peer is still there to drain. */
static VBT_NOINLINE_COLD vbt_status_t send_full(vbt_shm_peer_t *p)
{
    p->tx_waiting = 1;
    if (vbt_shm_ring_want_space(&p->tx))
        return VBT_OK;
    p->owner->stats.full++;
    if (atomic_load_explicit(&p->hdr->state, memory_order_acquire) & VBT_SHM_CLOSED)
        return send_closed(p);
    if (++p->full_count % VBT_SHM_FULL_CHECK == 0 && peer_gone(p)) {
        peer_died(p);
        return VBT_ERR_PEER_FAILED;
    }
    return VBT_ERR_NO_RESOURCE;
}

/* The ring had room again: withdraw our request for a doorbell. */
static VBT_NOINLINE_COLD void send_unblocked(vbt_shm_peer_t *p)
{
    p->tx_waiting = 0;
    p->full_count = 0;
    vbt_shm_ring_withdraw(&p->tx);
}

/* The receiver announced it sleeps, or finalized. */
static VBT_NOINLINE_COLD vbt_status_t send_notify(vbt_shm_peer_t *p, uint32_t state)
{
    if (state & VBT_SHM_CLOSED)
        return send_closed(p);
    ring_bell(p->owner, p);
    return VBT_OK;
}

/* The instance is needed only to find the peer: past that the cold paths reach it through
 * p->owner and the count is the peer's, so nothing of it stays live across the copies (no
 * spill of an argument around the first memcpy). */
static vbt_status_t vbt_shm_send(vbt_tl_iface_t *iface, int peer, const void *hdr, size_t hdr_len,
                                 const void *payload, size_t len)
{
    vbt_shm_iface_t *shm = vbt_shm_iface(iface);
    vbt_shm_peer_t *p = peer_of(shm, peer);
    vbt_shm_cell_t *cell;
    uint32_t state;

    if (unlikely(p == NULL || p->failed || hdr_len > VBT_SHM_CELL_DATA ||
                 len > VBT_SHM_CELL_DATA - hdr_len))
        return send_refused(shm, peer, hdr_len, len);
    cell = vbt_shm_ring_reserve(&p->tx);
    if (unlikely(cell == NULL)) {
        vbt_status_t status = send_full(p);
        if (status != VBT_OK)
            return status;
        cell = vbt_shm_ring_reserve(&p->tx); /* send_full saw room */
        if (unlikely(cell == NULL))
            return VBT_ERR_NO_RESOURCE;
    }
    if (unlikely(p->tx_waiting))
        send_unblocked(p);
    p->sends++;
    vbt_copy(cell->data, hdr, hdr_len);
    vbt_copy(cell->data + hdr_len, payload, len);
    cell->len = (uint32_t)(hdr_len + len);
    vbt_shm_ring_commit(&p->tx, cell);
    /* Dekker with sleep_begin: our seq store before our look at its state. Where both of us
     * use membarrier, its announcement of a sleep fences for us (vbt_shm_bell.h): here only the
     * compiler must keep the order. */
    if (unlikely(p->send_fence))
        atomic_thread_fence(memory_order_seq_cst);
    else
        atomic_signal_fence(memory_order_seq_cst);
    state = atomic_load_explicit(&p->hdr->state, memory_order_relaxed);
    if (unlikely(state != 0))
        return send_notify(p, state);
    return VBT_OK;
}

/* ---- receiving ------------------------------------------------------------------------------- */

static VBT_NOINLINE_COLD vbt_status_t ring_corrupt(vbt_shm_iface_t *shm, vbt_shm_peer_t *p,
                                                   const vbt_shm_cell_t *cell, int k)
{
    vbt_error("the shared-memory ring from local rank %d is corrupt at message %llu (cell length "
              "%u, more than %u): memory corruption in that rank, or ranks of different "
              "Verbatim builds; no longer reading it",
              p->world, (unsigned long long)p->rx.head, cell->len, VBT_SHM_CELL_DATA);
    p->broken = 1;
    shm->rx_peers[k] = shm->rx_peers[--shm->nrx];
    return VBT_ERR_PEER_FAILED;
}

/* We freed cells of p's ring: if its sender found the ring full and asked, ring its doorbell.
 * Dekker with vbt_shm_ring_want_space: our head stores before our look at waiting. Where both
 * of us use membarrier, the sender's sleep announcement fences for us as it does for its sends
 * (vbt_shm_bell.h: a sender that finds the ring full polls, or sleeps after a membarrier, then
 * looks at head again), so a compiler barrier keeps the order; else a full fence. Once per ring
 * that delivered something in a poll, not per message. */
static inline void tell_waiting_sender(vbt_shm_iface_t *shm, vbt_shm_peer_t *p)
{
    if (unlikely(p->send_fence))
        atomic_thread_fence(memory_order_seq_cst);
    else
        atomic_signal_fence(memory_order_seq_cst);
    if (unlikely(vbt_shm_ring_take_waiter(&p->rx)))
        ring_bell(shm, p);
}

/* noinline: called through the ops table with every poll; GCC would otherwise split the entry
 * test off for the two direct callers and make every poll two calls. */
static __attribute__((noinline)) int vbt_shm_progress(vbt_tl_iface_t *iface)
{
    vbt_shm_iface_t *shm = vbt_shm_iface(iface);
    int n = 0, status = 0;

    if (unlikely(!shm->up || shm->in_progress))
        return 0;
    shm->in_progress = 1;
    for (int k = 0; k < shm->nrx; k++) {
        vbt_shm_peer_t *p = shm->rx_peers[k];
        const vbt_shm_cell_t *cell = vbt_shm_ring_peek(&p->rx);
        int j = 0;

        if (cell == NULL)
            continue;
        do {
            int64_t len = vbt_shm_ring_check(cell);

            if (unlikely(len < 0)) {
                status = ring_corrupt(shm, p, cell, k); /* p is out of rx_peers: stop here */
                break;
            }
            shm->upcalls.recv(shm->upcalls.arg, p->world, cell->data, (size_t)len);
            vbt_shm_ring_release(&p->rx);
        } while (++j < VBT_SHM_POLL_BATCH && (cell = vbt_shm_ring_peek(&p->rx)) != NULL);
        n += j;
        if (unlikely(status != 0))
            break;
        tell_waiting_sender(shm, p);
    }
    shm->in_progress = 0;
    shm->stats.recvs += (uint64_t)n;
    return status != 0 ? status : n;
}

/* After announcing sleep: a message for us, or room in a ring we found full? */
static int anything_pending(const vbt_shm_iface_t *shm)
{
    for (int k = 0; k < shm->nrx; k++) {
        if (vbt_shm_ring_peek(&shm->rx_peers[k]->rx) != NULL)
            return 1;
    }
    for (int i = 0; i < shm->local_size; i++) {
        vbt_shm_peer_t *p = &shm->peers[i];
        if (p->tx_waiting && !p->failed && vbt_shm_ring_has_space(&p->tx))
            return 1;
    }
    return 0;
}

static int vbt_shm_wait_fd(vbt_tl_iface_t *iface)
{
    vbt_shm_iface_t *shm = vbt_shm_iface(iface);

    return shm->up ? shm->bell_fd : -1;
}

/* Not up (alone on the node): no limit of ours, as there is nothing to watch. */
static int vbt_shm_max_sleep_ms(vbt_tl_iface_t *iface)
{
    return vbt_shm_iface(iface)->up ? VBT_SHM_BLOCK_MAX_MS : -1;
}

static vbt_status_t vbt_shm_check_liveness(vbt_tl_iface_t *iface)
{
    vbt_shm_iface_t *shm = vbt_shm_iface(iface);

    if (!shm->up || vbt_now_ns() - shm->last_liveness_ns < VBT_SHM_LIVENESS_MS * 1000000ull)
        return VBT_OK;
    return check_peers(shm);
}

/* membarrier refused after it was registered (it should not: the kernel documents no such
 * failure): the peers that send without a fence may have a cell we cannot see yet, so no
 * sleep; the caller polls again. Said once. */
static VBT_NOINLINE_COLD vbt_status_t announce_failed(vbt_shm_iface_t *shm, int rc, int *sleep_p)
{
    if (!shm->asym_warned) {
        shm->asym_warned = 1;
        vbt_warn("membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) failed: %s; this rank polls "
                 "instead of sleeping while it waits for ranks of its node",
                 strerror(-rc));
    }
    if (vbt_shm_bell_retract(&shm->hdr->state))
        shm->bell_owed = 1; /* a sender took it: its datagram comes anyway */
    *sleep_p = 0;
    return VBT_OK;
}

static vbt_status_t vbt_shm_sleep_begin(vbt_tl_iface_t *iface, int *sleep_p)
{
    vbt_shm_iface_t *shm = vbt_shm_iface(iface);
    int n;

    if (!shm->up) {
        *sleep_p = 1;
        return VBT_OK;
    }
    if (vbt_now_ns() - shm->last_liveness_ns >= VBT_SHM_LIVENESS_MS * 1000000ull &&
        check_peers(shm) != VBT_OK) {
        *sleep_p = 0;
        return VBT_ERR_PEER_FAILED;
    }
    if (shm->bell_owed) {
        /* A datagram of an earlier sleep may have come since: drop it, or it would end this
         * sleep at once. Safe before the announcement: none can be for this sleep yet. */
        shm->bell_owed = 0;
        vbt_shm_bell_drain(shm->bell_fd);
    }
    n = vbt_shm_bell_announce(&shm->hdr->state, shm->asym);
    if (unlikely(n != 0))
        return announce_failed(shm, n, sleep_p);
    if (anything_pending(shm)) {
        if (vbt_shm_bell_retract(&shm->hdr->state))
            shm->bell_owed = 1; /* a sender took it: its datagram comes anyway */
        shm->stats.called_off++;
        *sleep_p = 0;
        n = vbt_shm_progress(iface);
        return n < 0 ? (vbt_status_t)n : VBT_OK;
    }
    shm->asleep = 1;
    shm->stats.sleeps++;
    *sleep_p = 1;
    return VBT_OK;
}

/* readable is not needed: the doorbell is drained either way, and a datagram that came is
 * counted by what the drain took. */
static vbt_status_t vbt_shm_sleep_end(vbt_tl_iface_t *iface, int readable, int timed_out)
{
    vbt_shm_iface_t *shm = vbt_shm_iface(iface);
    int taken, n;

    if (!shm->up || !shm->asleep)
        return VBT_OK;
    shm->asleep = 0;
    taken = vbt_shm_bell_retract(&shm->hdr->state);
    /* Always: a late datagram of an earlier sleep would otherwise end every sleep at once. */
    n = vbt_shm_bell_drain(shm->bell_fd);
    if (taken && n == 0)
        shm->bell_owed = 1; /* the sender is between its fetch_and and its sendto */
    if (timed_out) {
        shm->stats.timeouts++;
        return check_peers(shm);
    }
    if (n > 0)
        shm->stats.rung++;
    return VBT_OK;
}

/* ---- teardown -------------------------------------------------------------------------------- */

static void vbt_shm_finalize(vbt_tl_iface_t *iface)
{
    vbt_shm_iface_t *shm = vbt_shm_iface(iface);
    uint64_t dropped = 0;

    if (shm == NULL)
        return;
    if (shm->up) {
        /* Senders see it and fail instead of filling a ring nobody reads; one asleep waiting
         * for room in our ring wakes to see it. */
        atomic_fetch_or_explicit(&shm->hdr->state, VBT_SHM_CLOSED, memory_order_seq_cst);
        for (int k = 0; k < shm->nrx; k++) {
            dropped += vbt_shm_ring_pending(&shm->rx_peers[k]->rx);
            if (vbt_shm_ring_take_waiter(&shm->rx_peers[k]->rx))
                ring_bell(shm, shm->rx_peers[k]);
        }
        vbt_debug("shared memory: %llu sends (%llu found the ring full), %llu doorbells rung "
                  "(%llu refused), %llu received, %llu sleeps (%llu ended by the doorbell, %llu "
                  "timed out; %llu more called off), %llu messages never delivered",
                  (unsigned long long)vbt_shm_sends(shm), (unsigned long long)shm->stats.full,
                  (unsigned long long)shm->stats.wakes, (unsigned long long)shm->stats.bell_errors,
                  (unsigned long long)shm->stats.recvs, (unsigned long long)shm->stats.sleeps,
                  (unsigned long long)shm->stats.rung, (unsigned long long)shm->stats.timeouts,
                  (unsigned long long)shm->stats.called_off, (unsigned long long)dropped);
        for (int i = 0; i < shm->local_size; i++) {
            if (shm->peers[i].pidfd >= 0)
                close(shm->peers[i].pidfd);
        }
        /* The name goes with the socket; datagrams we sent stay queued at their receivers. */
        if (shm->bell_fd >= 0)
            close(shm->bell_fd);
        vbt_shm_segment_destroy(shm);
        if (shm->ptracer_set)
            prctl(PR_SET_PTRACER, 0, 0, 0, 0);
    }
    instance_free(shm);
}

/* ---- the ops table -----------------------------------------------------------------------------
 */

/* For verbatim-info: what shm would use here (no rank is needed to say it). */
static void vbt_shm_describe(FILE *out)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = -1;

    if (f != NULL) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = -1;
        fclose(f);
    }
    fprintf(out, "\nShared memory (ranks on one node):\n");
    fprintf(out,
            "  rings of %u cells of %u bytes per pair of ranks, in memfd segments; messages "
            "above %zu bytes by rendezvous\n",
            VBT_SHM_RING_DEPTH, VBT_SHM_CELL_DATA, vbt_cfg.shm_rndv_threshold);
    if (!vbt_cfg.shm_membarrier)
        fprintf(out, "  sends: a memory fence each (VBT_SHM_MEMBARRIER=0)\n");
    else if (vbt_shm_bell_asym_available())
        fprintf(out, "  sends: no memory fence (a rank about to sleep calls membarrier(2) "
                     "instead)\n");
    else
        fprintf(out, "  sends: a memory fence each (this kernel has no "
                     "MEMBARRIER_CMD_GLOBAL_EXPEDITED)\n");
    if (!vbt_cfg.shm_cma)
        fprintf(out, "  CMA single-copy reads: off (VBT_SHM_CMA=0): large messages stream "
                     "through the rings\n");
    else if (scope < 0)
        fprintf(out, "  CMA single-copy reads: on where permitted (no Yama; each rank probes "
                     "its peers at start-up)\n");
    else
        fprintf(out,
                "  CMA single-copy reads: %s (kernel.yama.ptrace_scope %d; each rank "
                "probes its peers at start-up)\n",
                scope <= 1 ? "on where permitted" : "refused by Yama unless CAP_SYS_PTRACE", scope);
}

const vbt_tl_ops_t vbt_shm_tl_ops = {
    .name = "shm",
    .init = vbt_shm_init,
    .wireup = vbt_shm_wireup,
    .reaches = vbt_shm_reaches,
    .finalize = vbt_shm_finalize,
    .progress = vbt_shm_progress,
    .wait_fd = vbt_shm_wait_fd,
    .sleep_begin = vbt_shm_sleep_begin,
    .sleep_end = vbt_shm_sleep_end,
    .max_sleep_ms = vbt_shm_max_sleep_ms,
    .check_liveness = vbt_shm_check_liveness,
    .send = vbt_shm_send,
    .read_peer = vbt_shm_read_peer,
    .describe = vbt_shm_describe,
    /* No registration, put, get or atomics: a rendezvous streams (STREAM) or reads the
     * sender's memory (READ_PEER). */
};
