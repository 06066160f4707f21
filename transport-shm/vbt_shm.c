/* The shared-memory transport: set-up, the send and receive paths, sleeping and the doorbell,
 * dead peers and CMA. vbt_shm_int.h describes the segments and the doorbell protocol,
 * vbt_shm_ring.h the ring, vbt_shm_bell.h the doorbell socket.
 *
 * Steady state: a send is a reserve (private counters; the consumer's head is read only when
 * the ring looks full), two memcpy, a release store of the cell's seq, a seq_cst fence and one
 * load of the receiver's state word; a system call only when the receiver announced it sleeps.
 * A receive is an acquire load of the next cell's seq, the callback on the cell in place, and a
 * release store of head; a poll that delivered something adds one seq_cst fence and a look at
 * each delivering ring's waiting flag. No lock and no allocation anywhere after
 * vbt_shm_wireup.
 *
 * Dead peers: every local peer gets a pidfd (readable once it exits; kill(pid, 0) where the
 * kernel has no pidfd_open). vbt_shm_sleep_begin looks at them before sleeping (at most every
 * VBT_SHM_LIVENESS_MS), vbt_shm_sleep_end after a timeout, and nobody sleeps more than
 * VBT_SHM_BLOCK_MAX_MS; waits that never sleep call vbt_shm_check_liveness (as often);
 * a sender stuck on a full ring looks every VBT_SHM_FULL_CHECK attempts. A peer that exited
 * without finalizing is an error (logged once); one that finalized is not, but sends to it
 * fail. */
#include "config.h"

#include "vbt_clock.h"
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

#define NOINLINE __attribute__((noinline, cold))

vbt_shm_ctx_t vbt_shm_ctx = {.memfd = -1, .bell_fd = -1};
uint64_t vbt_shm_cma_probe_word;

static vbt_shm_peer_t *peer_of(int world)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    if (c->tx_peer == NULL || world < 0 || world >= c->size)
        return NULL;
    return c->tx_peer[world];
}

/* ---- CMA ------------------------------------------------------------------------------------- */

/* With Yama's ptrace_scope 1 only an ancestor may read a process's memory, and ranks are
 * siblings: like Open MPI, let any process of ours read us (what scope 0 allows anyway). */
static void cma_allow_peers(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");

    c->yama_scope = -1;
    if (f != NULL) {
        if (fscanf(f, "%d", &c->yama_scope) != 1)
            c->yama_scope = -1;
        fclose(f);
    }
    if (c->yama_scope != 1)
        return;
    if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) == 0) {
        c->ptracer_set = 1;
        vbt_debug("kernel.yama.ptrace_scope is 1: PR_SET_PTRACER_ANY lets the local peers read "
                  "our memory with CMA");
    } else {
        vbt_debug("kernel.yama.ptrace_scope is 1 and PR_SET_PTRACER failed: %m");
    }
}

static const char *cma_hint(int err)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;

    if (err == ENOSYS)
        return "the kernel, or a seccomp filter, does not offer process_vm_readv";
    if (err != EPERM && err != EACCES)
        return "unexpected";
    if (c->yama_scope >= 2)
        return c->yama_scope == 2 ? "kernel.yama.ptrace_scope is 2: only CAP_SYS_PTRACE may read "
                                    "another process; 0 or 1 allow it"
                                  : "kernel.yama.ptrace_scope is 3: no process may read another";
    return "a container or seccomp policy, or a peer that is not dumpable, forbids it; "
           "CAP_SYS_PTRACE allows it";
}

/* Read each local peer's probe word (its cookie) with process_vm_readv: a real attempt under
 * the real permissions. */
static void cma_probe(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    int tried = 0, ok = 0, bad_rank = -1, bad_err = 0;

    for (int i = 0; i < c->local_size; i++) {
        vbt_shm_peer_t *p = &c->peers[i];
        uint64_t value = 0;
        struct iovec l = {&value, sizeof(value)};
        struct iovec r = {(void *)(uintptr_t)p->cma_addr, sizeof(value)};
        ssize_t n;

        if (i == c->my_local || !p->reachable)
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
    c->cma_available = tried > 0 && ok == tried;
    if (tried == 0)
        return;
    if (c->cma_available)
        vbt_info("CMA single-copy reads of the %d local peers: permitted (process_vm_readv "
                 "probed)",
                 tried);
    else if (bad_err != 0)
        vbt_info("CMA single-copy reads: not permitted for %d of %d local peers (process_vm_readv "
                 "of rank %d: %s: %s): their large messages are copied through the shared-memory "
                 "rings",
                 tried - ok, tried, bad_rank, strerror(bad_err), cma_hint(bad_err));
    else
        vbt_info("CMA single-copy reads: not used for %d of %d local peers (process_vm_readv of "
                 "rank %d read the wrong bytes): their large messages are copied through the "
                 "shared-memory rings",
                 tried - ok, tried, bad_rank);
}

vbt_status_t vbt_shm_cma_read(int peer, void *local, const void *remote, size_t len)
{
    vbt_shm_peer_t *p = peer_of(peer);
    size_t done = 0;

    if (unlikely(p == NULL)) {
        vbt_error("CMA read from rank %d: not a rank on this node reached over shared memory",
                  peer);
        return VBT_ERR_INVALID_PARAM;
    }
    if (!p->cma_ok)
        return VBT_ERR_UNSUPPORTED;
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
            return VBT_ERR_UNSUPPORTED;
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
                  "[%p, +%zu) is not mapped in that process, or [%p, +%zu) in ours",
                  len, peer, done, n < 0 ? strerror(errno) : "nothing read", remote, len, local,
                  len);
        return VBT_ERR_INVALID_PARAM;
    }
    return VBT_OK;
}

int vbt_shm_cma_available(void)
{
    return vbt_shm_ctx.cma_available;
}

/* ---- set-up ---------------------------------------------------------------------------------- */

static void free_arrays(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    free(c->peers);
    free(c->tx_peer);
    free(c->rx_peers);
    free(c->pidfds);
    free(c->pidfd_peer);
    c->peers = NULL;
    c->tx_peer = NULL;
    c->rx_peers = NULL;
    c->pidfds = NULL;
    c->pidfd_peer = NULL;
}

vbt_status_t vbt_shm_init(const vbt_proc_info_t *proc, vbt_shm_recv_cb_t cb)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    vbt_status_t status;
    int n;

    memset(c, 0, sizeof(*c));
    c->memfd = -1;
    c->bell_fd = -1;
    c->rank = proc->rank;
    c->size = proc->size;
    c->local_size = proc->local_size;
    c->my_local = -1;
    c->cb = cb;
    if (proc->local_size <= 1 || proc->local_peers == NULL) {
        vbt_debug("no other rank on this node: no shared-memory transport");
        return VBT_OK;
    }
    if (cb == NULL) {
        vbt_error("vbt_shm_init needs a receive callback");
        return VBT_ERR_INVALID_PARAM;
    }
    for (int i = 0; i < proc->local_size; i++) {
        if (proc->local_peers[i] < 0 || proc->local_peers[i] >= proc->size) {
            vbt_error("the local peer list names rank %d of a job of %d ranks",
                      proc->local_peers[i], proc->size);
            return VBT_ERR_INVALID_PARAM;
        }
        if (proc->local_peers[i] == proc->rank)
            c->my_local = i;
    }
    if (c->my_local < 0) {
        vbt_error("rank %d is not in its own node's local peer list", proc->rank);
        return VBT_ERR_INVALID_PARAM;
    }

    n = proc->local_size;
    c->peers = calloc((size_t)n, sizeof(*c->peers));
    c->tx_peer = calloc((size_t)proc->size, sizeof(*c->tx_peer));
    c->rx_peers = calloc((size_t)n, sizeof(*c->rx_peers));
    c->pidfds = calloc((size_t)n, sizeof(*c->pidfds));
    c->pidfd_peer = calloc((size_t)n, sizeof(*c->pidfd_peer));
    if (c->peers == NULL || c->tx_peer == NULL || c->rx_peers == NULL || c->pidfds == NULL ||
        c->pidfd_peer == NULL) {
        vbt_error("out of memory for the shared-memory transport's %d local peers", n);
        status = VBT_ERR_NO_MEMORY;
        goto err_free;
    }

    cma_allow_peers();
    status = vbt_shm_segment_create();
    if (status != VBT_OK)
        goto err_free;
    /* Bound before we publish: a peer may ring it as soon as it has wired up. */
    c->bell_fd = vbt_shm_bell_open(getpid(), c->cookie);
    if (c->bell_fd < 0) {
        vbt_error("cannot create the shared-memory doorbell (an AF_UNIX datagram socket in the "
                  "abstract namespace: %s): messages to ranks on this node go through the "
                  "network",
                  strerror(-c->bell_fd));
        c->bell_fd = -1;
        status = VBT_ERR_IO;
        goto err_destroy;
    }
    vbt_shm_cma_probe_word = c->cookie;
    for (int i = 0; i < n; i++) {
        vbt_shm_peer_t *p = &c->peers[i];
        p->world = proc->local_peers[i];
        p->local = i;
        p->pidfd = -1;
        if (i == c->my_local)
            continue;
        vbt_shm_consumer_attach(&p->rx, vbt_shm_seg_ctrl(c->seg, &c->layout, i),
                                vbt_shm_seg_cells(c->seg, &c->layout, i), VBT_SHM_RING_DEPTH);
        c->rx_peers[c->nrx++] = p;
    }
    status = vbt_shm_segment_publish();
    if (status != VBT_OK)
        goto err_close_bell;
    c->up = 1;
    return VBT_OK;

err_close_bell:
    close(c->bell_fd);
    c->bell_fd = -1;
err_destroy:
    vbt_shm_segment_destroy();
err_free:
    free_arrays();
    return status;
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

vbt_status_t vbt_shm_wireup(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    vbt_status_t status = VBT_OK;
    int unreachable = 0, first = -1, mapped = 0;
    char why[320] = "", first_why[320] = "";
    uint64_t my_dev = 0, my_ino = 0;
    struct stat st;

    if (!c->up)
        return VBT_OK;
    if (stat("/proc/self/ns/pid", &st) == 0) {
        my_dev = (uint64_t)st.st_dev;
        my_ino = (uint64_t)st.st_ino;
    }
    for (int i = 0; i < c->local_size; i++) {
        vbt_shm_peer_t *p = &c->peers[i];
        vbt_shm_modex_t m;
        vbt_status_t st2;
        void *blob = NULL;
        size_t len = 0;

        if (i == c->my_local)
            continue;
        st2 = vbt_modex_get(p->world, VBT_SHM_MODEX_KEY, &blob, &len);
        if (st2 != VBT_OK) {
            /* Its vbt_shm_init failed (it said why): it is not reachable over shm. */
            snprintf(why, sizeof(why), "it published no shared-memory segment");
            goto unreachable;
        }
        if (len != sizeof(m)) {
            vbt_error("local rank %d published a %zu-byte shared-memory record, we expect %zu: "
                      "are all ranks running the same Verbatim build?",
                      p->world, len, sizeof(m));
            free(blob);
            status = VBT_ERR_INVALID_PARAM;
            continue;
        }
        memcpy(&m, blob, sizeof(m));
        free(blob);
        if (m.version != VBT_SHM_VERSION || m.local_size != (uint32_t)c->local_size) {
            vbt_error("local rank %d published shared-memory version %u for %u local ranks; we "
                      "have version %u and %d local ranks: are all ranks running the same "
                      "Verbatim build?",
                      p->world, m.version, m.local_size, VBT_SHM_VERSION, c->local_size);
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
        vbt_shm_bell_addr((pid_t)m.pid, m.cookie, &p->bell);
        st2 = vbt_shm_segment_map_peer(p, &m, why, sizeof(why));
        if (st2 == VBT_ERR_UNREACHABLE)
            goto unreachable;
        if (st2 != VBT_OK) {
            status = st2;
            continue;
        }
        p->reachable = 1;
        c->tx_peer[p->world] = p;
        mapped++;
        p->pidfd = open_pidfd(p->pid);
        if (p->pidfd >= 0) {
            c->pidfds[c->npidfds] = (struct pollfd){.fd = p->pidfd, .events = POLLIN};
            c->pidfd_peer[c->npidfds++] = p;
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
                 unreachable, c->local_size - 1, first, first_why);
    cma_probe();
    c->last_liveness_ns = vbt_now_ns();
    c->wired = 1;
    vbt_info("shared memory: %d of %d local peers reachable, rings of %u cells of %u bytes, "
             "CMA %s",
             mapped, c->local_size - 1, VBT_SHM_RING_DEPTH, VBT_SHM_CELL_DATA,
             c->cma_available ? "on" : "off");
    return status;
}

int vbt_shm_is_local(int world_rank)
{
    return peer_of(world_rank) != NULL;
}

size_t vbt_shm_max_send(void)
{
    return VBT_SHM_CELL_DATA;
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
static vbt_status_t check_peers(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    vbt_status_t status = VBT_OK;

    c->last_liveness_ns = vbt_now_ns();
    if (c->npidfds > 0 && poll(c->pidfds, (nfds_t)c->npidfds, 0) > 0) {
        for (int k = 0; k < c->npidfds; k++) {
            if (c->pidfds[k].fd >= 0 && (c->pidfds[k].revents & (POLLIN | POLLHUP))) {
                c->pidfds[k].fd = -1; /* poll ignores it from now on */
                if (peer_died(c->pidfd_peer[k]) != VBT_OK)
                    status = VBT_ERR_PEER_FAILED;
            }
        }
    }
    for (int i = 0; i < c->local_size; i++) {
        vbt_shm_peer_t *p = &c->peers[i];
        if (p->reachable && p->pidfd < 0 && !p->dead && kill(p->pid, 0) != 0 && errno == ESRCH &&
            peer_died(p) != VBT_OK)
            status = VBT_ERR_PEER_FAILED;
    }
    return status;
}

/* ---- sending --------------------------------------------------------------------------------- */

static NOINLINE vbt_status_t send_refused(int peer, size_t hdr_len, size_t len)
{
    vbt_shm_peer_t *p = peer_of(peer);

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

static NOINLINE vbt_status_t send_closed(vbt_shm_peer_t *p)
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
static NOINLINE void bell_failed(vbt_shm_peer_t *p, int err)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;

    c->stats.bell_errors++;
    if (p->failed ||
        (atomic_load_explicit(&p->hdr->state, memory_order_acquire) & VBT_SHM_CLOSED) ||
        peer_gone(p)) {
        vbt_debug("doorbell of local rank %d: sendto: %s (it finalized or exited)", p->world,
                  strerror(err));
        return;
    }
    if (c->bell_warned) {
        vbt_debug("doorbell of local rank %d: sendto: %s", p->world, strerror(err));
        return;
    }
    c->bell_warned = 1;
    vbt_warn("cannot ring the shared-memory doorbell of local rank %d (sendto @%s: %s; are the "
             "ranks in different network namespaces?): it still gets our messages, but up to %d "
             "ms late when it was asleep (said once, for any peer)",
             p->world, p->bell.sa.sun_path + 1, strerror(err), VBT_SHM_BLOCK_MAX_MS);
}

/* Wake p if it announced it sleeps: the first to clear its SLEEPING pays the system call. */
static NOINLINE void ring_bell(vbt_shm_peer_t *p)
{
    int rc;

    if (p->hdr == NULL)
        return; /* not mapped: it wakes by its timeout */
    rc = vbt_shm_bell_ring(&p->hdr->state, vbt_shm_ctx.bell_fd, &p->bell);
    if (rc > 0)
        vbt_shm_ctx.stats.wakes++;
    else if (rc < 0)
        bell_failed(p, -rc);
}

/* The ring is full: ask the receiver to ring us when it frees a cell, and look once more.
 * VBT_OK: there is room after all. Now and then make sure the peer is still there to drain. */
static NOINLINE vbt_status_t send_full(vbt_shm_peer_t *p)
{
    p->tx_waiting = 1;
    if (vbt_shm_ring_want_space(&p->tx))
        return VBT_OK;
    vbt_shm_ctx.stats.full++;
    if (atomic_load_explicit(&p->hdr->state, memory_order_acquire) & VBT_SHM_CLOSED)
        return send_closed(p);
    if (++p->full_count % VBT_SHM_FULL_CHECK == 0 && peer_gone(p)) {
        peer_died(p);
        return VBT_ERR_PEER_FAILED;
    }
    return VBT_ERR_NO_RESOURCE;
}

/* The ring had room again: withdraw our request for a doorbell. */
static NOINLINE void send_unblocked(vbt_shm_peer_t *p)
{
    p->tx_waiting = 0;
    p->full_count = 0;
    vbt_shm_ring_withdraw(&p->tx);
}

/* The receiver announced it sleeps, or finalized. */
static NOINLINE vbt_status_t send_notify(vbt_shm_peer_t *p, uint32_t state)
{
    if (state & VBT_SHM_CLOSED)
        return send_closed(p);
    ring_bell(p);
    return VBT_OK;
}

vbt_status_t vbt_shm_send(int peer, const void *hdr, size_t hdr_len, const void *payload,
                          size_t len)
{
    vbt_shm_peer_t *p = peer_of(peer);
    vbt_shm_cell_t *cell;
    uint32_t state;

    if (unlikely(p == NULL || p->failed || hdr_len > VBT_SHM_CELL_DATA ||
                 len > VBT_SHM_CELL_DATA - hdr_len))
        return send_refused(peer, hdr_len, len);
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
    if (hdr_len > 0)
        memcpy(cell->data, hdr, hdr_len);
    if (len > 0)
        memcpy(cell->data + hdr_len, payload, len);
    cell->len = (uint32_t)(hdr_len + len);
    vbt_shm_ring_commit(&p->tx, cell);
    vbt_shm_ctx.stats.sends++;
    /* Dekker with vbt_shm_sleep_begin: our seq store before our look at its state. */
    atomic_thread_fence(memory_order_seq_cst);
    state = atomic_load_explicit(&p->hdr->state, memory_order_relaxed);
    if (unlikely(state != 0))
        return send_notify(p, state);
    return VBT_OK;
}

/* ---- receiving ------------------------------------------------------------------------------- */

static NOINLINE vbt_status_t ring_corrupt(vbt_shm_peer_t *p, const vbt_shm_cell_t *cell, int k)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;

    vbt_error("the shared-memory ring from local rank %d is corrupt at message %llu (cell length "
              "%u, more than %u): memory corruption in that rank, or ranks of different "
              "Verbatim builds; no longer reading it",
              p->world, (unsigned long long)p->rx.head, cell->len, VBT_SHM_CELL_DATA);
    p->broken = 1;
    c->rx_peers[k] = c->rx_peers[--c->nrx];
    return VBT_ERR_PEER_FAILED;
}

/* We freed cells: senders that found their ring full and asked for it get their doorbell. */
static NOINLINE void tell_waiting_senders(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;

    /* Dekker with vbt_shm_ring_want_space: our head stores before our look at waiting. */
    atomic_thread_fence(memory_order_seq_cst);
    for (int k = 0; k < c->nrx; k++) {
        vbt_shm_peer_t *p = c->rx_peers[k];
        if (p->rx_released) {
            p->rx_released = 0;
            if (vbt_shm_ring_take_waiter(&p->rx))
                ring_bell(p);
        }
    }
}

int vbt_shm_progress(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    int n = 0, status = 0;

    if (unlikely(!c->up || c->in_progress))
        return 0;
    c->in_progress = 1;
    for (int k = 0; k < c->nrx && status == 0; k++) {
        vbt_shm_peer_t *p = c->rx_peers[k];
        int j;
        for (j = 0; j < VBT_SHM_POLL_BATCH; j++) {
            const vbt_shm_cell_t *cell = vbt_shm_ring_peek(&p->rx);
            int64_t len;

            if (cell == NULL)
                break;
            len = vbt_shm_ring_check(cell);
            if (unlikely(len < 0)) {
                status = ring_corrupt(p, cell, k);
                break;
            }
            c->cb(p->world, cell->data, (size_t)len);
            vbt_shm_ring_release(&p->rx);
        }
        if (j > 0) {
            p->rx_released = 1;
            n += j;
        }
    }
    if (n > 0)
        tell_waiting_senders();
    c->in_progress = 0;
    c->stats.recvs += (uint64_t)n;
    return status != 0 ? status : n;
}

/* After announcing sleep: a message for us, or room in a ring we found full? */
static int anything_pending(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;

    for (int k = 0; k < c->nrx; k++) {
        if (vbt_shm_ring_peek(&c->rx_peers[k]->rx) != NULL)
            return 1;
    }
    for (int i = 0; i < c->local_size; i++) {
        vbt_shm_peer_t *p = &c->peers[i];
        if (p->tx_waiting && !p->failed && vbt_shm_ring_has_space(&p->tx))
            return 1;
    }
    return 0;
}

int vbt_shm_wait_fd(void)
{
    return vbt_shm_ctx.up ? vbt_shm_ctx.bell_fd : -1;
}

int vbt_shm_max_sleep_ms(void)
{
    return VBT_SHM_BLOCK_MAX_MS;
}

vbt_status_t vbt_shm_check_liveness(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;

    if (!c->up || vbt_now_ns() - c->last_liveness_ns < VBT_SHM_LIVENESS_MS * 1000000ull)
        return VBT_OK;
    return check_peers();
}

vbt_status_t vbt_shm_sleep_begin(int *sleep_p)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    int n;

    if (!c->up) {
        *sleep_p = 1;
        return VBT_OK;
    }
    if (vbt_now_ns() - c->last_liveness_ns >= VBT_SHM_LIVENESS_MS * 1000000ull &&
        check_peers() != VBT_OK) {
        *sleep_p = 0;
        return VBT_ERR_PEER_FAILED;
    }
    if (c->bell_owed) {
        /* A datagram of an earlier sleep may have come since: drop it, or it would end this
         * sleep at once. Safe before the announcement: none can be for this sleep yet. */
        c->bell_owed = 0;
        vbt_shm_bell_drain(c->bell_fd);
    }
    vbt_shm_bell_announce(&c->hdr->state);
    if (anything_pending()) {
        if (vbt_shm_bell_retract(&c->hdr->state))
            c->bell_owed = 1; /* a sender took it: its datagram comes anyway */
        c->stats.called_off++;
        *sleep_p = 0;
        n = vbt_shm_progress();
        return n < 0 ? (vbt_status_t)n : VBT_OK;
    }
    c->asleep = 1;
    c->stats.sleeps++;
    *sleep_p = 1;
    return VBT_OK;
}

vbt_status_t vbt_shm_sleep_end(int timed_out)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    int taken, n;

    if (!c->up || !c->asleep)
        return VBT_OK;
    c->asleep = 0;
    taken = vbt_shm_bell_retract(&c->hdr->state);
    /* Always: a late datagram of an earlier sleep would otherwise end every sleep at once. */
    n = vbt_shm_bell_drain(c->bell_fd);
    if (taken && n == 0)
        c->bell_owed = 1; /* the sender is between its fetch_and and its sendto */
    if (timed_out) {
        c->stats.timeouts++;
        return check_peers();
    }
    if (n > 0)
        c->stats.rung++;
    return VBT_OK;
}

vbt_status_t vbt_shm_block(int timeout_ms)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    struct pollfd pfd;
    vbt_status_t status;
    int go, rc, err;

    if (!c->up)
        return VBT_OK;
    c->stats.blocks++;
    if (timeout_ms < 0 || timeout_ms > VBT_SHM_BLOCK_MAX_MS)
        timeout_ms = VBT_SHM_BLOCK_MAX_MS;
    status = vbt_shm_sleep_begin(&go);
    if (status != VBT_OK || !go)
        return status;
    pfd = (struct pollfd){.fd = c->bell_fd, .events = POLLIN};
    rc = poll(&pfd, 1, timeout_ms);
    if (rc < 0 && errno != EINTR) {
        err = errno;
        vbt_shm_sleep_end(0);
        vbt_error("waiting on the shared-memory doorbell failed (poll: %s)", strerror(err));
        return VBT_ERR_IO;
    }
    return vbt_shm_sleep_end(rc == 0);
}

/* ---- teardown -------------------------------------------------------------------------------- */

void vbt_shm_finalize(void)
{
    vbt_shm_ctx_t *c = &vbt_shm_ctx;
    uint64_t dropped = 0;

    if (c->up) {
        /* Senders see it and fail instead of filling a ring nobody reads; one asleep waiting
         * for room in our ring wakes to see it. */
        atomic_fetch_or_explicit(&c->hdr->state, VBT_SHM_CLOSED, memory_order_seq_cst);
        for (int k = 0; k < c->nrx; k++) {
            dropped += vbt_shm_ring_pending(&c->rx_peers[k]->rx);
            if (vbt_shm_ring_take_waiter(&c->rx_peers[k]->rx))
                ring_bell(c->rx_peers[k]);
        }
        vbt_debug("shared memory: %llu sends (%llu found the ring full), %llu doorbells rung "
                  "(%llu refused), %llu received, %llu sleeps (%llu ended by the doorbell, %llu "
                  "timed out; %llu more called off), %llu messages never delivered",
                  (unsigned long long)c->stats.sends, (unsigned long long)c->stats.full,
                  (unsigned long long)c->stats.wakes, (unsigned long long)c->stats.bell_errors,
                  (unsigned long long)c->stats.recvs, (unsigned long long)c->stats.sleeps,
                  (unsigned long long)c->stats.rung, (unsigned long long)c->stats.timeouts,
                  (unsigned long long)c->stats.called_off, (unsigned long long)dropped);
        for (int i = 0; i < c->local_size; i++) {
            if (c->peers[i].pidfd >= 0)
                close(c->peers[i].pidfd);
        }
        /* The name goes with the socket; datagrams we sent stay queued at their receivers. */
        if (c->bell_fd >= 0)
            close(c->bell_fd);
        vbt_shm_segment_destroy();
        if (c->ptracer_set)
            prctl(PR_SET_PTRACER, 0, 0, 0, 0);
    }
    free_arrays();
    memset(c, 0, sizeof(*c));
    c->memfd = -1;
    c->bell_fd = -1;
}
