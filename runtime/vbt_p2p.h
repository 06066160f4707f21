/* Point-to-point messaging: the send and receive protocols on top of a transport (eager,
 * eager fragments, rendezvous with RDMA WRITE or a CMA read), the delivery of arrived messages into
 * the matching engine, and synchronous-send acks. The protocols are described at the top of
 * vbt_p2p.c. */
#ifndef VBT_P2P_H
#define VBT_P2P_H

#include <stddef.h>
#include <stdint.h>

#include "vbt_comm.h"
#include "vbt_match.h"
#include "vbt_progress.h"
#include "vbt_request.h"
#include "vbt_status.h"
#include "vbt_tl_ops.h"

/* The runtime's wire header, first in every message. Decoded defensively. */
#define VBT_P2P_WIRE_VERSION 5
typedef enum {
    VBT_P2P_EAGER = 1,      /* the whole message */
    VBT_P2P_FRAG_FIRST = 2, /* first piece of a message larger than one transport send */
    VBT_P2P_FRAG = 3,       /* a following piece */
    VBT_P2P_ACK = 4,        /* the receiver matched a synchronous send */
    VBT_P2P_RTS = 5,        /* ready to send: a large message waits at the sender; no payload */
    VBT_P2P_CTS = 6,        /* clear to send: the receiver's registered buffer (vbt_p2p_cts_t) */
    VBT_P2P_FIN = 7,        /* the sender's puts into that buffer are done */
    VBT_P2P_RDATA = 8,      /* a piece of a rendezvous message streamed through sends */
    VBT_P2P_DONE = 9,       /* the receiver read a rendezvous message itself (READ_PEER) */
} vbt_p2p_type_t;

/* The largest message that may go as eager fragments, and so the most an unexpected message
 * can make a receiver buffer: every transport's rendezvous threshold is at most this (checked
 * at MPI_Init), and a FRAG_FIRST announcing more is refused. */
#define VBT_P2P_FRAG_MAX (64ull << 20)

/* vbt_p2p_hdr_t.flags */
/* RTS: the sender's transport lets the receiver read the data itself, at addr (READ_PEER);
 * nothing is registered for a put. */
#define VBT_P2P_F_READ 0x1u
/* RTS: the sender's data is not contiguous: neither a read nor a put can take it, so answer
 * with a streaming CTS. */
#define VBT_P2P_F_NONCONTIG 0x2u
/* CTS: send the data as RDATA pieces (the receiver's buffer is not contiguous, or cannot be
 * read or written remotely). */
#define VBT_P2P_F_STREAM 0x4u

typedef struct __attribute__((packed)) {
    uint8_t version;
    uint8_t type;
    uint16_t flags;
    uint32_t context_id; /* EAGER, FRAG_FIRST, RTS: the matching fields */
    int32_t src;         /* sender's rank in the communicator */
    int32_t tag;
    uint64_t len; /* EAGER, FRAG_FIRST, RTS: whole message length; CTS: bytes granted;
                     RDATA: where the piece goes (its offset in the message) */
    uint64_t id;  /* a request id: EAGER/FRAG_FIRST of a sync send: the one to ACK; ACK: that
                     one; RTS: the sender's; CTS: the sender's it answers; FIN, RDATA: the
                     receiver's; DONE: the sender's */
} vbt_p2p_hdr_t;

/* An RTS: the envelope, and where the data is in the sender's memory (for a read). */
typedef struct __attribute__((packed)) {
    vbt_p2p_hdr_t hdr; /* type RTS; len: the message length; id: the sender's request */
    uint64_t addr;
} vbt_p2p_rts_t;

/* A CTS: the receiver matched the RTS and registered min(len, capacity) bytes at addr. */
typedef struct __attribute__((packed)) {
    vbt_p2p_hdr_t hdr; /* type CTS; id: the sender's request; len: bytes granted */
    uint64_t recv_id;  /* the receiver's request, echoed by FIN */
    uint64_t addr;     /* where to put */
    uint64_t rkey;     /* the key of that registration, as its transport packs it */
} vbt_p2p_cts_t;

/* What MPI_T's performance variables read of the engine (runtime/mpit/vbt_mpit_pvar.c); the
 * per-transport message counters are in each transport's interface object (vbt_tl_counters_t),
 * messages to oneself in self. Zero while the engine is down. */
typedef struct {
    uint64_t unexp_len; /* unexpected messages held: queued, or taken by MPI_Mprobe, not received */
    uint64_t unexp_hwm; /* the most unexp_len has been */
    uint64_t posted_len; /* receives posted and not matched yet */
    vbt_tl_counters_t self;
} vbt_p2p_stats_t;

/* The engine's statistics, summed over the VCIs (high-water marks: the sum of theirs). */
void vbt_p2p_stats(vbt_p2p_stats_t *sum);
/* The counters of the transport called name, summed over the VCIs; *found_p 0 when it is not
 * up on this rank. */
void vbt_p2p_tl_counters(const char *name, vbt_tl_counters_t *sum, int *found_p);
/* The progress engine's sleeps in poll() (vbt_tl_block), summed over the VCIs. */
void vbt_p2p_sleeps(uint64_t *sleeps_p, uint64_t *wakeups_p, uint64_t *blocked_ns_p);

/* The transport instances of the first VCI, which carries one-sided communication (its
 * registrations and transfers) and whose counters MPI_T reports. */
struct vbt_tl_set;
struct vbt_tl_set *vbt_p2p_tl(void);

vbt_status_t vbt_p2p_init(void);
/* Hand every queued send to the transport (MPI_Finalize). */
vbt_status_t vbt_p2p_flush(void);
void vbt_p2p_cleanup(void);

/* Start a send of bytes at buf. flags: VBT_REQF_SYNC. dest may be MPI_PROC_NULL. */
vbt_status_t vbt_p2p_isend(vbt_comm_t *comm, int ctx_index, const void *buf, size_t bytes, int dest,
                           int tag, unsigned flags, vbt_request_t **req_p);
/* Start a receive into buf (capacity bytes). src may be MPI_ANY_SOURCE or MPI_PROC_NULL. */
vbt_status_t vbt_p2p_irecv(vbt_comm_t *comm, int ctx_index, void *buf, size_t capacity, int src,
                           int tag, vbt_request_t **req_p);
/* Receive a message taken out of the unexpected queue by a matched probe. */
vbt_status_t vbt_p2p_imrecv(vbt_comm_t *comm, vbt_unexp_t *msg, void *buf, size_t capacity,
                            vbt_request_t **req_p);

/* The same for non-contiguous data: count elements of dtype at buf, whose packed form is bytes
 * long (count * size). dtype NULL is the contiguous case above. The request holds a reference
 * on dtype until it is released. */
struct vbt_dtype;
vbt_status_t vbt_p2p_isend_dt(vbt_comm_t *comm, int ctx_index, const void *buf, size_t bytes,
                              struct vbt_dtype *dtype, size_t count, int dest, int tag,
                              unsigned flags, vbt_request_t **req_p);
vbt_status_t vbt_p2p_irecv_dt(vbt_comm_t *comm, int ctx_index, void *buf, size_t capacity,
                              struct vbt_dtype *dtype, size_t count, int src, int tag,
                              vbt_request_t **req_p);
vbt_status_t vbt_p2p_imrecv_dt(vbt_comm_t *comm, vbt_unexp_t *msg, void *buf, size_t capacity,
                               struct vbt_dtype *dtype, size_t count, vbt_request_t **req_p);
/* isend_dt and irecv_dt take the library's critical section (vbt_rt.cs) for the call; these
 * are for callers that hold it already (the API's message path takes it once per call). */
vbt_status_t vbt_p2p_isend_held(vbt_comm_t *comm, int ctx_index, const void *buf, size_t bytes,
                                struct vbt_dtype *dtype, size_t count, int dest, int tag,
                                unsigned flags, vbt_request_t **req_p);
/* A blocking send's start, the section held: a contiguous standard-mode message to another
 * rank that goes in one eager transport send with nothing queued before it is sent at once and
 * needs no request (*req_p NULL: done; UCX's tag send does the same). Otherwise, or when the
 * transport has no room now, vbt_p2p_isend_held, whose request the caller waits on. */
vbt_status_t vbt_p2p_send_held(vbt_comm_t *comm, int ctx_index, const void *buf, size_t bytes,
                               struct vbt_dtype *dtype, size_t count, int dest, int tag,
                               unsigned flags, vbt_request_t **req_p);
/* The blocking send's and receive's common cases, contiguous data, are inline:
 * vbt_p2p_send_contig and vbt_p2p_recv_contig (vbt_p2p_fast.h). */
vbt_status_t vbt_p2p_irecv_held(vbt_comm_t *comm, int ctx_index, void *buf, size_t capacity,
                                struct vbt_dtype *dtype, size_t count, int src, int tag,
                                vbt_request_t **req_p);
/* vbt_p2p_irecv_held for contiguous data on the point-to-point context, with its arguments in
 * registers: the request, or NULL when the pool cannot grow (VBT_ERR_NO_MEMORY, logged). */
vbt_request_t *vbt_p2p_irecv_contig(vbt_comm_t *comm, void *buf, size_t capacity, int src, int tag);
/* Look for a message without receiving it (one progress call first); take removes it from the
 * queue for MPI_Mprobe. *msg_p is NULL when none matches. */
vbt_status_t vbt_p2p_iprobe(vbt_comm_t *comm, int ctx_index, int src, int tag, int take,
                            vbt_unexp_t **msg_p);
/* Cancel a receive that has not matched yet. */
void vbt_p2p_cancel(vbt_request_t *req);
/* vbt_p2p_request_done's part for a request that is watched, freed or buffered. */
void vbt_p2p_request_done_slow(vbt_request_t *req);
/* Complete a request and apply MPI_Request_free semantics. */
static inline void vbt_p2p_request_done(vbt_request_t *req)
{
    vbt_flag_set(&req->complete);
    if (unlikely(req->flags & (VBT_REQF_NOTIFY | VBT_REQF_BSEND | VBT_REQF_FREED)))
        vbt_p2p_request_done_slow(req);
}

/* Functions run at every progress call while installed: the one-sided engine serves its
 * windows' requests there, the collectives advance their schedules, so both progress whenever
 * the application enters the library, in whichever call. A hook is not run again while it runs
 * (it makes p2p calls, which progress). At most VBT_P2P_HOOKS_MAX at once; a layer installs
 * its hook only while it has work, so an idle one costs nothing. */
typedef int(vbt_p2p_hook_fn)(void *arg); /* returns the work it did (0: none) */
#define VBT_P2P_HOOKS_MAX 4
/* Install fn with arg (installed already: nothing), or remove it (not installed: nothing). */
void vbt_p2p_hook_add(vbt_p2p_hook_fn *fn, void *arg);
void vbt_p2p_hook_remove(vbt_p2p_hook_fn *fn, void *arg);
/* The one-sided engine's single hook: fn installed, or removed when fn is NULL. */
void vbt_p2p_set_hook(vbt_p2p_hook_fn *fn, void *arg);

/* The cookie of a one-sided transfer (put, get, atomic) that is not a rendezvous of ours: the
 * one-sided engine's operations begin with this, and their completion is handed to done. A
 * rendezvous passes its request, which begins with VBT_REQUEST_MAGIC instead. */
#define VBT_RMA_COOKIE_MAGIC 0x56425243u /* "VBRC" */
typedef struct vbt_rma_cookie {
    uint32_t magic;
    void (*done)(struct vbt_rma_cookie *cookie, vbt_status_t status);
} vbt_rma_cookie_t;

/* Progress all transports once; returns the number of events handled or a negative status. */
int vbt_p2p_progress(void);
/* Back off after a progress call that found nothing (see vbt_progress.h). */
void vbt_p2p_idle(vbt_backoff_t *backoff);
/* Tell the engine what a polling call (MPI_Iprobe, MPI_Improbe, the MPI_Test family,
 * MPI_Request_get_status and its variants) found: something (found non-zero) or nothing. A
 * program that loops on such a call until a message arrives would, on a node with more ranks
 * than cores, take the core from the very rank whose message it waits for: there, after a few
 * empty polls in a row, each further one yields the core (vbt_progress_poll_yield_after). Where
 * every rank has its core this is one predictable branch. */
void vbt_p2p_polled(int found);
/* Wait until *flag becomes non-zero, driving progress and backing off (no busy core when
 * oversubscribed or after a long wait). */
vbt_status_t vbt_p2p_wait_flag(const volatile uint8_t *flag);

#endif
