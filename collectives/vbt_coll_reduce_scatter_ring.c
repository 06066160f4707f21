/* Ring reduce-scatter: partial sums of the whole vector go once round the ring in n - 1 steps
 * (vbt_coll_ring_reduce_scatter), each rank adding its part to the block passing by, so that
 * rank i ends with block i complete. Every rank sends (n-1)/n of the vector: the choice for
 * long vectors with commutative ops (partial results wrap around the ring). */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_reduce_scatter_ring(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                          vbt_coll_vec_t counts, MPI_Datatype dt,
                                          const vbt_op_t *op, int tag)
{
    int n = comm->size, me = comm->rank;
    size_t stack[2 * VBT_COLL_STACK_RANKS], *cnts, *displs, total = 0;
    void *work = NULL;
    vbt_status_t st = VBT_ERR_NO_MEMORY;

    if (n == 1)
        return vbt_coll_copy(sbuf, (size_t)vbt_coll_vec_at(counts, 0), dt, rbuf,
                             (size_t)vbt_coll_vec_at(counts, 0), dt);
    cnts = vbt_coll_scratch(stack, sizeof(stack), 2 * (size_t)n * sizeof(*cnts));
    if (cnts == NULL)
        return VBT_ERR_NO_MEMORY;
    displs = cnts + n;
    for (int i = 0; i < n; i++) {
        cnts[i] = (size_t)vbt_coll_vec_at(counts, i);
        displs[i] = total;
        total += cnts[i];
    }
    work = vbt_coll_tmp_alloc(total, dt);
    if (work == NULL)
        goto out;
    if (sbuf != rbuf) {
        st = vbt_coll_ring_reduce_scatter(comm, sbuf, work, rbuf, cnts, displs, dt, op, tag);
    } else { /* MPI_IN_PLACE: our block lands in work until sbuf is no longer read */
        st = vbt_coll_ring_reduce_scatter(comm, sbuf, work, NULL, cnts, displs, dt, op, tag);
        if (st == VBT_OK)
            st = vbt_coll_copy(vbt_coll_at(work, displs[me], dt), cnts[me], dt, rbuf, cnts[me], dt);
    }
out:
    vbt_coll_tmp_free(work, total, dt);
    vbt_coll_scratch_free(cnts, stack);
    return st;
}
