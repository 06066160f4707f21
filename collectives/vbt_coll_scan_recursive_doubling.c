/* Recursive-doubling inclusive scan: in round k each rank swaps the reduction of its 2^k-rank
 * group so far with the rank 2^k away; the lower group's partial is added to the upper ranks'
 * results, and both sides fold the other group into the group partial, lower operand first.
 * ceil(log2 n) rounds, and rank order is kept, so any op. The exclusive scan runs the same
 * rounds (vbt_coll_scan_rounds) and only treats the rank's own result differently. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_scan_rounds(vbt_comm_t *comm, const void *mine, void *rbuf, size_t count,
                                  MPI_Datatype dt, const vbt_op_t *op, int exclusive, int tag)
{
    int n = comm->size, me = comm->rank;
    int commute = vbt_op_commutative(op);
    /* Whether rbuf holds a value to add to: the inclusive scan starts from its own. */
    int have = !exclusive;
    void *partial = NULL, *tmp = NULL;
    vbt_status_t st;

    partial = vbt_coll_tmp_alloc(count, dt);
    tmp = vbt_coll_tmp_alloc(count, dt);
    if (partial == NULL || tmp == NULL) {
        st = VBT_ERR_NO_MEMORY;
        goto out;
    }
    st = vbt_coll_copy(mine, count, dt, partial, count, dt);
    for (int mask = 1; mask < n && st == VBT_OK; mask <<= 1) {
        int dst = me ^ mask;

        if (dst >= n)
            continue;
        st = vbt_coll_sendrecv(comm, partial, count, dt, dst, tmp, count, dt, dst, tag);
        if (st != VBT_OK)
            break;
        if (me > dst) {
            st = vbt_coll_reduce_local(op, tmp, partial, count, dt);
            if (st != VBT_OK) {
                break;
            } else if (have) {
                st = vbt_coll_reduce_local(op, tmp, rbuf, count, dt);
            } else {
                st = vbt_coll_copy(tmp, count, dt, rbuf, count, dt);
                have = 1;
            }
        } else if (commute) {
            st = vbt_coll_reduce_local(op, tmp, partial, count, dt);
        } else {
            st = vbt_coll_reduce_local(op, partial, tmp, count, dt);
            if (st == VBT_OK)
                st = vbt_coll_copy(tmp, count, dt, partial, count, dt);
        }
    }
out:
    vbt_coll_tmp_free(tmp, count, dt);
    vbt_coll_tmp_free(partial, count, dt);
    return st;
}

vbt_status_t vbt_coll_scan_recursive_doubling(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                              size_t count, MPI_Datatype dt, const vbt_op_t *op)
{
    vbt_status_t st;

    st = vbt_coll_copy(sbuf, count, dt, rbuf, count, dt);
    if (st != VBT_OK || comm->size == 1)
        return st;
    return vbt_coll_scan_rounds(comm, rbuf, rbuf, count, dt, op, 0, VBT_COLL_TAG_SCAN);
}
