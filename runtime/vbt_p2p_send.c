/* Sending: eager messages and fragments handed to the transport back to back, the per-peer
 * queues of sends that found no credit, and messages to oneself (straight into the matching
 * engine). The rendezvous starts here (RTS) and goes on in vbt_p2p_rndv.c. */
#include "vbt_runtime.h"
#include "vbt_p2p_fast.h"

#include <stdlib.h>
#include <string.h>

static void sendq_append(vbt_request_t *req)
{
    vbt_vci_t *vci = req->vci;
    vbt_sendq_t *q = &vci->sendq[req->peer_world];
    req->next = NULL;
    if (q->tail != NULL)
        q->tail->next = req;
    else
        q->head = req;
    q->tail = req;
    vci->npending++;
    vci->peer_cnt[req->peer_world]->stalls++;
}

void vbt_p2p_fail_send(vbt_request_t *req, vbt_status_t status)
{
    if (req->mem != NULL)
        vbt_p2p_mem_release(req);
    req->status_error = vbt_status_to_errclass(status);
    req->flags |= VBT_REQF_HANDED | VBT_REQF_ACKED;
    if (vbt_request_is_ctrl(req))
        vbt_request_release_held(req);
    else
        vbt_p2p_request_done(req);
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
        return vbt_p2p_push_ctrl(req);
    tl = vbt_tl_of(&req->vci->tl, req->peer_world);
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
                             vbt_p2p_send_bytes(req, req->offset, chunk), chunk);
        if (status != VBT_OK)
            return status;
        req->offset += chunk;
    } while (req->offset < req->bytes);
    req->flags |= VBT_REQF_HANDED;
    vbt_p2p_send_maybe_done(req);
    return VBT_OK;
}

/* Send now if nothing to this peer is queued before it, else queue it behind the others. */
vbt_status_t vbt_p2p_send_or_queue(vbt_request_t *req)
{
    vbt_vci_t *vci = req->vci;
    vbt_status_t status;

    if (likely(vci->sendq[req->peer_world].head == NULL)) {
        status = push(req);
        if (likely(status == VBT_OK))
            return VBT_OK;
        if (status != VBT_ERR_NO_RESOURCE)
            return status;
    }
    sendq_append(req);
    return VBT_OK;
}

void vbt_p2p_drain_sendqs(vbt_vci_t *vci)
{
    for (int peer = 0; peer < vci->world_size && vci->npending > 0; peer++) {
        vbt_sendq_t *q = &vci->sendq[peer];
        while (q->head != NULL) {
            vbt_request_t *req = q->head;
            vbt_request_t *next = req->next;
            vbt_status_t status = push(req);
            if (status == VBT_ERR_NO_RESOURCE)
                break;
            q->head = next;
            if (q->head == NULL)
                q->tail = NULL;
            vci->npending--;
            if (status != VBT_OK)
                vbt_p2p_fail_send(req, status);
        }
    }
}

/* A message of non-contiguous data to ourselves: FRAG_FIRST and FRAGs packed piece by piece
 * and delivered at once, so the receiver unpacks them as it would a peer's. */
static void self_send_dt(vbt_request_t *req, vbt_p2p_hdr_t *hdr)
{
    vbt_vci_t *vci = req->vci;
    size_t piece = vci->scratch_len < VBT_P2P_SELF_PIECE ? vci->scratch_len : VBT_P2P_SELF_PIECE;
    size_t offset = 0, chunk;

    do {
        chunk = req->bytes - offset < piece ? req->bytes - offset : piece;
        if (offset == 0)
            hdr->type = chunk == req->bytes ? VBT_P2P_EAGER : VBT_P2P_FRAG_FIRST;
        else
            hdr->type = VBT_P2P_FRAG;
        vbt_p2p_msg_t m = {
            .hdr = *hdr, .payload = vbt_p2p_send_bytes(req, offset, chunk), .len = chunk};
        vbt_p2p_deliver(vci, vci->my_world, &m);
        offset += chunk;
    } while (offset < req->bytes && vci->failed == VBT_OK);
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
    VBT_RLOCK_SCOPE(&vbt_rt.cs); /* the engine's queues and the transports */
    return vbt_p2p_isend_held(comm, ctx_index, buf, bytes, dtype, count, dest, tag, flags, req_p);
}

vbt_status_t vbt_p2p_send_held(vbt_comm_t *comm, int ctx_index, const void *buf, size_t bytes,
                               struct vbt_dtype *dtype, size_t count, int dest, int tag,
                               unsigned flags, vbt_request_t **req_p)
{
    if (likely(dtype == NULL && flags == 0))
        return vbt_p2p_send_contig(comm, ctx_index, buf, bytes, dest, tag, req_p);
    return vbt_p2p_isend_held(comm, ctx_index, buf, bytes, dtype, count, dest, tag, flags, req_p);
}

vbt_status_t vbt_p2p_isend_held(vbt_comm_t *comm, int ctx_index, const void *buf, size_t bytes,
                                struct vbt_dtype *dtype, size_t count, int dest, int tag,
                                unsigned flags, vbt_request_t **req_p)
{
    vbt_vci_t *vci = comm->vci;
    vbt_request_t *req = vbt_request_alloc_msg(vci, VBT_REQ_SEND);
    vbt_tl_t *tl;
    vbt_status_t status;

    if (unlikely(req == NULL))
        return VBT_ERR_NO_MEMORY;
    vbt_p2p_request_set(req, comm, comm->context_id + (uint32_t)ctx_index, buf, bytes, dtype, count,
                        dest, tag);
    req->flags = (uint16_t)flags;
    *req_p = req;

    if (unlikely(dest == MPI_PROC_NULL)) {
        req->status_source = MPI_PROC_NULL;
        req->status_tag = MPI_ANY_TAG;
        req->flags |= VBT_REQF_HANDED | VBT_REQF_ACKED;
        vbt_p2p_send_maybe_done(req);
        return VBT_OK;
    }
    req->peer_world = vbt_comm_world_rank(comm, dest);
    vci->peer_cnt[req->peer_world]->msgs_sent++;
    vci->peer_cnt[req->peer_world]->bytes_sent += bytes;
    if (req->peer_world == vci->my_world) {
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
            vbt_p2p_deliver(vci, vci->my_world, &m);
        if (unlikely(vci->failed != VBT_OK))
            return vci->failed;
        /* Only now: a synchronous self-send whose ack came back inside vbt_p2p_deliver() must
         * complete exactly once, here. */
        req->flags |= VBT_REQF_HANDED;
        vbt_p2p_send_maybe_done(req);
        return VBT_OK;
    }
    tl = vbt_tl_of(&vci->tl, req->peer_world);
    if (bytes > tl->rndv_threshold) {
        /* A receiver that cannot read our memory will ask for a put: register now, a cache hit
         * costs nothing, a miss overlaps the RTS round trip. Non-contiguous data is streamed,
         * never put from: nothing to register. */
        if (vbt_p2p_rndv_puts(tl) && dtype == NULL) {
            status = tl->ops->mem_get(tl, buf, bytes, 0, &req->mem);
            if (unlikely(status != VBT_OK)) {
                vbt_request_release_held(req);
                *req_p = NULL;
                return status;
            }
        }
        req->flags |= VBT_REQF_RNDV;
        tl->cnt.rndv_sent++;
    }
    status = vbt_p2p_send_or_queue(req);
    if (unlikely(status != VBT_OK)) {
        if (req->mem != NULL)
            vbt_p2p_mem_release(req);
        vbt_request_release_held(req);
        *req_p = NULL;
    }
    return status;
}
