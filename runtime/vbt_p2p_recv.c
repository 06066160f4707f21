/* Receiving: arrivals decoded and matched against posted receives or queued as unexpected
 * messages, fragments reassembled in place, receives, matched receives and probes. */
#include "vbt_runtime.h"
#include "vbt_p2p_fast.h"

#include <stdlib.h>
#include <string.h>

VBT_NOINLINE_COLD void vbt_p2p_bad_envelope(int src_world, const vbt_comm_t *comm,
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

/* Inlined into the transports' upcall too, where an eager message goes straight here. */
static VBT_ALWAYS_INLINE void deliver_first(vbt_vci_t *vci, int src_world, const vbt_p2p_hdr_t *hdr,
                                            const void *payload, size_t len)
{
    vbt_comm_t *comm = vbt_comm_from_context(hdr->context_id);
    vbt_match_queue_t *q;
    vbt_request_t *req;
    vbt_unexp_t *u;

    if (unlikely(comm == NULL || !vbt_p2p_src_is_sender(comm, hdr, src_world))) {
        vbt_p2p_bad_envelope(src_world, comm, hdr);
        return;
    }
    /* A sender hands a fragmented message's pieces to the transport back to back, so no new
     * message can start before its last FRAG (which would leave a receive hanging). */
    if (unlikely(vci->nfrag != 0) &&
        (vci->frag[src_world].req != NULL || vci->frag[src_world].unexp != NULL)) {
        vbt_error("dropped a message from rank %d: it started before its previous message's "
                  "fragments (%zu of %zu bytes) were complete",
                  src_world, vci->frag[src_world].received, vci->frag[src_world].total);
        return;
    }
    vci->peer_cnt[src_world]->msgs_recvd++;
    vci->peer_cnt[src_world]->bytes_recvd += hdr->len;
    q = &comm->match[hdr->context_id & 1];
    req = vbt_match_take_posted(q, hdr->src, hdr->tag);
    if (req != NULL) {
        vci->stats.posted_len--;
        vbt_p2p_recv_fill(req, hdr->src, hdr->tag, hdr->len);
        vbt_p2p_copy_clipped(req, 0, payload, len);
        if (hdr->id != 0)
            vbt_p2p_send_ack(vci, src_world, hdr->id);
        if (hdr->type == VBT_P2P_FRAG_FIRST) {
            vci->frag[src_world] =
                (vbt_frag_state_t){.req = req, .total = hdr->len, .received = len};
            vci->nfrag++;
        } else {
            vbt_p2p_request_done(req);
        }
        return;
    }
    u = vbt_p2p_unexp_alloc(vci, hdr->len, 1, src_world);
    if (unlikely(u == NULL)) {
        vci->failed = VBT_ERR_NO_MEMORY;
        return;
    }
    u->src = hdr->src;
    u->tag = hdr->tag;
    u->src_world = src_world;
    u->ack_id = hdr->id;
    vbt_copy(u->data, payload, len);
    u->received = len;
    vbt_match_append_unexpected(q, u);
    if (hdr->type == VBT_P2P_FRAG_FIRST) {
        vci->frag[src_world] = (vbt_frag_state_t){.unexp = u, .total = hdr->len, .received = len};
        vci->nfrag++;
    }
}

static void deliver_frag(vbt_vci_t *vci, int src_world, const void *payload, size_t len)
{
    vbt_frag_state_t *f = &vci->frag[src_world];

    if (unlikely((f->req == NULL && f->unexp == NULL) || len > f->total - f->received)) {
        vbt_error("dropped a fragment of %zu bytes from rank %d: no fragmented message from it "
                  "is in progress, or it goes past that message's length",
                  len, src_world);
        return;
    }
    if (f->req != NULL)
        vbt_p2p_copy_clipped(f->req, f->received, payload, len);
    else
        memcpy((char *)f->unexp->data + f->received, payload, len);
    f->received += len;
    if (f->unexp != NULL)
        f->unexp->received = f->received;
    if (f->received == f->total) {
        if (f->req != NULL)
            vbt_p2p_request_done(f->req);
        memset(f, 0, sizeof(*f));
        vci->nfrag--;
    }
}

/* A message from src_world: decoded and checked by vbt_p2p_decode (or made by ourselves). */
void vbt_p2p_deliver(vbt_vci_t *vci, int src_world, const vbt_p2p_msg_t *m)
{
    const vbt_p2p_hdr_t *hdr = &m->hdr;

    switch (hdr->type) {
    case VBT_P2P_EAGER:
    case VBT_P2P_FRAG_FIRST:
        deliver_first(vci, src_world, hdr, m->payload, m->len);
        break;
    case VBT_P2P_FRAG:
        deliver_frag(vci, src_world, m->payload, m->len);
        break;
    case VBT_P2P_ACK:
        vbt_p2p_deliver_ack(vci, src_world, hdr->id);
        break;
    case VBT_P2P_RTS:
        vbt_p2p_deliver_rts(vci, src_world, m);
        break;
    case VBT_P2P_RDATA:
        vbt_p2p_deliver_rdata(vci, src_world, hdr, m->payload, m->len);
        break;
    case VBT_P2P_DONE:
        vbt_p2p_deliver_done(vci, src_world, hdr->id);
        break;
    case VBT_P2P_CTS:
        vbt_p2p_deliver_cts(vci, src_world, m);
        break;
    case VBT_P2P_FIN:
        vbt_p2p_deliver_fin(vci, src_world, hdr->id);
        break;
    }
}

static VBT_NOINLINE_COLD void malformed(int src_world, const void *data, size_t len,
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
void vbt_p2p_recv_cb(void *arg, int src_world, const void *data, size_t len)
{
    vbt_vci_t *vci = arg;
    vbt_p2p_msg_t m;
    const char *bad;

    if (unlikely(src_world < 0 || src_world >= vci->world_size)) {
        vbt_error("dropped a message of %zu bytes from unknown rank %d", len, src_world);
        return;
    }
    bad = vbt_p2p_decode(data, len, &m);
    if (unlikely(bad != NULL)) {
        malformed(src_world, data, len, bad);
        return;
    }
    if (likely(m.hdr.type == VBT_P2P_EAGER)) /* the one switch of vbt_p2p_deliver's saved */
        deliver_first(vci, src_world, &m.hdr, m.payload, m.len);
    else
        vbt_p2p_deliver(vci, src_world, &m);
}

/* Take an unexpected message into a receive: copy what has arrived, and if more fragments are
 * on their way, point them at the receive from now on. */
void vbt_p2p_recv_from_unexp(vbt_request_t *req, vbt_unexp_t *u)
{
    vbt_vci_t *vci = req->vci;
    if (u->rndv) {
        vbt_rts_info_t rts = {.src_world = u->src_world,
                              .src = u->src,
                              .tag = u->tag,
                              .len = u->len,
                              .sender_id = u->rts_id,
                              .addr = u->rts_addr,
                              .flags = u->rts_flags};
        vbt_p2p_unexp_release(vci, u);
        vbt_p2p_rndv_recv_start(req, &rts);
        return;
    }
    vbt_p2p_recv_fill(req, u->src, u->tag, u->len);
    vbt_p2p_copy_clipped(req, 0, u->data, u->received);
    if (u->ack_id != 0)
        vbt_p2p_send_ack(vci, u->src_world, u->ack_id);
    if (u->received < u->len) {
        vbt_frag_state_t *f = &vci->frag[u->src_world];
        f->req = req;
        f->unexp = NULL;
        vbt_p2p_unexp_release(vci, u);
        return;
    }
    vbt_p2p_unexp_release(vci, u);
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
    VBT_RLOCK_SCOPE(&vbt_rt.cs); /* the engine's queues and the transports */
    return vbt_p2p_irecv_held(comm, ctx_index, buf, capacity, dtype, count, src, tag, req_p);
}

vbt_status_t vbt_p2p_irecv_held(vbt_comm_t *comm, int ctx_index, void *buf, size_t capacity,
                                struct vbt_dtype *dtype, size_t count, int src, int tag,
                                vbt_request_t **req_p)
{
    vbt_request_t *req = vbt_p2p_post_recv(comm, ctx_index, buf, capacity, dtype, count, src, tag);

    if (unlikely(req == NULL))
        return VBT_ERR_NO_MEMORY;
    *req_p = req;
    return VBT_OK;
}

vbt_request_t *vbt_p2p_irecv_contig(vbt_comm_t *comm, void *buf, size_t capacity, int src, int tag)
{
    return vbt_p2p_post_recv(comm, VBT_CTX_P2P, buf, capacity, NULL, 0, src, tag);
}

vbt_status_t vbt_p2p_imrecv(vbt_comm_t *comm, vbt_unexp_t *msg, void *buf, size_t capacity,
                            vbt_request_t **req_p)
{
    return vbt_p2p_imrecv_dt(comm, msg, buf, capacity, NULL, 0, req_p);
}

vbt_status_t vbt_p2p_imrecv_dt(vbt_comm_t *comm, vbt_unexp_t *msg, void *buf, size_t capacity,
                               struct vbt_dtype *dtype, size_t count, vbt_request_t **req_p)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs); /* the engine's queues and the transports */
    vbt_request_t *req = vbt_request_alloc_vci(comm->vci, VBT_REQ_RECV);

    if (unlikely(req == NULL))
        return VBT_ERR_NO_MEMORY;
    vbt_p2p_request_set(req, comm, comm->context_id, buf, capacity, dtype, count, msg->src,
                        msg->tag);
    *req_p = req;
    vbt_p2p_recv_from_unexp(req, msg);
    return VBT_OK;
}

vbt_status_t vbt_p2p_iprobe(vbt_comm_t *comm, int ctx_index, int src, int tag, int take,
                            vbt_unexp_t **msg_p)
{
    VBT_RLOCK_SCOPE(&vbt_rt.cs); /* the engine's queues and the transports */
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
    vbt_vci_t *vci = req->vci;
    VBT_RLOCK_SCOPE(&vbt_rt.cs); /* the engine's queues and the transports */
    vbt_comm_t *comm = req->comm;

    if (req->kind != VBT_REQ_RECV || req->complete)
        return;
    if (vbt_match_remove_posted(&comm->match[req->context_id & 1], req)) {
        vci->stats.posted_len--;
        req->flags |= VBT_REQF_CANCELLED;
        req->status_source = MPI_ANY_SOURCE;
        req->status_tag = MPI_ANY_TAG;
        req->status_bytes = 0;
        vbt_p2p_request_done(req);
    }
}
