/* MPI_Gather, Gatherv, Allgather, Allgatherv. */
#include "vbt_api_coll.h"

VBT_PMPI_ALIAS(Gather)
VBT_PMPI_ALIAS(Gatherv)
VBT_PMPI_ALIAS(Allgather)
VBT_PMPI_ALIAS(Allgatherv)

/* The send side: sendbuf may be MPI_IN_PLACE where in_place_ok (why says where it may be). */
static int check_send(vbt_comm_t *c, const char *call, const void *sendbuf, int sendcount,
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
static int check_recv_v(vbt_comm_t *c, const char *call, const void *recvbuf, const int *counts,
                        const int *displs, MPI_Datatype recvtype)
{
    int any = 0;

    VBT_API_CHECK(
        vbt_api_coll_check_counts(c, call, "recvcounts", counts, "displs", displs, c->size));
    for (int i = 0; i < c->size; i++)
        any |= counts[i] > 0;
    if (unlikely(recvbuf == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "recvbuf", "which is allowed for sendbuf only");
    return vbt_api_coll_check_buffer(c, call, &vbt_api_recv, recvbuf, any, recvtype);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Gather";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
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
    st = vbt_coll_gather(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount,
                         recvtype, root);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    static const char call[] = "MPI_Gatherv";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(vbt_api_coll_check_root(c, call, root));
    if (c->rank == root)
        VBT_API_CHECK(check_recv_v(c, call, recvbuf, recvcounts, displs, recvtype));
    VBT_API_CHECK(check_send(c, call, sendbuf, sendcount, sendtype,
                             c->rank == root ? recvbuf : NULL, c->rank == root,
                             "which MPI_Gatherv allows at the root only"));
    st = vbt_coll_gatherv(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts, displs,
                          recvtype, root);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char call[] = "MPI_Allgather";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(vbt_api_coll_check_blocks(c, call, sendbuf, sendcount, sendtype, recvbuf,
                                            recvcount, recvtype));
    st = vbt_coll_allgather(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, (size_t)recvcount,
                            recvtype);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    static const char call[] = "MPI_Allgatherv";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(check_recv_v(c, call, recvbuf, recvcounts, displs, recvtype));
    VBT_API_CHECK(check_send(c, call, sendbuf, sendcount, sendtype, recvbuf, 1, NULL));
    st = vbt_coll_allgatherv(c, sendbuf, (size_t)sendcount, sendtype, recvbuf, recvcounts, displs,
                             recvtype);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}
