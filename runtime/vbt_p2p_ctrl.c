/* Control messages: ACK (a synchronous send matched), CTS, FIN and DONE of the rendezvous.
 * Each is a header-only send, queued behind the peer's other sends when it finds no credit. */
#include "vbt_p2p_int.h"

#include <stdlib.h>
#include <string.h>

/* A control message (ACK, CTS, FIN): one header-only send. */
vbt_status_t vbt_p2p_push_ctrl(vbt_request_t *req)
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
    status =
        vbt_tl_send(vbt_tl_of(&req->vci->tl, req->peer_world), req->peer_world, &m, len, NULL, 0);
    if (status == VBT_OK)
        vbt_request_release_held(req);
    return status;
}

/* A control message of type to dest_world carrying id; fill in the rest, then ctrl_send. */
vbt_request_t *vbt_p2p_ctrl_new(vbt_vci_t *vci, int dest_world, uint8_t type, uint64_t id)
{
    vbt_request_t *ctrl = vbt_request_alloc_vci(vci, VBT_REQ_CTRL);

    if (unlikely(ctrl == NULL)) {
        vci->failed = VBT_ERR_NO_MEMORY;
        return NULL;
    }
    ctrl->peer_world = dest_world;
    ctrl->ctrl = type;
    ctrl->ack_id = id;
    return ctrl;
}

void vbt_p2p_ctrl_send(vbt_request_t *ctrl)
{
    vbt_vci_t *vci = ctrl->vci;
    vbt_status_t status = vbt_p2p_send_or_queue(ctrl);

    if (unlikely(status != VBT_OK)) {
        vbt_request_release_held(ctrl);
        vci->failed = status;
    }
}

void vbt_p2p_send_ack(vbt_vci_t *vci, int dest_world, uint64_t ack_id)
{
    vbt_request_t *ctrl;

    if (dest_world == vci->my_world) {
        vbt_p2p_msg_t m = {
            .hdr = {.version = VBT_P2P_WIRE_VERSION, .type = VBT_P2P_ACK, .id = ack_id}};
        vbt_p2p_deliver(vci, dest_world, &m);
        return;
    }
    ctrl = vbt_p2p_ctrl_new(vci, dest_world, VBT_P2P_ACK, ack_id);
    if (ctrl != NULL)
        vbt_p2p_ctrl_send(ctrl);
}

void vbt_p2p_deliver_ack(vbt_vci_t *vci, int src_world, uint64_t ack_id)
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
    vbt_p2p_send_maybe_done(req);
}
