/* MPI_Neighbor_alltoallv: as alltoall, each block with its own count and displacement (in
 * elements of the datatype). */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_neighbor_alltoallv(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                                         vbt_coll_vec_t sdispls, MPI_Datatype sdt, void *rbuf,
                                         vbt_coll_vec_t rcounts, vbt_coll_vec_t rdispls,
                                         MPI_Datatype rdt)
{
    vbt_coll_nbuf_t s = {.buf = sbuf, .dt = sdt, .counts = scounts, .displs = sdispls};
    vbt_coll_nbuf_t r = {.buf = rbuf, .dt = rdt, .counts = rcounts, .displs = rdispls};

    return vbt_coll_neighbor_exchange(comm, &s, &r, VBT_COLL_TAG_NEIGHBOR_ALLTOALLV);
}
