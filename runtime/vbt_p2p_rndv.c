/* The rendezvous of large messages, both sides, chosen by the transport's capabilities: the
 * receiver reads the data itself (READ_PEER), or grants a key the sender puts into (PUT), or has
 * the sender stream it (STREAM; always for non-contiguous data). vbt_p2p.c draws the exchange. */
#include "vbt_p2p_int.h"

#include <stdlib.h>
#include <string.h>

static void rndv_send_done(vbt_request_t *req, vbt_status_t status)
{
    if (req->mem != NULL)
        vbt_p2p_mem_release(req);
    if (unlikely(status != VBT_OK))
        req->status_error = vbt_status_to_errclass(status);
    req->flags |= VBT_REQF_HANDED;
    vbt_p2p_send_maybe_done(req);
}

/* The transport's upcall: every WRITE of a rendezvous completed (or failed), or one of the
 * one-sided engine's transfers did. */
void vbt_p2p_put_cb(void *arg, void *cookie, vbt_status_t status)
{
    vbt_rma_cookie_t *c = cookie;

    if (c != NULL && c->magic == VBT_RMA_COOKIE_MAGIC) {
        c->done(c, status);
        return;
    }
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
                             vbt_p2p_send_bytes(req, req->offset, chunk), chunk);
        if (status != VBT_OK)
            return status;
        req->offset += chunk;
    }
    return VBT_OK;
}

/* Post the data the transport takes now for every rendezvous that has its CTS: zero-copy puts
 * then a FIN (which the transport delivers after the data) when the CTS granted a key, RDATA
 * pieces when it asked for them. */
void vbt_p2p_put_progress(vbt_vci_t *vci)
{
    vbt_request_t *req, *prev = NULL, **link = &vci->putq_head;

    while ((req = *link) != NULL) {
        vbt_tl_t *tl = vbt_tl_of(&vci->tl, req->peer_world);
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
        if (vci->putq_tail == req)
            vci->putq_tail = prev;
        vci->nputs--;
        if (unlikely(status != VBT_OK)) {
            vbt_p2p_fail_send(req, status);
            continue;
        }
        if (stream) { /* every byte is with the transport: the buffer is free */
            rndv_send_done(req, VBT_OK);
            continue;
        }
        fin = vbt_p2p_ctrl_new(vci, req->peer_world, VBT_P2P_FIN, req->remote_id);
        if (fin != NULL)
            vbt_p2p_ctrl_send(fin);
        if (req->bytes == 0) /* nothing granted, no WRITE whose completion would finish it */
            rndv_send_done(req, VBT_OK);
    }
}

void vbt_p2p_deliver_cts(vbt_vci_t *vci, int src_world, const vbt_p2p_msg_t *cts)
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
    if (vci->putq_tail != NULL)
        vci->putq_tail->next = req;
    else
        vci->putq_head = req;
    vci->putq_tail = req;
    vci->nputs++;
    vbt_p2p_put_progress(vci);
}

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
    done = vbt_p2p_ctrl_new(req->vci, rts->src_world, VBT_P2P_DONE, rts->sender_id);
    if (done != NULL)
        vbt_p2p_ctrl_send(done);
    vbt_p2p_request_done(req);
    return VBT_OK;
}

/* A receive matched an RTS. By what the sender's transport can do: read the data ourselves
 * when the RTS says we may (READ_PEER: one copy, then DONE); else register what fits of the
 * buffer and grant its key in a CTS (PUT: the sender writes, then FIN); else, or when either
 * side's data is not contiguous, a CTS with F_STREAM (the sender streams RDATA pieces). */
void vbt_p2p_rndv_recv_start(vbt_request_t *req, const vbt_rts_info_t *rts)
{
    vbt_vci_t *vci = req->vci;
    size_t granted = rts->len < req->bytes ? rts->len : req->bytes;
    int stream = (rts->flags & VBT_P2P_F_NONCONTIG) || req->dtype != NULL;
    vbt_tl_t *tl = vbt_tl_of(&vci->tl, rts->src_world);
    vbt_request_t *cts;
    vbt_status_t status;

    vbt_p2p_recv_fill(req, rts->src, rts->tag, rts->len);
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
                vci->failed = status;
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
                vci->failed = status;
                return;
            }
        }
    } else {
        stream = 1;
    }
    cts = vbt_p2p_ctrl_new(req->vci, rts->src_world, VBT_P2P_CTS, rts->sender_id);
    if (unlikely(cts == NULL))
        return;
    cts->bytes = granted;
    cts->remote_id = vbt_request_id(req);
    cts->remote_addr = (uint64_t)(uintptr_t)req->buf;
    cts->rkey = req->mem != NULL ? tl->ops->mem_rkey(tl, req->mem) : 0;
    cts->wire_flags = stream ? VBT_P2P_F_STREAM : 0;
    vbt_p2p_ctrl_send(cts);
    /* Streamed, no FIN follows the data: the last RDATA piece completes the receive. */
    if (stream && granted == 0)
        vbt_p2p_request_done(req);
}

void vbt_p2p_deliver_rts(vbt_vci_t *vci, int src_world, const vbt_p2p_msg_t *m)
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

    if (unlikely(comm == NULL || !vbt_p2p_src_is_sender(comm, hdr, src_world))) {
        vbt_p2p_bad_envelope(src_world, comm, hdr);
        return;
    }
    vci->peer_cnt[src_world]->msgs_recvd++;
    vci->peer_cnt[src_world]->bytes_recvd += hdr->len;
    vci->peer_cnt[src_world]->rndv_recvd++;
    q = &comm->match[hdr->context_id & 1];
    req = vbt_match_take_posted(q, hdr->src, hdr->tag);
    if (req != NULL) {
        vci->stats.posted_len--;
        vbt_p2p_rndv_recv_start(req, &rts);
        return;
    }
    /* Unexpected: only the envelope waits here; the payload stays at the sender. */
    u = vbt_p2p_unexp_alloc(vci, hdr->len, 0, src_world);
    if (unlikely(u == NULL)) {
        vci->failed = VBT_ERR_NO_MEMORY;
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
void vbt_p2p_deliver_rdata(vbt_vci_t *vci, int src_world, const vbt_p2p_hdr_t *hdr,
                           const void *payload, size_t len)
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
    vbt_p2p_copy_clipped(req, req->offset, payload, len);
    req->offset += len;
    if (req->offset == req->status_bytes)
        vbt_p2p_request_done(req);
}

/* The receiver has read a rendezvous message out of our buffer: the send is complete. */
void vbt_p2p_deliver_done(vbt_vci_t *vci, int src_world, uint64_t id)
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

void vbt_p2p_deliver_fin(vbt_vci_t *vci, int src_world, uint64_t id)
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
        vbt_p2p_mem_release(req);
    vbt_p2p_request_done(req);
}
