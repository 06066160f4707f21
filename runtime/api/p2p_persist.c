/* Persistent requests: MPI_Send_init & co, MPI_Recv_init, MPI_Start, MPI_Startall; and how
 * Wait/Test, MPI_Request_free and MPI_Cancel treat the requests made of other requests
 * (persistent, MPI_Isendrecv, partitioned; generalized ones in greq.c).
 *
 * A persistent point-to-point request keeps its arguments (the buffer as vbt_api_data_t, the
 * peer, the tag, the mode in req->ctrl) and, while active, the ordinary request of the current
 * start in x.child[0]. Inactive, it is complete with an empty status. */
#include "vbt_api_coll.h"
#include "vbt_api_p2p.h"
#include "vbt_part.h"

#include <stdio.h>

VBT_PMPI_ALIAS(Send_init)
VBT_PMPI_ALIAS(Send_init_c)
VBT_PMPI_ALIAS(Bsend_init)
VBT_PMPI_ALIAS(Bsend_init_c)
VBT_PMPI_ALIAS(Ssend_init)
VBT_PMPI_ALIAS(Ssend_init_c)
VBT_PMPI_ALIAS(Rsend_init)
VBT_PMPI_ALIAS(Rsend_init_c)
VBT_PMPI_ALIAS(Recv_init)
VBT_PMPI_ALIAS(Recv_init_c)
VBT_PMPI_ALIAS(Start)
VBT_PMPI_ALIAS(Startall)

enum { MODE_STANDARD, MODE_SYNC, MODE_READY, MODE_BUFFERED, MODE_RECV };

static int persist_init(const char *call, void *buf, MPI_Count count, MPI_Datatype dt, int peer,
                        int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    int is_recv = mode == MODE_RECV;
    vbt_api_data_t d;
    vbt_request_t *req;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_PTR(c, call, request, "request");
    VBT_API_CHECK(vbt_api_check_data(c, call, buf, count, dt, &d));
    VBT_API_CHECK(vbt_api_check_rank(c, call, is_recv ? "source" : "dest", peer, is_recv));
    VBT_API_CHECK(vbt_api_check_tag(c, call, tag, is_recv));
    req = vbt_request_alloc(is_recv ? VBT_REQ_PRECV : VBT_REQ_PSEND);
    if (req == NULL)
        return vbt_api_failed(c, call, VBT_ERR_NO_MEMORY);
    req->comm = c;
    req->buf = d.buf;
    req->bytes = d.bytes;
    req->dtype = d.dtype; /* released with the request */
    if (d.dtype != NULL)
        vbt_dtype_ref(d.dtype);
    req->dcount = d.count;
    req->peer = peer;
    req->tag = tag;
    req->ctrl = (uint8_t)mode;
    req->flags = VBT_REQF_PERSISTENT;
    req->complete = 1; /* inactive */
    req->status_source = MPI_ANY_SOURCE;
    req->status_tag = MPI_ANY_TAG;
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persist_init("MPI_Send_init", (void *)(uintptr_t)buf, count, datatype, dest, tag, comm,
                        MODE_STANDARD, request);
}

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return persist_init("MPI_Send_init_c", (void *)(uintptr_t)buf, count, datatype, dest, tag, comm,
                        MODE_STANDARD, request);
}

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persist_init("MPI_Bsend_init", (void *)(uintptr_t)buf, count, datatype, dest, tag, comm,
                        MODE_BUFFERED, request);
}

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return persist_init("MPI_Bsend_init_c", (void *)(uintptr_t)buf, count, datatype, dest, tag,
                        comm, MODE_BUFFERED, request);
}

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persist_init("MPI_Ssend_init", (void *)(uintptr_t)buf, count, datatype, dest, tag, comm,
                        MODE_SYNC, request);
}

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return persist_init("MPI_Ssend_init_c", (void *)(uintptr_t)buf, count, datatype, dest, tag,
                        comm, MODE_SYNC, request);
}

/* A ready send may assume the receive is posted; sending it as a standard send is correct. */
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persist_init("MPI_Rsend_init", (void *)(uintptr_t)buf, count, datatype, dest, tag, comm,
                        MODE_READY, request);
}

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return persist_init("MPI_Rsend_init_c", (void *)(uintptr_t)buf, count, datatype, dest, tag,
                        comm, MODE_READY, request);
}

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return persist_init("MPI_Recv_init", buf, count, datatype, source, tag, comm, MODE_RECV,
                        request);
}

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return persist_init("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, MODE_RECV,
                        request);
}

/* The request of this start of a persistent point-to-point request. */
static int start_p2p(const char *call, vbt_request_t *req)
{
    vbt_api_data_t d = {req->buf, req->bytes, req->dtype, req->dcount};
    vbt_request_t *child = NULL;
    vbt_status_t st;
    int rc;

    switch (req->ctrl) {
    case MODE_BUFFERED:
        rc = vbt_api_bsend_start(call, req->comm, &d, req->peer, req->tag, &child);
        if (rc != MPI_SUCCESS)
            return rc;
        st = VBT_OK;
        break;
    case MODE_RECV:
        if (d.dtype == NULL)
            st = vbt_p2p_irecv(req->comm, VBT_CTX_P2P, d.buf, d.bytes, req->peer, req->tag, &child);
        else
            st = vbt_p2p_irecv_dt(req->comm, VBT_CTX_P2P, d.buf, d.bytes, d.dtype, d.count,
                                  req->peer, req->tag, &child);
        break;
    default: {
        unsigned flags = req->ctrl == MODE_SYNC ? VBT_REQF_SYNC : 0;
        if (d.dtype == NULL)
            st = vbt_p2p_isend(req->comm, VBT_CTX_P2P, d.buf, d.bytes, req->peer, req->tag, flags,
                               &child);
        else
            st = vbt_p2p_isend_dt(req->comm, VBT_CTX_P2P, d.buf, d.bytes, d.dtype, d.count,
                                  req->peer, req->tag, flags, &child);
        break;
    }
    }
    if (st != VBT_OK)
        return vbt_api_failed(req->comm, call, st);
    req->x.child[0] = child;
    req->complete = 0;
    return MPI_SUCCESS;
}

static int start_part(const char *call, vbt_request_t *req)
{
    vbt_status_t st = vbt_part_start(req);

    if (st != VBT_OK)
        return vbt_api_failed(req->comm, call, st);
    return MPI_SUCCESS;
}

/* Only an inactive persistent request can be started. index -1: the argument of MPI_Start. */
static int check_startable(const char *call, MPI_Request handle, int index)
{
    vbt_request_t *req = vbt_request_get(handle);
    char what[48];

    if (index < 0)
        snprintf(what, sizeof(what), "argument request");
    else
        snprintf(what, sizeof(what), "array_of_requests[%d]", index);
    if (req == NULL)
        return vbt_error_raise(
            NULL, call, MPI_ERR_REQUEST,
            "%s is %s: start only requests made by MPI_Send_init, "
            "MPI_Recv_init, MPI_Psend_init and the like",
            what, handle == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL" : "not a valid request (freed?)");
    if (!(req->flags & VBT_REQF_PERSISTENT))
        return vbt_error_raise(req->comm, call, MPI_ERR_REQUEST,
                               "%s is not a persistent request (it was started when made): "
                               "only requests of MPI_Send_init, MPI_Recv_init, MPI_Psend_init "
                               "and the like can be started",
                               what);
    if (req->flags & VBT_REQF_ACTIVE)
        return vbt_error_raise(req->comm, call, MPI_ERR_REQUEST,
                               "%s is active already: complete it with MPI_Wait or MPI_Test "
                               "before starting it again",
                               what);
    return MPI_SUCCESS;
}

static int start_one(const char *call, vbt_request_t *req)
{
    int rc;

    switch (req->kind) {
    case VBT_REQ_PSEND:
    case VBT_REQ_PRECV:
        rc = start_p2p(call, req);
        break;
    case VBT_REQ_PART:
        rc = start_part(call, req);
        break;
    case VBT_REQ_COLL: { /* a persistent collective: it sets its flags and may complete here */
        vbt_status_t st = vbt_coll_start(req);
        return likely(st == VBT_OK) ? MPI_SUCCESS : vbt_api_failed(req->comm, call, st);
    }
    default:
        return vbt_error_raise(req->comm, call, MPI_ERR_REQUEST,
                               "the request cannot be started (kind %d)", req->kind);
    }
    if (rc == MPI_SUCCESS) {
        req->flags = (uint16_t)((req->flags | VBT_REQF_ACTIVE) & ~VBT_REQF_CANCELLED);
        req->status_error = MPI_SUCCESS;
    }
    return rc;
}

int PMPI_Start(MPI_Request *request)
{
    VBT_API_ENTER("MPI_Start");
    VBT_API_PTR(NULL, "MPI_Start", request, "request");
    VBT_API_CHECK(check_startable("MPI_Start", *request, -1));
    return start_one("MPI_Start", vbt_request_of(*request));
}

/* Every request is checked before any starts, so a bad one starts none. */
int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    VBT_API_ENTER("MPI_Startall");
    if (count < 0)
        return vbt_error_raise(NULL, "MPI_Startall", MPI_ERR_COUNT,
                               "argument count is %d; it must be 0 or more", count);
    if (count > 0 && array_of_requests == NULL)
        return vbt_error_raise(NULL, "MPI_Startall", MPI_ERR_ARG,
                               "argument array_of_requests is NULL with count %d", count);
    for (int i = 0; i < count; i++) {
        VBT_API_CHECK(check_startable("MPI_Startall", array_of_requests[i], i));
        for (int j = 0; j < i; j++) {
            if (array_of_requests[j] == array_of_requests[i])
                return vbt_error_raise(vbt_request_of(array_of_requests[i])->comm, "MPI_Startall",
                                       MPI_ERR_REQUEST,
                                       "array_of_requests[%d] and [%d] are the same request: a "
                                       "request can be started once at a time",
                                       j, i);
        }
    }
    for (int i = 0; i < count; i++)
        VBT_API_CHECK(start_one("MPI_Startall", vbt_request_of(array_of_requests[i])));
    return MPI_SUCCESS;
}

int vbt_api_finish_other(MPI_Request *request, MPI_Status *status)
{
    vbt_request_t *req = vbt_request_of(*request);
    int err = req->status_error;

    if (req->kind == VBT_REQ_GREQ)
        return vbt_api_greq_finish(request, status);
    if (vbt_request_inactive(req)) { /* never started, or completed already: a null request */
        vbt_api_empty_status(status);
        return MPI_SUCCESS;
    }
    vbt_request_fill_status(req, status);
    if (!(req->flags & VBT_REQF_PERSISTENT)) {
        vbt_request_release(req);
        *request = MPI_REQUEST_NULL;
        return err;
    }
    /* Persistent: inactive again, the handle stays the user's. */
    req->flags = (uint16_t)(req->flags & ~(VBT_REQF_ACTIVE | VBT_REQF_CANCELLED));
    req->status_source = MPI_ANY_SOURCE;
    req->status_tag = MPI_ANY_TAG;
    req->status_error = MPI_SUCCESS;
    req->status_bytes = 0;
    return err;
}

/* A part still under way finishes on its own and goes back to the pool then. */
static void let_go(vbt_request_t *part)
{
    if (part == NULL)
        return;
    if (part->complete)
        vbt_request_release(part);
    else
        part->flags |= VBT_REQF_FREED;
}

int vbt_api_free_other(MPI_Request *request, vbt_request_t *req)
{
    switch (req->kind) {
    case VBT_REQ_GREQ:
        return vbt_api_greq_free(request, req);
    case VBT_REQ_PART:
        if ((req->flags & VBT_REQF_ACTIVE) && !vbt_request_done(req))
            return vbt_error_raise(req->comm, "MPI_Request_free", MPI_ERR_REQUEST,
                                   "the partitioned request is active: complete it with "
                                   "MPI_Wait or MPI_Test (after MPI_Pready of every partition) "
                                   "before freeing it");
        vbt_part_destroy(req);
        break;
    case VBT_REQ_COLL: /* an active one completes first; the release frees its schedule */
        if (req->complete)
            vbt_request_release(req);
        else
            req->flags |= VBT_REQF_FREED;
        break;
    default: /* persistent point-to-point, sendrecv: the operation still completes */
        let_go(req->x.child[0]);
        if (req->kind == VBT_REQ_SENDRECV)
            let_go(req->x.child[1]);
        vbt_request_release(req);
        break;
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int vbt_api_cancel_other(vbt_request_t *req)
{
    if (req->kind == VBT_REQ_GREQ)
        return vbt_api_greq_cancel(req);
    if (req->kind == VBT_REQ_COLL)
        return vbt_error_raise(req->comm, "MPI_Cancel", MPI_ERR_REQUEST,
                               "argument request is a collective's (MPI_I* or MPI_*_init), "
                               "which MPI does not allow to be cancelled: complete it");
    if (vbt_request_inactive(req))
        return vbt_error_raise(req->comm, "MPI_Cancel", MPI_ERR_REQUEST,
                               "argument request is an inactive persistent request: only a "
                               "started one can be cancelled");
    /* A receive not yet matched is cancelled; sends, combined and partitioned operations are
     * not recalled (MPI lets cancellation fail): MPI_Test_cancelled then says false. */
    if (req->kind == VBT_REQ_PRECV && req->x.child[0] != NULL)
        vbt_p2p_cancel(req->x.child[0]);
    return MPI_SUCCESS;
}
