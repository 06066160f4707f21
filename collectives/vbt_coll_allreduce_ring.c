/* Ring allreduce: a ring reduce-scatter of n blocks (rank r ends with block r complete), then a
 * ring allgather of those blocks. Each rank sends 2 (n-1)/n of the vector, in blocks that
 * stream through both neighbour links at once, with no folding step for groups that are not
 * powers of two: the choice for very long vectors. Partial sums wrap around the ring, so
 * commutative ops only. */
#include "vbt_coll_int.h"

#include <stdlib.h>

vbt_status_t vbt_coll_allreduce_ring(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                                     MPI_Datatype dt, const vbt_op_t *op)
{
    int n = comm->size;
    size_t *counts, *displs;
    void *tmp;
    vbt_status_t st;

    st = vbt_coll_copy(sbuf, count, dt, rbuf, count, dt);
    if (st != VBT_OK || n == 1)
        return st;
    counts = malloc(2 * (size_t)n * sizeof(*counts));
    if (counts == NULL)
        return VBT_ERR_NO_MEMORY;
    displs = counts + n;
    for (int i = 0; i < n; i++) {
        counts[i] = count / (size_t)n + ((size_t)i < count % (size_t)n);
        displs[i] = i ? displs[i - 1] + counts[i - 1] : 0;
    }
    tmp = vbt_coll_tmp_alloc(counts[0], dt);
    if (tmp == NULL) {
        free(counts);
        return VBT_ERR_NO_MEMORY;
    }
    st = vbt_coll_ring_reduce_scatter(comm, rbuf, counts, displs, dt, op, 0, tmp,
                                      VBT_COLL_TAG_ALLREDUCE);
    if (st == VBT_OK)
        st = vbt_coll_ring_allgather(comm, rbuf, counts, displs, dt, 0, VBT_COLL_TAG_ALLREDUCE);
    vbt_coll_tmp_free(tmp, counts[0], dt);
    free(counts);
    return st;
}
