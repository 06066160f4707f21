/* Ring allgatherv: the ring allgather with blocks of each rank's own size and place. Blocks
 * differ in size, so neither Bruck nor recursive doubling would send contiguous data; the ring
 * does, and moves each byte once per link. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_allgatherv_ring(vbt_comm_t *comm, const vbt_coll_own_t *own, void *rbuf,
                                      const vbt_coll_vbuf_t *rv)
{
    int n = comm->size;
    size_t stack[2 * VBT_COLL_STACK_RANKS], *counts, *displs;
    vbt_status_t st;

    counts = vbt_coll_scratch(stack, sizeof(stack), 2 * (size_t)n * sizeof(*counts));
    if (counts == NULL)
        return VBT_ERR_NO_MEMORY;
    displs = counts + n;
    for (int i = 0; i < n; i++) {
        counts[i] = (size_t)vbt_coll_vec_at(rv->counts, i);
        displs[i] = (size_t)vbt_coll_vec_at(rv->displs, i);
    }
    st = vbt_coll_ring_allgather(comm, rbuf, counts, displs, rv->dt, own, VBT_COLL_TAG_ALLGATHERV);
    vbt_coll_scratch_free(counts, stack);
    return st;
}
