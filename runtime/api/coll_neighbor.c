/* MPI_Neighbor_allgather, _allgatherv, _alltoall, _alltoallv, _alltoallw. The argument arrays
 * have one entry per in-neighbour (receive side) or out-neighbour (send side) of the
 * communicator's topology, so the topology is checked first. MPI_IN_PLACE has no meaning here
 * (MPI-4.1 Sec. 8.6) and is refused on both sides. */
#include "vbt_api_coll.h"
#include "vbt_topo.h"

#include <stdio.h>

VBT_PMPI_ALIAS(Neighbor_allgather)
VBT_PMPI_ALIAS(Neighbor_allgather_c)
VBT_PMPI_ALIAS(Ineighbor_allgather)
VBT_PMPI_ALIAS(Ineighbor_allgather_c)
VBT_PMPI_ALIAS(Neighbor_allgather_init)
VBT_PMPI_ALIAS(Neighbor_allgather_init_c)
VBT_PMPI_ALIAS(Neighbor_allgatherv)
VBT_PMPI_ALIAS(Neighbor_allgatherv_c)
VBT_PMPI_ALIAS(Ineighbor_allgatherv)
VBT_PMPI_ALIAS(Ineighbor_allgatherv_c)
VBT_PMPI_ALIAS(Neighbor_allgatherv_init)
VBT_PMPI_ALIAS(Neighbor_allgatherv_init_c)
VBT_PMPI_ALIAS(Neighbor_alltoall)
VBT_PMPI_ALIAS(Neighbor_alltoall_c)
VBT_PMPI_ALIAS(Ineighbor_alltoall)
VBT_PMPI_ALIAS(Ineighbor_alltoall_c)
VBT_PMPI_ALIAS(Neighbor_alltoall_init)
VBT_PMPI_ALIAS(Neighbor_alltoall_init_c)
VBT_PMPI_ALIAS(Neighbor_alltoallv)
VBT_PMPI_ALIAS(Neighbor_alltoallv_c)
VBT_PMPI_ALIAS(Ineighbor_alltoallv)
VBT_PMPI_ALIAS(Ineighbor_alltoallv_c)
VBT_PMPI_ALIAS(Neighbor_alltoallv_init)
VBT_PMPI_ALIAS(Neighbor_alltoallv_init_c)
VBT_PMPI_ALIAS(Neighbor_alltoallw)
VBT_PMPI_ALIAS(Neighbor_alltoallw_c)
VBT_PMPI_ALIAS(Ineighbor_alltoallw)
VBT_PMPI_ALIAS(Ineighbor_alltoallw_c)
VBT_PMPI_ALIAS(Neighbor_alltoallw_init)
VBT_PMPI_ALIAS(Neighbor_alltoallw_init_c)

/* The degrees of c's topology, or MPI_ERR_TOPOLOGY raised when it has none. */
static int check_topo(vbt_comm_t *c, const char *call, int *indegree_p, int *outdegree_p)
{
    const int *sources, *destinations;

    if (unlikely(c->topo == NULL ||
                 vbt_topo_neighbors(c, indegree_p, &sources, outdegree_p, &destinations) != VBT_OK))
        return vbt_error_raise(c, call, MPI_ERR_TOPOLOGY,
                               "argument comm has no topology; create one with "
                               "MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create");
    return MPI_SUCCESS;
}

static int check_not_in_place(vbt_comm_t *c, const char *call, const void *sendbuf,
                              const void *recvbuf)
{
    if (unlikely(sendbuf == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "sendbuf",
                                         "which neighborhood collectives do not allow");
    if (unlikely(recvbuf == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "recvbuf",
                                         "which neighborhood collectives do not allow");
    return MPI_SUCCESS;
}

/* One side of a v/w call: n counts (and displacements, unless displs_name is NULL: w's
 * MPI_Aint displacements and its types array are checked by check_w_arrays), and a buffer
 * unless every count is 0. types is NULL for the v calls (one datatype, type). With n 0 the
 * arrays may be NULL. */
static int check_side(vbt_comm_t *c, const char *call, const vbt_api_bufname_t *name,
                      const void *buf, int n, vbt_coll_vec_t counts, const char *counts_name,
                      vbt_coll_vec_t displs, const char *displs_name, MPI_Datatype type,
                      const MPI_Datatype *types, const char *types_name)
{
    int any = 0;

    if (n == 0)
        return types == NULL ? vbt_api_coll_check_buffer(c, call, name, buf, 0, type) : MPI_SUCCESS;
    VBT_API_CHECK(vbt_api_coll_check_counts(c, call, counts_name, counts, displs_name, displs, n));
    for (int i = 0; i < n; i++)
        any |= vbt_coll_vec_at(counts, i) > 0;
    if (types == NULL)
        return vbt_api_coll_check_buffer(c, call, name, buf, any, type);
    for (int i = 0; i < n; i++) {
        char tname[48];
        vbt_api_bufname_t nm = {name->buf, counts_name, tname};

        snprintf(tname, sizeof(tname), "%s[%d]", types_name, i);
        VBT_API_CHECK(
            vbt_api_coll_check_buffer(c, call, &nm, buf, vbt_coll_vec_at(counts, i), types[i]));
    }
    return MPI_SUCCESS;
}

typedef vbt_status_t (*vbt_neighbor_blocks_fn)(vbt_comm_t *, const void *, size_t, MPI_Datatype,
                                               void *, size_t, MPI_Datatype);

/* Neighbor_allgather and Neighbor_alltoall take the same arguments and checks; only the
 * exchange differs. */
static int neighbor_blocks(const char *call, vbt_neighbor_blocks_fn coll, vbt_coll_kind_t kind,
                           const vbt_api_nb_t *nb, const void *sendbuf, MPI_Count sendcount,
                           MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    int indegree, outdegree;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTRA(c, call, "comm");
    VBT_API_CHECK(check_topo(c, call, &indegree, &outdegree));
    VBT_API_CHECK(check_not_in_place(c, call, sendbuf, recvbuf));
    VBT_API_CHECK(vbt_api_coll_check_blocks(c, call, sendbuf, sendcount, sendtype, recvbuf,
                                            recvcount, recvtype));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, kind,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scount = (size_t)sendcount,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcount = (size_t)recvcount,
                                                    .rdt = recvtype});
    st = coll(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount, recvtype);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_blocks("MPI_Neighbor_allgather", vbt_coll_neighbor_allgather,
                           VBT_COLL_NEIGHBOR_ALLGATHER, NULL, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, comm);
}

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    return neighbor_blocks("MPI_Neighbor_allgather_c", vbt_coll_neighbor_allgather,
                           VBT_COLL_NEIGHBOR_ALLGATHER, NULL, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, comm);
}

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_allgather", 0, MPI_INFO_NULL, request};

    return neighbor_blocks(nb.call, vbt_coll_neighbor_allgather, VBT_COLL_NEIGHBOR_ALLGATHER, &nb,
                           sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_allgather_c", 0, MPI_INFO_NULL, request};

    return neighbor_blocks(nb.call, vbt_coll_neighbor_allgather, VBT_COLL_NEIGHBOR_ALLGATHER, &nb,
                           sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_allgather_init", 1, info, request};

    return neighbor_blocks(nb.call, vbt_coll_neighbor_allgather, VBT_COLL_NEIGHBOR_ALLGATHER, &nb,
                           sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_allgather_init_c", 1, info, request};

    return neighbor_blocks(nb.call, vbt_coll_neighbor_allgather, VBT_COLL_NEIGHBOR_ALLGATHER, &nb,
                           sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

static int neighbor_allgatherv_any(const char *bcall, const void *sendbuf, MPI_Count sendcount,
                                   MPI_Datatype sendtype, void *recvbuf, vbt_coll_vec_t recvcounts,
                                   vbt_coll_vec_t displs, MPI_Datatype recvtype, MPI_Comm comm,
                                   const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : bcall;
    int indegree, outdegree;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTRA(c, call, "comm");
    VBT_API_CHECK(check_topo(c, call, &indegree, &outdegree));
    VBT_API_CHECK(check_not_in_place(c, call, sendbuf, recvbuf));
    VBT_API_CHECK(check_side(c, call, &vbt_api_recv, recvbuf, indegree, recvcounts, "recvcounts",
                             displs, "displs", recvtype, NULL, NULL));
    VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_send, sendbuf, sendcount, sendtype));
    if (unlikely(sendbuf == recvbuf && sendbuf != NULL && sendcount > 0))
        return vbt_api_coll_aliased(c, call);
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_NEIGHBOR_ALLGATHERV,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scount = (size_t)sendcount,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcounts = recvcounts,
                                                    .rdispls = displs,
                                                    .rdt = recvtype});
    st = vbt_coll_neighbor_allgatherv(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts,
                                      displs, recvtype);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_allgatherv_any("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf,
                                   vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(displs), recvtype,
                                   comm, NULL);
}

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_allgatherv_any("MPI_Neighbor_allgatherv_c", sendbuf, sendcount, sendtype,
                                   recvbuf, vbt_coll_vec_count(recvcounts),
                                   vbt_coll_vec_aint(displs), recvtype, comm, NULL);
}

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_allgatherv", 0, MPI_INFO_NULL, request};

    return neighbor_allgatherv_any("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype,
                                   recvbuf, vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(displs),
                                   recvtype, comm, &nb);
}

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_allgatherv_c", 0, MPI_INFO_NULL, request};

    return neighbor_allgatherv_any("MPI_Ineighbor_allgatherv_c", sendbuf, sendcount, sendtype,
                                   recvbuf, vbt_coll_vec_count(recvcounts),
                                   vbt_coll_vec_aint(displs), recvtype, comm, &nb);
}

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_allgatherv_init", 1, info, request};

    return neighbor_allgatherv_any("MPI_Neighbor_allgatherv_init", sendbuf, sendcount, sendtype,
                                   recvbuf, vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(displs),
                                   recvtype, comm, &nb);
}

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_allgatherv_init_c", 1, info, request};

    return neighbor_allgatherv_any("MPI_Neighbor_allgatherv_init_c", sendbuf, sendcount, sendtype,
                                   recvbuf, vbt_coll_vec_count(recvcounts),
                                   vbt_coll_vec_aint(displs), recvtype, comm, &nb);
}

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_blocks("MPI_Neighbor_alltoall", vbt_coll_neighbor_alltoall,
                           VBT_COLL_NEIGHBOR_ALLTOALL, NULL, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, comm);
}

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    return neighbor_blocks("MPI_Neighbor_alltoall_c", vbt_coll_neighbor_alltoall,
                           VBT_COLL_NEIGHBOR_ALLTOALL, NULL, sendbuf, sendcount, sendtype, recvbuf,
                           recvcount, recvtype, comm);
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_alltoall", 0, MPI_INFO_NULL, request};

    return neighbor_blocks(nb.call, vbt_coll_neighbor_alltoall, VBT_COLL_NEIGHBOR_ALLTOALL, &nb,
                           sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_alltoall_c", 0, MPI_INFO_NULL, request};

    return neighbor_blocks(nb.call, vbt_coll_neighbor_alltoall, VBT_COLL_NEIGHBOR_ALLTOALL, &nb,
                           sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_alltoall_init", 1, info, request};

    return neighbor_blocks(nb.call, vbt_coll_neighbor_alltoall, VBT_COLL_NEIGHBOR_ALLTOALL, &nb,
                           sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_alltoall_init_c", 1, info, request};

    return neighbor_blocks(nb.call, vbt_coll_neighbor_alltoall, VBT_COLL_NEIGHBOR_ALLTOALL, &nb,
                           sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

static int neighbor_alltoallv_any(const char *bcall, const void *sendbuf, vbt_coll_vec_t sendcounts,
                                  vbt_coll_vec_t sdispls, MPI_Datatype sendtype, void *recvbuf,
                                  vbt_coll_vec_t recvcounts, vbt_coll_vec_t rdispls,
                                  MPI_Datatype recvtype, MPI_Comm comm, const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : bcall;
    int indegree, outdegree;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTRA(c, call, "comm");
    VBT_API_CHECK(check_topo(c, call, &indegree, &outdegree));
    VBT_API_CHECK(check_not_in_place(c, call, sendbuf, recvbuf));
    VBT_API_CHECK(check_side(c, call, &vbt_api_recv, recvbuf, indegree, recvcounts, "recvcounts",
                             rdispls, "rdispls", recvtype, NULL, NULL));
    VBT_API_CHECK(check_side(c, call, &vbt_api_send, sendbuf, outdegree, sendcounts, "sendcounts",
                             sdispls, "sdispls", sendtype, NULL, NULL));
    if (unlikely(sendbuf == recvbuf && sendbuf != NULL))
        return vbt_api_coll_aliased(c, call);
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_NEIGHBOR_ALLTOALLV,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scounts = sendcounts,
                                                    .sdispls = sdispls,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcounts = recvcounts,
                                                    .rdispls = rdispls,
                                                    .rdt = recvtype});
    st = vbt_coll_neighbor_alltoallv(c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                     rdispls, recvtype);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_alltoallv_any("MPI_Neighbor_alltoallv", sendbuf, vbt_coll_vec_int(sendcounts),
                                  vbt_coll_vec_int(sdispls), sendtype, recvbuf,
                                  vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(rdispls), recvtype,
                                  comm, NULL);
}

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor_alltoallv_any("MPI_Neighbor_alltoallv_c", sendbuf,
                                  vbt_coll_vec_count(sendcounts), vbt_coll_vec_aint(sdispls),
                                  sendtype, recvbuf, vbt_coll_vec_count(recvcounts),
                                  vbt_coll_vec_aint(rdispls), recvtype, comm, NULL);
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_alltoallv", 0, MPI_INFO_NULL, request};

    return neighbor_alltoallv_any("MPI_Ineighbor_alltoallv", sendbuf, vbt_coll_vec_int(sendcounts),
                                  vbt_coll_vec_int(sdispls), sendtype, recvbuf,
                                  vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(rdispls), recvtype,
                                  comm, &nb);
}

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_alltoallv_c", 0, MPI_INFO_NULL, request};

    return neighbor_alltoallv_any("MPI_Ineighbor_alltoallv_c", sendbuf,
                                  vbt_coll_vec_count(sendcounts), vbt_coll_vec_aint(sdispls),
                                  sendtype, recvbuf, vbt_coll_vec_count(recvcounts),
                                  vbt_coll_vec_aint(rdispls), recvtype, comm, &nb);
}

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_alltoallv_init", 1, info, request};

    return neighbor_alltoallv_any("MPI_Neighbor_alltoallv_init", sendbuf,
                                  vbt_coll_vec_int(sendcounts), vbt_coll_vec_int(sdispls), sendtype,
                                  recvbuf, vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(rdispls),
                                  recvtype, comm, &nb);
}

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_alltoallv_init_c", 1, info, request};

    return neighbor_alltoallv_any("MPI_Neighbor_alltoallv_init_c", sendbuf,
                                  vbt_coll_vec_count(sendcounts), vbt_coll_vec_aint(sdispls),
                                  sendtype, recvbuf, vbt_coll_vec_count(recvcounts),
                                  vbt_coll_vec_aint(rdispls), recvtype, comm, &nb);
}

/* w's arrays besides the counts: byte displacements and datatypes, present when n > 0. */
static int check_w_arrays(vbt_comm_t *c, const char *call, int n, vbt_coll_vec_t displs,
                          const char *displs_name, const MPI_Datatype *types,
                          const char *types_name)
{
    if (n > 0 && unlikely(!vbt_coll_vec_set(displs)))
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument %s is NULL; pass an array of %d displacements",
                               displs_name, n);
    if (n > 0 && unlikely(types == NULL))
        return vbt_error_raise(c, call, MPI_ERR_ARG,
                               "argument %s is NULL; pass an array of %d datatypes", types_name, n);
    return MPI_SUCCESS;
}

static int neighbor_alltoallw_any(const char *bcall, const void *sendbuf, vbt_coll_vec_t sendcounts,
                                  vbt_coll_vec_t sdispls, const MPI_Datatype sendtypes[],
                                  void *recvbuf, vbt_coll_vec_t recvcounts, vbt_coll_vec_t rdispls,
                                  const MPI_Datatype recvtypes[], MPI_Comm comm,
                                  const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : bcall;
    int indegree, outdegree;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTRA(c, call, "comm");
    VBT_API_CHECK(check_topo(c, call, &indegree, &outdegree));
    VBT_API_CHECK(check_not_in_place(c, call, sendbuf, recvbuf));
    VBT_API_CHECK(check_w_arrays(c, call, indegree, rdispls, "rdispls", recvtypes, "recvtypes"));
    VBT_API_CHECK(check_side(c, call, &vbt_api_recv, recvbuf, indegree, recvcounts, "recvcounts",
                             (vbt_coll_vec_t){NULL}, NULL, MPI_DATATYPE_NULL, recvtypes,
                             "recvtypes"));
    VBT_API_CHECK(check_w_arrays(c, call, outdegree, sdispls, "sdispls", sendtypes, "sendtypes"));
    VBT_API_CHECK(check_side(c, call, &vbt_api_send, sendbuf, outdegree, sendcounts, "sendcounts",
                             (vbt_coll_vec_t){NULL}, NULL, MPI_DATATYPE_NULL, sendtypes,
                             "sendtypes"));
    if (unlikely(sendbuf == recvbuf && sendbuf != NULL))
        return vbt_api_coll_aliased(c, call);
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_NEIGHBOR_ALLTOALLW,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scounts = sendcounts,
                                                    .sdispls = sdispls,
                                                    .sdts = sendtypes,
                                                    .rbuf = recvbuf,
                                                    .rcounts = recvcounts,
                                                    .rdispls = rdispls,
                                                    .rdts = recvtypes});
    st = vbt_coll_neighbor_alltoallw(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                     recvcounts, rdispls, recvtypes);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return neighbor_alltoallw_any("MPI_Neighbor_alltoallw", sendbuf, vbt_coll_vec_int(sendcounts),
                                  vbt_coll_vec_aint(sdispls), sendtypes, recvbuf,
                                  vbt_coll_vec_int(recvcounts), vbt_coll_vec_aint(rdispls),
                                  recvtypes, comm, NULL);
}

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return neighbor_alltoallw_any("MPI_Neighbor_alltoallw_c", sendbuf,
                                  vbt_coll_vec_count(sendcounts), vbt_coll_vec_aint(sdispls),
                                  sendtypes, recvbuf, vbt_coll_vec_count(recvcounts),
                                  vbt_coll_vec_aint(rdispls), recvtypes, comm, NULL);
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_alltoallw", 0, MPI_INFO_NULL, request};

    return neighbor_alltoallw_any("MPI_Ineighbor_alltoallw", sendbuf, vbt_coll_vec_int(sendcounts),
                                  vbt_coll_vec_aint(sdispls), sendtypes, recvbuf,
                                  vbt_coll_vec_int(recvcounts), vbt_coll_vec_aint(rdispls),
                                  recvtypes, comm, &nb);
}

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ineighbor_alltoallw_c", 0, MPI_INFO_NULL, request};

    return neighbor_alltoallw_any("MPI_Ineighbor_alltoallw_c", sendbuf,
                                  vbt_coll_vec_count(sendcounts), vbt_coll_vec_aint(sdispls),
                                  sendtypes, recvbuf, vbt_coll_vec_count(recvcounts),
                                  vbt_coll_vec_aint(rdispls), recvtypes, comm, &nb);
}

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_alltoallw_init", 1, info, request};

    return neighbor_alltoallw_any("MPI_Neighbor_alltoallw_init", sendbuf,
                                  vbt_coll_vec_int(sendcounts), vbt_coll_vec_aint(sdispls),
                                  sendtypes, recvbuf, vbt_coll_vec_int(recvcounts),
                                  vbt_coll_vec_aint(rdispls), recvtypes, comm, &nb);
}

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Neighbor_alltoallw_init_c", 1, info, request};

    return neighbor_alltoallw_any("MPI_Neighbor_alltoallw_init_c", sendbuf,
                                  vbt_coll_vec_count(sendcounts), vbt_coll_vec_aint(sdispls),
                                  sendtypes, recvbuf, vbt_coll_vec_count(recvcounts),
                                  vbt_coll_vec_aint(rdispls), recvtypes, comm, &nb);
}
