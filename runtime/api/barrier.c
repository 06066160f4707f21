/* MPI_Barrier; the algorithm lives in collectives/. */
#include "vbt_api.h"
#include "vbt_coll.h"
#include "vbt_api_p2p.h"

VBT_PMPI_ALIAS(Barrier)

int PMPI_Barrier(MPI_Comm comm)
{
    vbt_status_t st;

    VBT_API_ENTER("MPI_Barrier");
    VBT_API_COMM(c, comm, "MPI_Barrier");
    st = vbt_coll_barrier(c);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, "MPI_Barrier", st);
    return MPI_SUCCESS;
}
