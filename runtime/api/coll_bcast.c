/* MPI_Bcast; the algorithms live in collectives/. */
#include "vbt_api_coll.h"

VBT_PMPI_ALIAS(Bcast)
VBT_PMPI_ALIAS(Bcast_c)
VBT_PMPI_ALIAS(Ibcast)
VBT_PMPI_ALIAS(Ibcast_c)
VBT_PMPI_ALIAS(Bcast_init)
VBT_PMPI_ALIAS(Bcast_init_c)

static int bcast_any(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     const vbt_api_nb_t *nb)
{
    const char *call = nb != NULL ? nb->call : "MPI_Bcast";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_INTER(c, call, nb, VBT_COLL_BCAST, MPI_OP_NULL, .rbuf = buffer, .rcount = (size_t)count,
                  .rdt = datatype, .root = root);
    VBT_API_CHECK(vbt_api_coll_check_root(c, call, root));
    if (unlikely(buffer == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "buffer", "which MPI_Bcast does not allow");
    VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_inout, buffer, count, datatype));
    if (nb != NULL)
        return vbt_api_coll_post(
            c, nb, VBT_COLL_BCAST,
            &(vbt_coll_args_t){
                .rbuf = buffer, .rcount = (size_t)count, .rdt = datatype, .root = root});
    st = vbt_coll_bcast(c, buffer, (size_t)count, datatype, root);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast_any(buffer, count, datatype, root, comm, NULL);
}

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast_any(buffer, count, datatype, root, comm, NULL);
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ibcast", 0, MPI_INFO_NULL, request};

    return bcast_any(buffer, count, datatype, root, comm, &nb);
}

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ibcast_c", 0, MPI_INFO_NULL, request};

    return bcast_any(buffer, count, datatype, root, comm, &nb);
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Bcast_init", 1, info, request};

    return bcast_any(buffer, count, datatype, root, comm, &nb);
}

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Bcast_init_c", 1, info, request};

    return bcast_any(buffer, count, datatype, root, comm, &nb);
}
