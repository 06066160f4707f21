/* MPI_Bcast; the algorithms live in collectives/. */
#include "vbt_api_coll.h"

VBT_PMPI_ALIAS(Bcast)

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char call[] = "MPI_Bcast";
    vbt_status_t st;

    VBT_API_ENTER(call);
    VBT_API_COMM(c, comm, call);
    VBT_API_CHECK(vbt_api_coll_check_root(c, call, root));
    if (unlikely(buffer == MPI_IN_PLACE))
        return vbt_api_coll_bad_in_place(c, call, "buffer", "which MPI_Bcast does not allow");
    VBT_API_CHECK(vbt_api_coll_check_buffer(c, call, &vbt_api_inout, buffer, count, datatype));
    st = vbt_coll_bcast(c, buffer, (size_t)count, datatype, root);
    if (unlikely(st != VBT_OK))
        return vbt_api_failed(c, call, st);
    return MPI_SUCCESS;
}
