/* Recursive-doubling allreduce: in round k every rank exchanges its whole partial result with
 * the rank 2^k away and combines the two, so log2 n rounds of the full vector: the choice for
 * short vectors. A group that is not a power of two is first folded: of the first 2 * rem ranks
 * (rem = n - 2^floor(log2 n)), each even one hands its vector to the odd one above it and waits
 * for the result at the end. Every partial covers consecutive ranks, and the lower range is
 * always the left operand, so non-commutative ops are applied in rank order. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_allreduce_recursive_doubling(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                                   size_t count, MPI_Datatype dt,
                                                   const vbt_op_t *op)
{
    int n = comm->size, me = comm->rank;
    int commute = vbt_op_commutative(op);
    int pof2, rem, newrank;
    void *tmp;
    vbt_status_t st;

    st = vbt_coll_copy(sbuf, count, dt, rbuf, count, dt);
    if (st != VBT_OK || n == 1)
        return st;
    tmp = vbt_coll_tmp_alloc(count, dt);
    if (tmp == NULL)
        return VBT_ERR_NO_MEMORY;
    pof2 = vbt_coll_pof2_floor(n);
    rem = n - pof2;

    st = vbt_coll_pof2_fold(comm, rbuf, tmp, count, dt, op, rem, VBT_COLL_TAG_ALLREDUCE, &newrank);
    if (st != VBT_OK)
        goto out;

    for (int mask = 1; newrank >= 0 && mask < pof2; mask <<= 1) {
        int newdst = newrank ^ mask;
        int dst = vbt_coll_pof2_rank(newdst, rem);

        st = vbt_coll_sendrecv(comm, rbuf, count, dt, dst, tmp, count, dt, dst,
                               VBT_COLL_TAG_ALLREDUCE);
        if (st != VBT_OK)
            goto out;
        if (commute || dst < me) {
            st = vbt_coll_reduce_local(op, tmp, rbuf, count, dt);
        } else {
            st = vbt_coll_reduce_local(op, rbuf, tmp, count, dt);
            if (st == VBT_OK)
                st = vbt_coll_copy(tmp, count, dt, rbuf, count, dt);
        }
        if (st != VBT_OK)
            goto out;
    }

    st = vbt_coll_pof2_unfold(comm, rbuf, count, dt, rem, VBT_COLL_TAG_ALLREDUCE);
out:
    vbt_coll_tmp_free(tmp, count, dt);
    return st;
}
