/* The point-to-point protocols. Every message starts with a vbt_p2p_hdr_t (vbt_p2p.h).
 *
 * Eager: a message whose header and payload fit one transport send (VBT_EAGER_LIMIT) goes in
 * one, copied through the transport's bounce buffers (or inline); the receiver copies it from
 * the receive buffer into the posted receive, or into an unexpected-message buffer.
 *
 * Fragments: larger messages up to VBT_RNDV_THRESHOLD go as FRAG_FIRST + FRAGs, eager sends
 * handed to the transport back to back (so one slot per sender tracks them at the receiver).
 *
 * Which transport carries a peer's messages is vbt_tl.h's choice; which rendezvous, the
 * capabilities of that transport (runtime/base/vbt_tl_ops.h), never its name.
 *
 * Rendezvous by put (VBT_TL_CAP_PUT: InfiniBand's RDMA WRITE), above the transport's
 * rendezvous threshold (never to oneself: self messages go straight into the matching engine
 * with their payload):
 *   sender                                   receiver
 *   register buf (cache) ---- RTS ---------> match a posted receive, or queue the RTS as an
 *                            (tag, len, id)  unexpected message WITHOUT payload until a receive
 *                                            or MPI_Mrecv takes it; then register
 *                                            min(len, capacity) bytes of the receive buffer
 *                    <------ CTS ----------- (addr, key, bytes granted, its request id)
 *   put the granted bytes, straight from the user's buffer into the user's buffer (the
 *   transport splits and pipelines them)
 *                          ---- FIN -------> (its request id): deregister (cache put), done
 *   done when the last put completes (the data is in the receiver's memory).
 * No payload byte is copied on either side. A CTS grants only the receive buffer's length, so
 * a longer message is truncated (MPI_ERR_TRUNCATE) without a byte written past the buffer. A
 * synchronous send by rendezvous needs no ACK: the CTS comes only once the receive matched.
 * MPI_Probe reports the RTS's full length; a posted receive can be cancelled until an RTS
 * matches it.
 *
 * The end of the puts is signalled by a FIN message rather than a write with immediate data:
 * the contract orders a send posted after put() behind the put's data (RC executes a QP's work
 * requests in order), at the cost of one small inline SEND pipelined behind the WRITEs, not a
 * round trip. In exchange the FIN is an ordinary message: it carries a 64-bit id (an immediate
 * has 32 bits, so it would need a table of pending receives), it arrives with the header that
 * names its sender, it uses the existing credits and wire versioning, and transports without
 * immediate data work unchanged.
 *
 * Rendezvous by read (VBT_TL_CAP_READ_PEER: shared memory's CMA): the RTS carries the address
 * of the sender's buffer and the F_READ flag. Once a receive matches it, the receiver copies
 * the granted bytes straight out of the sender's memory with one read_peer() (one copy) and
 * answers DONE, which completes the send. Where the kernel refuses the read (ptrace scope,
 * seccomp; found at start-up, or by a failing read) the receiver answers a CTS with F_STREAM
 * instead.
 *
 * Rendezvous by streaming (VBT_TL_CAP_STREAM, and whenever either side's data is not
 * contiguous): the receiver answers a CTS with F_STREAM and no key, and the sender streams the
 * data as RDATA pieces through ordinary sends into the matched receive: two copies, pipelined
 * by the transport's queue depth, and never buffered whole at either end. Each piece names the
 * receive and its offset, so no per-sender state is needed and other messages may come in
 * between.
 *
 * Non-contiguous data (a derived datatype that is not one block; vbt_datatype.h): the API hands
 * contiguous data over as bytes, untouched; otherwise the request carries the datatype and
 * every protocol moves the data's packed form. Eager sends and fragments pack each piece into
 * a scratch buffer of one transport send (the transport copies it out before returning), and
 * the receiver unpacks each piece at its offset into the user's buffer, from the wire, from a
 * fragment or from an unexpected-message buffer. A rendezvous where either side is not
 * contiguous neither registers nor reads remote memory: the RTS says F_NONCONTIG when the
 * sender's data is scattered, and the receiver, if either side is, answers a CTS with
 * F_STREAM; the sender then streams RDATA pieces (packed from its datatype, over any
 * transport) that the receiver unpacks at each piece's offset. Messages to oneself are delivered
 * as fragments packed the same way. */
#include "vbt_p2p.h"
#include "vbt_p2p_wire.h"
#include "vbt_bsend.h"
#include "vbt_compiler.h"
#include "vbt_config.h"
#include "vbt_datatype.h"
#include "vbt_error.h"
#include "vbt_log.h"
#include "vbt_progress.h"
#include "vbt_runtime.h"
#include "vbt_tl.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* Unexpected messages up to this size are kept in pooled buffers; larger ones are malloc'ed
 * (they arrive in fragments and are not the steady state). */
#define VBT_UNEXP_POOL_BLOCK 16384

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

static struct {
    int my_world;
    int world_size;
    vbt_frag_state_t *frag;
    vbt_sendq_t *sendq;
    unsigned npending;
    vbt_request_t *putq_head; /* rendezvous sends with data still to post, in CTS order */
    vbt_request_t *putq_tail;
    unsigned nputs;
    vbt_status_t failed; /* a fatal transport error: every wait returns it */
    void *unexp_pool;    /* free list of VBT_UNEXP_POOL_BLOCK buffers */
    vbt_unexp_t *unexp_free;
    void *scratch; /* one transport send's worth of packed non-contiguous data */
    size_t scratch_len;
} p2p;

/* Messages to oneself of non-contiguous data go in pieces of this size at most. */
#define VBT_P2P_SELF_PIECE 65536

/* Bytes [offset, offset + len) of a send's data as one contiguous range: the user's buffer
 * itself, or those bytes packed into the scratch buffer (len <= p2p.scratch_len). */
/* Does a rendezvous over tl have the receiver grant a key for a put (rather than read our
 * memory, or have us stream)? Then the sender registers its buffer with the RTS. */
static inline int vbt_p2p_rndv_puts(const vbt_tl_t *tl)
{
    return (tl->caps & (VBT_TL_CAP_READ_PEER | VBT_TL_CAP_PUT)) == VBT_TL_CAP_PUT;
}

static inline const void *send_bytes(const vbt_request_t *req, size_t offset, size_t len)
{
    if (likely(req->dtype == NULL))
        return (const char *)req->buf + offset;
    vbt_dtype_pack(req->dtype, req->buf, req->dcount, offset, p2p.scratch, len);
    return p2p.scratch;
}

static void deliver(int src_world, const vbt_p2p_msg_t *m);

/* Give back the registration a rendezvous held, to the transport that made it. */
static void mem_release(vbt_request_t *req)
{
    vbt_tl_t *tl = vbt_tl_of(req->peer_world);

    tl->ops->mem_put(tl, req->mem);
    req->mem = NULL;
}

/* ---- buffers for unexpected messages --------------------------------------------------------- */

/* An unexpected-message record with room for len bytes of payload (none when !with_data). */
static vbt_unexp_t *unexp_alloc(size_t len, int with_data)
{
    vbt_unexp_t *u = p2p.unexp_free;

    if (u != NULL)
        p2p.unexp_free = u->next;
    else if ((u = malloc(sizeof(*u))) == NULL)
        return NULL;
    memset(u, 0, sizeof(*u));
    if (!with_data) {
        u->data = NULL;
    } else if (len <= VBT_UNEXP_POOL_BLOCK && p2p.unexp_pool != NULL) {
        u->data = p2p.unexp_pool;
        p2p.unexp_pool = *(void **)u->data;
        u->pooled = 1;
    } else {
        u->data = malloc(len <= VBT_UNEXP_POOL_BLOCK ? VBT_UNEXP_POOL_BLOCK : len);
        u->pooled = len <= VBT_UNEXP_POOL_BLOCK;
        if (u->data == NULL) {
            u->next = p2p.unexp_free;
            p2p.unexp_free = u;
            return NULL;
        }
    }
    u->len = len;
    return u;
}

static void unexp_release(vbt_unexp_t *u)
{
    if (u->pooled) {
        *(void **)u->data = p2p.unexp_pool;
        p2p.unexp_pool = u->data;
    } else if (u->data != NULL) {
        free(u->data);
    }
    u->next = p2p.unexp_free;
    p2p.unexp_free = u;
}

/* ---- completion ------------------------------------------------------------------------------ */

void vbt_p2p_request_done(vbt_request_t *req)
{
    req->complete = 1;
    if (req->flags & VBT_REQF_BSEND)
        vbt_bsend_release(req->bsend_block);
    if (req->flags & VBT_REQF_FREED)
        vbt_request_release(req);
}

static void send_maybe_done(vbt_request_t *req)
{
    if ((req->flags & VBT_REQF_HANDED) &&
        (!(req->flags & VBT_REQF_SYNC) || (req->flags & VBT_REQF_ACKED)))
        vbt_p2p_request_done(req);
}

/* ---- sending --------------------------------------------------------------------------------- */

static void sendq_append(vbt_request_t *req)
{
    vbt_sendq_t *q = &p2p.sendq[req->peer_world];
    req->next = NULL;
    if (q->tail != NULL)
        q->tail->next = req;
    else
        q->head = req;
    q->tail = req;
    p2p.npending++;
}

static void fail_send(vbt_request_t *req, vbt_status_t status)
{
    if (req->mem != NULL)
        mem_release(req);
    req->status_error = vbt_status_to_errclass(status);
    req->flags |= VBT_REQF_HANDED | VBT_REQF_ACKED;
    if (vbt_request_is_ctrl(req))
        vbt_request_release(req);
    else
        vbt_p2p_request_done(req);
}

/* A control message (ACK, CTS, FIN): one header-only send. */
static vbt_status_t push_ctrl(vbt_request_t *req)
{
    vbt_p2p_cts_t m;
    size_t len = sizeof(m.hdr);
    vbt_status_t status;

    memset(&m, 0, sizeof(m));
    m.hdr.version = VBT_P2P_WIRE_VERSION;
    m.hdr.type = req->ctrl;
    m.hdr.flags = req->wire_flags;
    m.hdr.id = req->ack_id;
    if (req->ctrl == VBT_P2P_CTS) {
        m.hdr.len = req->bytes;
        m.recv_id = req->remote_id;
        m.addr = req->remote_addr;
        m.rkey = req->rkey;
        len = sizeof(m);
    }
    status = vbt_tl_send(vbt_tl_of(req->peer_world), req->peer_world, &m, len, NULL, 0);
    if (status == VBT_OK)
        vbt_request_release(req);
    return status;
}

/* Hand as much of req to the transport as it takes now. VBT_OK when all of it went (for a
 * rendezvous: the RTS), VBT_ERR_NO_RESOURCE when the rest must wait for credits, another error
 * when the peer is gone. */
static vbt_status_t push(vbt_request_t *req)
{
    vbt_tl_t *tl;
    vbt_p2p_hdr_t hdr;
    vbt_status_t status;
    size_t max_payload;

    if (vbt_request_is_ctrl(req))
        return push_ctrl(req);
    tl = vbt_tl_of(req->peer_world);
    hdr.version = VBT_P2P_WIRE_VERSION;
    hdr.flags = 0;
    hdr.context_id = req->context_id;
    hdr.src = req->comm->rank;
    hdr.tag = req->tag;
    hdr.len = req->bytes;
    if (req->flags & VBT_REQF_RNDV) {
        /* The request waits for the CTS (when the receiver will write: its buffer is registered
         * already) or DONE (the receiver reads it). */
        vbt_p2p_rts_t rts = {.hdr = hdr, .addr = (uint64_t)(uintptr_t)req->buf};
        rts.hdr.type = VBT_P2P_RTS;
        rts.hdr.flags = (tl->caps & VBT_TL_CAP_READ_PEER) ? VBT_P2P_F_READ : 0;
        if (req->dtype != NULL)
            rts.hdr.flags |= VBT_P2P_F_NONCONTIG;
        rts.hdr.id = vbt_request_id(req);
        return vbt_tl_send(tl, req->peer_world, &rts, sizeof(rts), NULL, 0);
    }
    hdr.id = (req->flags & VBT_REQF_SYNC) ? vbt_request_id(req) : 0;
    max_payload = tl->max_send - sizeof(hdr);
    do {
        size_t chunk = req->bytes - req->offset;
        if (chunk > max_payload)
            chunk = max_payload;
        if (req->offset == 0)
            hdr.type = chunk == req->bytes ? VBT_P2P_EAGER : VBT_P2P_FRAG_FIRST;
        else
            hdr.type = VBT_P2P_FRAG;
        status = vbt_tl_send(tl, req->peer_world, &hdr, sizeof(hdr),
                             send_bytes(req, req->offset, chunk), chunk);
        if (status != VBT_OK)
            return status;
        req->offset += chunk;
    } while (req->offset < req->bytes);
    req->flags |= VBT_REQF_HANDED;
    send_maybe_done(req);
    return VBT_OK;
}

/* Send now if nothing to this peer is queued before it, else queue it behind the others. */
static vbt_status_t send_or_queue(vbt_request_t *req)
{
    vbt_status_t status;

    if (likely(p2p.sendq[req->peer_world].head == NULL)) {
        status = push(req);
        if (likely(status == VBT_OK))
            return VBT_OK;
        if (status != VBT_ERR_NO_RESOURCE)
            return status;
    }
    sendq_append(req);
    return VBT_OK;
}

static void drain_sendqs(void)
{
    for (int peer = 0; peer < p2p.world_size && p2p.npending > 0; peer++) {
        vbt_sendq_t *q = &p2p.sendq[peer];
        while (q->head != NULL) {
            vbt_request_t *req = q->head;
            vbt_request_t *next = req->next;
            vbt_status_t status = push(req);
            if (status == VBT_ERR_NO_RESOURCE)
                break;
            q->head = next;
            if (q->head == NULL)
                q->tail = NULL;
            p2p.npending--;
            if (status != VBT_OK)
                fail_send(req, status);
        }
    }
}

/* A control message of type to dest_world carrying id; fill in the rest, then ctrl_send. */
static vbt_request_t *ctrl_new(int dest_world, uint8_t type, uint64_t id)
{
    vbt_request_t *ctrl = vbt_request_alloc(VBT_REQ_CTRL);

    if (unlikely(ctrl == NULL)) {
        p2p.failed = VBT_ERR_NO_MEMORY;
        return NULL;
    }
    ctrl->peer_world = dest_world;
    ctrl->ctrl = type;
    ctrl->ack_id = id;
    return ctrl;
}

static void ctrl_send(vbt_request_t *ctrl)
{
    vbt_status_t status = send_or_queue(ctrl);

    if (unlikely(status != VBT_OK)) {
        vbt_request_release(ctrl);
        p2p.failed = status;
    }
}

static void send_ack(int dest_world, uint64_t ack_id)
{
    vbt_request_t *ctrl;

    if (dest_world == p2p.my_world) {
        vbt_p2p_msg_t m = {
            .hdr = {.version = VBT_P2P_WIRE_VERSION, .type = VBT_P2P_ACK, .id = ack_id}};
        deliver(dest_world, &m);
        return;
    }
    ctrl = ctrl_new(dest_world, VBT_P2P_ACK, ack_id);
    if (ctrl != NULL)
        ctrl_send(ctrl);
}

/* ---- rendezvous, sender side ----------------------------------------------------------------- */

static void rndv_send_done(vbt_request_t *req, vbt_status_t status)
{
    if (req->mem != NULL)
        mem_release(req);
    if (unlikely(status != VBT_OK))
        req->status_error = vbt_status_to_errclass(status);
    req->flags |= VBT_REQF_HANDED;
    send_maybe_done(req);
}

/* The transport's upcall: every WRITE of req completed (or failed). */
static void put_cb(void *arg, void *cookie, vbt_status_t status)
{
    rndv_send_done(cookie, status);
}

/* Stream the granted bytes of a rendezvous as RDATA pieces into the matched receive. */
static vbt_status_t rdata_push(vbt_request_t *req, vbt_tl_t *tl)
{
    vbt_p2p_hdr_t hdr = {
        .version = VBT_P2P_WIRE_VERSION, .type = VBT_P2P_RDATA, .id = req->remote_id};
    size_t max_payload = tl->max_send - sizeof(hdr);

    while (req->offset < req->bytes) {
        size_t chunk = req->bytes - req->offset;
        vbt_status_t status;
        if (chunk > max_payload)
            chunk = max_payload;
        hdr.len = req->offset;
        status = vbt_tl_send(tl, req->peer_world, &hdr, sizeof(hdr),
                             send_bytes(req, req->offset, chunk), chunk);
        if (status != VBT_OK)
            return status;
        req->offset += chunk;
    }
    return VBT_OK;
}

/* Post the data the transport takes now for every rendezvous that has its CTS: zero-copy puts
 * then a FIN (which the transport delivers after the data) when the CTS granted a key, RDATA
 * pieces when it asked for them. */
static void put_progress(void)
{
    vbt_request_t *req, *prev = NULL, **link = &p2p.putq_head;

    while ((req = *link) != NULL) {
        vbt_tl_t *tl = vbt_tl_of(req->peer_world);
        int stream = req->flags & VBT_REQF_STREAM;
        vbt_status_t status = VBT_OK;
        vbt_request_t *fin;
        size_t posted = 0;

        if (stream) {
            status = rdata_push(req, tl);
        } else if (req->offset < req->bytes) {
            status = tl->ops->put(tl, req->peer_world, (char *)req->buf + req->offset,
                                  req->bytes - req->offset, req->mem,
                                  req->remote_addr + req->offset, req->rkey, req, &posted);
            req->offset += posted;
        }
        if (status == VBT_ERR_NO_RESOURCE) {
            prev = req;
            link = &req->next;
            continue;
        }
        *link = req->next;
        if (p2p.putq_tail == req)
            p2p.putq_tail = prev;
        p2p.nputs--;
        if (unlikely(status != VBT_OK)) {
            fail_send(req, status);
            continue;
        }
        if (stream) { /* every byte is with the transport: the buffer is free */
            rndv_send_done(req, VBT_OK);
            continue;
        }
        fin = ctrl_new(req->peer_world, VBT_P2P_FIN, req->remote_id);
        if (fin != NULL)
            ctrl_send(fin);
        if (req->bytes == 0) /* nothing granted, no WRITE whose completion would finish it */
            rndv_send_done(req, VBT_OK);
    }
}

static void deliver_cts(int src_world, const vbt_p2p_msg_t *cts)
{
    vbt_request_t *req = vbt_request_from_id(cts->hdr.id);

    /* The id is our own request's, echoed back: it must name a rendezvous send to this peer
     * still waiting for its CTS, and grant no more than that send has. */
    if (unlikely(req == NULL || req->kind != VBT_REQ_SEND ||
                 (req->flags & (VBT_REQF_RNDV | VBT_REQF_CTS)) != VBT_REQF_RNDV ||
                 req->peer_world != src_world || cts->hdr.len > req->bytes)) {
        vbt_error("dropped a clear-to-send from rank %d: field id 0x%llx or len %llu names no "
                  "rendezvous send to it waiting for one",
                  src_world, (unsigned long long)cts->hdr.id, (unsigned long long)cts->hdr.len);
        return;
    }
    /* Matched: a synchronous send needs no other acknowledgement. */
    req->flags |= VBT_REQF_CTS | VBT_REQF_ACKED;
    if (cts->hdr.flags & VBT_P2P_F_STREAM)
        req->flags |= VBT_REQF_STREAM;
    req->bytes = cts->hdr.len;
    req->offset = 0;
    req->remote_id = cts->recv_id;
    req->remote_addr = cts->addr;
    req->rkey = cts->rkey;
    req->next = NULL;
    if (p2p.putq_tail != NULL)
        p2p.putq_tail->next = req;
    else
        p2p.putq_head = req;
    p2p.putq_tail = req;
    p2p.nputs++;
    put_progress();
}

/* A message of non-contiguous data to ourselves: FRAG_FIRST and FRAGs packed piece by piece
 * and delivered at once, so the receiver unpacks them as it would a peer's. */
static void self_send_dt(vbt_request_t *req, vbt_p2p_hdr_t *hdr)
{
    size_t piece = p2p.scratch_len < VBT_P2P_SELF_PIECE ? p2p.scratch_len : VBT_P2P_SELF_PIECE;
    size_t offset = 0, chunk;

    do {
        chunk = req->bytes - offset < piece ? req->bytes - offset : piece;
        if (offset == 0)
            hdr->type = chunk == req->bytes ? VBT_P2P_EAGER : VBT_P2P_FRAG_FIRST;
        else
            hdr->type = VBT_P2P_FRAG;
        vbt_p2p_msg_t m = {.hdr = *hdr, .payload = send_bytes(req, offset, chunk), .len = chunk};
        deliver(p2p.my_world, &m);
        offset += chunk;
    } while (offset < req->bytes && p2p.failed == VBT_OK);
}

vbt_status_t vbt_p2p_isend(vbt_comm_t *comm, int ctx_index, const void *buf, size_t bytes, int dest,
                           int tag, unsigned flags, vbt_request_t **req_p)
{
    return vbt_p2p_isend_dt(comm, ctx_index, buf, bytes, NULL, 0, dest, tag, flags, req_p);
}

vbt_status_t vbt_p2p_isend_dt(vbt_comm_t *comm, int ctx_index, const void *buf, size_t bytes,
                              struct vbt_dtype *dtype, size_t count, int dest, int tag,
                              unsigned flags, vbt_request_t **req_p)
{
    vbt_request_t *req = vbt_request_alloc(VBT_REQ_SEND);
    vbt_tl_t *tl;
    vbt_status_t status;

    if (unlikely(req == NULL))
        return VBT_ERR_NO_MEMORY;
    if (unlikely(dtype != NULL)) {
        vbt_dtype_ref(dtype);
        req->dtype = dtype;
        req->dcount = count;
    }
    req->comm = comm;
    req->context_id = comm->context_id + (uint32_t)ctx_index;
    req->peer = dest;
    req->tag = tag;
    req->buf = (void *)buf;
    req->bytes = bytes;
    req->flags = (uint16_t)flags;
    *req_p = req;

    if (unlikely(dest == MPI_PROC_NULL)) {
        req->status_source = MPI_PROC_NULL;
        req->status_tag = MPI_ANY_TAG;
        req->flags |= VBT_REQF_HANDED | VBT_REQF_ACKED;
        send_maybe_done(req);
        return VBT_OK;
    }
    req->peer_world = vbt_comm_world_rank(comm, dest);
    if (req->peer_world == p2p.my_world) {
        /* To ourselves: straight into the matching engine, no NIC. */
        vbt_p2p_msg_t m = {.hdr = {.version = VBT_P2P_WIRE_VERSION,
                                   .type = VBT_P2P_EAGER,
                                   .context_id = req->context_id,
                                   .src = comm->rank,
                                   .tag = tag,
                                   .len = bytes,
                                   .id = (flags & VBT_REQF_SYNC) ? vbt_request_id(req) : 0},
                           .payload = buf,
                           .len = bytes};
        if (unlikely(dtype != NULL))
            self_send_dt(req, &m.hdr);
        else
            deliver(p2p.my_world, &m);
        if (unlikely(p2p.failed != VBT_OK))
            return p2p.failed;
        /* Only now: a synchronous self-send whose ack came back inside deliver() must complete
         * exactly once, here. */
        req->flags |= VBT_REQF_HANDED;
        send_maybe_done(req);
        return VBT_OK;
    }
    tl = vbt_tl_of(req->peer_world);
    if (bytes > tl->rndv_threshold) {
        /* A receiver that cannot read our memory will ask for a put: register now, a cache hit
         * costs nothing, a miss overlaps the RTS round trip. Non-contiguous data is streamed,
         * never put from: nothing to register. */
        if (vbt_p2p_rndv_puts(tl) && dtype == NULL) {
            status = tl->ops->mem_get(tl, buf, bytes, 0, &req->mem);
            if (unlikely(status != VBT_OK)) {
                vbt_request_release(req);
                *req_p = NULL;
                return status;
            }
        }
        req->flags |= VBT_REQF_RNDV;
    }
    status = send_or_queue(req);
    if (unlikely(status != VBT_OK)) {
        if (req->mem != NULL)
            mem_release(req);
        vbt_request_release(req);
        *req_p = NULL;
    }
    return status;
}

/* ---- receiving ------------------------------------------------------------------------------- */

/* Copy what fits into the receive, note truncation, and fill in the status. */
static void recv_fill(vbt_request_t *req, int src, int tag, size_t total)
{
    req->status_source = src;
    req->status_tag = tag;
    req->status_bytes = total <= req->bytes ? total : req->bytes;
    req->status_error = total <= req->bytes ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
    if (total > req->bytes)
        vbt_debug("message of %zu bytes from rank %d tag %d truncated to the %zu-byte buffer",
                  total, src, tag, req->bytes);
}

static void copy_clipped(vbt_request_t *req, size_t offset, const void *data, size_t len)
{
    if (offset >= req->bytes)
        return;
    if (len > req->bytes - offset)
        len = req->bytes - offset;
    if (likely(req->dtype == NULL))
        memcpy((char *)req->buf + offset, data, len);
    else
        vbt_dtype_unpack(req->dtype, req->buf, req->dcount, offset, data, len);
}

/* Is hdr->src, the sender's rank in comm as it claims, the world rank the transport says sent
 * it? A communicator still being created (a placeholder, vbt_comm_early_context) has no ranks
 * yet to check against. */
static inline int src_is_sender(const vbt_comm_t *comm, const vbt_p2p_hdr_t *hdr, int src_world)
{
    return comm->world_ranks == NULL || ((uint32_t)hdr->src < (uint32_t)comm->size &&
                                         vbt_comm_world_rank(comm, hdr->src) == src_world);
}

__attribute__((noinline, cold)) static void bad_envelope(int src_world, const vbt_comm_t *comm,
                                                         const vbt_p2p_hdr_t *hdr)
{
    if (comm == NULL)
        vbt_error("dropped a message (type %u) from rank %d: field context_id %u names no "
                  "communicator",
                  hdr->type, src_world, (unsigned)hdr->context_id);
    else
        vbt_error("dropped a message (type %u) from rank %d: field src %d is not its rank in "
                  "communicator %u",
                  hdr->type, src_world, (int)hdr->src, (unsigned)hdr->context_id);
}

static void deliver_first(int src_world, const vbt_p2p_hdr_t *hdr, const void *payload, size_t len)
{
    vbt_comm_t *comm = vbt_comm_from_context(hdr->context_id);
    vbt_match_queue_t *q;
    vbt_request_t *req;
    vbt_unexp_t *u;

    if (unlikely(comm == NULL || !src_is_sender(comm, hdr, src_world))) {
        bad_envelope(src_world, comm, hdr);
        return;
    }
    /* A sender hands a fragmented message's pieces to the transport back to back, so no new
     * message can start before its last FRAG (which would leave a receive hanging). */
    if (unlikely(p2p.frag[src_world].req != NULL || p2p.frag[src_world].unexp != NULL)) {
        vbt_error("dropped a message from rank %d: it started before its previous message's "
                  "fragments (%zu of %zu bytes) were complete",
                  src_world, p2p.frag[src_world].received, p2p.frag[src_world].total);
        return;
    }
    q = &comm->match[hdr->context_id & 1];
    req = vbt_match_take_posted(q, hdr->src, hdr->tag);
    if (req != NULL) {
        recv_fill(req, hdr->src, hdr->tag, hdr->len);
        copy_clipped(req, 0, payload, len);
        if (hdr->id != 0)
            send_ack(src_world, hdr->id);
        if (hdr->type == VBT_P2P_FRAG_FIRST)
            p2p.frag[src_world] =
                (vbt_frag_state_t){.req = req, .total = hdr->len, .received = len};
        else
            vbt_p2p_request_done(req);
        return;
    }
    u = unexp_alloc(hdr->len, 1);
    if (unlikely(u == NULL)) {
        vbt_error("out of memory for an unexpected message of %llu bytes from rank %d",
                  (unsigned long long)hdr->len, src_world);
        p2p.failed = VBT_ERR_NO_MEMORY;
        return;
    }
    u->src = hdr->src;
    u->tag = hdr->tag;
    u->src_world = src_world;
    u->ack_id = hdr->id;
    if (len > 0)
        memcpy(u->data, payload, len);
    u->received = len;
    vbt_match_append_unexpected(q, u);
    if (hdr->type == VBT_P2P_FRAG_FIRST)
        p2p.frag[src_world] = (vbt_frag_state_t){.unexp = u, .total = hdr->len, .received = len};
}

static void deliver_frag(int src_world, const void *payload, size_t len)
{
    vbt_frag_state_t *f = &p2p.frag[src_world];

    if (unlikely((f->req == NULL && f->unexp == NULL) || len > f->total - f->received)) {
        vbt_error("dropped a fragment of %zu bytes from rank %d: no fragmented message from it "
                  "is in progress, or it goes past that message's length",
                  len, src_world);
        return;
    }
    if (f->req != NULL)
        copy_clipped(f->req, f->received, payload, len);
    else
        memcpy((char *)f->unexp->data + f->received, payload, len);
    f->received += len;
    if (f->unexp != NULL)
        f->unexp->received = f->received;
    if (f->received == f->total) {
        if (f->req != NULL)
            vbt_p2p_request_done(f->req);
        memset(f, 0, sizeof(*f));
    }
}

/* ---- rendezvous, receiver side --------------------------------------------------------------- */

/* What a receive needs of a matched RTS. */
typedef struct {
    int src_world, src, tag;
    size_t len;
    uint64_t sender_id;
    uint64_t addr;  /* the data in the sender's memory */
    unsigned flags; /* VBT_P2P_F_* */
} vbt_rts_info_t;

/* The receiver reads: copy the granted bytes straight out of the sender's memory (one copy,
 * READ_PEER) and tell it DONE. VBT_ERR_UNSUPPORTED when the kernel refuses the read: then the
 * caller asks for RDATA with a CTS. */
static vbt_status_t rndv_recv_read(vbt_request_t *req, vbt_tl_t *tl, const vbt_rts_info_t *rts,
                                   size_t granted)
{
    vbt_request_t *done;
    vbt_status_t status = VBT_OK;

    if (granted > 0)
        status = tl->ops->read_peer(tl, rts->src_world, req->buf, rts->addr, granted);
    if (status != VBT_OK)
        return status;
    done = ctrl_new(rts->src_world, VBT_P2P_DONE, rts->sender_id);
    if (done != NULL)
        ctrl_send(done);
    vbt_p2p_request_done(req);
    return VBT_OK;
}

/* A receive matched an RTS. By what the sender's transport can do: read the data ourselves
 * when the RTS says we may (READ_PEER: one copy, then DONE); else register what fits of the
 * buffer and grant its key in a CTS (PUT: the sender writes, then FIN); else, or when either
 * side's data is not contiguous, a CTS with F_STREAM (the sender streams RDATA pieces). */
static void rndv_recv_start(vbt_request_t *req, const vbt_rts_info_t *rts)
{
    size_t granted = rts->len < req->bytes ? rts->len : req->bytes;
    int stream = (rts->flags & VBT_P2P_F_NONCONTIG) || req->dtype != NULL;
    vbt_tl_t *tl = vbt_tl_of(rts->src_world);
    vbt_request_t *cts;
    vbt_status_t status;

    recv_fill(req, rts->src, rts->tag, rts->len);
    req->flags |= VBT_REQF_RNDV;
    req->offset = 0;
    req->peer_world = rts->src_world; /* only that rank may send its RDATA or FIN */
    if (stream) {
        /* Pieces, unpacked as they come: nothing to register or read. */
    } else if (rts->flags & VBT_P2P_F_READ) {
        if (tl->caps & VBT_TL_CAP_READ_PEER) {
            status = rndv_recv_read(req, tl, rts, granted);
            if (likely(status == VBT_OK))
                return;
            if (status != VBT_ERR_UNSUPPORTED) {
                vbt_error("reading a %zu-byte message from rank %d's memory failed", granted,
                          rts->src_world);
                p2p.failed = status;
                return;
            }
            /* Refused after the start-up probe said yes (a seccomp filter installed since?):
             * the transport stopped offering reads, for every peer. */
            vbt_info("%s read of rank %d's memory refused: large messages over %s are streamed "
                     "from now on",
                     tl->ops->name, rts->src_world, tl->ops->name);
        }
        stream = 1; /* the sender registered nothing: it cannot be written from */
    } else if (tl->caps & VBT_TL_CAP_PUT) {
        if (granted > 0) {
            status = tl->ops->mem_get(tl, req->buf, granted, VBT_TL_MEM_REMOTE_WRITE, &req->mem);
            if (unlikely(status != VBT_OK)) {
                /* The sender would wait for ever: the job cannot go on (the reason was logged). */
                p2p.failed = status;
                return;
            }
        }
    } else {
        stream = 1;
    }
    cts = ctrl_new(rts->src_world, VBT_P2P_CTS, rts->sender_id);
    if (unlikely(cts == NULL))
        return;
    cts->bytes = granted;
    cts->remote_id = vbt_request_id(req);
    cts->remote_addr = (uint64_t)(uintptr_t)req->buf;
    cts->rkey = req->mem != NULL ? tl->ops->mem_rkey(tl, req->mem) : 0;
    cts->wire_flags = stream ? VBT_P2P_F_STREAM : 0;
    ctrl_send(cts);
    /* Streamed, no FIN follows the data: the last RDATA piece completes the receive. */
    if (stream && granted == 0)
        vbt_p2p_request_done(req);
}

static void deliver_rts(int src_world, const vbt_p2p_msg_t *m)
{
    const vbt_p2p_hdr_t *hdr = &m->hdr;
    vbt_comm_t *comm = vbt_comm_from_context(hdr->context_id);
    vbt_match_queue_t *q;
    vbt_request_t *req;
    vbt_unexp_t *u;
    vbt_rts_info_t rts = {.src_world = src_world,
                          .src = hdr->src,
                          .tag = hdr->tag,
                          .len = hdr->len,
                          .sender_id = hdr->id,
                          .addr = m->addr,
                          .flags = hdr->flags};

    if (unlikely(comm == NULL || !src_is_sender(comm, hdr, src_world))) {
        bad_envelope(src_world, comm, hdr);
        return;
    }
    q = &comm->match[hdr->context_id & 1];
    req = vbt_match_take_posted(q, hdr->src, hdr->tag);
    if (req != NULL) {
        rndv_recv_start(req, &rts);
        return;
    }
    /* Unexpected: only the envelope waits here; the payload stays at the sender. */
    u = unexp_alloc(0, 0);
    if (unlikely(u == NULL)) {
        p2p.failed = VBT_ERR_NO_MEMORY;
        return;
    }
    u->src = hdr->src;
    u->tag = hdr->tag;
    u->src_world = src_world;
    u->len = hdr->len;
    u->rndv = 1;
    u->rts_id = hdr->id;
    u->rts_addr = rts.addr;
    u->rts_flags = rts.flags;
    vbt_match_append_unexpected(q, u);
}

/* A piece of a rendezvous message streamed through the transport's sends into a
 * matched receive. */
static void deliver_rdata(int src_world, const vbt_p2p_hdr_t *hdr, const void *payload, size_t len)
{
    vbt_request_t *req = vbt_request_from_id(hdr->id);

    /* The id is our own request's, echoed back: it must name a matched rendezvous receive from
     * this peer. Pieces of one message come in order from one sender, so each must start where
     * the last one ended, and none may go past the bytes granted. */
    if (unlikely(req == NULL || req->kind != VBT_REQ_RECV || !(req->flags & VBT_REQF_RNDV) ||
                 req->complete || req->peer_world != src_world)) {
        vbt_error("dropped %zu bytes of rendezvous data from rank %d: field id 0x%llx names no "
                  "rendezvous receive from it",
                  len, src_world, (unsigned long long)hdr->id);
        return;
    }
    if (unlikely(hdr->len != req->offset || len > req->status_bytes - req->offset)) {
        vbt_error("dropped %zu bytes of rendezvous data from rank %d: field len (offset %llu) is "
                  "not where the last piece ended (%zu of %zu bytes)",
                  len, src_world, (unsigned long long)hdr->len, req->offset, req->status_bytes);
        return;
    }
    copy_clipped(req, req->offset, payload, len);
    req->offset += len;
    if (req->offset == req->status_bytes)
        vbt_p2p_request_done(req);
}

/* The receiver has read a rendezvous message out of our buffer: the send is complete. */
static void deliver_done(int src_world, uint64_t id)
{
    vbt_request_t *req = vbt_request_from_id(id);

    if (unlikely(req == NULL || req->kind != VBT_REQ_SEND ||
                 (req->flags & (VBT_REQF_RNDV | VBT_REQF_CTS)) != VBT_REQF_RNDV ||
                 req->peer_world != src_world)) {
        vbt_error("dropped a rendezvous DONE from rank %d: field id 0x%llx names no rendezvous "
                  "send to it",
                  src_world, (unsigned long long)id);
        return;
    }
    req->flags |= VBT_REQF_CTS | VBT_REQF_ACKED;
    rndv_send_done(req, VBT_OK);
}

static void deliver_fin(int src_world, uint64_t id)
{
    vbt_request_t *req = vbt_request_from_id(id);

    if (unlikely(req == NULL || req->kind != VBT_REQ_RECV || !(req->flags & VBT_REQF_RNDV) ||
                 req->complete || req->peer_world != src_world)) {
        vbt_error("dropped a rendezvous FIN from rank %d: field id 0x%llx names no rendezvous "
                  "receive from it",
                  src_world, (unsigned long long)id);
        return;
    }
    if (req->mem != NULL)
        mem_release(req);
    vbt_p2p_request_done(req);
}

static void deliver_ack(int src_world, uint64_t ack_id)
{
    vbt_request_t *req = vbt_request_from_id(ack_id);

    /* The id is our own request's, echoed back: it must name a synchronous send to this peer. */
    if (unlikely(req == NULL || req->kind != VBT_REQ_SEND || !(req->flags & VBT_REQF_SYNC) ||
                 req->peer_world != src_world)) {
        vbt_error("dropped an acknowledgement from rank %d: field id 0x%llx names no synchronous "
                  "send to it",
                  src_world, (unsigned long long)ack_id);
        return;
    }
    req->flags |= VBT_REQF_ACKED;
    send_maybe_done(req);
}

/* A message from src_world: decoded and checked by vbt_p2p_decode (or made by ourselves). */
static void deliver(int src_world, const vbt_p2p_msg_t *m)
{
    const vbt_p2p_hdr_t *hdr = &m->hdr;

    switch (hdr->type) {
    case VBT_P2P_EAGER:
    case VBT_P2P_FRAG_FIRST:
        deliver_first(src_world, hdr, m->payload, m->len);
        break;
    case VBT_P2P_FRAG:
        deliver_frag(src_world, m->payload, m->len);
        break;
    case VBT_P2P_ACK:
        deliver_ack(src_world, hdr->id);
        break;
    case VBT_P2P_RTS:
        deliver_rts(src_world, m);
        break;
    case VBT_P2P_RDATA:
        deliver_rdata(src_world, hdr, m->payload, m->len);
        break;
    case VBT_P2P_DONE:
        deliver_done(src_world, hdr->id);
        break;
    case VBT_P2P_CTS:
        deliver_cts(src_world, m);
        break;
    case VBT_P2P_FIN:
        deliver_fin(src_world, hdr->id);
        break;
    }
}

__attribute__((noinline, cold)) static void malformed(int src_world, const void *data, size_t len,
                                                      const char *field)
{
    uint8_t version = len >= 1 ? ((const uint8_t *)data)[0] : 0;
    uint8_t type = len >= 2 ? ((const uint8_t *)data)[1] : 0;

    if (len >= 1 && version != VBT_P2P_WIRE_VERSION)
        vbt_error("dropped a message from rank %d with wire version %u (this library speaks "
                  "%u): are all ranks running the same Verbatim?",
                  src_world, version, VBT_P2P_WIRE_VERSION);
    else
        vbt_error("dropped a malformed message from rank %d (type %u, %zu bytes): bad %s",
                  src_world, type, len, field);
}

/* The transport's upcall for every arrived message. */
static void recv_cb(void *arg, int src_world, const void *data, size_t len)
{
    vbt_p2p_msg_t m;
    const char *bad;

    if (unlikely(src_world < 0 || src_world >= p2p.world_size)) {
        vbt_error("dropped a message of %zu bytes from unknown rank %d", len, src_world);
        return;
    }
    bad = vbt_p2p_decode(data, len, &m);
    if (unlikely(bad != NULL)) {
        malformed(src_world, data, len, bad);
        return;
    }
    deliver(src_world, &m);
}

/* Take an unexpected message into a receive: copy what has arrived, and if more fragments are
 * on their way, point them at the receive from now on. */
static void recv_from_unexp(vbt_request_t *req, vbt_unexp_t *u)
{
    if (u->rndv) {
        vbt_rts_info_t rts = {.src_world = u->src_world,
                              .src = u->src,
                              .tag = u->tag,
                              .len = u->len,
                              .sender_id = u->rts_id,
                              .addr = u->rts_addr,
                              .flags = u->rts_flags};
        unexp_release(u);
        rndv_recv_start(req, &rts);
        return;
    }
    recv_fill(req, u->src, u->tag, u->len);
    copy_clipped(req, 0, u->data, u->received);
    if (u->ack_id != 0)
        send_ack(u->src_world, u->ack_id);
    if (u->received < u->len) {
        vbt_frag_state_t *f = &p2p.frag[u->src_world];
        f->req = req;
        f->unexp = NULL;
        unexp_release(u);
        return;
    }
    unexp_release(u);
    vbt_p2p_request_done(req);
}

vbt_status_t vbt_p2p_irecv(vbt_comm_t *comm, int ctx_index, void *buf, size_t capacity, int src,
                           int tag, vbt_request_t **req_p)
{
    return vbt_p2p_irecv_dt(comm, ctx_index, buf, capacity, NULL, 0, src, tag, req_p);
}

vbt_status_t vbt_p2p_irecv_dt(vbt_comm_t *comm, int ctx_index, void *buf, size_t capacity,
                              struct vbt_dtype *dtype, size_t count, int src, int tag,
                              vbt_request_t **req_p)
{
    vbt_request_t *req = vbt_request_alloc(VBT_REQ_RECV);
    vbt_match_queue_t *q = &comm->match[ctx_index];
    vbt_unexp_t *u;

    if (unlikely(req == NULL))
        return VBT_ERR_NO_MEMORY;
    if (unlikely(dtype != NULL)) {
        vbt_dtype_ref(dtype);
        req->dtype = dtype;
        req->dcount = count;
    }
    req->comm = comm;
    req->context_id = comm->context_id + (uint32_t)ctx_index;
    req->peer = src;
    req->tag = tag;
    req->buf = buf;
    req->bytes = capacity;
    *req_p = req;

    if (unlikely(src == MPI_PROC_NULL)) {
        req->status_source = MPI_PROC_NULL;
        req->status_tag = MPI_ANY_TAG;
        vbt_p2p_request_done(req);
        return VBT_OK;
    }
    u = vbt_match_find_unexpected(q, src, tag, 1);
    if (u != NULL)
        recv_from_unexp(req, u);
    else
        vbt_match_append_posted(q, req);
    return VBT_OK;
}

vbt_status_t vbt_p2p_imrecv(vbt_comm_t *comm, vbt_unexp_t *msg, void *buf, size_t capacity,
                            vbt_request_t **req_p)
{
    return vbt_p2p_imrecv_dt(comm, msg, buf, capacity, NULL, 0, req_p);
}

vbt_status_t vbt_p2p_imrecv_dt(vbt_comm_t *comm, vbt_unexp_t *msg, void *buf, size_t capacity,
                               struct vbt_dtype *dtype, size_t count, vbt_request_t **req_p)
{
    vbt_request_t *req = vbt_request_alloc(VBT_REQ_RECV);

    if (unlikely(req == NULL))
        return VBT_ERR_NO_MEMORY;
    if (unlikely(dtype != NULL)) {
        vbt_dtype_ref(dtype);
        req->dtype = dtype;
        req->dcount = count;
    }
    req->comm = comm;
    req->context_id = comm->context_id;
    req->peer = msg->src;
    req->tag = msg->tag;
    req->buf = buf;
    req->bytes = capacity;
    *req_p = req;
    recv_from_unexp(req, msg);
    return VBT_OK;
}

vbt_status_t vbt_p2p_iprobe(vbt_comm_t *comm, int ctx_index, int src, int tag, int take,
                            vbt_unexp_t **msg_p)
{
    int rc = vbt_p2p_progress();

    if (rc < 0)
        return (vbt_status_t)rc;
    *msg_p = src == MPI_PROC_NULL
                 ? NULL
                 : vbt_match_find_unexpected(&comm->match[ctx_index], src, tag, take);
    /* A matched probe owns the message now: later fragments must land in it still. */
    return VBT_OK;
}

void vbt_p2p_cancel(vbt_request_t *req)
{
    vbt_comm_t *comm = req->comm;

    if (req->kind != VBT_REQ_RECV || req->complete)
        return;
    if (vbt_match_remove_posted(&comm->match[req->context_id & 1], req)) {
        req->flags |= VBT_REQF_CANCELLED;
        req->status_source = MPI_ANY_SOURCE;
        req->status_tag = MPI_ANY_TAG;
        req->status_bytes = 0;
        vbt_p2p_request_done(req);
    }
}

/* ---- progress -------------------------------------------------------------------------------- */

int vbt_p2p_progress(void)
{
    int n = vbt_tl_progress();

    if (unlikely(n < 0)) {
        p2p.failed = (vbt_status_t)n;
        return n;
    }
    if (unlikely(p2p.npending > 0))
        drain_sendqs();
    if (unlikely(p2p.nputs > 0))
        put_progress();
    if (unlikely(p2p.failed != VBT_OK))
        return p2p.failed;
    return n;
}

void vbt_p2p_idle(vbt_backoff_t *backoff)
{
    /* Sends waiting for credits or put slots get them from completions that may raise no
     * event (unsignalled sends): poll for those rather than sleep. */
    vbt_status_t status = vbt_backoff_idle(backoff, p2p.npending == 0 && p2p.nputs == 0);

    if (unlikely(status != VBT_OK) && p2p.failed == VBT_OK)
        p2p.failed = status; /* the next progress call returns it */
}

vbt_status_t vbt_p2p_wait_flag(const volatile uint8_t *flag)
{
    vbt_backoff_t backoff;

    vbt_backoff_init(&backoff);
    while (!*flag) {
        int n = vbt_p2p_progress();
        if (unlikely(n < 0))
            return (vbt_status_t)n;
        if (*flag)
            break;
        if (n == 0)
            vbt_p2p_idle(&backoff);
        else
            vbt_backoff_init(&backoff);
    }
    return VBT_OK;
}

/* ---- setup ----------------------------------------------------------------------------------- */

vbt_status_t vbt_p2p_init(void)
{
    vbt_status_t status;

    memset(&p2p, 0, sizeof(p2p));
    p2p.my_world = vbt_rt.proc.rank;
    p2p.world_size = vbt_rt.proc.size;
    p2p.frag = calloc((size_t)p2p.world_size, sizeof(*p2p.frag));
    p2p.sendq = calloc((size_t)p2p.world_size, sizeof(*p2p.sendq));
    if (p2p.frag == NULL || p2p.sendq == NULL)
        return VBT_ERR_NO_MEMORY;

    /* A pool of buffers for early arrivals, so floods of small messages allocate nothing. */
    for (int i = 0; i < 64; i++) {
        void *b = malloc(VBT_UNEXP_POOL_BLOCK);
        if (b == NULL)
            break;
        *(void **)b = p2p.unexp_pool;
        p2p.unexp_pool = b;
    }

    status = vbt_tl_init(&vbt_rt.proc, &(vbt_tl_upcalls_t){.recv = recv_cb, .rma_done = put_cb});
    if (status != VBT_OK)
        return status;
    for (int i = 0; i < vbt_tl.nup; i++) {
        const vbt_tl_t *t = vbt_tl.up[i];
        if (t->rndv_threshold > VBT_P2P_FRAG_MAX) {
            vbt_error("the %s transport's rendezvous threshold (%zu bytes: VBT_RNDV_THRESHOLD or "
                      "VBT_SHM_RNDV_THRESHOLD) is above 64m, the largest message sent as eager "
                      "fragments (a receiver buffers an unexpected one whole): set it to at "
                      "most 64m",
                      t->ops->name, t->rndv_threshold);
            return VBT_ERR_INVALID_PARAM;
        }
    }
    /* Non-contiguous data is packed here one transport send at a time (and in pieces of
     * VBT_P2P_SELF_PIECE to ourselves). */
    p2p.scratch_len = VBT_P2P_SELF_PIECE;
    for (int w = 0; w < p2p.world_size; w++)
        if (w != p2p.my_world && vbt_tl_of(w)->max_send > p2p.scratch_len)
            p2p.scratch_len = vbt_tl_of(w)->max_send;
    p2p.scratch = malloc(p2p.scratch_len);
    if (p2p.scratch == NULL)
        return VBT_ERR_NO_MEMORY;
    /* A transport whose NIC is work on our own cores asks to spin little (Soft-RoCE). */
    if (vbt_tl_spin_polls() > 0)
        vbt_backoff_set_spin((unsigned)vbt_tl_spin_polls());
    return vbt_progress_init();
}

vbt_status_t vbt_p2p_flush(void)
{
    while (p2p.npending > 0 || p2p.nputs > 0) {
        int n = vbt_p2p_progress();
        if (n < 0)
            return (vbt_status_t)n;
    }
    return VBT_OK;
}

void vbt_p2p_cleanup(void)
{
    vbt_tl_finalize();
    free(p2p.scratch);
    free(p2p.frag);
    free(p2p.sendq);
    while (p2p.unexp_pool != NULL) {
        void *b = p2p.unexp_pool;
        p2p.unexp_pool = *(void **)b;
        free(b);
    }
    while (p2p.unexp_free != NULL) {
        vbt_unexp_t *u = p2p.unexp_free;
        p2p.unexp_free = u->next;
        free(u);
    }
    memset(&p2p, 0, sizeof(p2p));
}
