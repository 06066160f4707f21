/* The reducing collectives: MPI_Reduce, Allreduce, Reduce_scatter(_block), Scan, Exscan. */
#include "vbt_api_coll.h"

#include <limits.h>

VBT_PMPI_ALIAS(Reduce)
VBT_PMPI_ALIAS(Reduce_c)
VBT_PMPI_ALIAS(Ireduce)
VBT_PMPI_ALIAS(Ireduce_c)
VBT_PMPI_ALIAS(Reduce_init)
VBT_PMPI_ALIAS(Reduce_init_c)
VBT_PMPI_ALIAS(Allreduce)
VBT_PMPI_ALIAS(Allreduce_c)
VBT_PMPI_ALIAS(Iallreduce)
VBT_PMPI_ALIAS(Iallreduce_c)
VBT_PMPI_ALIAS(Allreduce_init)
VBT_PMPI_ALIAS(Allreduce_init_c)
VBT_PMPI_ALIAS(Reduce_scatter)
VBT_PMPI_ALIAS(Reduce_scatter_c)
VBT_PMPI_ALIAS(Ireduce_scatter)
VBT_PMPI_ALIAS(Ireduce_scatter_c)
VBT_PMPI_ALIAS(Reduce_scatter_init)
VBT_PMPI_ALIAS(Reduce_scatter_init_c)
VBT_PMPI_ALIAS(Reduce_scatter_block)
VBT_PMPI_ALIAS(Reduce_scatter_block_c)
VBT_PMPI_ALIAS(Ireduce_scatter_block)
VBT_PMPI_ALIAS(Ireduce_scatter_block_c)
VBT_PMPI_ALIAS(Reduce_scatter_block_init)
VBT_PMPI_ALIAS(Reduce_scatter_block_init_c)
VBT_PMPI_ALIAS(Scan)
VBT_PMPI_ALIAS(Scan_c)
VBT_PMPI_ALIAS(Iscan)
VBT_PMPI_ALIAS(Iscan_c)
VBT_PMPI_ALIAS(Scan_init)
VBT_PMPI_ALIAS(Scan_init_c)
VBT_PMPI_ALIAS(Exscan)
VBT_PMPI_ALIAS(Exscan_c)
VBT_PMPI_ALIAS(Iexscan)
VBT_PMPI_ALIAS(Iexscan_c)
VBT_PMPI_ALIAS(Exscan_init)
VBT_PMPI_ALIAS(Exscan_init_c)

/* Counts of whole vectors may exceed an int; the checks only need to know they are > 0. */
static int clamp(size_t n)
{
    return n > INT_MAX ? INT_MAX : (int)n;
}

/* sendbuf (scount elements, or MPI_IN_PLACE) and recvbuf (rcount elements) of one datatype,
 * and op on that datatype. */
static int check_reduce_args(vbt_comm_t *c, const char *call, const void *sendbuf, MPI_Count scount,
                             void *recvbuf, MPI_Count rcount, MPI_Datatype dt, MPI_Op op,
                             const vbt_op_t **op_p)
{
    if (unlikely(recvbuf == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "recvbuf", "which is allowed for sendbuf only");
    if (sendbuf != MPI_IN_PLACE) {
        VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_send, sendbuf, scount, dt));
        if (unlikely(sendbuf == recvbuf && scount > 0 && rcount > 0))
            return vbt_api_coll_aliased(c, call);
    }
    VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_recv, recvbuf, rcount, dt));
    return vbt_api_coll_check_op(c, call, op, dt, op_p);
}

/* Allreduce, Scan and Exscan: every rank passes sendbuf and recvbuf of count elements, and
 * only the collective differs. */
typedef vbt_status_t (*reduce_coll_t)(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                                      MPI_Datatype dt, const vbt_op_t *op);

static int reduce_everywhere(const char *call, reduce_coll_t coll, vbt_coll_kind_t kind,
                             const vbt_api_nb_t *nb, const void *sendbuf, void *recvbuf,
                             MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const vbt_op_t *o;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    if (unlikely(vbt_comm_is_inter(c) && kind != VBT_COLL_ALLREDUCE))
        return vbt_api_not_inter(c, call, "comm"); /* scans: not defined there */
    VBT_API_INTER(c, call, nb, kind, op, .sbuf = sendbuf, .rbuf = recvbuf, .rcount = (size_t)count,
                  .rdt = datatype);
    VBT_API_CHECK(check_reduce_args(c, call, sendbuf, count, recvbuf, count, datatype, op, &o));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, kind,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .rbuf = recvbuf,
                                                    .rcount = (size_t)count,
                                                    .rdt = datatype,
                                                    .op = o});
    st = coll(c, sendbuf, recvbuf, (size_t)count, datatype, o);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

static int reduce_any(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : "MPI_Reduce";
    const vbt_op_t *o;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_REDUCE, op, .sbuf = sendbuf, .rbuf = recvbuf,
                  .rcount = (size_t)count, .rdt = datatype, .root = root);
    VBT_API_CHECK(vbt_api_coll_check_root(c, call, root));
    if (c->rank == root) {
        VBT_API_CHECK(check_reduce_args(c, call, sendbuf, count, recvbuf, count, datatype, op, &o));
    } else {
        /* recvbuf means nothing away from the root. */
        if (unlikely(sendbuf == MPI_IN_PLACE))
            return vbt_api_coll_bad_in_place(c, call, "sendbuf",
                                             "which MPI_Reduce allows at the root only");
        VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_send, sendbuf, count, datatype));
        VBT_API_CHECK(vbt_api_coll_check_op(c, call, op, datatype, &o));
    }
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_REDUCE,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .rbuf = recvbuf,
                                                    .rcount = (size_t)count,
                                                    .rdt = datatype,
                                                    .op = o,
                                                    .root = root});
    st = vbt_coll_reduce(c, sendbuf, recvbuf, (size_t)count, datatype, o, root);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    return reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm, NULL);
}

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    return reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm, NULL);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ireduce", 0, MPI_INFO_NULL, request};

    return reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm, &nb);
}

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ireduce_c", 0, MPI_INFO_NULL, request};

    return reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm, &nb);
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Reduce_init", 1, info, request};

    return reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm, &nb);
}

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Reduce_init_c", 1, info, request};

    return reduce_any(sendbuf, recvbuf, count, datatype, op, root, comm, &nb);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    return reduce_everywhere("MPI_Allreduce", vbt_coll_allreduce, VBT_COLL_ALLREDUCE, NULL, sendbuf,
                             recvbuf, count, datatype, op, comm);
}

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    return reduce_everywhere("MPI_Allreduce_c", vbt_coll_allreduce, VBT_COLL_ALLREDUCE, NULL,
                             sendbuf, recvbuf, count, datatype, op, comm);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iallreduce", 0, MPI_INFO_NULL, request};

    return reduce_everywhere(nb.call, vbt_coll_allreduce, VBT_COLL_ALLREDUCE, &nb, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iallreduce_c", 0, MPI_INFO_NULL, request};

    return reduce_everywhere(nb.call, vbt_coll_allreduce, VBT_COLL_ALLREDUCE, &nb, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Allreduce_init", 1, info, request};

    return reduce_everywhere(nb.call, vbt_coll_allreduce, VBT_COLL_ALLREDUCE, &nb, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Allreduce_init_c", 1, info, request};

    return reduce_everywhere(nb.call, vbt_coll_allreduce, VBT_COLL_ALLREDUCE, &nb, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

static int reduce_scatter_any(const char *bcall, const void *sendbuf, void *recvbuf,
                              vbt_coll_vec_t recvcounts, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : bcall;
    const vbt_op_t *o;
    size_t total = 0;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_REDUCE_SCATTER, op, .sbuf = sendbuf, .rbuf = recvbuf,
                  .rcounts = recvcounts, .rdt = datatype);
    VBT_API_CHECK(vbt_api_coll_check_counts(c, call, "recvcounts", recvcounts, NULL,
                                            (vbt_coll_vec_t){NULL}, c->size));
    for (int i = 0; i < c->size; i++)
        total += (size_t)vbt_coll_vec_at(recvcounts, i);
    /* In place, the whole vector is in recvbuf on entry. */
    VBT_API_CHECK(check_reduce_args(c, call, sendbuf, clamp(total), recvbuf,
                                    sendbuf == MPI_IN_PLACE
                                        ? clamp(total)
                                        : clamp((size_t)vbt_coll_vec_at(recvcounts, c->rank)),
                                    datatype, op, &o));
    if (nb != NULL)
        return vbt_api_coll_post(
            c, nb, VBT_COLL_REDUCE_SCATTER,
            &(vbt_coll_args_t){
                .sbuf = sendbuf, .rbuf = recvbuf, .rcounts = recvcounts, .rdt = datatype, .op = o});
    st = vbt_coll_reduce_scatter(c, sendbuf, recvbuf, recvcounts, datatype, o);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter_any("MPI_Reduce_scatter", sendbuf, recvbuf, vbt_coll_vec_int(recvcounts),
                              datatype, op, comm, NULL);
}

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter_any("MPI_Reduce_scatter_c", sendbuf, recvbuf,
                              vbt_coll_vec_count(recvcounts), datatype, op, comm, NULL);
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ireduce_scatter", 0, MPI_INFO_NULL, request};

    return reduce_scatter_any("MPI_Ireduce_scatter", sendbuf, recvbuf, vbt_coll_vec_int(recvcounts),
                              datatype, op, comm, &nb);
}

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ireduce_scatter_c", 0, MPI_INFO_NULL, request};

    return reduce_scatter_any("MPI_Ireduce_scatter_c", sendbuf, recvbuf,
                              vbt_coll_vec_count(recvcounts), datatype, op, comm, &nb);
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Reduce_scatter_init", 1, info, request};

    return reduce_scatter_any("MPI_Reduce_scatter_init", sendbuf, recvbuf,
                              vbt_coll_vec_int(recvcounts), datatype, op, comm, &nb);
}

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Reduce_scatter_init_c", 1, info, request};

    return reduce_scatter_any("MPI_Reduce_scatter_init_c", sendbuf, recvbuf,
                              vbt_coll_vec_count(recvcounts), datatype, op, comm, &nb);
}

static int reduce_scatter_block_any(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : "MPI_Reduce_scatter_block";
    const vbt_op_t *o;
    size_t total;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_REDUCE_SCATTER_BLOCK, op, .sbuf = sendbuf, .rbuf = recvbuf,
                  .rcount = (size_t)recvcount, .rdt = datatype);
    if (unlikely(recvcount < 0))
        return vbt_error_raise(c, call, MPI_ERR_COUNT,
                               "argument recvcount is %lld; it must be 0 or more",
                               (long long)recvcount);
    total = (size_t)recvcount * (size_t)c->size;
    VBT_API_CHECK(check_reduce_args(c, call, sendbuf, clamp(total), recvbuf,
                                    sendbuf == MPI_IN_PLACE ? clamp(total) : recvcount, datatype,
                                    op, &o));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_REDUCE_SCATTER_BLOCK,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .rbuf = recvbuf,
                                                    .rcount = (size_t)recvcount,
                                                    .rdt = datatype,
                                                    .op = o});
    st = vbt_coll_reduce_scatter_block(c, sendbuf, recvbuf, (size_t)recvcount, datatype, o);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter_block_any(sendbuf, recvbuf, recvcount, datatype, op, comm, NULL);
}

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter_block_any(sendbuf, recvbuf, recvcount, datatype, op, comm, NULL);
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ireduce_scatter_block", 0, MPI_INFO_NULL, request};

    return reduce_scatter_block_any(sendbuf, recvbuf, recvcount, datatype, op, comm, &nb);
}

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ireduce_scatter_block_c", 0, MPI_INFO_NULL, request};

    return reduce_scatter_block_any(sendbuf, recvbuf, recvcount, datatype, op, comm, &nb);
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Reduce_scatter_block_init", 1, info, request};

    return reduce_scatter_block_any(sendbuf, recvbuf, recvcount, datatype, op, comm, &nb);
}

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Reduce_scatter_block_init_c", 1, info, request};

    return reduce_scatter_block_any(sendbuf, recvbuf, recvcount, datatype, op, comm, &nb);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return reduce_everywhere("MPI_Scan", vbt_coll_scan, VBT_COLL_SCAN, NULL, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    return reduce_everywhere("MPI_Scan_c", vbt_coll_scan, VBT_COLL_SCAN, NULL, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iscan", 0, MPI_INFO_NULL, request};

    return reduce_everywhere(nb.call, vbt_coll_scan, VBT_COLL_SCAN, &nb, sendbuf, recvbuf, count,
                             datatype, op, comm);
}

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iscan_c", 0, MPI_INFO_NULL, request};

    return reduce_everywhere(nb.call, vbt_coll_scan, VBT_COLL_SCAN, &nb, sendbuf, recvbuf, count,
                             datatype, op, comm);
}

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Scan_init", 1, info, request};

    return reduce_everywhere(nb.call, vbt_coll_scan, VBT_COLL_SCAN, &nb, sendbuf, recvbuf, count,
                             datatype, op, comm);
}

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Scan_init_c", 1, info, request};

    return reduce_everywhere(nb.call, vbt_coll_scan, VBT_COLL_SCAN, &nb, sendbuf, recvbuf, count,
                             datatype, op, comm);
}

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return reduce_everywhere("MPI_Exscan", vbt_coll_exscan, VBT_COLL_EXSCAN, NULL, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    return reduce_everywhere("MPI_Exscan_c", vbt_coll_exscan, VBT_COLL_EXSCAN, NULL, sendbuf,
                             recvbuf, count, datatype, op, comm);
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iexscan", 0, MPI_INFO_NULL, request};

    return reduce_everywhere(nb.call, vbt_coll_exscan, VBT_COLL_EXSCAN, &nb, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iexscan_c", 0, MPI_INFO_NULL, request};

    return reduce_everywhere(nb.call, vbt_coll_exscan, VBT_COLL_EXSCAN, &nb, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Exscan_init", 1, info, request};

    return reduce_everywhere(nb.call, vbt_coll_exscan, VBT_COLL_EXSCAN, &nb, sendbuf, recvbuf,
                             count, datatype, op, comm);
}

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Exscan_init_c", 1, info, request};

    return reduce_everywhere(nb.call, vbt_coll_exscan, VBT_COLL_EXSCAN, &nb, sendbuf, recvbuf,
                             count, datatype, op, comm);
}
