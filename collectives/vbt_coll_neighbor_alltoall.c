/* MPI_Neighbor_alltoall: send block j to out-neighbour j, receive block i from in-neighbour i,
 * blocks of one size packed one after the other. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_neighbor_alltoall(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                        MPI_Datatype sdt, void *rbuf, size_t rcount,
                                        MPI_Datatype rdt)
{
    vbt_coll_nbuf_t s = {.buf = sbuf, .count = scount, .dt = sdt};
    vbt_coll_nbuf_t r = {.buf = rbuf, .count = rcount, .dt = rdt};

    return vbt_coll_neighbor_exchange(comm, &s, &r, VBT_COLL_TAG_NEIGHBOR_ALLTOALL);
}
