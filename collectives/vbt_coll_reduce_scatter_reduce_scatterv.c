/* Reduce-scatter as a binomial reduce of the whole vector to rank 0 followed by a linear
 * scatterv: log2 n rounds, and the binomial reduce keeps rank order, so this is the algorithm
 * for non-commutative ops and for short vectors, where latency counts more than volume. */
#include "vbt_coll_int.h"

#include <stdlib.h>

vbt_status_t vbt_coll_reduce_scatter_reduce_scatterv(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                                     vbt_coll_vec_t counts, MPI_Datatype dt,
                                                     const vbt_op_t *op, int tag)
{
    int n = comm->size, me = comm->rank, nreq = 0;
    size_t total = 0, off = 0;
    void *full = NULL;
    vbt_request_t *stack[VBT_COLL_STACK_RANKS], **reqs = NULL;
    vbt_status_t st;

    for (int i = 0; i < n; i++)
        total += (size_t)vbt_coll_vec_at(counts, i);
    if (me == 0) {
        full = vbt_coll_tmp_alloc(total, dt);
        reqs = vbt_coll_scratch(stack, sizeof(stack), (size_t)n * sizeof(*reqs));
        if (full == NULL || reqs == NULL) {
            st = VBT_ERR_NO_MEMORY;
            goto out;
        }
    }
    st = vbt_coll_reduce_binomial(comm, sbuf, full, total, dt, op, 0, tag);
    if (st != VBT_OK)
        goto out;
    /* Empty blocks are not sent: a rank whose block is empty is done once it has passed its
     * part of the reduce on. */
    if (me != 0) {
        if (vbt_coll_vec_at(counts, me) > 0)
            st = vbt_coll_recv(comm, rbuf, (size_t)vbt_coll_vec_at(counts, me), dt, 0, tag);
        goto out;
    }
    for (int i = 0; i < n; off += (size_t)vbt_coll_vec_at(counts, i), i++) {
        if (i == 0)
            st = vbt_coll_copy(full, (size_t)vbt_coll_vec_at(counts, 0), dt, rbuf,
                               (size_t)vbt_coll_vec_at(counts, 0), dt);
        else if (vbt_coll_vec_at(counts, i) > 0)
            st = vbt_coll_isend(comm, vbt_coll_at(full, off, dt),
                                (size_t)vbt_coll_vec_at(counts, i), dt, i, tag, &reqs[nreq++]);
        if (st != VBT_OK)
            break;
    }
    st = vbt_coll_finish(reqs, nreq, st);
out:
    vbt_coll_scratch_free(reqs, stack);
    vbt_coll_tmp_free(full, total, dt);
    return st;
}
