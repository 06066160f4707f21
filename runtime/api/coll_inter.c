/* The collectives on an intercommunicator: the argument checks of MPI-4.1 Sec. 6.2.2 (roots are
 * MPI_ROOT, MPI_PROC_NULL or a remote rank; the per-rank arrays have one entry per remote rank,
 * reduce_scatter's recvcounts one per local rank; no MPI_IN_PLACE), then the schedule of
 * collectives/vbt_coll_inter.c: returned (MPI_I*, MPI_*_init) or waited for (the blocking
 * call). Each entry point of coll_*.c comes here first when its communicator is an
 * intercommunicator. */
#include "vbt_api_coll.h"

#include <limits.h>
#include <stdint.h>

static int bad_root(vbt_comm_t *c, const char *call, int root)
{
    return vbt_error_raise(c, call, MPI_ERR_ROOT,
                           "argument root is %d, but %s is an intercommunicator: pass MPI_ROOT "
                           "at the root, MPI_PROC_NULL at the other ranks of the root's group, "
                           "and the root's rank in the remote group (0..%d) in the other group",
                           root, c->name, c->remote_size - 1);
}

static int in_place(vbt_comm_t *c, const char *call, const char *arg)
{
    return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                           "argument %s is MPI_IN_PLACE, which MPI does not allow on an "
                           "intercommunicator (%s); pass a buffer",
                           arg, c->name);
}

/* A count as the caller passed it (the args carry it as size_t; a negative MPI_Count comes
 * back negative, a large one whole). */
static MPI_Count icount(size_t n)
{
    return (MPI_Count)n;
}

static int check_buf(vbt_comm_t *c, const char *call, const vbt_api_bufname_t *name,
                     const void *buf, size_t count, MPI_Datatype dt)
{
    if (buf == MPI_IN_PLACE)
        return in_place(c, call, name->buf);
    return vbt_api_coll_check_buffer(c, call, name, buf, icount(count), dt);
}

/* A v buffer: n counts (and displacements) and the datatype, the buffer if any count is > 0. */
static int check_vbuf(vbt_comm_t *c, const char *call, const vbt_api_bufname_t *name,
                      const char *counts_name, const char *displs_name, const void *buf,
                      vbt_coll_vec_t counts, vbt_coll_vec_t displs, MPI_Datatype dt, int n)
{
    int any = 0;

    VBT_API_CHECK(vbt_api_coll_check_counts(c, call, counts_name, counts, displs_name, displs, n));
    for (int i = 0; i < n; i++)
        any |= vbt_coll_vec_at(counts, i) > 0;
    if (buf == MPI_IN_PLACE)
        return in_place(c, call, name->buf);
    return vbt_api_coll_check_buffer(c, call, name, buf, any, dt);
}

/* Alltoallw's side: n counts, byte displacements and datatypes. */
static int check_wbuf(vbt_comm_t *c, const char *call, const vbt_api_bufname_t *name,
                      const char *counts_name, const char *displs_name, const char *types_name,
                      const void *buf, vbt_coll_vec_t counts, vbt_coll_vec_t displs,
                      const MPI_Datatype *types, int n)
{
    VBT_API_CHECK(vbt_api_coll_check_counts(c, call, counts_name, counts, displs_name, displs, n));
    if (types == NULL)
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument %s is NULL; pass an array of %d datatypes", types_name, n);
    if (buf == MPI_IN_PLACE)
        return in_place(c, call, name->buf);
    for (int i = 0; i < n; i++)
        VBT_API_CHECK(
            vbt_api_coll_check_buffer(c, call, name, buf, vbt_coll_vec_at(counts, i), types[i]));
    return MPI_SUCCESS;
}

static int check_root(vbt_comm_t *c, const char *call, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->remote_size))
        return MPI_SUCCESS;
    return bad_root(c, call, root);
}

/* The arguments of kind that count at this process. */
static int check(vbt_comm_t *c, const char *call, vbt_coll_kind_t kind, const vbt_coll_args_t *a,
                 MPI_Op op, const vbt_op_t **op_p)
{
    int m = c->remote_size, root = a->root;
    size_t total = 0;

    *op_p = NULL;
    switch (kind) {
    case VBT_COLL_BARRIER:
        return MPI_SUCCESS;
    case VBT_COLL_BCAST:
        VBT_API_CHECK(check_root(c, call, root));
        if (root == MPI_PROC_NULL)
            return MPI_SUCCESS;
        return check_buf(c, call, &vbt_api_inout, a->rbuf, a->rcount, a->rdt);
    case VBT_COLL_GATHER:
    case VBT_COLL_GATHERV:
        VBT_API_CHECK(check_root(c, call, root));
        if (root == MPI_PROC_NULL)
            return MPI_SUCCESS;
        if (root != MPI_ROOT)
            return check_buf(c, call, &vbt_api_send, a->sbuf, a->scount, a->sdt);
        if (kind == VBT_COLL_GATHER)
            return check_buf(c, call, &vbt_api_recv, a->rbuf, a->rcount, a->rdt);
        return check_vbuf(c, call, &vbt_api_recv, "recvcounts", "displs", a->rbuf, a->rcounts,
                          a->rdispls, a->rdt, m);
    case VBT_COLL_SCATTER:
    case VBT_COLL_SCATTERV:
        VBT_API_CHECK(check_root(c, call, root));
        if (root == MPI_PROC_NULL)
            return MPI_SUCCESS;
        if (root != MPI_ROOT)
            return check_buf(c, call, &vbt_api_recv, a->rbuf, a->rcount, a->rdt);
        if (kind == VBT_COLL_SCATTER)
            return check_buf(c, call, &vbt_api_send, a->sbuf, a->scount, a->sdt);
        return check_vbuf(c, call, &vbt_api_send, "sendcounts", "displs", a->sbuf, a->scounts,
                          a->sdispls, a->sdt, m);
    case VBT_COLL_ALLGATHER:
        VBT_API_CHECK(check_buf(c, call, &vbt_api_send, a->sbuf, a->scount, a->sdt));
        return check_buf(c, call, &vbt_api_recv, a->rbuf, a->rcount, a->rdt);
    case VBT_COLL_ALLGATHERV:
        VBT_API_CHECK(check_buf(c, call, &vbt_api_send, a->sbuf, a->scount, a->sdt));
        return check_vbuf(c, call, &vbt_api_recv, "recvcounts", "displs", a->rbuf, a->rcounts,
                          a->rdispls, a->rdt, m);
    case VBT_COLL_ALLTOALL:
        VBT_API_CHECK(check_buf(c, call, &vbt_api_send, a->sbuf, a->scount, a->sdt));
        return check_buf(c, call, &vbt_api_recv, a->rbuf, a->rcount, a->rdt);
    case VBT_COLL_ALLTOALLV:
        VBT_API_CHECK(check_vbuf(c, call, &vbt_api_send, "sendcounts", "sdispls", a->sbuf,
                                 a->scounts, a->sdispls, a->sdt, m));
        return check_vbuf(c, call, &vbt_api_recv, "recvcounts", "rdispls", a->rbuf, a->rcounts,
                          a->rdispls, a->rdt, m);
    case VBT_COLL_ALLTOALLW:
        VBT_API_CHECK(check_wbuf(c, call, &vbt_api_send, "sendcounts", "sdispls", "sendtypes",
                                 a->sbuf, a->scounts, a->sdispls, a->sdts, m));
        return check_wbuf(c, call, &vbt_api_recv, "recvcounts", "rdispls", "recvtypes", a->rbuf,
                          a->rcounts, a->rdispls, a->rdts, m);
    case VBT_COLL_REDUCE:
        VBT_API_CHECK(check_root(c, call, root));
        if (root == MPI_PROC_NULL)
            return MPI_SUCCESS;
        if (root == MPI_ROOT)
            VBT_API_CHECK(check_buf(c, call, &vbt_api_recv, a->rbuf, a->rcount, a->rdt));
        else
            VBT_API_CHECK(check_buf(c, call, &vbt_api_send, a->sbuf, a->rcount, a->rdt));
        return vbt_api_coll_check_op(c, call, op, a->rdt, op_p);
    case VBT_COLL_ALLREDUCE:
        VBT_API_CHECK(check_buf(c, call, &vbt_api_send, a->sbuf, a->rcount, a->rdt));
        VBT_API_CHECK(check_buf(c, call, &vbt_api_recv, a->rbuf, a->rcount, a->rdt));
        return vbt_api_coll_check_op(c, call, op, a->rdt, op_p);
    case VBT_COLL_REDUCE_SCATTER:
    case VBT_COLL_REDUCE_SCATTER_BLOCK: {
        MPI_Count mine;
        if (kind == VBT_COLL_REDUCE_SCATTER) {
            VBT_API_CHECK(vbt_api_coll_check_counts(c, call, "recvcounts", a->rcounts, NULL,
                                                    (vbt_coll_vec_t){NULL}, c->size));
            for (int i = 0; i < c->size; i++)
                total += (size_t)vbt_coll_vec_at(a->rcounts, i);
            mine = vbt_coll_vec_at(a->rcounts, c->rank);
        } else {
            if (icount(a->rcount) < 0)
                return vbt_error_raise(c, call, MPI_ERR_COUNT,
                                       "argument recvcount is %lld; it must be 0 or more",
                                       (long long)icount(a->rcount));
            total = a->rcount * (size_t)c->size;
            mine = icount(a->rcount);
        }
        VBT_API_CHECK(check_buf(c, call, &vbt_api_send, a->sbuf,
                                total > INT_MAX ? (size_t)INT_MAX : total, a->rdt));
        VBT_API_CHECK(check_buf(c, call, &vbt_api_recv, a->rbuf, (size_t)mine, a->rdt));
        return vbt_api_coll_check_op(c, call, op, a->rdt, op_p);
    }
    default:
        return vbt_api_not_inter(c, call, "comm");
    }
}

int vbt_api_coll_inter(vbt_comm_t *c, const char *call, const vbt_api_nb_t *nb,
                       vbt_coll_kind_t kind, const vbt_coll_args_t *args, MPI_Op op)
{
    vbt_coll_args_t a = *args;
    vbt_request_t *req;
    vbt_status_t st;
    int err;

    VBT_API_CHECK(check(c, call, kind, &a, op, &a.op));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, kind, &a);
    st = vbt_coll_post(kind, c, &a, 0, &req);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    st = vbt_api_wait(req);
    err = req->status_error;
    vbt_request_release(req);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    if (unlikely(err != MPI_SUCCESS))
        return vbt_error_raise(c, call, err,
                               "a message of this collective was longer than the receiving "
                               "rank expected: the counts and datatypes do not match");
    return MPI_SUCCESS;
}
