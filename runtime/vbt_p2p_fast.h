/* The message path's fast forms: a blocking send of contiguous data that goes at once, and a
 * receive posted and waited for, inline into the API's MPI_Send and MPI_Recv (runtime/api) as
 * into the engine's own files. Each layer's call costs its entry and exit (the registers it
 * saves and restores, the arguments moved), about a fifth of what it does on the 8-byte path;
 * inlining the engine into the entry point is what MPICH's ch4 does with its device layer. The
 * transport stays behind its ops table. Only these few functions are here: everything else of
 * the engine is called. */
#ifndef VBT_P2P_FAST_H
#define VBT_P2P_FAST_H

#include "vbt_p2p_int.h"

/* A contiguous standard-mode message to a peer, sent at once without a request when it fits
 * one eager send and nothing to that peer is queued before it: VBT_OK then. VBT_ERR_NO_RESOURCE
 * when it cannot go that way (the caller queues a request for it); another error when the peer
 * is gone. The critical section held. */
static VBT_ALWAYS_INLINE vbt_status_t vbt_p2p_send_now(vbt_comm_t *comm, uint32_t context_id,
                                                       const void *buf, size_t bytes, int dest,
                                                       int tag)
{
    vbt_vci_t *vci = comm->vci;
    int w;
    vbt_tl_t *tl;

    if (unlikely(dest == MPI_PROC_NULL))
        return VBT_ERR_NO_RESOURCE;
    w = vbt_comm_world_rank(comm, dest);
    if (unlikely(w == vci->my_world || vci->sendq[w].head != NULL))
        return VBT_ERR_NO_RESOURCE;
    tl = vbt_tl_of(&vci->tl, w);
    if (likely(bytes <= tl->rndv_threshold && bytes <= tl->max_send - sizeof(vbt_p2p_hdr_t))) {
        vbt_p2p_hdr_t hdr = {.version = VBT_P2P_WIRE_VERSION,
                             .type = VBT_P2P_EAGER,
                             .context_id = context_id,
                             .src = comm->rank,
                             .tag = tag,
                             .len = bytes};
        vbt_status_t status = vbt_tl_send(tl, w, &hdr, sizeof(hdr), buf, bytes);

        if (likely(status == VBT_OK)) { /* peer_cnt[w] is tl's: w is not us */
            tl->cnt.msgs_sent++;
            tl->cnt.bytes_sent += bytes;
        }
        return status; /* VBT_ERR_NO_RESOURCE: no room now */
    }
    return VBT_ERR_NO_RESOURCE;
}

/* vbt_p2p_send_held for contiguous data in standard mode: the blocking send's common case.
 * *req_p NULL: sent; else the request to wait on. */
static VBT_ALWAYS_INLINE vbt_status_t vbt_p2p_send_contig(vbt_comm_t *comm, int ctx_index,
                                                          const void *buf, size_t bytes, int dest,
                                                          int tag, vbt_request_t **req_p)
{
    vbt_status_t status =
        vbt_p2p_send_now(comm, comm->context_id + (uint32_t)ctx_index, buf, bytes, dest, tag);

    if (likely(status == VBT_OK)) {
        *req_p = NULL;
        return VBT_OK;
    }
    if (status != VBT_ERR_NO_RESOURCE)
        return status;
    return vbt_p2p_isend_held(comm, ctx_index, buf, bytes, NULL, 0, dest, tag, 0, req_p);
}

/* Post a receive: take a matching unexpected message into it, or queue it. NULL when the
 * request pool cannot grow (logged). The critical section held. */
static VBT_ALWAYS_INLINE vbt_request_t *vbt_p2p_post_recv(vbt_comm_t *comm, int ctx_index,
                                                          void *buf, size_t capacity,
                                                          struct vbt_dtype *dtype, size_t count,
                                                          int src, int tag)
{
    vbt_request_t *req = vbt_request_alloc_msg(comm->vci, VBT_REQ_RECV);
    vbt_match_queue_t *q = &comm->match[ctx_index];
    vbt_unexp_t *u;

    if (unlikely(req == NULL))
        return NULL;
    vbt_p2p_request_set(req, comm, comm->context_id + (uint32_t)ctx_index, buf, capacity, dtype,
                        count, src, tag);

    if (unlikely(src == MPI_PROC_NULL)) {
        req->status_source = MPI_PROC_NULL;
        req->status_tag = MPI_ANY_TAG;
        vbt_p2p_request_done(req);
        return req;
    }
    u = vbt_match_find_unexpected(q, src, tag, 1);
    if (u != NULL) {
        vbt_p2p_recv_from_unexp(req, u);
    } else {
        vbt_match_append_posted(q, req);
        comm->vci->stats.posted_len++;
    }
    return req;
}

/* The blocking receive of contiguous data on the point-to-point context: post it and wait until
 * it completes (the critical section held, given up while it waits). VBT_OK with *req_p
 * complete; VBT_ERR_NO_MEMORY (no request); or the engine's failure, *req_p set and still
 * pending. */
static VBT_ALWAYS_INLINE vbt_status_t vbt_p2p_recv_contig(vbt_comm_t *comm, void *buf,
                                                          size_t capacity, int src, int tag,
                                                          vbt_request_t **req_p)
{
    vbt_request_t *req = vbt_p2p_post_recv(comm, VBT_CTX_P2P, buf, capacity, NULL, 0, src, tag);

    if (unlikely(req == NULL))
        return VBT_ERR_NO_MEMORY;
    *req_p = req;
    return vbt_p2p_wait_flag_inline(comm->vci, &req->complete);
}

#endif
