/* MPI_Request_get_status and MPI-4.1's _any, _all and _some: Test without freeing or
 * deactivating anything. Null and inactive persistent requests count as done with an empty
 * status (and are skipped by _any and _some, as by Testany and Testsome). */
#include "vbt_api_p2p.h"

VBT_PMPI_ALIAS(Request_get_status)
VBT_PMPI_ALIAS(Request_get_status_any)
VBT_PMPI_ALIAS(Request_get_status_all)
VBT_PMPI_ALIAS(Request_get_status_some)

static int check(const char *call, int count, const MPI_Request requests[])
{
    if (count < 0)
        return vbt_error_raise(NULL, call, MPI_ERR_COUNT, "argument count is %d", count);
    if (count > 0 && requests == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG, "argument array_of_requests is NULL");
    for (int i = 0; i < count; i++) {
        if (requests[i] != MPI_REQUEST_NULL && vbt_request_get(requests[i]) == NULL)
            return vbt_error_raise(NULL, call, MPI_ERR_REQUEST,
                                   "array_of_requests[%d] is not a valid request (already "
                                   "completed and freed?)",
                                   i);
    }
    return MPI_SUCCESS;
}

static int is_live(MPI_Request r)
{
    return r != MPI_REQUEST_NULL && !vbt_request_inactive(vbt_request_of(r));
}

/* The status of a done request, left as it is; returns its error class. */
static int peek(MPI_Request r, MPI_Status *status)
{
    vbt_request_t *req;

    if (!is_live(r)) {
        vbt_api_empty_status(status);
        return MPI_SUCCESS;
    }
    req = vbt_request_of(r);
    if (req->kind == VBT_REQ_GREQ)
        return vbt_api_greq_query(req, status);
    vbt_request_fill_status(req, status);
    return req->status_error;
}

static int done(MPI_Request r)
{
    return !is_live(r) || vbt_request_done(vbt_request_of(r));
}

static int progress(const char *call)
{
    int n = vbt_p2p_progress();
    return n < 0 ? vbt_api_failed(NULL, call, (vbt_status_t)n) : MPI_SUCCESS;
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    const char *call = "MPI_Request_get_status";
    int err;

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, flag, "flag");
    VBT_API_CHECK(check(call, 1, &request));
    if (!done(request))
        VBT_API_CHECK(progress(call));
    *flag = done(request);
    vbt_p2p_polled(*flag);
    if (!*flag)
        return MPI_SUCCESS;
    err = peek(request, status);
    if (err == MPI_SUCCESS)
        return err;
    return vbt_error_raise(vbt_request_of(request)->comm, call, err, "the request failed");
}

int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *indx,
                                int *flag, MPI_Status *status)
{
    const char *call = "MPI_Request_get_status_any";
    int live = 0, err;

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, indx, "index");
    VBT_API_PTR(NULL, call, flag, "flag");
    VBT_API_CHECK(check(call, count, array_of_requests));
    VBT_API_CHECK(progress(call));
    for (int i = 0; i < count; i++) {
        if (!is_live(array_of_requests[i]))
            continue;
        live = 1;
        if (!vbt_request_done(vbt_request_of(array_of_requests[i])))
            continue;
        *indx = i;
        *flag = 1;
        vbt_p2p_polled(1);
        err = peek(array_of_requests[i], status);
        if (err == MPI_SUCCESS)
            return err;
        return vbt_error_raise(vbt_request_of(array_of_requests[i])->comm, call, err,
                               "the request failed");
    }
    *indx = MPI_UNDEFINED;
    *flag = !live;
    vbt_p2p_polled(*flag);
    if (!live)
        vbt_api_empty_status(status);
    return MPI_SUCCESS;
}

int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[])
{
    const char *call = "MPI_Request_get_status_all";
    int any_error = 0;

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, flag, "flag");
    VBT_API_CHECK(check(call, count, array_of_requests));
    VBT_API_CHECK(progress(call));
    *flag = 1;
    for (int i = 0; i < count && *flag; i++)
        *flag = done(array_of_requests[i]);
    vbt_p2p_polled(*flag);
    if (!*flag)
        return MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        MPI_Status *s =
            array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &array_of_statuses[i];
        vbt_api_status_error(array_of_statuses, i, peek(array_of_requests[i], s), &any_error);
    }
    if (any_error)
        return vbt_error_raise(NULL, call, MPI_ERR_IN_STATUS,
                               "at least one request failed: see the MPI_ERROR field of each "
                               "status");
    return MPI_SUCCESS;
}

int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    const char *call = "MPI_Request_get_status_some";
    int live = 0, any_error = 0;

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, outcount, "outcount");
    VBT_API_CHECK(check(call, incount, array_of_requests));
    if (incount > 0)
        VBT_API_PTR(NULL, call, array_of_indices, "array_of_indices");
    VBT_API_CHECK(progress(call));
    *outcount = 0;
    for (int i = 0; i < incount; i++) {
        if (!is_live(array_of_requests[i]))
            continue;
        live = 1;
        if (!vbt_request_done(vbt_request_of(array_of_requests[i])))
            continue;
        array_of_indices[*outcount] = i;
        int err = peek(array_of_requests[i], array_of_statuses == MPI_STATUSES_IGNORE
                                                 ? MPI_STATUS_IGNORE
                                                 : &array_of_statuses[*outcount]);
        vbt_api_status_error(array_of_statuses, *outcount, err, &any_error);
        (*outcount)++;
    }
    if (!live)
        *outcount = MPI_UNDEFINED;
    vbt_p2p_polled(*outcount != 0);
    if (any_error)
        return vbt_error_raise(NULL, call, MPI_ERR_IN_STATUS,
                               "at least one request failed: see the MPI_ERROR field of each "
                               "status");
    return MPI_SUCCESS;
}
