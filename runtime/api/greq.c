/* Generalized requests (MPI-4.1 13.2) and the status setters their query functions use (13.3).
 * The callbacks run exactly where the standard puts them: query_fn when Wait/Test completes
 * the request and at MPI_Request_get_status; free_fn after query_fn at that completion, or,
 * for a request given to MPI_Request_free, in whichever of MPI_Request_free and
 * MPI_Grequest_complete comes last; cancel_fn at MPI_Cancel, told whether the request is
 * complete already. A callback's error is the error of the call that ran it. */
#include "vbt_api_p2p.h"

#include <stdlib.h>

VBT_PMPI_ALIAS(Grequest_start)
VBT_PMPI_ALIAS(Grequest_complete)
VBT_PMPI_ALIAS(Status_set_elements)
VBT_PMPI_ALIAS(Status_set_elements_x)
VBT_PMPI_ALIAS(Status_set_cancelled)

typedef struct vbt_greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
} vbt_greq_t;

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    vbt_request_t *req;
    vbt_greq_t *g;

    VBT_API_ENTER("MPI_Grequest_start");
    VBT_API_PTR(NULL, "MPI_Grequest_start", request, "request");
    if (query_fn == NULL || free_fn == NULL || cancel_fn == NULL)
        return vbt_error_raise(NULL, "MPI_Grequest_start", MPI_ERR_ARG,
                               "argument %s is NULL; pass a function (one that only returns "
                               "MPI_SUCCESS if there is nothing to do)",
                               query_fn == NULL  ? "query_fn"
                               : free_fn == NULL ? "free_fn"
                                                 : "cancel_fn");
    g = malloc(sizeof(*g));
    req = g != NULL ? vbt_request_alloc(VBT_REQ_GREQ) : NULL;
    if (req == NULL) {
        free(g);
        return vbt_api_failed(NULL, "MPI_Grequest_start", VBT_ERR_NO_MEMORY);
    }
    *g = (vbt_greq_t){query_fn, free_fn, cancel_fn, extra_state};
    req->x.greq = g;
    req->status_source = MPI_ANY_SOURCE;
    req->status_tag = MPI_ANY_TAG;
    *request = (MPI_Request)req;
    return MPI_SUCCESS;
}

static vbt_request_t *get_greq(MPI_Request handle)
{
    vbt_request_t *req = vbt_request_get(handle);
    return req != NULL && req->kind == VBT_REQ_GREQ ? req : NULL;
}

static void destroy(vbt_request_t *req)
{
    free(req->x.greq);
    vbt_request_release(req);
}

static int callback_failed(const char *call, const char *fn, int rc)
{
    return vbt_error_raise(NULL, call, rc, "the generalized request's %s returned error %d", fn,
                           rc);
}

int PMPI_Grequest_complete(MPI_Request request)
{
    vbt_request_t *req;
    int rc;

    VBT_API_ENTER("MPI_Grequest_complete");
    req = get_greq(request);
    if (req == NULL)
        return vbt_error_raise(NULL, "MPI_Grequest_complete", MPI_ERR_REQUEST,
                               "argument request is not a generalized request (made by "
                               "MPI_Grequest_start and not yet freed)");
    if (req->complete)
        return vbt_error_raise(NULL, "MPI_Grequest_complete", MPI_ERR_REQUEST,
                               "the generalized request is complete already: call "
                               "MPI_Grequest_complete once per request");
    vbt_flag_set(&req->complete);
    if (!(req->flags & VBT_REQF_FREED))
        return MPI_SUCCESS;
    /* MPI_Request_free came first: the request goes now. */
    rc = req->x.greq->free_fn(req->x.greq->extra_state);
    destroy(req);
    return rc == MPI_SUCCESS ? rc : callback_failed("MPI_Grequest_complete", "free_fn", rc);
}

/* query_fn into status (or a scratch one); its return is the request's error. */
int vbt_api_greq_query(vbt_request_t *req, MPI_Status *status)
{
    MPI_Status scratch;
    MPI_Status *s = status != MPI_STATUS_IGNORE ? status : &scratch;
    int rc;

    vbt_api_empty_status(s);
    rc = req->x.greq->query_fn(req->x.greq->extra_state, s);
    return rc;
}

int vbt_api_greq_finish(MPI_Request *request, MPI_Status *status)
{
    vbt_request_t *req = vbt_request_of(*request);
    int err = vbt_api_greq_query(req, status);
    int rc = req->x.greq->free_fn(req->x.greq->extra_state);

    destroy(req);
    *request = MPI_REQUEST_NULL;
    if (err == MPI_SUCCESS && rc != MPI_SUCCESS)
        return rc;
    return err;
}

int vbt_api_greq_free(MPI_Request *request, vbt_request_t *req)
{
    int rc = MPI_SUCCESS;

    *request = MPI_REQUEST_NULL;
    if (!req->complete) { /* free_fn runs at MPI_Grequest_complete */
        req->flags |= VBT_REQF_FREED;
        return MPI_SUCCESS;
    }
    rc = req->x.greq->free_fn(req->x.greq->extra_state);
    destroy(req);
    return rc == MPI_SUCCESS ? rc : callback_failed("MPI_Request_free", "free_fn", rc);
}

int vbt_api_greq_cancel(vbt_request_t *req)
{
    int rc = req->x.greq->cancel_fn(req->x.greq->extra_state, req->complete);
    return rc == MPI_SUCCESS ? rc : callback_failed("MPI_Cancel", "cancel_fn", rc);
}

static int check_setter(const char *call, MPI_Status *status, MPI_Datatype dt,
                        const vbt_dtype_t **t_p)
{
    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, status, "status"); /* MPI_STATUS_IGNORE too */
    *t_p = vbt_dtype_get(dt);
    if (*t_p == NULL)
        return vbt_api_bad_buffer(NULL, call, NULL, 0, dt);
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    const vbt_dtype_t *t = NULL;

    VBT_API_CHECK(check_setter("MPI_Status_set_elements_x", status, datatype, &t));
    if (count < 0)
        return vbt_error_raise(NULL, "MPI_Status_set_elements_x", MPI_ERR_COUNT,
                               "argument count is %lld; it must be 0 or more", (long long)count);
    /* Stored as the bytes those elements take, so MPI_Get_count and MPI_Get_elements with
     * any type agree with what was set. */
    vbt_status_set_bytes(status, vbt_dtype_elements_bytes(t, (size_t)count),
                         vbt_status_get_cancelled(status));
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    if (count < 0)
        return vbt_error_raise(NULL, "MPI_Status_set_elements", MPI_ERR_COUNT,
                               "argument count is %d; it must be 0 or more", count);
    return PMPI_Status_set_elements_x(status, datatype, count);
}

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    VBT_API_ENTER("MPI_Status_set_cancelled");
    VBT_API_PTR(NULL, "MPI_Status_set_cancelled", status, "status"); /* MPI_STATUS_IGNORE too */
    vbt_status_set_bytes(status, vbt_status_get_bytes(status), flag != 0);
    return MPI_SUCCESS;
}
