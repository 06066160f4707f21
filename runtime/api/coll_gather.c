/* MPI_Gather, Gatherv, Allgather, Allgatherv. */
#include "vbt_api_coll.h"

VBT_PMPI_ALIAS(Gather)
VBT_PMPI_ALIAS(Gather_c)
VBT_PMPI_ALIAS(Igather)
VBT_PMPI_ALIAS(Igather_c)
VBT_PMPI_ALIAS(Gather_init)
VBT_PMPI_ALIAS(Gather_init_c)
VBT_PMPI_ALIAS(Gatherv)
VBT_PMPI_ALIAS(Gatherv_c)
VBT_PMPI_ALIAS(Igatherv)
VBT_PMPI_ALIAS(Igatherv_c)
VBT_PMPI_ALIAS(Gatherv_init)
VBT_PMPI_ALIAS(Gatherv_init_c)
VBT_PMPI_ALIAS(Allgather)
VBT_PMPI_ALIAS(Allgather_c)
VBT_PMPI_ALIAS(Iallgather)
VBT_PMPI_ALIAS(Iallgather_c)
VBT_PMPI_ALIAS(Allgather_init)
VBT_PMPI_ALIAS(Allgather_init_c)
VBT_PMPI_ALIAS(Allgatherv)
VBT_PMPI_ALIAS(Allgatherv_c)
VBT_PMPI_ALIAS(Iallgatherv)
VBT_PMPI_ALIAS(Iallgatherv_c)
VBT_PMPI_ALIAS(Allgatherv_init)
VBT_PMPI_ALIAS(Allgatherv_init_c)

/* The send side: sendbuf may be MPI_IN_PLACE where in_place_ok (why says where it may be). */
static int check_send(vbt_comm_t *c, const char *call, const void *sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, const void *recvbuf, int in_place_ok, const char *why)
{
    if (sendbuf == MPI_IN_PLACE)
        return in_place_ok ? MPI_SUCCESS : vbt_api_coll_bad_in_place(c, call, "sendbuf", why);
    VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_send, sendbuf, sendcount, sendtype));
    if (unlikely(sendbuf == recvbuf && sendcount > 0))
        return vbt_api_coll_aliased(c, call);
    return MPI_SUCCESS;
}

/* recvbuf of a v collective: datatype valid, and a buffer unless every count is 0. */
static int check_recv_v(vbt_comm_t *c, const char *call, const void *recvbuf, vbt_coll_vec_t counts,
                        vbt_coll_vec_t displs, MPI_Datatype recvtype)
{
    int any = 0;

    VBT_API_CHECK(
        vbt_api_coll_check_counts(c, call, "recvcounts", counts, "displs", displs, c->size));
    for (int i = 0; i < c->size; i++)
        any |= vbt_coll_vec_at(counts, i) > 0;
    if (unlikely(recvbuf == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "recvbuf", "which is allowed for sendbuf only");
    return vbt_api_coll_check_buffer(c, call, &vbt_api_recv, recvbuf, any, recvtype);
}

static int gather_any(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : "MPI_Gather";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_GATHER, MPI_OP_NULL, .sbuf = sendbuf,
                  .scount = (size_t)sendcount, .sdt = sendtype, .rbuf = recvbuf,
                  .rcount = (size_t)recvcount, .rdt = recvtype, .root = root);
    VBT_API_CHECK(vbt_api_coll_check_root(c, call, root));
    if (c->rank == root) {
        if (unlikely(recvbuf == MPI_IN_PLACE))
            return vbt_api_coll_bad_in_place(c, call, "recvbuf",
                                             "which is allowed for sendbuf only");
        VBT_API_CHECK(
            vbt_api_coll_check_buffer(c, call, &vbt_api_recv, recvbuf, recvcount, recvtype));
    }
    VBT_API_CHECK(check_send(c, call, sendbuf, sendcount, sendtype,
                             c->rank == root ? recvbuf : NULL, c->rank == root,
                             "which MPI_Gather allows at the root only"));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_GATHER,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scount = (size_t)sendcount,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcount = (size_t)recvcount,
                                                    .rdt = recvtype,
                                                    .root = root});
    st = vbt_coll_gather(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount,
                         recvtype, root);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL);
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL);
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Igather", 0, MPI_INFO_NULL, request};

    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &nb);
}

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Igather_c", 0, MPI_INFO_NULL, request};

    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &nb);
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Gather_init", 1, info, request};

    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &nb);
}

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Gather_init_c", 1, info, request};

    return gather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &nb);
}

static int gatherv_any(const char *bcall, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf, vbt_coll_vec_t recvcounts,
                       vbt_coll_vec_t displs, MPI_Datatype recvtype, int root, MPI_Comm comm,
                       const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : bcall;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_GATHERV, MPI_OP_NULL, .sbuf = sendbuf,
                  .scount = (size_t)sendcount, .sdt = sendtype, .rbuf = recvbuf,
                  .rcounts = recvcounts, .rdispls = displs, .rdt = recvtype, .root = root);
    VBT_API_CHECK(vbt_api_coll_check_root(c, call, root));
    if (c->rank == root)
        VBT_API_CHECK(check_recv_v(c, call, recvbuf, recvcounts, displs, recvtype));
    VBT_API_CHECK(check_send(c, call, sendbuf, sendcount, sendtype,
                             c->rank == root ? recvbuf : NULL, c->rank == root,
                             "which MPI_Gatherv allows at the root only"));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_GATHERV,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scount = (size_t)sendcount,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcounts = recvcounts,
                                                    .rdispls = displs,
                                                    .rdt = recvtype,
                                                    .root = root});
    st = vbt_coll_gatherv(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts, displs,
                          recvtype, root);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    return gatherv_any("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf,
                       vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(displs), recvtype, root, comm,
                       NULL);
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm)
{
    return gatherv_any("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                       vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(displs), recvtype, root,
                       comm, NULL);
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Igatherv", 0, MPI_INFO_NULL, request};

    return gatherv_any("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf,
                       vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(displs), recvtype, root, comm,
                       &nb);
}

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Igatherv_c", 0, MPI_INFO_NULL, request};

    return gatherv_any("MPI_Igatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                       vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(displs), recvtype, root,
                       comm, &nb);
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Gatherv_init", 1, info, request};

    return gatherv_any("MPI_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                       vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(displs), recvtype, root, comm,
                       &nb);
}

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Gatherv_init_c", 1, info, request};

    return gatherv_any("MPI_Gatherv_init_c", sendbuf, sendcount, sendtype, recvbuf,
                       vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(displs), recvtype, root,
                       comm, &nb);
}

static int allgather_any(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : "MPI_Allgather";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_ALLGATHER, MPI_OP_NULL, .sbuf = sendbuf,
                  .scount = (size_t)sendcount, .sdt = sendtype, .rbuf = recvbuf,
                  .rcount = (size_t)recvcount, .rdt = recvtype);
    VBT_API_CHECK(vbt_api_coll_check_blocks(c, call, sendbuf, sendcount, sendtype, recvbuf,
                                            recvcount, recvtype));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_ALLGATHER,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scount = (size_t)sendcount,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcount = (size_t)recvcount,
                                                    .rdt = recvtype});
    st = vbt_coll_allgather(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount,
                            recvtype);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL);
}

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL);
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iallgather", 0, MPI_INFO_NULL, request};

    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &nb);
}

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iallgather_c", 0, MPI_INFO_NULL, request};

    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &nb);
}

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Allgather_init", 1, info, request};

    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &nb);
}

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Allgather_init_c", 1, info, request};

    return allgather_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &nb);
}

static int allgatherv_any(const char *bcall, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf, vbt_coll_vec_t recvcounts,
                          vbt_coll_vec_t displs, MPI_Datatype recvtype, MPI_Comm comm,
                          const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : bcall;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_ALLGATHERV, MPI_OP_NULL, .sbuf = sendbuf,
                  .scount = (size_t)sendcount, .sdt = sendtype, .rbuf = recvbuf,
                  .rcounts = recvcounts, .rdispls = displs, .rdt = recvtype);
    VBT_API_CHECK(check_recv_v(c, call, recvbuf, recvcounts, displs, recvtype));
    VBT_API_CHECK(check_send(c, call, sendbuf, sendcount, sendtype, recvbuf, 1, NULL));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_ALLGATHERV,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scount = (size_t)sendcount,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcounts = recvcounts,
                                                    .rdispls = displs,
                                                    .rdt = recvtype});
    st = vbt_coll_allgatherv(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    return allgatherv_any("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                          vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(displs), recvtype, comm,
                          NULL);
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv_any("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                          vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(displs), recvtype, comm,
                          NULL);
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iallgatherv", 0, MPI_INFO_NULL, request};

    return allgatherv_any("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf,
                          vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(displs), recvtype, comm,
                          &nb);
}

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Iallgatherv_c", 0, MPI_INFO_NULL, request};

    return allgatherv_any("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                          vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(displs), recvtype, comm,
                          &nb);
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Allgatherv_init", 1, info, request};

    return allgatherv_any("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                          vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(displs), recvtype, comm,
                          &nb);
}

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Allgatherv_init_c", 1, info, request};

    return allgatherv_any("MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf,
                          vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(displs), recvtype, comm,
                          &nb);
}
