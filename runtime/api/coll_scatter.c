/* MPI_Scatter, Scatterv. */
#include "vbt_api_coll.h"

VBT_PMPI_ALIAS(Scatter)
VBT_PMPI_ALIAS(Scatter_c)
VBT_PMPI_ALIAS(Iscatter)
VBT_PMPI_ALIAS(Iscatter_c)
VBT_PMPI_ALIAS(Scatter_init)
VBT_PMPI_ALIAS(Scatter_init_c)
VBT_PMPI_ALIAS(Scatterv)
VBT_PMPI_ALIAS(Scatterv_c)
VBT_PMPI_ALIAS(Iscatterv)
VBT_PMPI_ALIAS(Iscatterv_c)
VBT_PMPI_ALIAS(Scatterv_init)
VBT_PMPI_ALIAS(Scatterv_init_c)

/* The receive side: recvbuf may be MPI_IN_PLACE at the root only. */
static int check_recv(vbt_comm_t *c, const char *call, void *recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, const void *sendbuf, int root, const char *why)
{
    if (recvbuf == MPI_IN_PLACE)
        return c->rank == root ? MPI_SUCCESS : vbt_api_coll_bad_in_place(c, call, "recvbuf", why);
    VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_recv, recvbuf, recvcount, recvtype));
    if (unlikely(c->rank == root && sendbuf == recvbuf && recvcount > 0))
        return vbt_error_raise(c, call, MPI_ERR_BUFFER,
                               "sendbuf and recvbuf are the same buffer, which MPI forbids: pass "
                               "MPI_IN_PLACE as recvbuf at the root to work in place");
    return MPI_SUCCESS;
}

static int scatter_any(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : "MPI_Scatter";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_SCATTER, MPI_OP_NULL, .sbuf = sendbuf,
                  .scount = (size_t)sendcount, .sdt = sendtype, .rbuf = recvbuf,
                  .rcount = (size_t)recvcount, .rdt = recvtype, .root = root);
    VBT_API_CHECK(vbt_api_coll_check_root(c, call, root));
    if (c->rank == root) {
        if (unlikely(sendbuf == MPI_IN_PLACE))
            return vbt_api_coll_bad_in_place(c, call, "sendbuf",
                                             "which is allowed for recvbuf (at the root) only");
        VBT_API_CHECK(
            vbt_api_coll_check_buffer(c, call, &vbt_api_send, sendbuf, sendcount, sendtype));
    }
    VBT_API_CHECK(check_recv(c, call, recvbuf, recvcount, recvtype, sendbuf, root,
                             "which MPI_Scatter allows at the root only"));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_SCATTER,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scount = (size_t)sendcount,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcount = (size_t)recvcount,
                                                    .rdt = recvtype,
                                                    .root = root});
    st = vbt_coll_scatter(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount,
                          recvtype, root);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       NULL);
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       NULL);
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iscatter", 0, MPI_INFO_NULL, request};

    return scatter_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &nb);
}

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iscatter_c", 0, MPI_INFO_NULL, request};

    return scatter_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &nb);
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Scatter_init", 1, info, request};

    return scatter_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &nb);
}

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Scatter_init_c", 1, info, request};

    return scatter_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &nb);
}

static int scatterv_any(const char *bcall, const void *sendbuf, vbt_coll_vec_t sendcounts,
                        vbt_coll_vec_t displs, MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : bcall;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_SCATTERV, MPI_OP_NULL, .sbuf = sendbuf,
                  .scounts = sendcounts, .sdispls = displs, .sdt = sendtype, .rbuf = recvbuf,
                  .rcount = (size_t)recvcount, .rdt = recvtype, .root = root);
    VBT_API_CHECK(vbt_api_coll_check_root(c, call, root));
    if (c->rank == root) {
        int any = 0;

        VBT_API_CHECK(vbt_api_coll_check_counts(c, call, "sendcounts", sendcounts, "displs", displs,
                                                c->size));
        for (int i = 0; i < c->size; i++)
            any |= vbt_coll_vec_at(sendcounts, i) > 0;
        if (unlikely(sendbuf == MPI_IN_PLACE))
            return vbt_api_coll_bad_in_place(c, call, "sendbuf",
                                             "which is allowed for recvbuf (at the root) only");
        VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_send, sendbuf, any, sendtype));
    }
    VBT_API_CHECK(check_recv(c, call, recvbuf, recvcount, recvtype, sendbuf, root,
                             "which MPI_Scatterv allows at the root only"));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_SCATTERV,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scounts = sendcounts,
                                                    .sdispls = displs,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcount = (size_t)recvcount,
                                                    .rdt = recvtype,
                                                    .root = root});
    st = vbt_coll_scatterv(c, sendbuf, sendcounts, displs, sendtype, recvbuf, (size_t)recvcount,
                           recvtype, root);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    return scatterv_any("MPI_Scatterv", sendbuf, vbt_coll_vec_int(sendcounts),
                        vbt_coll_vec_int(displs), sendtype, recvbuf, recvcount, recvtype, root,
                        comm, NULL);
}

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatterv_any("MPI_Scatterv_c", sendbuf, vbt_coll_vec_count(sendcounts),
                        vbt_coll_vec_aint(displs), sendtype, recvbuf, recvcount, recvtype, root,
                        comm, NULL);
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iscatterv", 0, MPI_INFO_NULL, request};

    return scatterv_any("MPI_Iscatterv", sendbuf, vbt_coll_vec_int(sendcounts),
                        vbt_coll_vec_int(displs), sendtype, recvbuf, recvcount, recvtype, root,
                        comm, &nb);
}

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iscatterv_c", 0, MPI_INFO_NULL, request};

    return scatterv_any("MPI_Iscatterv_c", sendbuf, vbt_coll_vec_count(sendcounts),
                        vbt_coll_vec_aint(displs), sendtype, recvbuf, recvcount, recvtype, root,
                        comm, &nb);
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Scatterv_init", 1, info, request};

    return scatterv_any("MPI_Scatterv_init", sendbuf, vbt_coll_vec_int(sendcounts),
                        vbt_coll_vec_int(displs), sendtype, recvbuf, recvcount, recvtype, root,
                        comm, &nb);
}

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Scatterv_init_c", 1, info, request};

    return scatterv_any("MPI_Scatterv_init_c", sendbuf, vbt_coll_vec_count(sendcounts),
                        vbt_coll_vec_aint(displs), sendtype, recvbuf, recvcount, recvtype, root,
                        comm, &nb);
}
