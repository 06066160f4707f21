/* Requests: the runtime object behind MPI_Request (and, for matched probes, MPI_Message).
 * They come from an object pool (vbt_objpool.h), so the steady state allocates nothing and a
 * handle is validated without reading memory that is not a request. */
#ifndef VBT_REQUEST_H
#define VBT_REQUEST_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "vbt_compiler.h"
#include "vbt_lock.h"
#include "vbt_objpool.h"
#include "vbt_status.h"
#include "vbt_vci.h"

struct vbt_comm;
/* vbt_dtype_t: the datatype of non-contiguous data (vbt_datatype.h) */
struct vbt_dtype;
struct vbt_tl_mem; /* a transport's registration held by a rendezvous (vbt_tl_ops.h) */

#define VBT_REQUEST_MAGIC 0x56425251u /* "VBRQ": tells a live request from a stray pointer */

typedef enum {
    VBT_REQ_SEND,
    VBT_REQ_RECV,
    VBT_REQ_CTRL, /* internal: a control message (ACK, CTS, FIN) waiting to go */
    /* MPI_Buffer_iflush & co: complete once the buffered messages started before it have left
     * the buffer (vbt_bsend.c completes it); x.flush_upto says which. */
    VBT_REQ_BFLUSH,
    /* Requests made of other requests: complete when vbt_request_poll() says so. */
    VBT_REQ_PSEND,    /* persistent send (MPI_Send_init & co): x.child[0] while active */
    VBT_REQ_PRECV,    /* persistent receive (MPI_Recv_init) */
    VBT_REQ_SENDRECV, /* MPI_Isendrecv(_replace): x.child[0] the send, [1] the receive */
    VBT_REQ_GREQ,     /* generalized request: complete at MPI_Grequest_complete */
    VBT_REQ_PART,     /* partitioned send or receive (vbt_part.h): x.part */
    VBT_REQ_COLL,     /* a nonblocking or persistent collective: sched is its schedule */
} vbt_req_kind_t;

enum {
    VBT_REQF_SYNC = 1u << 0,      /* send: complete only once the receiver matched it */
    VBT_REQF_FREED = 1u << 1,     /* MPI_Request_free'd: release on completion */
    VBT_REQF_CANCELLED = 1u << 2, /* receive cancelled before it matched */
    VBT_REQF_ACKED = 1u << 3,     /* sync send: the receiver's ack arrived */
    VBT_REQF_HANDED = 1u << 4,    /* send: every byte is with the transport */
    VBT_REQF_BSEND = 1u << 5,     /* send: data lives in a bsend buffer's block, release it */
    VBT_REQF_RNDV = 1u << 6,      /* send: goes by rendezvous; receive: matched one, awaits FIN */
    VBT_REQF_CTS = 1u << 7,       /* rendezvous send: the receiver's CTS arrived */
    VBT_REQF_STREAM = 1u << 8,    /* rendezvous send: the CTS asked for RDATA pieces */
    /* Persistent requests of any kind: started many times, freed only by MPI_Request_free.
     * Not ACTIVE: Wait/Test return at once with an empty status, and the array calls treat
     * the request like MPI_REQUEST_NULL. */
    VBT_REQF_PERSISTENT = 1u << 9,
    VBT_REQF_ACTIVE = 1u << 10, /* persistent: started and not yet completed by Wait/Test */
    VBT_REQF_TMPBUF = 1u << 11, /* bsend_block is a malloc'd temporary, freed with the request */
    /* Send or receive: call x.notify.fn at the end of the progress call that completes it
     * (vbt_p2p_progress), for composite requests that must act at once on a part. */
    VBT_REQF_NOTIFY = 1u << 12,
};

typedef struct vbt_request {
    uint32_t magic;
    uint8_t kind;
    uint8_t complete; /* set once; read by Wait/Test */
    uint16_t flags;
    uint32_t gen;             /* bumped at every allocation of the slot, never 0 */
    struct vbt_request *next; /* queue link: posted queue, pending sends, free list */
    struct vbt_comm *comm;
    vbt_vci_t *vci; /* send, receive, control message: the VCI that carries it */
    uint32_t context_id;
    int peer; /* comm rank (or MPI_ANY_SOURCE for receives) */
    int tag;
    int peer_world; /* world rank of the peer for sends */
    void *buf;
    size_t bytes;            /* send: message length (rendezvous, after CTS: bytes granted);
                                receive: buffer capacity; ctrl CTS: bytes granted */
    size_t offset;           /* send: bytes already handed to the transport */
    const void *bsend_block; /* VBT_REQF_BSEND: block in the attached buffer */
    uint64_t ack_id;         /* ctrl: the id the message carries (vbt_p2p_hdr_t.id) */
    /* Rendezvous. */
    struct vbt_tl_mem *mem; /* registration of buf, held until the transfer is done */
    uint64_t remote_id;     /* send: the receiver's request (for FIN); ctrl CTS: ours */
    uint64_t remote_addr;   /* send: where to WRITE; ctrl CTS: our buffer */
    uint64_t rkey;          /* send: the receiver's key; ctrl CTS: ours */
    uint8_t ctrl;           /* ctrl: vbt_p2p_type_t of the message */
    uint16_t wire_flags;    /* ctrl: vbt_p2p_hdr_t.flags of the message */
    /* Non-contiguous data: buf holds dcount elements of dtype (a reference is held until the
     * request is released), and bytes/offset count its packed form. NULL: bytes at buf. */
    struct vbt_dtype *dtype;
    size_t dcount;
    /* Completion information, reported through MPI_Status. */
    int status_source;
    int status_tag;
    int status_error;
    size_t status_bytes;
    /* The parts of a composite request (kinds PSEND and after). */
    union {
        struct vbt_request *child[2];
        struct {
            void (*fn)(struct vbt_request *req, void *arg);
            void *arg;
        } notify; /* VBT_REQF_NOTIFY, on a plain send or receive */
        struct vbt_part *part;
        struct vbt_greq *greq;
        void *sched;         /* VBT_REQ_COLL: its schedule (collectives/vbt_sched.h) */
        uint64_t flush_upto; /* VBT_REQ_BFLUSH: the last message it waits for */
    } x;
    /* What frees x.sched when the request is released (set by the collectives, so the runtime
     * calls no layer above it). */
    void (*release_fn)(struct vbt_request *req);
} vbt_request_t;

/* Every request lives here (vbt_request.c); only the lookups read it from outside. A free
 * request is on the pool's free list, or on the free list of the VCI whose message path
 * released it (vbt_vci.h): the message path allocates from its VCI's list, which it refills
 * from the pool's a few at a time, so that VCIs do not share one list. */
extern vbt_objpool_t vbt_request_pool;

/* A request of kind, zeroed but for its identity; NULL (logged) when the pool cannot grow.
 * vbt_request_alloc and vbt_request_release take the library's critical section (vbt_rt.cs);
 * the _held forms are for callers inside it already (the engine, and the API calls of the
 * message path, which take it once for the whole call), and cost no lock test. */
vbt_request_t *vbt_request_alloc(vbt_req_kind_t kind);
vbt_request_t *vbt_request_alloc_held(vbt_req_kind_t kind);

/* vbt_request_alloc_msg, below: a plain send or receive of the message path
 * (vbt_p2p_isend_held, vbt_p2p_irecv_held), from its VCI's free list, the critical section
 * held. Unlike vbt_request_alloc it does not clear the whole request (a
 * `rep stos` of 160 bytes: about 25 instructions and more cycles, twice per ping-pong) but
 * sets what the message path may read before writing it; comm, context_id, peer, tag, buf and
 * bytes are the caller's to set. The fields read only under a flag or a kind that says they
 * were written (bsend_block, ack_id, the rendezvous and control fields, dcount, x) keep what
 * the slot held. */
/* The generation a slot's next request gets: a freed request keeps its generation (the pool
 * writes only magic and link), a new slot has 0, and 0 is skipped (it would let id 0 name a
 * request). */
static inline uint32_t vbt_request_next_gen(const vbt_request_t *req)
{
    return req->gen + 1 != 0 ? req->gen + 1 : 1;
}

/* Out of line, when vci's free list is empty: one request for the caller, and up to
 * VBT_REQUEST_REFILL - 1 more onto the list, from the pool's free list or carved anew. NULL
 * (logged) when the pool cannot grow. */
#define VBT_REQUEST_REFILL 16
vbt_request_t *vbt_request_refill(vbt_vci_t *vci);

/* A request from vci's free list, of kind and for vci (released back to that list); its
 * contents as the slot left them (see above). */
static VBT_ALWAYS_INLINE vbt_request_t *vbt_request_take(vbt_vci_t *vci, vbt_req_kind_t kind)
{
    vbt_vci_head_t *h = vbt_vci_head(vci);
    vbt_request_t *req = h->req_free;

    if (likely(req != NULL))
        h->req_free = req->next;
    else if ((req = vbt_request_refill(vci)) == NULL)
        return NULL;
    req->gen = vbt_request_next_gen(req);
    req->magic = VBT_REQUEST_MAGIC;
    req->kind = (uint8_t)kind;
    req->vci = vci;
    return req;
}

static inline vbt_request_t *vbt_request_alloc_msg(vbt_vci_t *vci, vbt_req_kind_t kind)
{
    vbt_request_t *req = vbt_request_take(vci, kind);

    if (unlikely(req == NULL))
        return NULL;
    req->complete = 0;
    req->flags = 0;
    req->next = NULL;
    req->peer_world = 0;
    req->offset = 0;
    req->mem = NULL;
    req->dtype = NULL;
    req->status_source = 0;
    req->status_tag = 0;
    req->status_error = MPI_SUCCESS;
    req->status_bytes = 0;
    req->release_fn = NULL;
    return req;
}

/* A request of kind for vci, zeroed but for its identity, from vci's free list (the engine's
 * control messages). */
vbt_request_t *vbt_request_alloc_vci(vbt_vci_t *vci, vbt_req_kind_t kind);

/* An internal control message rather than a user's send or receive? */
static inline int vbt_request_is_ctrl(const vbt_request_t *req)
{
    return req->kind == VBT_REQ_CTRL;
}

/* Requests named on the wire. A peer echoes the id of one of our requests (sync-send ACK,
 * rendezvous CTS/FIN/DONE/RDATA); the id is the request's slot and generation, never its
 * address, so a corrupt or forged id finds no request (or a released one, whose generation has
 * moved on) instead of being dereferenced. Never 0: 0 means "no request" on the wire. */
static inline uint64_t vbt_request_id(const vbt_request_t *req)
{
    return (uint64_t)req->gen << 32 |
           (uint32_t)vbt_objpool_index(&vbt_request_pool, req, sizeof(vbt_request_t));
}

/* The live request behind an id from the wire, or NULL. A bounds check and a compare. */
vbt_request_t *vbt_request_from_id(uint64_t id);
void vbt_request_release(vbt_request_t *req);
/* Release what a request holds besides its slot (a collective's schedule, a datatype
 * reference, a packed copy), then the slot: vbt_request_release_held's rare part. */
void vbt_request_release_parts(vbt_request_t *req);
/* The slot back to the free list it came from: its VCI's, or the pool's. Its magic is zeroed,
 * so its handle is refused from now on. */
static inline void vbt_request_free_slot(vbt_request_t *req)
{
    if (likely(req->vci != NULL)) {
        vbt_vci_head_t *h = vbt_vci_head(req->vci);
        req->magic = 0;
        req->next = h->req_free;
        h->req_free = req;
    } else {
        vbt_objpool_free(&vbt_request_pool, req);
    }
}
/* Inline: a message path's request holds nothing but its slot. */
static inline void vbt_request_release_held(vbt_request_t *req)
{
    if (unlikely(req->release_fn != NULL || req->dtype != NULL || (req->flags & VBT_REQF_TMPBUF)))
        vbt_request_release_parts(req);
    else
        vbt_request_free_slot(req);
}
void vbt_request_cleanup(void);
/* Does a live request refer to comm? (MPI_Comm_free keeps a communicator until none does.) Walks
 * every request, so only for slow paths. */
int vbt_request_uses_comm(const struct vbt_comm *comm);

/* The request behind a handle, or NULL for an invalid handle: MPI_REQUEST_NULL, a freed request,
 * anything not from the pool (the handle is then not read). */
static inline vbt_request_t *vbt_request_get(MPI_Request handle)
{
    return vbt_objpool_get(&vbt_request_pool, handle, sizeof(vbt_request_t), VBT_REQUEST_MAGIC);
}

/* The request behind a handle that vbt_request_get accepted earlier in the same call (or that
 * the library just made): no check again on the way to completion. */
static inline vbt_request_t *vbt_request_of(MPI_Request handle)
{
    return (vbt_request_t *)handle;
}

/* Composite requests (kinds from VBT_REQ_PSEND) complete when their parts do: poll checks the
 * parts (after a progress call) and sets complete; returns it. vbt_request_poll.c. */
int vbt_request_poll(vbt_request_t *req);
static inline int vbt_request_done(vbt_request_t *req)
{
    if (likely(vbt_flag_get(&req->complete)))
        return 1;
    return req->kind >= VBT_REQ_PSEND && vbt_request_poll(req);
}
/* A persistent request that is not active: like MPI_REQUEST_NULL for the array calls. */
static inline int vbt_request_inactive(const vbt_request_t *req)
{
    return (req->flags & (VBT_REQF_PERSISTENT | VBT_REQF_ACTIVE)) == VBT_REQF_PERSISTENT;
}

/* The byte count and cancelled flag a status carries, in its MPI_internal words. */
static inline void vbt_status_set_bytes(MPI_Status *status, size_t bytes, int cancelled)
{
    status->MPI_internal[0] = (int)(uint32_t)(bytes & 0xffffffffu);
    status->MPI_internal[1] = (int)(uint32_t)((uint64_t)bytes >> 32);
    status->MPI_internal[2] = cancelled;
}

/* Fill a user status from a completed request (status may be MPI_STATUS_IGNORE). */
static inline void vbt_request_fill_status(const vbt_request_t *req, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = req->status_source;
    status->MPI_TAG = req->status_tag;
    vbt_status_set_bytes(status, req->status_bytes, (req->flags & VBT_REQF_CANCELLED) != 0);
}
size_t vbt_status_get_bytes(const MPI_Status *status);
int vbt_status_get_cancelled(const MPI_Status *status);

#endif
