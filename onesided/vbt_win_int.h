/* The private parts of the one-sided engine: the wire format of its active messages and the
 * bookkeeping the origin and the target keep in the window. */
#ifndef VBT_WIN_INT_H
#define VBT_WIN_INT_H

#include "vbt_p2p.h"
#include "vbt_win.h"

/* Tags on the window's private communicator. Replies get a tag of their own each, handed out
 * by the origin (vbt_win_reply_tag), so a reply can never be taken for another. */
enum {
    VBT_WIN_TAG_REQ = 1,  /* a request to the target (vbt_win_req_t ...) */
    VBT_WIN_TAG_POST = 2, /* MPI_Win_post: the target exposes its window to the origin */
    VBT_WIN_TAG_REPLY0 = 16,
};
#define VBT_WIN_TAG_SPAN 0x0fffffffu

#define VBT_WIN_WIRE_VERSION 1

/* Request kinds beyond the operations (vbt_win_op_kind_t). */
enum {
    VBT_WIN_FLUSH = 8,    /* answer with a vbt_win_ack_t once everything earlier is applied */
    VBT_WIN_LOCK = 9,     /* grant (a vbt_win_ack_t) when the lock is free; lock type in arg */
    VBT_WIN_UNLOCK = 10,  /* release after everything earlier, then answer as FLUSH does */
    VBT_WIN_COMPLETE = 11 /* MPI_Win_complete: this origin is done with the post epoch */
};

/* A request. The target layout follows as nblocks vbt_win_wblock_t (one element of the target
 * datatype: its contiguous pieces, offsets from the element's address, in packed order), then
 * datalen bytes of data (PUT/ACC/GET_ACC: the origin's data packed; CAS: compare value then
 * the new one). Decoded defensively: lengths are checked against the message. */
typedef struct __attribute__((packed)) {
    uint8_t version;
    uint8_t kind;
    uint16_t arg;       /* LOCK: 1 exclusive, 0 shared */
    uint32_t reply_tag; /* where the answer goes (GET, GET_ACC, CAS, FLUSH, LOCK, UNLOCK) */
    uint64_t disp;      /* bytes from the window's base (dynamic windows: an address) */
    uint64_t count;     /* target elements */
    int64_t extent;     /* of the target datatype */
    uint64_t size;      /* data bytes of one target element */
    uint64_t nblocks;
    uint64_t op;    /* MPI_Op handle of a predefined op (the same value in every process) */
    uint64_t basic; /* the predefined datatype the target data is made of (accumulates) */
    uint64_t datalen;
} vbt_win_req_t;

typedef struct __attribute__((packed)) {
    int64_t off;
    uint64_t len;
} vbt_win_wblock_t;

/* FLUSH/UNLOCK answers and LOCK grants: the first error the target found serving this origin
 * since the last answer (0: none), and which access it was. */
typedef struct __attribute__((packed)) {
    int32_t err;
    int32_t kind;
    uint64_t disp;
    uint64_t len;
} vbt_win_ack_t;

/* Something in flight that the window must see finish: one of our sends (its buffer freed at
 * the end), or a receive of result data into the origin's buffers (a request the application
 * may own: then it is followed by its id, never its address, since the application may free
 * it). */
typedef struct vbt_win_pending {
    struct vbt_win_pending *next;
    vbt_request_t *req; /* owned: NULL once it is the application's */
    uint64_t req_id;
    void *buf; /* sends: from the window's pool, len bytes */
    size_t len;
    int target; /* -1 for sends, which flush need not wait for */
} vbt_win_pending_t;

/* A request the target took from its queue and is receiving, served in order (its buffer is
 * in the same block of the window's pool). */
typedef struct vbt_win_inbox {
    struct vbt_win_inbox *next;
    vbt_request_t *req;
    void *buf;
    size_t len;
    int src;
} vbt_win_inbox_t;

/* A lock request waiting at the target. */
typedef struct vbt_win_lockq {
    struct vbt_win_lockq *next;
    int origin;
    int exclusive;
    uint32_t reply_tag;
} vbt_win_lockq_t;

typedef struct vbt_win_region {
    struct vbt_win_region *next;
    uintptr_t base;
    size_t size;
    int slot; /* its entry in our table of keys (vbt_win_dynkeys.c), -1: none */
} vbt_win_region_t;

/* The window's scratch for the synchronisation calls: w->size entries each. */
typedef struct vbt_win_scratch {
    uint8_t *want;        /* the targets to flush (vbt_win_flush_targets) */
    vbt_win_ack_t *acks;  /* round_trip's answers, by target */
    vbt_request_t **reqs; /* ... and their receives */
} vbt_win_scratch_t;

/* A block of len bytes from the window's pool (vbt_win_pool.c), or NULL when out of memory.
 * Contents undefined. Every buffer handed to vbt_win_send comes from here. */
void *vbt_win_pool_get(vbt_win_t *w, size_t len);
/* Back to the pool; len as it was asked for (NULL: nothing). */
void vbt_win_pool_put(vbt_win_t *w, void *p, size_t len);
/* The scratch (made at the first call), or NULL when out of memory. */
vbt_win_scratch_t *vbt_win_scratch(vbt_win_t *w);
/* The scratch's want[], zeroed, or NULL when out of memory. */
uint8_t *vbt_win_want(vbt_win_t *w);
/* MPI_Win_free: the free blocks and the scratch go back to malloc. */
void vbt_win_pool_destroy(vbt_win_t *w);
/* One transfer without the target's CPU (vbt_win_rma.c): the transport's cookie, from the
 * window's free list. */
typedef struct vbt_win_rma_op {
    vbt_rma_cookie_t c; /* first: the transport's completion finds it */
    struct vbt_win_rma_op *next;
    vbt_win_t *w;
    int target;
    vbt_tl_t *tl;
    vbt_tl_mem_t *lmem; /* the origin buffer's registration, released at completion */
    vbt_tl_mem_t *rmem; /* the registration of result (atomics) */
    vbt_request_t *req; /* MPI_Rput & co: completed with the transfer */
    vbt_status_t (*done)(struct vbt_win_rma_op *o); /* more to do at completion, or NULL */
    void *result_to;                                /* atomics: where the old value goes */
    uint64_t result;                                /* atomics: the old value lands here */
} vbt_win_rma_op_t;

/* The position of tl's ops in vbt_tl_table (the index of the keys a window publishes). */
int vbt_win_tl_slot(const vbt_tl_t *tl);
/* Creation: register our window memory with every transport that offers put, get or atomics
 * and fill in our keys (before the allgather; failing to register is not an error); then,
 * after it, each target's keys and paths. */
vbt_status_t vbt_win_rma_register(vbt_win_t *w, vbt_win_peer_t *me);
void vbt_win_rma_connect(vbt_win_t *w);
void vbt_win_rma_destroy(vbt_win_t *w);
/* Start op without the target's CPU if it can go so: 1 with *st_p its status, else 0 (it goes
 * as a message). */
int vbt_win_rma_start(vbt_win_t *w, const vbt_win_op_t *op, vbt_request_t **req_p,
                      vbt_status_t *st_p);
/* Post a put (get 0) or a get of len bytes between laddr (in o->lmem) and the target's raddr
 * (rkey) until all of it is with the transport, waiting out back-pressure; o completes it. */
vbt_status_t vbt_win_rma_post(vbt_win_rma_op_t *o, int get, char *laddr, size_t len, uint64_t raddr,
                              uint64_t rkey);
/* The request MPI_Rput & co return: complete already, or completed by the operation. */
vbt_request_t *vbt_win_request_new(vbt_win_t *w, int complete);
/* Operation objects: taken (counted in rma_out) and given back unposted. */
vbt_win_rma_op_t *vbt_win_rma_op_new(vbt_win_t *w, int target, vbt_tl_t *tl);
void vbt_win_rma_op_fail(vbt_win_rma_op_t *o);

/* The keys of dynamic windows' attached memory (vbt_win_dynkeys.c). Creation: our table of
 * regions and our mailboxes registered, their keys in me (before the allgather); after it,
 * which targets are reached so (rma[].dyn). */
vbt_status_t vbt_win_dyn_register(vbt_win_t *w, vbt_win_peer_t *me);
void vbt_win_dyn_connect(vbt_win_t *w);
void vbt_win_dyn_destroy(vbt_win_t *w);
/* MPI_Win_attach / detach of r on our side: r's keys published in (withdrawn from) our table;
 * a detach returns once every origin that reads the table was told. */
void vbt_win_dyn_publish(vbt_win_t *w, vbt_win_region_t *r);
vbt_status_t vbt_win_dyn_withdraw(vbt_win_t *w, vbt_win_region_t *r);
/* The key of target's [addr, addr + len) for rma[target].tl: 1 with *rkey_p; 0 when no region
 * the target published holds it all (the operation goes as a message, and the target checks
 * it); -1 with *st_p when reading the target's table failed. */
int vbt_win_dyn_rkey(vbt_win_t *w, int target, uint64_t addr, size_t len, uint64_t *rkey_p,
                     vbt_status_t *st_p);

/* NIC atomics (vbt_win_atomic.c). */
int vbt_win_tl_atomics(const vbt_tl_t *tl);
int vbt_win_atomics_possible(const vbt_win_t *w, const vbt_win_peer_t *me);
void vbt_win_atomics_connect(vbt_win_t *w);
/* Is op one the NIC does on this window (64-bit integer SUM, NO_OP, REPLACE, CAS)? */
int vbt_win_nic_op(const vbt_win_t *w, const vbt_win_op_t *op);
int vbt_win_atomic_start(vbt_win_t *w, const vbt_win_op_t *op, vbt_request_t **req_p,
                         vbt_status_t *st_p);
/* One atomic on target's lock word, waited for (after everything else to target); its old
 * value in *old_p. */
vbt_status_t vbt_win_lock_atomic(vbt_win_t *w, int target, vbt_tl_atomic_op_t kind,
                                 uint64_t operand, uint64_t compare, uint64_t *old_p);
/* Passive-target locks by NIC atomics on the targets' lock words (windows with nic_atomics). */
vbt_status_t vbt_win_rlock_acquire(vbt_win_t *w, int target, int exclusive);
vbt_status_t vbt_win_rlock_release(vbt_win_t *w, int target, int exclusive);

static inline uint32_t vbt_win_reply_tag(vbt_win_t *win)
{
    return VBT_WIN_TAG_REPLY0 + (win->next_tag++ & VBT_WIN_TAG_SPAN);
}

/* Send len bytes at buf (a block of vbt_win_pool_get(win, len), which goes back to the pool
 * when the send is done, or at once when it fails) to rank. */
vbt_status_t vbt_win_send(vbt_win_t *win, int rank, int tag, void *buf, size_t len);
/* Send a request without payload to rank, reply_tag in it. */
vbt_status_t vbt_win_send_ctrl(vbt_win_t *win, int rank, int kind, int arg, uint32_t reply_tag);
/* Track a receive of results (owned: ours to release; else the application's request). */
vbt_status_t vbt_win_track(vbt_win_t *win, vbt_request_t *req, int target, int owned);
/* Forget the pending entries that finished. */
void vbt_win_reap(vbt_win_t *win);
/* Drive progress until every result awaited from target (-1: any) arrived. */
vbt_status_t vbt_win_wait_results(vbt_win_t *win, int target);
/* Drive progress until the window has nothing in flight at all (MPI_Win_free). */
vbt_status_t vbt_win_wait_idle(vbt_win_t *win);
/* Wait for a request of ours, then release it. */
vbt_status_t vbt_win_wait_req(vbt_request_t *req);
/* Flush the targets marked in want[] (want NULL: the one target): FLUSH to each, wait for every
 * answer and every result. */
vbt_status_t vbt_win_flush_targets(vbt_win_t *win, const uint8_t *want, int target, int kind);
/* Record an answer's error for vbt_win_take_error. */
void vbt_win_note_error(vbt_win_t *win, int target, const vbt_win_ack_t *ack);

/* Apply one access (a request as it came from the wire) to the window memory at base, size
 * bytes long (base NULL: a dynamic window's attached regions, the displacement an address).
 * Fetching kinds return their results in *out_p (*outlen_p bytes from the window's pool).
 * MPI_SUCCESS, or MPI_ERR_RMA_RANGE (nothing touched), MPI_ERR_OP or MPI_ERR_NO_MEM (logged). */
int vbt_win_apply(vbt_win_t *w, char *base, uint64_t size, const vbt_win_req_t *h,
                  const vbt_win_wblock_t *b, const char *data, void **out_p, size_t *outlen_p);
/* The direct path: the same, done by the origin itself in the target's part of the segment
 * (accumulates under the target's lock there), complete on return. */
vbt_status_t vbt_win_shm_apply(vbt_win_t *w, int target, const vbt_win_req_t *h,
                               const vbt_win_wblock_t *b, const char *data, void *rbuf,
                               size_t rcount, vbt_dtype_t *rtype);
/* The target side's vbt_win_apply, for a request that came as a message: when this rank's
 * memory is in a segment, on-node origins update it directly, so accumulates take the same
 * lock they take. */
int vbt_win_apply_served(vbt_win_t *w, char *base, uint64_t size, const vbt_win_req_t *h,
                         const vbt_win_wblock_t *b, const char *data, void **out_p,
                         size_t *outlen_p);

/* seg_off[] of a rank whose memory is not in this rank's segment. */
#define VBT_WIN_NO_SEG UINT64_MAX

/* Does this rank reach target's memory directly (it is in our segment)? Then operations to it
 * take the direct path; otherwise they are messages the target serves. */
static inline int vbt_win_direct(const vbt_win_t *w, int target)
{
    return w->seg != NULL && w->seg_off[target] != VBT_WIN_NO_SEG;
}

/* Target side: serve every window's requests (the progress hook). */
int vbt_win_progress(void *arg);
/* Is [addr, addr + len) inside one attached region (dynamic windows)? */
int vbt_win_region_covers(const vbt_win_t *win, uintptr_t addr, size_t len);
/* Lock requests: queue one, and grant what can be granted in order. */
vbt_status_t vbt_win_lock_request(vbt_win_t *win, int origin, int exclusive, uint32_t tag);
vbt_status_t vbt_win_lock_release(vbt_win_t *win, int origin);
/* Answer a FLUSH/UNLOCK/LOCK of origin with its recorded error, which is cleared. */
vbt_status_t vbt_win_answer(vbt_win_t *win, int origin, uint32_t tag);

/* Shared segments, collective over the window: MPI_Win_allocate_shared's (VBT_ERR_UNREACHABLE
 * when its ranks are not on one node) or MPI_Win_allocate's for the ranks of this node (VBT_OK
 * without a segment when this rank has none: alone on its node, VBT_WIN_ALLOCATE_SHM=0 or
 * VBT_TRANSPORTS without shm, or no room for one; its memory is then its own business). Sets seg,
 * seg_off, and base when this rank's part is in the segment. */
vbt_status_t vbt_win_shm_create(vbt_win_t *win, size_t size);
void vbt_win_shm_destroy(vbt_win_t *win);

/* The progress hook is installed while windows exist. */
void vbt_win_hook_update(void);

#endif
