/* Bruck's allgather: every rank keeps the blocks it has so far at the front of a temporary
 * buffer, its own first; in round k it sends the first min(2^k, n - 2^k) of them to the rank
 * 2^k below and appends those of the rank 2^k above. ceil(log2 n) rounds for any n, then one
 * rotation into place: the choice for short blocks when n is not a power of two. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_allgather_bruck(vbt_comm_t *comm, const vbt_coll_own_t *own, void *rbuf,
                                      size_t rcount, MPI_Datatype rdt)
{
    int n = comm->size, me = comm->rank;
    void *tmp;
    vbt_status_t st;

    tmp = vbt_coll_tmp_alloc((size_t)n * rcount, rdt);
    if (tmp == NULL)
        return VBT_ERR_NO_MEMORY;
    /* tmp[i] is the block of rank me + i; ours reaches rbuf with the final rotation. */
    if (own != NULL)
        st = vbt_coll_copy(own->buf, own->count, own->dt, tmp, rcount, rdt);
    else
        st = vbt_coll_copy(vbt_coll_at(rbuf, (size_t)me * rcount, rdt), rcount, rdt, tmp, rcount,
                           rdt);
    for (int dist = 1; dist < n && st == VBT_OK; dist <<= 1) {
        size_t k = (size_t)(dist < n - dist ? dist : n - dist) * rcount;

        st = vbt_coll_sendrecv(comm, tmp, k, rdt, (me - dist + n) % n,
                               vbt_coll_at(tmp, (size_t)dist * rcount, rdt), k, rdt,
                               (me + dist) % n, VBT_COLL_TAG_ALLGATHER);
    }
    if (st == VBT_OK)
        st = vbt_coll_copy(tmp, (size_t)(n - me) * rcount, rdt,
                           vbt_coll_at(rbuf, (size_t)me * rcount, rdt), (size_t)(n - me) * rcount,
                           rdt);
    if (st == VBT_OK)
        st = vbt_coll_copy(vbt_coll_at(tmp, (size_t)(n - me) * rcount, rdt), (size_t)me * rcount,
                           rdt, rbuf, (size_t)me * rcount, rdt);
    vbt_coll_tmp_free(tmp, (size_t)n * rcount, rdt);
    return st;
}
