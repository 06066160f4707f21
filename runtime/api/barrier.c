/* MPI_Barrier, Ibarrier, Barrier_init; the algorithms live in collectives/. */
#include "vbt_api_coll.h"

VBT_PMPI_ALIAS(Barrier)
VBT_PMPI_ALIAS(Ibarrier)
VBT_PMPI_ALIAS(Barrier_init)

int PMPI_Barrier(MPI_Comm comm)
{
    vbt_status_t st;

    VBT_API_ENTER("MPI_Barrier");
    VBT_API_COMM(c, comm, "MPI_Barrier");
    VBT_API_INTER(c, "MPI_Barrier", NULL, VBT_COLL_BARRIER, MPI_OP_NULL, .root = 0);
    st = vbt_coll_barrier(c);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, "MPI_Barrier", st);
    return MPI_SUCCESS;
}

static int barrier_nb(MPI_Comm comm, const vbt_api_nb_t *nb)
{
    VBT_API_ENTER(nb->call);
    VBT_API_COMM(c, comm, nb->call);
    return vbt_api_coll_post(c, nb, VBT_COLL_BARRIER, &(vbt_coll_args_t){.root = 0});
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Ibarrier", 0, MPI_INFO_NULL, request};

    return barrier_nb(comm, &nb);
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    vbt_api_nb_t nb = {"MPI_Barrier_init", 1, info, request};

    return barrier_nb(comm, &nb);
}
