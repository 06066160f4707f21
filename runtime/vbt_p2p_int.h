/* Private to the point-to-point files (vbt_p2p*.c) and to the fast forms they inline into the
 * API's blocking send and receive (vbt_p2p_fast.h): the engine's state, the helpers the files
 * share on the message path (static inline, so splitting the protocol by idea costs no call),
 * and the functions one file offers the others. vbt_p2p.c describes the protocols. */
#ifndef VBT_P2P_INT_H
#define VBT_P2P_INT_H

#include <mpi.h>
#include <string.h>

#include "vbt_bsend.h"
#include "vbt_compiler.h"
#include "vbt_copy.h"
#include "vbt_datatype.h"
#include "vbt_error.h"
#include "vbt_log.h"
#include "vbt_p2p.h"
#include "vbt_p2p_wire.h"
#include "vbt_runtime.h"
#include "vbt_tl.h"

/* Unexpected messages' payloads beyond the record's inline bytes go in buffers of size classes
 * two to an octave (64, 96, 128, 192, ... 48k, 64k bytes: at most half again the payload),
 * taken from per-class free lists that grow a chunk at a time; larger ones (fragmented
 * messages above a raised rendezvous threshold, not the steady state) are malloc'ed to size. */
#define VBT_UNEXP_CLASSES   21
#define VBT_UNEXP_CLASS_MAX 65536

/* The storage of unexpected messages (vbt_p2p_unexp.c). */
typedef struct {
    vbt_unexp_t *records;           /* free records */
    void *slots[VBT_UNEXP_CLASSES]; /* free buffers of each size class, linked by first word */
    void *chunks;                   /* every chunk taken from malloc, linked by first word */
    size_t mem;                     /* bytes taken from malloc: chunks and live large buffers */
    size_t max;                     /* VBT_UNEXP_MAX: bound on every VCI's mem together; 0: none */
    size_t live;                    /* messages waiting for their receive */
    size_t live_bytes;              /* their payload bytes */
} vbt_unexp_store_t;

/* Where the following fragments of a large message from one sender go: a matched receive or an
 * unexpected message still being assembled. RC delivers each sender's messages in order and a
 * sender hands one message's pieces to the transport back to back, so one slot per sender is
 * enough. */
typedef struct {
    vbt_request_t *req;
    vbt_unexp_t *unexp;
    size_t total;
    size_t received;
} vbt_frag_state_t;

/* Sends that found no credit wait here, per destination, in order. */
typedef struct {
    vbt_request_t *head;
    vbt_request_t *tail;
} vbt_sendq_t;

/* A virtual communication interface: a set of transport instances and the point-to-point
 * engine's state on them (queues, fragments, unexpected messages, hooks). Every communicator
 * sends and receives through one (vbt_comm_t.vci), and every message of a communicator
 * arrives through the same one on both sides, so a VCI's matching, queues and transports are
 * driven by one thread at a time and need no lock of their own within it. Today there is one
 * (vbt_vcis[0]); the object is what lets MPI_THREAD_MULTIPLE give threads separate ones. */
struct vbt_vci {
    vbt_vci_head_t head; /* first: the request pool reaches it (vbt_vci.h) */
    int index;           /* in vbt_vcis */
    int my_world;
    int world_size;
    vbt_frag_state_t *frag;
    unsigned nfrag; /* entries of frag in use: a message's first check skips frag while 0 */
    vbt_sendq_t *sendq;
    unsigned npending;
    vbt_request_t *putq_head; /* rendezvous sends with data still to post, in CTS order */
    vbt_request_t *putq_tail;
    unsigned nputs;
    vbt_status_t failed; /* a fatal transport error: every wait returns it */
    /* Called at every progress call while set (one-sided windows serve their requests there,
     * collectives advance schedules); running keeps one from running again inside itself. */
    struct {
        vbt_p2p_hook_fn *fn;
        void *arg;
        int running;
    } hooks[VBT_P2P_HOOKS_MAX];
    int nhooks;
    vbt_p2p_hook_fn *rma_hook; /* vbt_p2p_set_hook's */
    /* Completed requests that asked to be told (VBT_REQF_NOTIFY), linked by next: their
     * functions run at the end of the progress call, outside the transports' handlers. */
    struct vbt_request *notify;
    vbt_unexp_store_t unexp;
    void *scratch; /* one transport send's worth of packed non-contiguous data */
    size_t scratch_len;
    /* Polling calls (vbt_p2p_polled): after this many in a row found nothing, each further
     * empty one yields the core; 0: never (the node has a core per rank, or VBT_PROGRESS=spin). */
    unsigned poll_yield_after;
    unsigned poll_empty;  /* polling calls in a row that found nothing */
    uint64_t poll_yields; /* the yields they made (logged at debug level by MPI_Finalize) */
    /* By world rank: where a peer's messages are counted (its transport's counters, or
     * stats.self for ourselves), so counting costs no branch. */
    vbt_tl_counters_t **peer_cnt;
    vbt_p2p_stats_t stats;
    vbt_tl_set_t tl; /* its transport instances, one per transport that is up */
};

/* The VCIs of this process (vbt_p2p.c); vbt_nvcis of them are in use. */
extern vbt_vci_t vbt_vcis[VBT_VCI_MAX];
extern int vbt_nvcis;

/* Messages to oneself of non-contiguous data go in pieces of this size at most. */
#define VBT_P2P_SELF_PIECE 65536

/* What a receive needs of a matched RTS. */
typedef struct {
    int src_world, src, tag;
    size_t len;
    uint64_t sender_id;
    uint64_t addr;  /* the data in the sender's memory */
    unsigned flags; /* VBT_P2P_F_* */
} vbt_rts_info_t;

/* Does a rendezvous over tl have the receiver grant a key for a put (rather than read our
 * memory, or have us stream)? Then the sender registers its buffer with the RTS. */
static inline int vbt_p2p_rndv_puts(const vbt_tl_t *tl)
{
    return (tl->caps & (VBT_TL_CAP_READ_PEER | VBT_TL_CAP_PUT)) == VBT_TL_CAP_PUT;
}

/* Bytes [offset, offset + len) of a send's data as one contiguous range: the user's buffer
 * itself, or those bytes packed into its VCI's scratch buffer (len <= scratch_len). */
static inline const void *vbt_p2p_send_bytes(const vbt_request_t *req, size_t offset, size_t len)
{
    if (likely(req->dtype == NULL))
        return (const char *)req->buf + offset;
    vbt_dtype_pack(req->dtype, req->buf, req->dcount, offset, req->vci->scratch, len);
    return req->vci->scratch;
}

/* A send's or receive's request takes its envelope and buffer, and a reference on a
 * non-contiguous dtype (NULL: contiguous). */
static VBT_ALWAYS_INLINE void vbt_p2p_request_set(vbt_request_t *req, vbt_comm_t *comm,
                                                  uint32_t context_id, const void *buf,
                                                  size_t bytes, struct vbt_dtype *dtype,
                                                  size_t count, int peer, int tag)
{
    if (unlikely(dtype != NULL)) {
        vbt_dtype_ref(dtype);
        req->dtype = dtype;
        req->dcount = count;
    }
    req->comm = comm;
    req->context_id = context_id;
    req->peer = peer;
    req->tag = tag;
    req->buf = (void *)(uintptr_t)buf;
    req->bytes = bytes;
}

/* Give back the registration a rendezvous held, to the transport that made it. */
static inline void vbt_p2p_mem_release(vbt_request_t *req)
{
    vbt_tl_t *tl = vbt_tl_of(&req->vci->tl, req->peer_world);

    tl->ops->mem_put(tl, req->mem);
    req->mem = NULL;
}

static inline void vbt_p2p_send_maybe_done(vbt_request_t *req)
{
    if ((req->flags & VBT_REQF_HANDED) &&
        (!(req->flags & VBT_REQF_SYNC) || (req->flags & VBT_REQF_ACKED)))
        vbt_p2p_request_done(req);
}

/* Copy what fits into the receive, note truncation, and fill in the status. */
static inline void vbt_p2p_recv_fill(vbt_request_t *req, int src, int tag, size_t total)
{
    req->status_source = src;
    req->status_tag = tag;
    req->status_bytes = total <= req->bytes ? total : req->bytes;
    req->status_error = total <= req->bytes ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
    if (total > req->bytes)
        vbt_debug("message of %zu bytes from rank %d tag %d truncated to the %zu-byte buffer",
                  total, src, tag, req->bytes);
}

static inline void vbt_p2p_copy_clipped(vbt_request_t *req, size_t offset, const void *data,
                                        size_t len)
{
    if (offset >= req->bytes)
        return;
    if (len > req->bytes - offset)
        len = req->bytes - offset;
    if (likely(req->dtype == NULL))
        vbt_copy((char *)req->buf + offset, data, len);
    else
        vbt_dtype_unpack(req->dtype, req->buf, req->dcount, offset, data, len);
}

/* Is hdr->src, the sender's rank in comm as it claims, the world rank the transport says sent
 * it? A communicator still being created (a placeholder, vbt_comm_early_context) has no ranks
 * yet to check against. */
static inline int vbt_p2p_src_is_sender(const vbt_comm_t *comm, const vbt_p2p_hdr_t *hdr,
                                        int src_world)
{
    return comm->world_ranks == NULL || ((uint32_t)hdr->src < (uint32_t)comm->remote_size &&
                                         vbt_comm_world_rank(comm, hdr->src) == src_world);
}

/* ---- vbt_p2p_unexp.c: buffers for unexpected messages ---------------------------------------- */
void vbt_p2p_unexp_init(vbt_vci_t *vci);
void vbt_p2p_unexp_cleanup(vbt_vci_t *vci);
/* A record, for a message of len bytes from src_world, with room for its payload (none when
 * !with_data: a rendezvous); NULL (logged) when out of memory or at VBT_UNEXP_MAX. */
vbt_unexp_t *vbt_p2p_unexp_alloc(vbt_vci_t *vci, size_t len, int with_data, int src_world);
void vbt_p2p_unexp_release(vbt_vci_t *vci, vbt_unexp_t *u);

/* ---- vbt_p2p_send.c: eager sends, fragments, the per-peer send queues, self sends ----------- */
/* Send now if nothing to this peer is queued before it, else queue it behind the others. */
vbt_status_t vbt_p2p_send_or_queue(vbt_request_t *req);
/* Hand queued sends to their transports as far as they take them. */
void vbt_p2p_drain_sendqs(vbt_vci_t *vci);
/* A send (or control message) that can no longer go: complete it with the error. */
void vbt_p2p_fail_send(vbt_request_t *req, vbt_status_t status);

/* ---- vbt_p2p_ctrl.c: control messages (ACK, CTS, FIN, DONE) -----------------------------------
 */
vbt_status_t vbt_p2p_push_ctrl(vbt_request_t *req);
/* A control message of type to dest_world carrying id; fill in the rest, then ctrl_send. */
vbt_request_t *vbt_p2p_ctrl_new(vbt_vci_t *vci, int dest_world, uint8_t type, uint64_t id);
void vbt_p2p_ctrl_send(vbt_request_t *ctrl);
void vbt_p2p_send_ack(vbt_vci_t *vci, int dest_world, uint64_t ack_id);
void vbt_p2p_deliver_ack(vbt_vci_t *vci, int src_world, uint64_t ack_id);

/* ---- vbt_p2p_rndv.c: the rendezvous, by read, put or streaming ------------------------------ */
void vbt_p2p_put_cb(void *arg, void *cookie, vbt_status_t status);
void vbt_p2p_put_progress(vbt_vci_t *vci);
void vbt_p2p_rndv_recv_start(vbt_request_t *req, const vbt_rts_info_t *rts);
void vbt_p2p_deliver_rts(vbt_vci_t *vci, int src_world, const vbt_p2p_msg_t *m);
void vbt_p2p_deliver_cts(vbt_vci_t *vci, int src_world, const vbt_p2p_msg_t *cts);
void vbt_p2p_deliver_rdata(vbt_vci_t *vci, int src_world, const vbt_p2p_hdr_t *hdr,
                           const void *payload, size_t len);
void vbt_p2p_deliver_done(vbt_vci_t *vci, int src_world, uint64_t id);
void vbt_p2p_deliver_fin(vbt_vci_t *vci, int src_world, uint64_t id);

/* ---- vbt_p2p_recv.c: receives, matching arrivals, probes ------------------------------------- */
/* Take an unexpected message into a receive (copy what has arrived; later fragments go to it). */
void vbt_p2p_recv_from_unexp(vbt_request_t *req, vbt_unexp_t *u);
/* A message from src_world: decoded and checked by vbt_p2p_decode (or made by ourselves). */
void vbt_p2p_deliver(vbt_vci_t *vci, int src_world, const vbt_p2p_msg_t *m);
/* The transports' upcall for every arrived message. */
void vbt_p2p_recv_cb(void *arg, int src_world, const void *data, size_t len);
/* A message whose context id or source rank does not check out (logged, dropped). */
void vbt_p2p_bad_envelope(int src_world, const vbt_comm_t *comm,
                          const vbt_p2p_hdr_t *hdr) VBT_NOINLINE_COLD;

/* ---- progress and waiting (vbt_p2p.c), inline where a receive or a wait polls ---------------- */

/* What a progress step does after the transports' polls when the engine has more to do: sends
 * queued for room or credits, puts, hooks, notifications, a failure. n: what the polls found;
 * returns it with what these found, or the engine's failure. */
int vbt_p2p_progress_more(vbt_vci_t *vci, int n);

/* One step: the transports' polls, then the rest when there is any. The critical section held. */
static VBT_ALWAYS_INLINE int vbt_p2p_progress_step(vbt_vci_t *vci)
{
    int n = vbt_tl_progress(&vci->tl);

    if (unlikely(n < 0)) {
        vci->failed = (vbt_status_t)n;
        return n;
    }
    /* One test for the five, without a branch each: most polls have none of them. */
    if (unlikely((vci->npending | vci->nputs | (unsigned)vci->nhooks | (unsigned)vci->failed) !=
                     0 ||
                 vci->notify != NULL))
        return vbt_p2p_progress_more(vci, n);
    return n;
}

/* A step if the critical section is free. With MPI_THREAD_MULTIPLE, a thread that finds another
 * one inside the engine leaves the step to it (that thread progresses for everyone) instead of
 * queueing behind it. */
static VBT_ALWAYS_INLINE int vbt_p2p_progress_try(vbt_vci_t *vci)
{
    int n;

    if (unlikely(!vbt_rlock_try(&vbt_rt.cs)))
        return 0;
    n = vbt_p2p_progress_step(vci);
    vbt_rlock_release(&vbt_rt.cs);
    return n;
}

/* vbt_p2p_idle for a wait on one VCI (vbt_p2p.c). */
void vbt_p2p_idle_vci(vbt_vci_t *vci, vbt_backoff_t *backoff);

/* The wait's loop (vbt_p2p_wait_flag). threaded is a constant where it is inlined:
 * single-threaded, the progress step runs without the lock's flag tests (the level cannot
 * change while a single-threaded program waits: no other thread is in MPI). */
static VBT_ALWAYS_INLINE vbt_status_t vbt_p2p_wait_flag_loop(vbt_vci_t *vci,
                                                             const volatile uint8_t *flag,
                                                             int threaded)
{
    vbt_backoff_t backoff;

    vbt_backoff_init(&backoff);
    while (!vbt_flag_get(flag)) {
        int n = threaded ? vbt_p2p_progress_try(vci) : vbt_p2p_progress_step(vci);
        if (unlikely(n < 0))
            return (vbt_status_t)n;
        if (vbt_flag_get(flag))
            break;
        if (n == 0)
            vbt_p2p_idle_vci(vci, &backoff);
        else
            vbt_backoff_init(&backoff);
    }
    return VBT_OK;
}

/* The threaded wait's part outside the critical section (vbt_p2p.c): give it up, wait with
 * progress calls that only try it, take it back at the same depth. */
vbt_status_t vbt_p2p_wait_flag_outside(vbt_vci_t *vci, const volatile uint8_t *flag);

/* vbt_p2p_wait_flag with the single-threaded loop and, for a caller inside the critical
 * section, the threaded wait's first step inline (a message already there, a ping-pong's usual
 * case, then costs no call, no drop and no retake). */
static VBT_ALWAYS_INLINE vbt_status_t vbt_p2p_wait_flag_inline(vbt_vci_t *vci,
                                                               const volatile uint8_t *flag)
{
    int n;

    if (likely(!__atomic_load_n(&vbt_rt.cs.on, __ATOMIC_RELAXED)))
        return vbt_p2p_wait_flag_loop(vci, flag, 0);
    if (vbt_flag_get(flag))
        return VBT_OK;
    /* Not held: MULTIPLE was granted (MPI_Session_init) while this call was inside. */
    if (unlikely(!vbt_rlock_mine(&vbt_rt.cs)))
        return vbt_p2p_wait_flag_outside(vci, flag);
    n = vbt_p2p_progress_step(vci);
    if (unlikely(n < 0))
        return (vbt_status_t)n;
    if (vbt_flag_get(flag))
        return VBT_OK;
    return vbt_p2p_wait_flag_outside(vci, flag);
}

#endif
