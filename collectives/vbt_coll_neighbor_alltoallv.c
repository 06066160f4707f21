/* MPI_Neighbor_alltoallv: as alltoall, each block with its own count and displacement (in
 * elements of the datatype). */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_neighbor_alltoallv(vbt_comm_t *comm, const void *sbuf, const int *scounts,
                                         const int *sdispls, MPI_Datatype sdt, void *rbuf,
                                         const int *rcounts, const int *rdispls, MPI_Datatype rdt)
{
    vbt_coll_nbuf_t s = {.buf = sbuf, .dt = sdt, .counts = scounts, .displs = sdispls};
    vbt_coll_nbuf_t r = {.buf = rbuf, .dt = rdt, .counts = rcounts, .displs = rdispls};

    return vbt_coll_neighbor_exchange(comm, &s, &r, VBT_COLL_TAG_NEIGHBOR_ALLTOALLV);
}
