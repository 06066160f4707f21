/* MPI_Neighbor_alltoallw: as alltoallv, each block with its own datatype and its displacement
 * in bytes (MPI_Aint, unlike MPI_Alltoallw's int). */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_neighbor_alltoallw(vbt_comm_t *comm, const void *sbuf, const int *scounts,
                                         const MPI_Aint *sdispls, const MPI_Datatype *sdts,
                                         void *rbuf, const int *rcounts, const MPI_Aint *rdispls,
                                         const MPI_Datatype *rdts)
{
    vbt_coll_nbuf_t s = {.buf = sbuf, .counts = scounts, .bdispls = sdispls, .dts = sdts};
    vbt_coll_nbuf_t r = {.buf = rbuf, .counts = rcounts, .bdispls = rdispls, .dts = rdts};

    return vbt_coll_neighbor_exchange(comm, &s, &r, VBT_COLL_TAG_NEIGHBOR_ALLTOALLW);
}
