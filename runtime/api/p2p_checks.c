/* The slow, readable side of the point-to-point argument checks. */
#include "vbt_api_p2p.h"

#include <stddef.h>
#include <stdint.h>

int vbt_api_bad_buffer(vbt_comm_t *c, const char *call, const void *buf, MPI_Count count,
                       MPI_Datatype dt)
{
    const vbt_dtype_t *t = vbt_dtype_get(dt);

    if (t == NULL) {
        if (dt == MPI_DATATYPE_NULL)
            return vbt_error_raise(c, call, MPI_ERR_TYPE,
                                   "argument datatype is MPI_DATATYPE_NULL; pass a datatype");
        return vbt_error_raise(c, call, MPI_ERR_TYPE,
                               "argument datatype (handle %#lx) is not a valid datatype (freed, "
                               "or never returned by a datatype constructor)",
                               (unsigned long)(uintptr_t)dt);
    }
    if (!t->committed)
        return vbt_error_raise(c, call, MPI_ERR_TYPE,
                               "argument datatype (handle %#lx) is not committed: call "
                               "MPI_Type_commit before communicating with it",
                               (unsigned long)(uintptr_t)dt);
    if (count < 0)
        return vbt_error_raise(c, call, MPI_ERR_COUNT,
                               "argument count is %lld; it must be 0 or more", (long long)count);
    if (t->size > 0 && (uint64_t)count > PTRDIFF_MAX / t->size)
        return vbt_error_raise(c, call, MPI_ERR_COUNT,
                               "argument count is %lld of a %zu-byte datatype: more bytes than "
                               "this machine can address; pass a smaller count",
                               (long long)count, (size_t)t->size);
    if (buf != NULL)
        return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                               "argument buf is %s, which is not a buffer here; pass a buffer of "
                               "at least count (%lld) elements",
                               buf == MPI_IN_PLACE ? "MPI_IN_PLACE" : "MPI_BUFFER_AUTOMATIC",
                               (long long)count);
    return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                           "argument buf is NULL with count %lld; pass a buffer of at least "
                           "count elements",
                           (long long)count);
}

int vbt_api_bad_rank(vbt_comm_t *c, const char *call, const char *arg, int rank, int any_ok)
{
    return vbt_error_raise(c, call, MPI_ERR_RANK,
                           "argument %s is %d, but %s has %d ranks%s: use 0..%d or "
                           "MPI_PROC_NULL%s",
                           arg, rank, c->name, c->remote_size,
                           vbt_comm_is_inter(c) ? " in its remote group (an intercommunicator's "
                                                  "ranks name the remote group)"
                                                : "",
                           c->remote_size - 1, any_ok ? " or MPI_ANY_SOURCE" : "");
}

int vbt_api_bad_tag(vbt_comm_t *c, const char *call, int tag, int any_ok)
{
    return vbt_error_raise(c, call, MPI_ERR_TAG, "argument tag is %d: use 0..%d (MPI_TAG_UB)%s",
                           tag, VBT_TAG_UB, any_ok ? " or MPI_ANY_TAG" : "");
}

int vbt_api_failed(vbt_comm_t *c, const char *call, vbt_status_t status)
{
    return vbt_error_raise(c, call, vbt_status_to_errclass(status), "%s (the lines above say why)",
                           vbt_status_string(status));
}

void vbt_api_empty_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    vbt_status_set_bytes(status, 0, 0);
}

void vbt_api_status_error(MPI_Status statuses[], int i, int err, int *any_error)
{
    if (statuses == MPI_STATUSES_IGNORE) {
        *any_error |= err != MPI_SUCCESS;
        return;
    }
    if (err != MPI_SUCCESS && !*any_error) {
        for (int j = 0; j < i; j++)
            statuses[j].MPI_ERROR = MPI_SUCCESS;
        *any_error = 1;
    }
    if (*any_error)
        statuses[i].MPI_ERROR = err;
}

vbt_status_t vbt_api_wait(vbt_request_t *req)
{
    vbt_backoff_t backoff;
    int n;

    if (likely(req->kind < VBT_REQ_PSEND))
        return vbt_p2p_wait_flag(&req->complete);
    vbt_backoff_init(&backoff);
    while (!vbt_request_done(req)) { /* vbt_p2p_wait_flag's loop, on a composite's parts */
        n = vbt_p2p_progress();
        if (n < 0)
            return (vbt_status_t)n;
        if (n == 0)
            vbt_p2p_idle(&backoff);
        else
            vbt_backoff_init(&backoff); /* traffic: spin again before sleeping */
    }
    return VBT_OK;
}

int vbt_api_complete(MPI_Request *request, MPI_Status *status)
{
    vbt_request_t *req = vbt_request_of(*request); /* checked by the caller, or just made */
    vbt_status_t st;
    int err;

    st = vbt_api_wait(req);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(req->comm, "MPI_Wait", st);
    if (unlikely(req->kind >= VBT_REQ_PSEND))
        return vbt_api_finish_other(request, status);
    err = vbt_api_release_done(req, status);
    *request = MPI_REQUEST_NULL;
    return err;
}
