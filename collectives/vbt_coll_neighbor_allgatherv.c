/* MPI_Neighbor_allgatherv: the one send block to every out-neighbour, rcounts[i] elements at
 * displs[i] from in-neighbour i. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_neighbor_allgatherv(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                          MPI_Datatype sdt, void *rbuf, vbt_coll_vec_t rcounts,
                                          vbt_coll_vec_t displs, MPI_Datatype rdt)
{
    vbt_coll_nbuf_t s = {.buf = sbuf, .count = scount, .dt = sdt, .same = 1};
    vbt_coll_nbuf_t r = {.buf = rbuf, .dt = rdt, .counts = rcounts, .displs = displs};

    return vbt_coll_neighbor_exchange(comm, &s, &r, VBT_COLL_TAG_NEIGHBOR_ALLGATHERV);
}
