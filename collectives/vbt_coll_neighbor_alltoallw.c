/* MPI_Neighbor_alltoallw: as alltoallv, each block with its own datatype and its displacement
 * in bytes (MPI_Aint, unlike MPI_Alltoallw's int). */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_neighbor_alltoallw(vbt_comm_t *comm, const void *sbuf, vbt_coll_vec_t scounts,
                                         vbt_coll_vec_t sdispls, const MPI_Datatype *sdts,
                                         void *rbuf, vbt_coll_vec_t rcounts, vbt_coll_vec_t rdispls,
                                         const MPI_Datatype *rdts)
{
    vbt_coll_nbuf_t s = {.buf = sbuf, .counts = scounts, .displs = sdispls, .dts = sdts};
    vbt_coll_nbuf_t r = {.buf = rbuf, .counts = rcounts, .displs = rdispls, .dts = rdts};

    return vbt_coll_neighbor_exchange(comm, &s, &r, VBT_COLL_TAG_NEIGHBOR_ALLTOALLW);
}
