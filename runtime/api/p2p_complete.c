/* Completion: the Wait and Test families, Request_free, Cancel, Test_cancelled. */
#include "vbt_api_p2p.h"

VBT_PMPI_ALIAS(Wait)
VBT_PMPI_ALIAS(Waitall)
VBT_PMPI_ALIAS(Waitany)
VBT_PMPI_ALIAS(Waitsome)
VBT_PMPI_ALIAS(Test)
VBT_PMPI_ALIAS(Testall)
VBT_PMPI_ALIAS(Testany)
VBT_PMPI_ALIAS(Testsome)
VBT_PMPI_ALIAS(Request_free)
VBT_PMPI_ALIAS(Cancel)
VBT_PMPI_ALIAS(Test_cancelled)

static int bad_request(const char *call, int index)
{
    if (index < 0)
        return vbt_error_raise(NULL, call, MPI_ERR_REQUEST,
                               "argument request is not a valid request (already completed "
                               "and freed, or never started?)");
    return vbt_error_raise(NULL, call, MPI_ERR_REQUEST,
                           "array_of_requests[%d] is not a valid request (already completed and "
                           "freed, or never started?)",
                           index);
}

/* Check an array of requests: null handles are fine, anything else must be live. */
static int check_requests(const char *call, int count, MPI_Request requests[])
{
    if (count < 0)
        return vbt_error_raise(NULL, call, MPI_ERR_COUNT, "argument count is %d", count);
    if (count > 0 && requests == NULL)
        return vbt_error_raise(NULL, call, MPI_ERR_ARG, "array_of_requests is NULL");
    for (int i = 0; i < count; i++) {
        if (requests[i] != MPI_REQUEST_NULL && vbt_request_get(requests[i]) == NULL)
            return bad_request(call, i);
    }
    return MPI_SUCCESS;
}

/* Finish a completed request: status out, free, handle nulled; returns its error class. Here and
 * below, handles were checked on entry (vbt_request_get, check_requests): vbt_request_of.
 * Persistent and generalized requests are finished by vbt_api_finish_other (p2p_persist.c). */
static int finish(MPI_Request *request, MPI_Status *status)
{
    vbt_request_t *req = vbt_request_of(*request);
    int err;

    if (unlikely(req->kind >= VBT_REQ_PSEND))
        return vbt_api_finish_other(request, status);
    err = vbt_api_release_done(req, status);
    *request = MPI_REQUEST_NULL;
    return err;
}

static int is_done(MPI_Request r)
{
    return r == MPI_REQUEST_NULL || vbt_request_done(vbt_request_of(r));
}

/* Neither null nor an inactive persistent request: what the Any and Some calls look at. */
static int is_live(MPI_Request r)
{
    return r != MPI_REQUEST_NULL && !vbt_request_inactive(vbt_request_of(r));
}

static int raise_request_error(const char *call, vbt_comm_t *c, int err)
{
    if (err == MPI_ERR_TRUNCATE)
        return vbt_error_raise(c, call, err,
                               "a message was longer than its receive buffer (the buffer holds "
                               "its first bytes; nothing beyond was written)");
    return vbt_error_raise(c, call, err, "the request failed");
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    vbt_request_t *req;
    vbt_comm_t *c;
    int err;

    VBT_API_ENTER("MPI_Wait");
    VBT_API_PTR(NULL, "MPI_Wait", request, "request");
    if (*request == MPI_REQUEST_NULL) {
        vbt_api_empty_status(status);
        return MPI_SUCCESS;
    }
    req = vbt_request_get(*request);
    if (unlikely(req == NULL))
        return bad_request("MPI_Wait", -1);
    c = req->comm;
    err = vbt_api_complete(request, status);
    return likely(err == MPI_SUCCESS) ? err : raise_request_error("MPI_Wait", c, err);
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    vbt_request_t *req;
    vbt_comm_t *c;
    int err, n;

    VBT_API_ENTER("MPI_Test");
    VBT_API_PTR(NULL, "MPI_Test", request, "request");
    VBT_API_PTR(NULL, "MPI_Test", flag, "flag");
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        vbt_api_empty_status(status);
        return MPI_SUCCESS;
    }
    req = vbt_request_get(*request);
    if (unlikely(req == NULL))
        return bad_request("MPI_Test", -1);
    if (!vbt_request_done(req)) {
        n = vbt_p2p_progress();
        if (n < 0)
            return vbt_api_failed(req->comm, "MPI_Test", (vbt_status_t)n);
    }
    *flag = vbt_request_done(req);
    vbt_p2p_polled(*flag);
    if (!*flag)
        return MPI_SUCCESS;
    c = req->comm;
    err = finish(request, status);
    return likely(err == MPI_SUCCESS) ? err : raise_request_error("MPI_Test", c, err);
}

/* Complete requests[i] into statuses (or MPI_STATUSES_IGNORE) for the *all calls, which report
 * per-request errors in the statuses and return MPI_ERR_IN_STATUS. */
static void finish_into(MPI_Request requests[], int i, MPI_Status statuses[], int *any_error,
                        vbt_comm_t **err_comm)
{
    vbt_comm_t *c = vbt_request_of(requests[i])->comm;
    int err =
        finish(&requests[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i]);
    if (err != MPI_SUCCESS)
        *err_comm = c;
    vbt_api_status_error(statuses, i, err, any_error);
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    int any_error = 0;
    vbt_comm_t *err_comm = NULL;
    vbt_status_t st;

    VBT_API_ENTER("MPI_Waitall");
    VBT_API_CHECK(check_requests("MPI_Waitall", count, array_of_requests));
    for (int i = 0; i < count; i++) {
        if (array_of_requests[i] == MPI_REQUEST_NULL) {
            if (array_of_statuses != MPI_STATUSES_IGNORE)
                vbt_api_empty_status(&array_of_statuses[i]);
            vbt_api_status_error(array_of_statuses, i, MPI_SUCCESS, &any_error);
            continue;
        }
        st = vbt_api_wait(vbt_request_of(array_of_requests[i]));
        if (st != VBT_OK)
            return vbt_api_failed(NULL, "MPI_Waitall", st);
        finish_into(array_of_requests, i, array_of_statuses, &any_error, &err_comm);
    }
    if (any_error)
        return vbt_error_raise(err_comm, "MPI_Waitall", MPI_ERR_IN_STATUS,
                               "at least one request failed: see the MPI_ERROR field of each "
                               "status");
    return MPI_SUCCESS;
}

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    int any_error = 0, n;
    vbt_comm_t *err_comm = NULL;

    VBT_API_ENTER("MPI_Testall");
    VBT_API_PTR(NULL, "MPI_Testall", flag, "flag");
    VBT_API_CHECK(check_requests("MPI_Testall", count, array_of_requests));
    n = vbt_p2p_progress();
    if (n < 0)
        return vbt_api_failed(NULL, "MPI_Testall", (vbt_status_t)n);
    *flag = 1;
    for (int i = 0; i < count && *flag; i++)
        *flag = is_done(array_of_requests[i]);
    vbt_p2p_polled(*flag);
    if (!*flag)
        return MPI_SUCCESS;
    for (int i = 0; i < count; i++) {
        if (array_of_requests[i] == MPI_REQUEST_NULL) {
            if (array_of_statuses != MPI_STATUSES_IGNORE)
                vbt_api_empty_status(&array_of_statuses[i]);
            vbt_api_status_error(array_of_statuses, i, MPI_SUCCESS, &any_error);
            continue;
        }
        finish_into(array_of_requests, i, array_of_statuses, &any_error, &err_comm);
    }
    if (any_error)
        return vbt_error_raise(err_comm, "MPI_Testall", MPI_ERR_IN_STATUS,
                               "at least one request failed: see the MPI_ERROR field of each "
                               "status");
    return MPI_SUCCESS;
}

/* Index of a completed non-null request, -1 if none, -2 if all are null. */
static int find_done(int count, MPI_Request requests[])
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (!is_live(requests[i]))
            continue;
        active = 1;
        if (vbt_request_done(vbt_request_of(requests[i])))
            return i;
    }
    return active ? -1 : -2;
}

static int any_common(const char *call, int count, MPI_Request requests[], int *index, int *flag,
                      MPI_Status *status, int blocking)
{
    vbt_backoff_t backoff;
    int i, n, err;
    vbt_comm_t *c;

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, index, "index");
    VBT_API_CHECK(check_requests(call, count, requests));
    vbt_backoff_init(&backoff);
    for (;;) {
        i = find_done(count, requests);
        if (i != -1 || !blocking)
            break;
        n = vbt_p2p_progress();
        if (n < 0)
            return vbt_api_failed(NULL, call, (vbt_status_t)n);
        if (n == 0)
            vbt_p2p_idle(&backoff);
    }
    if (!blocking && i == -1) {
        n = vbt_p2p_progress();
        if (n < 0)
            return vbt_api_failed(NULL, call, (vbt_status_t)n);
        i = find_done(count, requests);
    }
    if (!blocking)
        vbt_p2p_polled(i != -1);
    if (flag)
        *flag = i != -1;
    if (i == -2) {
        *index = MPI_UNDEFINED;
        vbt_api_empty_status(status);
        return MPI_SUCCESS;
    }
    if (i == -1) {
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *index = i;
    c = vbt_request_of(requests[i])->comm;
    err = finish(&requests[i], status);
    return err == MPI_SUCCESS ? err : raise_request_error(call, c, err);
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    return any_common("MPI_Waitany", count, array_of_requests, index, NULL, status, 1);
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    if (flag == NULL)
        return vbt_error_raise(NULL, "MPI_Testany", MPI_ERR_ARG, "argument flag is NULL");
    return any_common("MPI_Testany", count, array_of_requests, index, flag, status, 0);
}

static int some_common(const char *call, int incount, MPI_Request requests[], int *outcount,
                       int indices[], MPI_Status statuses[], int blocking)
{
    vbt_backoff_t backoff;
    int i, n, any_error = 0;
    vbt_comm_t *err_comm = NULL;

    VBT_API_ENTER(call);
    VBT_API_PTR(NULL, call, outcount, "outcount");
    VBT_API_CHECK(check_requests(call, incount, requests));
    if (incount > 0)
        VBT_API_PTR(NULL, call, indices, "array_of_indices");
    vbt_backoff_init(&backoff);
    n = vbt_p2p_progress();
    if (n < 0)
        return vbt_api_failed(NULL, call, (vbt_status_t)n);
    while ((i = find_done(incount, requests)) == -1 && blocking) {
        n = vbt_p2p_progress();
        if (n < 0)
            return vbt_api_failed(NULL, call, (vbt_status_t)n);
        if (n == 0)
            vbt_p2p_idle(&backoff);
    }
    if (!blocking)
        vbt_p2p_polled(i != -1);
    if (i == -2) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *outcount = 0;
    for (i = 0; i < incount; i++) {
        if (!is_live(requests[i]) || !vbt_request_done(vbt_request_of(requests[i])))
            continue;
        indices[*outcount] = i;
        /* Statuses are packed in completion order, like the indices. */
        vbt_comm_t *c = vbt_request_of(requests[i])->comm;
        int err = finish(&requests[i], statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                       : &statuses[*outcount]);
        if (err != MPI_SUCCESS)
            err_comm = c;
        vbt_api_status_error(statuses, *outcount, err, &any_error);
        (*outcount)++;
    }
    if (any_error)
        return vbt_error_raise(err_comm, call, MPI_ERR_IN_STATUS,
                               "at least one request failed: see the MPI_ERROR field of each "
                               "status");
    return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some_common("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 1);
}

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some_common("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices,
                       array_of_statuses, 0);
}

int PMPI_Request_free(MPI_Request *request)
{
    vbt_request_t *req;

    VBT_API_ENTER("MPI_Request_free");
    VBT_API_PTR(NULL, "MPI_Request_free", request, "request");
    req = vbt_request_get(*request);
    if (req == NULL)
        return bad_request("MPI_Request_free", -1);
    if (unlikely(req->kind >= VBT_REQ_PSEND))
        return vbt_api_free_other(request, req);
    /* The operation still completes; the request goes back to the pool when it does. */
    if (req->complete)
        vbt_request_release(req);
    else
        req->flags |= VBT_REQF_FREED;
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int PMPI_Cancel(MPI_Request *request)
{
    vbt_request_t *req;

    VBT_API_ENTER("MPI_Cancel");
    VBT_API_PTR(NULL, "MPI_Cancel", request, "request");
    req = vbt_request_get(*request);
    if (req == NULL)
        return bad_request("MPI_Cancel", -1);
    if (unlikely(req->kind >= VBT_REQ_PSEND))
        return vbt_api_cancel_other(req);
    /* Receives not yet matched are cancelled. A send has left (or is queued in order behind
     * others) and is not recalled: MPI allows cancellation to fail, and MPI-4 deprecates
     * cancelling sends. MPI_Test_cancelled then says false. */
    vbt_p2p_cancel(req);
    return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    VBT_API_ENTER("MPI_Test_cancelled");
    VBT_API_PTR(NULL, "MPI_Test_cancelled", status, "status");
    VBT_API_PTR(NULL, "MPI_Test_cancelled", flag, "flag");
    *flag = vbt_status_get_cancelled(status) != 0;
    return MPI_SUCCESS;
}
