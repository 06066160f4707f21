/* Questions a rank asks of a communicator. */
#include "vbt_api.h"

VBT_PMPI_ALIAS(Comm_rank)
VBT_PMPI_ALIAS(Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    VBT_API_ENTER("MPI_Comm_rank");
    VBT_API_COMM(c, comm, "MPI_Comm_rank");
    if (unlikely(rank == NULL))
        return vbt_error_raise(c, "MPI_Comm_rank", MPI_ERR_ARG,
                               "argument rank is NULL; pass the address of an int");
    *rank = c->rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    VBT_API_ENTER("MPI_Comm_size");
    VBT_API_COMM(c, comm, "MPI_Comm_size");
    if (unlikely(size == NULL))
        return vbt_error_raise(c, "MPI_Comm_size", MPI_ERR_ARG,
                               "argument size is NULL; pass the address of an int");
    *size = c->size;
    return MPI_SUCCESS;
}
