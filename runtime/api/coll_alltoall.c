/* MPI_Alltoall, Alltoallv, Alltoallw. */
#include "vbt_api_coll.h"

#include <stdio.h>

VBT_PMPI_ALIAS(Alltoall)
VBT_PMPI_ALIAS(Alltoall_c)
VBT_PMPI_ALIAS(Ialltoall)
VBT_PMPI_ALIAS(Ialltoall_c)
VBT_PMPI_ALIAS(Alltoall_init)
VBT_PMPI_ALIAS(Alltoall_init_c)
VBT_PMPI_ALIAS(Alltoallv)
VBT_PMPI_ALIAS(Alltoallv_c)
VBT_PMPI_ALIAS(Ialltoallv)
VBT_PMPI_ALIAS(Ialltoallv_c)
VBT_PMPI_ALIAS(Alltoallv_init)
VBT_PMPI_ALIAS(Alltoallv_init_c)
VBT_PMPI_ALIAS(Alltoallw)
VBT_PMPI_ALIAS(Alltoallw_c)
VBT_PMPI_ALIAS(Ialltoallw)
VBT_PMPI_ALIAS(Ialltoallw_c)
VBT_PMPI_ALIAS(Alltoallw_init)
VBT_PMPI_ALIAS(Alltoallw_init_c)

static int alltoall_any(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : "MPI_Alltoall";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_ALLTOALL, MPI_OP_NULL, .sbuf = sendbuf,
                  .scount = (size_t)sendcount, .sdt = sendtype, .rbuf = recvbuf,
                  .rcount = (size_t)recvcount, .rdt = recvtype);
    VBT_API_CHECK(vbt_api_coll_check_blocks(c, call, sendbuf, sendcount, sendtype, recvbuf,
                                            recvcount, recvtype));
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_ALLTOALL,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scount = (size_t)sendcount,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcount = (size_t)recvcount,
                                                    .rdt = recvtype});
    st = vbt_coll_alltoall(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount,
                           recvtype);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL);
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL);
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ialltoall", 0, MPI_INFO_NULL, request};

    return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &nb);
}

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ialltoall_c", 0, MPI_INFO_NULL, request};

    return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &nb);
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Alltoall_init", 1, info, request};

    return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &nb);
}

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Alltoall_init_c", 1, info, request};

    return alltoall_any(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &nb);
}

/* One side of a v/w exchange: the arrays, and a buffer unless every count is 0. types is NULL
 * for alltoallv (one datatype, type). */
static int check_side(vbt_comm_t *c, const char *call, const vbt_api_bufname_t *name,
                      const void *buf, vbt_coll_vec_t counts, const char *counts_name,
                      vbt_coll_vec_t displs, const char *displs_name, MPI_Datatype type,
                      const MPI_Datatype *types, const char *types_name)
{
    int any = 0;

    VBT_API_CHECK(
        vbt_api_coll_check_counts(c, call, counts_name, counts, displs_name, displs, c->size));
    for (int i = 0; i < c->size; i++)
        any |= vbt_coll_vec_at(counts, i) > 0;
    if (types == NULL)
        return vbt_api_coll_check_buffer(c, call, name, buf, any, type);
    for (int i = 0; i < c->size; i++) {
        char tname[48];
        vbt_api_bufname_t n = {name->buf, counts_name, tname};

        snprintf(tname, sizeof(tname), "%s[%d]", types_name, i);
        VBT_API_CHECK(
            vbt_api_coll_check_buffer(c, call, &n, buf, vbt_coll_vec_at(counts, i), types[i]));
    }
    return MPI_SUCCESS;
}

static int alltoallv_any(const char *bcall, const void *sendbuf, vbt_coll_vec_t sendcounts,
                         vbt_coll_vec_t sdispls, MPI_Datatype sendtype, void *recvbuf,
                         vbt_coll_vec_t recvcounts, vbt_coll_vec_t rdispls, MPI_Datatype recvtype,
                         MPI_Comm comm, const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : bcall;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_ALLTOALLV, MPI_OP_NULL, .sbuf = sendbuf,
                  .scounts = sendcounts, .sdispls = sdispls, .sdt = sendtype, .rbuf = recvbuf,
                  .rcounts = recvcounts, .rdispls = rdispls, .rdt = recvtype);
    if (unlikely(recvbuf == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "recvbuf", "which is allowed for sendbuf only");
    VBT_API_CHECK(check_side(c, call, &vbt_api_recv, recvbuf, recvcounts, "recvcounts", rdispls,
                             "rdispls", recvtype, NULL, NULL));
    if (sendbuf != MPI_IN_PLACE) {
        VBT_API_CHECK(check_side(c, call, &vbt_api_send, sendbuf, sendcounts, "sendcounts", sdispls,
                                 "sdispls", sendtype, NULL, NULL));
        if (unlikely(sendbuf == recvbuf && sendbuf != NULL))
            return vbt_api_coll_aliased(c, call);
    }
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_ALLTOALLV,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scounts = sendcounts,
                                                    .sdispls = sdispls,
                                                    .sdt = sendtype,
                                                    .rbuf = recvbuf,
                                                    .rcounts = recvcounts,
                                                    .rdispls = rdispls,
                                                    .rdt = recvtype});
    st = vbt_coll_alltoallv(c, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv_any("MPI_Alltoallv", sendbuf, vbt_coll_vec_int(sendcounts),
                         vbt_coll_vec_int(sdispls), sendtype, recvbuf, vbt_coll_vec_int(recvcounts),
                         vbt_coll_vec_int(rdispls), recvtype, comm, NULL);
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv_any("MPI_Alltoallv_c", sendbuf, vbt_coll_vec_count(sendcounts),
                         vbt_coll_vec_aint(sdispls), sendtype, recvbuf,
                         vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(rdispls), recvtype, comm,
                         NULL);
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ialltoallv", 0, MPI_INFO_NULL, request};

    return alltoallv_any("MPI_Ialltoallv", sendbuf, vbt_coll_vec_int(sendcounts),
                         vbt_coll_vec_int(sdispls), sendtype, recvbuf, vbt_coll_vec_int(recvcounts),
                         vbt_coll_vec_int(rdispls), recvtype, comm, &nb);
}

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ialltoallv_c", 0, MPI_INFO_NULL, request};

    return alltoallv_any("MPI_Ialltoallv_c", sendbuf, vbt_coll_vec_count(sendcounts),
                         vbt_coll_vec_aint(sdispls), sendtype, recvbuf,
                         vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(rdispls), recvtype, comm,
                         &nb);
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Alltoallv_init", 1, info, request};

    return alltoallv_any("MPI_Alltoallv_init", sendbuf, vbt_coll_vec_int(sendcounts),
                         vbt_coll_vec_int(sdispls), sendtype, recvbuf, vbt_coll_vec_int(recvcounts),
                         vbt_coll_vec_int(rdispls), recvtype, comm, &nb);
}

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Alltoallv_init_c", 1, info, request};

    return alltoallv_any("MPI_Alltoallv_init_c", sendbuf, vbt_coll_vec_count(sendcounts),
                         vbt_coll_vec_aint(sdispls), sendtype, recvbuf,
                         vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(rdispls), recvtype, comm,
                         &nb);
}

static int alltoallw_any(const char *bcall, const void *sendbuf, vbt_coll_vec_t sendcounts,
                         vbt_coll_vec_t sdispls, const MPI_Datatype sendtypes[], void *recvbuf,
                         vbt_coll_vec_t recvcounts, vbt_coll_vec_t rdispls,
                         const MPI_Datatype recvtypes[], MPI_Comm comm, const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : bcall;
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_ALLTOALLW, MPI_OP_NULL, .sbuf = sendbuf,
                  .scounts = sendcounts, .sdispls = sdispls, .sdts = sendtypes, .rbuf = recvbuf,
                  .rcounts = recvcounts, .rdispls = rdispls, .rdts = recvtypes);
    if (unlikely(recvbuf == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "recvbuf", "which is allowed for sendbuf only");
    if (unlikely(recvtypes == NULL))
        return vbt_error_raise(c, call, MPI_ERR_ARG, "argument recvtypes is NULL");
    VBT_API_CHECK(check_side(c, call, &vbt_api_recv, recvbuf, recvcounts, "recvcounts", rdispls,
                             "rdispls", MPI_DATATYPE_NULL, recvtypes, "recvtypes"));
    if (sendbuf != MPI_IN_PLACE) {
        if (unlikely(sendtypes == NULL))
            return vbt_error_raise(c, call, MPI_ERR_ARG, "argument sendtypes is NULL");
        VBT_API_CHECK(check_side(c, call, &vbt_api_send, sendbuf, sendcounts, "sendcounts", sdispls,
                                 "sdispls", MPI_DATATYPE_NULL, sendtypes, "sendtypes"));
        if (unlikely(sendbuf == recvbuf && sendbuf != NULL))
            return vbt_api_coll_aliased(c, call);
    }
    if (nb != NULL)
        return vbt_api_coll_post(c, nb, VBT_COLL_ALLTOALLW,
                                 &(vbt_coll_args_t){.sbuf = sendbuf,
                                                    .scounts = sendcounts,
                                                    .sdispls = sdispls,
                                                    .sdts = sendtypes,
                                                    .rbuf = recvbuf,
                                                    .rcounts = recvcounts,
                                                    .rdispls = rdispls,
                                                    .rdts = recvtypes});
    st = vbt_coll_alltoallw(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                            rdispls, recvtypes);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw_any("MPI_Alltoallw", sendbuf, vbt_coll_vec_int(sendcounts),
                         vbt_coll_vec_int(sdispls), sendtypes, recvbuf,
                         vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(rdispls), recvtypes, comm,
                         NULL);
}

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw_any("MPI_Alltoallw_c", sendbuf, vbt_coll_vec_count(sendcounts),
                         vbt_coll_vec_aint(sdispls), sendtypes, recvbuf,
                         vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(rdispls), recvtypes,
                         comm, NULL);
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ialltoallw", 0, MPI_INFO_NULL, request};

    return alltoallw_any("MPI_Ialltoallw", sendbuf, vbt_coll_vec_int(sendcounts),
                         vbt_coll_vec_int(sdispls), sendtypes, recvbuf,
                         vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(rdispls), recvtypes, comm,
                         &nb);
}

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ialltoallw_c", 0, MPI_INFO_NULL, request};

    return alltoallw_any("MPI_Ialltoallw_c", sendbuf, vbt_coll_vec_count(sendcounts),
                         vbt_coll_vec_aint(sdispls), sendtypes, recvbuf,
                         vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(rdispls), recvtypes,
                         comm, &nb);
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Alltoallw_init", 1, info, request};

    return alltoallw_any("MPI_Alltoallw_init", sendbuf, vbt_coll_vec_int(sendcounts),
                         vbt_coll_vec_int(sdispls), sendtypes, recvbuf,
                         vbt_coll_vec_int(recvcounts), vbt_coll_vec_int(rdispls), recvtypes, comm,
                         &nb);
}

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Alltoallw_init_c", 1, info, request};

    return alltoallw_any("MPI_Alltoallw_init_c", sendbuf, vbt_coll_vec_count(sendcounts),
                         vbt_coll_vec_aint(sdispls), sendtypes, recvbuf,
                         vbt_coll_vec_count(recvcounts), vbt_coll_vec_aint(rdispls), recvtypes,
                         comm, &nb);
}
