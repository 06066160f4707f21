/* MPI_Start and MPI_Startall for persistent collective requests only (MPI_*_init). The
 * persistent point-to-point work owns the full MPI_Start; at merge this file goes and its
 * dispatch gets one line for VBT_REQ_COLL: vbt_coll_start(req). */
#include "vbt_api_coll.h"

VBT_PMPI_ALIAS(Start)
VBT_PMPI_ALIAS(Startall)

/* A request that may be started: a persistent collective's, inactive. */
static int check_startable(const char *call, MPI_Request handle, int index)
{
    vbt_request_t *req = vbt_request_get(handle);

    if (unlikely(req == NULL || !(req->flags & VBT_REQF_PERSISTENT))) {
        if (index < 0)
            return vbt_error_raise(NULL, call, MPI_ERR_REQUEST,
                                   "argument request is not a persistent request (make one with "
                                   "an MPI_*_init call)");
        return vbt_error_raise(NULL, call, MPI_ERR_REQUEST,
                               "array_of_requests[%d] is not a persistent request (make one "
                               "with an MPI_*_init call)",
                               index);
    }
    if (unlikely(req->flags & VBT_REQF_ACTIVE))
        return vbt_error_raise(req->comm, call, MPI_ERR_REQUEST,
                               "%s%.0d%s is active: complete it (MPI_Wait, MPI_Test...) before "
                               "starting it again",
                               index < 0 ? "argument request" : "array_of_requests[", index,
                               index < 0 ? "" : "]");
    return MPI_SUCCESS;
}

static int start_one(const char *call, vbt_request_t *req)
{
    vbt_status_t st = vbt_coll_start(req);

    return likely(st == VBT_OK) ? MPI_SUCCESS : vbt_api_failed(req->comm, call, st);
}

int PMPI_Start(MPI_Request *request)
{
    VBT_API_ENTER("MPI_Start");
    VBT_API_PTR(NULL, "MPI_Start", request, "request");
    VBT_API_CHECK(check_startable("MPI_Start", *request, -1));
    return start_one("MPI_Start", vbt_request_of(*request));
}

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    VBT_API_ENTER("MPI_Startall");
    if (count < 0)
        return vbt_error_raise(NULL, "MPI_Startall", MPI_ERR_COUNT,
                               "argument count is %d; it must be 0 or more", count);
    if (count > 0)
        VBT_API_PTR(NULL, "MPI_Startall", array_of_requests, "array_of_requests");
    /* All checked before any starts, so an error starts none. */
    for (int i = 0; i < count; i++)
        VBT_API_CHECK(check_startable("MPI_Startall", array_of_requests[i], i));
    for (int i = 0; i < count; i++)
        VBT_API_CHECK(start_one("MPI_Startall", vbt_request_of(array_of_requests[i])));
    return MPI_SUCCESS;
}
