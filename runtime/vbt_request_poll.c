/* Completion of the requests made of other requests: persistent point-to-point (one ordinary
 * request per start), MPI_Isendrecv (a send and a receive) and partitioned communication. They
 * are polled by the Wait and Test calls rather than signalled by their parts, so the protocols
 * below (vbt_p2p_*) know nothing of them. */
#include "vbt_part.h"
#include "vbt_request.h"

#include <mpi.h>

/* The outcome of a finished part, as the composite request reports it. */
static void take_status(vbt_request_t *req, const vbt_request_t *part)
{
    req->status_source = part->status_source;
    req->status_tag = part->status_tag;
    req->status_error = part->status_error;
    req->status_bytes = part->status_bytes;
    req->flags =
        (uint16_t)((req->flags & ~VBT_REQF_CANCELLED) | (part->flags & VBT_REQF_CANCELLED));
}

static int poll_persistent(vbt_request_t *req)
{
    vbt_request_t *part = req->x.child[0];

    if (part == NULL || !part->complete)
        return 0;
    take_status(req, part);
    vbt_request_release(part);
    req->x.child[0] = NULL;
    vbt_flag_set(&req->complete);
    return 1;
}

static int poll_sendrecv(vbt_request_t *req)
{
    vbt_request_t *s = req->x.child[0], *r = req->x.child[1];
    int send_error;

    if ((s != NULL && !s->complete) || (r != NULL && !r->complete))
        return 0;
    send_error = s != NULL ? s->status_error : MPI_SUCCESS;
    if (r != NULL)
        take_status(req, r);
    if (req->status_error == MPI_SUCCESS)
        req->status_error = send_error;
    if (s != NULL)
        vbt_request_release(s); /* frees the packed copy of MPI_Isendrecv_replace */
    if (r != NULL)
        vbt_request_release(r);
    req->x.child[0] = req->x.child[1] = NULL;
    vbt_flag_set(&req->complete);
    return 1;
}

int vbt_request_poll(vbt_request_t *req)
{
    switch (req->kind) {
    case VBT_REQ_PSEND:
    case VBT_REQ_PRECV:
        return poll_persistent(req);
    case VBT_REQ_SENDRECV:
        return poll_sendrecv(req);
    case VBT_REQ_PART:
        return vbt_part_poll(req);
    default: /* generalized requests: MPI_Grequest_complete sets complete */
        return req->complete;
    }
}
