/* The slow, readable side of the collective argument checks. */
#include "vbt_api_coll.h"
#include "vbt_api_info.h"

#include <stdint.h>

const vbt_api_bufname_t vbt_api_send = {"sendbuf", "sendcount", "sendtype"};
const vbt_api_bufname_t vbt_api_recv = {"recvbuf", "recvcount", "recvtype"};
const vbt_api_bufname_t vbt_api_inout = {"buffer", "count", "datatype"};

int vbt_api_coll_bad_buffer(vbt_comm_t *c, const char *call, const vbt_api_bufname_t *name,
                            const void *buf, MPI_Count count, MPI_Datatype dt)
{
    const vbt_dtype_t *t = vbt_dtype_get(dt);

    if (t == NULL) {
        if (dt == MPI_DATATYPE_NULL)
            return vbt_error_raise(c, call, MPI_ERR_TYPE,
                                   "argument %s is MPI_DATATYPE_NULL; pass a datatype", name->type);
        return vbt_error_raise(c, call, MPI_ERR_TYPE,
                               "argument %s (handle %#lx) is not a valid datatype (freed?)",
                               name->type, (unsigned long)(uintptr_t)dt);
    }
    if (!t->committed)
        return vbt_error_raise(c, call, MPI_ERR_TYPE,
                               "argument %s is not committed; call MPI_Type_commit first",
                               name->type);
    if (count < 0)
        return vbt_error_raise(c, call, MPI_ERR_COUNT, "argument %s is %lld; it must be 0 or more",
                               name->count, (long long)count);
    if (buf != NULL)
        return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                               "argument %s is %s, which is not a buffer here; pass a buffer of "
                               "at least %s (%lld) elements",
                               name->buf,
                               buf == MPI_IN_PLACE ? "MPI_IN_PLACE" : "MPI_BUFFER_AUTOMATIC",
                               name->count, (long long)count);
    return vbt_error_raise(
        c, call, MPI_ERR_BUFFER,
        "argument %s is NULL with %s %lld; pass a buffer of at least %s elements", name->buf,
        name->count, (long long)count, name->count);
}

int vbt_api_coll_bad_root(vbt_comm_t *c, const char *call, int root)
{
    return vbt_error_raise(c, call, MPI_ERR_ROOT,
                           "argument root is %d, but %s has %d ranks: use 0..%d", root, c->name,
                           c->size, c->size - 1);
}

int vbt_api_coll_bad_in_place(vbt_comm_t *c, const char *call, const char *arg, const char *why)
{
    return vbt_error_raise(c, call, MPI_ERR_BUFFER, "argument %s is MPI_IN_PLACE, %s", arg, why);
}

int vbt_api_coll_aliased(vbt_comm_t *c, const char *call)
{
    return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                           "sendbuf and recvbuf are the same buffer, which MPI forbids: pass "
                           "MPI_IN_PLACE as sendbuf to work in place");
}

int vbt_api_coll_check_counts(vbt_comm_t *c, const char *call, const char *counts_name,
                              vbt_coll_vec_t counts, const char *displs_name, vbt_coll_vec_t displs,
                              int n)
{
    if (!vbt_coll_vec_set(counts))
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument %s is NULL; pass an array of %d counts", counts_name, n);
    if (displs_name != NULL && !vbt_coll_vec_set(displs))
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument %s is NULL; pass an array of %d displacements",
                               displs_name, n);
    for (int i = 0; i < n; i++) {
        if (vbt_coll_vec_at(counts, i) < 0)
            return vbt_error_raise(c, call, MPI_ERR_COUNT,
                                   "%s[%d] is %lld; counts must be 0 or more", counts_name, i,
                                   (long long)vbt_coll_vec_at(counts, i));
    }
    return MPI_SUCCESS;
}

int vbt_api_coll_check_blocks(vbt_comm_t *c, const char *call, const void *sendbuf,
                              MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype)
{
    if (unlikely(recvbuf == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "recvbuf", "which is allowed for sendbuf only");
    VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_recv, recvbuf, recvcount, recvtype));
    if (sendbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_send, sendbuf, sendcount, sendtype));
    if (unlikely(sendbuf == recvbuf && sendcount > 0))
        return vbt_api_coll_aliased(c, call);
    return MPI_SUCCESS;
}

int vbt_api_coll_check_op(vbt_comm_t *c, const char *call, MPI_Op op, MPI_Datatype dt,
                          const vbt_op_t **op_p)
{
    const vbt_op_t *o = vbt_op_get(op);
    const char *why = NULL;

    if (o == NULL)
        return vbt_error_raise(c, call, MPI_ERR_OP, "argument op is %s",
                               op == MPI_OP_NULL ? "MPI_OP_NULL; pass an op"
                                                 : "not a valid op (freed, or never created?)");
    if (vbt_dtype_get(dt) != NULL && vbt_op_check(o, dt, &why) != VBT_OK)
        return vbt_error_raise(c, call, MPI_ERR_OP, "%s", why ? why : "op and datatype mismatch");
    *op_p = o;
    return MPI_SUCCESS;
}

int vbt_api_coll_post(vbt_comm_t *c, const vbt_api_nb_t *nb, vbt_coll_kind_t kind,
                      const vbt_coll_args_t *a)
{
    vbt_request_t *req;
    vbt_info_t *ignored;
    vbt_status_t st;

    if (unlikely(nb->request == NULL))
        return vbt_error_raise(c, nb->call, MPI_ERR_REQUEST,
                               "argument request is NULL; pass the address of an MPI_Request");
    /* Checked, then ignored: no info key changes how a persistent collective runs. */
    if (nb->persistent)
        VBT_API_CHECK(vbt_api_check_info(c, nb->call, "info", nb->info, &ignored));
    st = vbt_coll_post(kind, c, a, nb->persistent, &req);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, nb->call, st);
    *nb->request = (MPI_Request)req;
    return MPI_SUCCESS;
}
