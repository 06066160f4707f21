/* Ring allgather: in n - 1 steps each rank passes the block it received last to its right
 * neighbour while taking the next from its left. Every block crosses every link once and only
 * neighbours talk: the choice for long blocks. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_allgather_ring(vbt_comm_t *comm, const vbt_coll_own_t *own, void *rbuf,
                                     size_t rcount, MPI_Datatype rdt)
{
    int n = comm->size;
    size_t stack[2 * VBT_COLL_STACK_RANKS], *counts, *displs;
    vbt_status_t st;

    counts = vbt_coll_scratch(stack, sizeof(stack), 2 * (size_t)n * sizeof(*counts));
    if (counts == NULL)
        return VBT_ERR_NO_MEMORY;
    displs = counts + n;
    for (int i = 0; i < n; i++) {
        counts[i] = rcount;
        displs[i] = (size_t)i * rcount;
    }
    st = vbt_coll_ring_allgather(comm, rbuf, counts, displs, rdt, own, VBT_COLL_TAG_ALLGATHER);
    vbt_coll_scratch_free(counts, stack);
    return st;
}
