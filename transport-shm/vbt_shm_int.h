/* transport-shm private types: the segment layout, the address blob, the per-peer state and the
 * instance (vbt_shm_iface_t). White-box tests may include it; the runtime knows only
 * vbt_shm_tl_ops (vbt_shm.h) and sees an instance as the vbt_tl_iface_t it begins with.
 *
 * ---- Segments: one per rank, holding that rank's INBOUND rings ----------------------------
 * Each rank creates one segment at init: a header (identity and the state word), then one ring
 * per local rank (ring i carries the messages of the local rank with index i in local_peers;
 * our own index is unused). Senders write into the receiver's segment. One segment per rank rather
 * than one per node: every rank creates its own at init with no wait on local rank 0 and no
 * node-wide layout to agree on; it is sized for its own peers; the receiver polls only its own
 * memory; and a rank that dies takes only its own segment with it.
 *
 * The segment is an anonymous memory file (memfd_create), never a name in /dev/shm. A rank
 * publishes (pid, fd number, size, cookie) as its address blob; after the fence each peer opens
 * /proc/<pid>/fd/<fd>, which reopens the same memory file (the scheme UCX uses by default),
 * maps it and checks the cookie in its header. So there is nothing to unlink and nothing can
 * be left behind: no window between create and unlink in which a crash leaks a segment, no
 * cleanup for the launcher, and the memory goes back to the kernel when the last process that
 * maps it exits. The memfd is also not charged to the size of /dev/shm, which containers often
 * limit to 64 MiB. Sealed against shrinking, a peer's segment can never turn into SIGBUS.
 * Opening /proc/<pid>/fd/<fd> needs the same user, a dumpable process and one PID namespace
 * (ptrace read access, which Yama's ptrace_scope does not restrict); where that fails the peer
 * is logged and reached through the network instead.
 *
 * Layout (page = 4096):
 *   0                  vbt_shm_seg_hdr_t (2 cache lines)
 *   ctrl_off           vbt_shm_ring_ctrl_t[nrings]: head and waiting of every inbound ring
 *   cells_off          nrings x ring_bytes: ring i's cells at cells_off + i * ring_bytes
 * Pages are backed only when touched: above VBT_SHM_PRETOUCH_LOCAL local ranks, rings of pairs
 * that never talk cost an idle poll's page (the first cell of each inbound ring) and address
 * space; up to it, wireup maps in the first page of every cell (below).
 *
 * ---- Doorbell --------------------------------------------------------------------------------
 * A state word (SLEEPING, CLOSED) on the owner's header line, and a datagram socket the owner
 * binds in the abstract namespace as "vbt-shm.<pid>.<cookie>" (vbt_shm_bell.h): the peers
 * derive the name from the address blob they read anyway, and nothing is in the file system.
 * It is a socket, not a futex, so that the runtime can sleep on it and on the other
 * transports' wake-up descriptors in one poll() (the wait_fd op).
 *   receiver (sleep_begin):  state |= SLEEPING; fence(seq_cst) [membarrier]; poll all rings;
 *                            something? state &= ~SLEEPING, deliver, do not sleep
 *   caller:                  poll(our socket and its own fds, <= 500 ms)
 *   receiver (sleep_end):    state &= ~SLEEPING; recv(MSG_DONTWAIT) until EAGAIN
 *   sender (send):           write cell; seq = t+1 (release); fence(seq_cst) [or none];
 *                            load state; SLEEPING? if (fetch_and(&state, ~SLEEPING) had it)
 *                            sendto(its socket, 1 byte, MSG_DONTWAIT)
 * The bracketed forms are the asymmetric ones (vbt_shm_bell.h): where both ranks registered for
 * membarrier (VBT_SHM_ADDR_ASYM), the sleeper's membarrier does the sender's fence for it, and a
 * send takes none; a pair where either could not register keeps the sender's fence.
 * No wake-up is lost. The two seq_cst fences make it Dekker's: in every sleep announced after
 * the state the sender's load read, the receiver's look at the rings sees the new cell and
 * calls the sleep off. A sleep announced before is over, except the one whose SLEEPING the
 * load saw, and that one ends by itself: the sender clears the flag and sends a datagram; or
 * another sender cleared it and sent one; or the receiver cleared it, being awake already.
 * A datagram waits in the receiver's socket until the receiver drains it, which it does only
 * after its poll() (sleep_end) or before it announces its next sleep (below), so its poll()
 * returns at once when the datagram came first, and when it comes otherwise. The first sender
 * to clear SLEEPING pays the one system call; the others see it clear and pay nothing; a sender
 * whose receiver is awake pays nothing at all.
 * A datagram can come late: the receiver woke for another reason (its other fds, its timeout,
 * a cell it found itself) before the sender's sendto. It would end the next sleep at once, a
 * spurious wake-up, never a lost one; so a receiver that finds its SLEEPING taken by a peer
 * but no datagram yet drains once more before it announces the next sleep (no datagram for
 * that sleep can have been sent before the announcement).
 * When sendto fails (ranks in different network namespaces: abstract names are per
 * namespace) the sender logs it once at warn and goes on: the receiver never sleeps longer than
 * VBT_SHM_BLOCK_MAX_MS, so the message is seen late, not lost.
 * The same doorbell tells a sender that a ring it found full has room: it set the ring's
 * waiting flag (vbt_shm_ring.h), its sleep_begin re-poll also looks at that ring's head, and
 * the receiver that frees a cell and takes the flag rings the sender's bell as above. */
#ifndef VBT_SHM_INT_H
#define VBT_SHM_INT_H

#include <poll.h>
#include <stdalign.h>
#include <stdint.h>
#include <sys/types.h>

#include "vbt_compiler.h"
#include "vbt_shm.h"
#include "vbt_shm_bell.h"
#include "vbt_shm_ring.h"
#include "vbt_tl_ops.h"

#define VBT_SHM_MAGIC   0x0131304d48535456ull /* "VTSHM01\1" */
#define VBT_SHM_VERSION 3 /* 2: a socket doorbell instead of a futex word; 3: flags */
#define VBT_SHM_PAGE    4096

/* state bits: VBT_SHM_SLEEPING (vbt_shm_bell.h), and: */
#define VBT_SHM_CLOSED 0x2u /* the owner finalized: nobody reads its rings any more */

/* Nobody sleeps longer than this between sleep_begin and sleep_end (the max_sleep_ms op), so a
 * dead peer, or a message whose doorbell could not be rung, is noticed within it; sleep_begin
 * checks whether the peers live at most every VBT_SHM_LIVENESS_MS. */
#define VBT_SHM_BLOCK_MAX_MS 500
#define VBT_SHM_LIVENESS_MS  100
/* A sender that found a ring full this many times in a row checks whether the peer lives. */
#define VBT_SHM_FULL_CHECK 1024
/* Messages delivered from one sender per progress call. */
#define VBT_SHM_POLL_BATCH 16
/* At wireup, every rank maps in the cells of its inbound rings and of its outbound ones
 * (vbt_shm_ring_pretouch) when the node has at most this many local ranks: the memory file's
 * pages are otherwise allocated and mapped at their first touch, a page fault in the sender and
 * one in the receiver for each page of a ring's first lap, each worth several 8-byte messages
 * (README, Shared memory). It backs local_size - 1 inbound rings of 258 KiB per rank (16 ranks:
 * 3.8 MiB each, 61 MiB for the node); above it, pairs that never talk keep costing nothing. */
#define VBT_SHM_PRETOUCH_LOCAL 16

typedef struct {
    uint64_t magic;     /* VBT_SHM_MAGIC */
    uint32_t version;   /* VBT_SHM_VERSION */
    uint32_t nrings;    /* the owner's local_size */
    uint32_t depth;     /* cells per ring */
    uint32_t cell_size; /* sizeof(vbt_shm_cell_t) */
    uint64_t size;      /* bytes of the segment */
    uint64_t cookie;    /* random; also in the address blob: proves we mapped the right file,
                           and names the owner's doorbell with owner_pid */
    int32_t owner_rank; /* world rank */
    int32_t owner_pid;
    alignas(VBT_SHM_CACHE_LINE) _Atomic uint32_t state; /* VBT_SHM_SLEEPING | VBT_SHM_CLOSED */
} vbt_shm_seg_hdr_t;

typedef struct {
    size_t ctrl_off;
    size_t cells_off;
    size_t ring_bytes; /* page-aligned bytes of one ring's cells */
    size_t size;
} vbt_shm_layout_t;

/* A rank's address blob: what init returns for the runtime to publish, and what wireup gets
 * back for each local peer (upcall peer_addr). Host byte order: one node. */
typedef struct {
    uint32_t version;    /* VBT_SHM_VERSION */
    uint32_t local_size; /* must match ours */
    int32_t pid;
    int32_t fd; /* our memfd: /proc/<pid>/fd/<fd> */
    uint64_t size;
    uint64_t cookie;
    uint64_t pidns_dev; /* our PID namespace (stat of /proc/self/ns/pid): /proc/<pid> means */
    uint64_t pidns_ino; /* us only to peers in the same one */
    uint64_t cma_addr;  /* address of a word holding cookie, for the peers' CMA probe */
    uint32_t flags;     /* VBT_SHM_ADDR_* */
    uint32_t reserved;
} vbt_shm_addr_t;

/* flags: we are registered for membarrier and announce our sleeps with it (vbt_shm_bell.h), so
 * a peer that is registered too may send to us without a fence. */
#define VBT_SHM_ADDR_ASYM 0x1u

typedef struct vbt_shm_iface vbt_shm_iface_t;

typedef struct {
    int world;      /* world rank */
    int local;      /* index in local_peers */
    pid_t pid;      /* 0 when it published no address */
    int reachable;  /* its segment is mapped: we can send to it */
    int dead;       /* found exited (pidfd readable) */
    int failed;     /* sends fail: dead, or it finalized (said once) */
    int send_fence; /* our sends to it need a full fence: it or we cannot use membarrier */
    int broken;     /* it wrote a corrupt cell: we no longer read its ring */
    int cma_ok;     /* process_vm_readv of it works */
    int tx_waiting; /* our ring to it was full: we asked it to ring us when there is room */
    int pidfd;      /* -1 without pidfd_open: kill(pid, 0) then */
    unsigned full_count;
    uint64_t cookie;
    uint64_t cma_addr;
    vbt_shm_bell_addr_t bell; /* its doorbell */
    void *seg;                /* its segment, mapped */
    size_t seg_size;
    vbt_shm_seg_hdr_t *hdr;
    vbt_shm_producer_t tx;  /* our ring in its segment */
    uint64_t sends;         /* messages we sent it (vbt_shm_sends() sums them) */
    vbt_shm_consumer_t rx;  /* its ring in ours */
    vbt_shm_iface_t *owner; /* the instance it belongs to (for the send's cold paths) */
} vbt_shm_peer_t;

/* Counters for the tests and debug logs (private memory: free to update). */
typedef struct {
    uint64_t recvs;
    uint64_t full;        /* send found the ring full */
    uint64_t wakes;       /* doorbells we rang (a datagram sent): a post to a sleeper, room */
    uint64_t bell_errors; /* ... that sendto refused (the peer wakes by its timeout) */
    uint64_t sleeps;      /* sleep_begin calls that let the caller sleep */
    uint64_t called_off;  /* ... that found something and called the sleep off */
    uint64_t rung;        /* sleeps that ended with a datagram on our doorbell, not timed out */
    uint64_t timeouts;    /* sleeps that ended by the caller's poll() timing out */
} vbt_shm_stats_t;

/* One instance of the transport: all of its state (init allocates it, finalize frees it). The
 * fields a message touches come first, next to the interface the runtime reads with every
 * send: what send needs of the instance is on its first cache line (the interface, tx_peer,
 * size), what progress needs on the end of it and the second (up, in_progress, nrx, rx_peers,
 * the upcalls, recvs). */
struct vbt_shm_iface {
    alignas(VBT_SHM_CACHE_LINE) vbt_tl_iface_t super; /* first: what the runtime sees */
    vbt_shm_peer_t **tx_peer; /* world rank -> reachable peer, or NULL (size entries) */
    int size;                 /* ranks in the job */
    int up;                   /* init succeeded and there are local peers */
    int in_progress;          /* a callback runs: nested progress returns 0 */
    int nrx;
    vbt_shm_peer_t **rx_peers; /* the local_size - 1 other local ranks (nrx still read) */
    vbt_tl_upcalls_t upcalls;  /* the runtime's, copied at init */
    vbt_shm_stats_t stats;

    int wired; /* wireup ran */
    int rank, local_size, my_local;
    vbt_shm_peer_t *peers; /* local_size entries, ours unused */
    struct pollfd *pidfds; /* one per other local rank with a pidfd */
    vbt_shm_peer_t **pidfd_peer;
    int npidfds;
    uint64_t last_liveness_ns;
    int bell_fd;     /* our doorbell socket */
    int asleep;      /* between a sleep_begin that said sleep and its sleep_end */
    int bell_owed;   /* a peer took our SLEEPING but its datagram was not there yet */
    int bell_warned; /* a failed sendto was logged at warn (once) */
    int asym;        /* registered for membarrier: our sleeps are announced with it */
    int asym_warned; /* a failed membarrier was logged at warn (once) */
    int memfd;
    void *seg;
    size_t seg_size;
    vbt_shm_seg_hdr_t *hdr;
    vbt_shm_layout_t layout;
    uint64_t cookie;
    /* The word the peers read with process_vm_readv to probe CMA (it holds cookie; our
     * address blob says where). In the instance, so it lives exactly as long as the segment
     * whose cookie it proves. */
    uint64_t cma_probe;
    int cma_available; /* the probe at wireup read every reachable peer */
    int yama_scope;    /* kernel.yama.ptrace_scope, -1 without Yama */
    int ptracer_set;   /* we called PR_SET_PTRACER_ANY (undone at finalize) */
};

_Static_assert(offsetof(vbt_shm_iface_t, super) == 0,
               "an instance is the vbt_tl_iface_t the runtime holds");

/* The instance behind the runtime's interface pointer. */
static inline vbt_shm_iface_t *vbt_shm_iface(vbt_tl_iface_t *iface)
{
    return (vbt_shm_iface_t *)iface;
}

/* Messages this instance sent, to all its peers. */
static inline uint64_t vbt_shm_sends(const vbt_shm_iface_t *shm)
{
    uint64_t n = 0;

    for (int i = 0; shm->peers != NULL && i < shm->local_size; i++)
        n += shm->peers[i].sends;
    return n;
}

/* vbt_shm_segment.c */
void vbt_shm_layout(uint32_t nrings, vbt_shm_layout_t *l);
vbt_status_t vbt_shm_segment_create(vbt_shm_iface_t *shm, const char *job_name, int instance);
/* Our address blob (after vbt_shm_segment_create). */
void vbt_shm_segment_pack(const vbt_shm_iface_t *shm, vbt_shm_addr_t *a);
vbt_status_t vbt_shm_segment_map_peer(vbt_shm_iface_t *shm, vbt_shm_peer_t *p,
                                      const vbt_shm_addr_t *m, char *why, size_t whylen);
void vbt_shm_segment_destroy(vbt_shm_iface_t *shm);
/* Our inbound ring from local index i, and our outbound ring in a peer's mapped segment. */
vbt_shm_ring_ctrl_t *vbt_shm_seg_ctrl(void *seg, const vbt_shm_layout_t *l, int ring);
vbt_shm_cell_t *vbt_shm_seg_cells(void *seg, const vbt_shm_layout_t *l, int ring);
/* Map in one ring's cells before the first message, so that it does not take a page fault,
 * and make this process's first access to every page of each (a store to an outbound ring's, a
 * load of an inbound one's: what a hypervisor's shadow page tables need); 0 on success; -1 with
 * errno set when madvise refused (the accesses then map the pages). */
int vbt_shm_ring_pretouch(vbt_shm_cell_t *cells, uint32_t depth, int outbound);

#endif
