/* MPI_Neighbor_allgather: the one send block to every out-neighbour, block i of the receive
 * buffer from in-neighbour i. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_neighbor_allgather(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                         MPI_Datatype sdt, void *rbuf, size_t rcount,
                                         MPI_Datatype rdt)
{
    vbt_coll_nbuf_t s = {.buf = sbuf, .count = scount, .dt = sdt, .same = 1};
    vbt_coll_nbuf_t r = {.buf = rbuf, .count = rcount, .dt = rdt};

    return vbt_coll_neighbor_exchange(comm, &s, &r, VBT_COLL_TAG_NEIGHBOR_ALLGATHER);
}
