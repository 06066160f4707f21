/* Recursive-doubling exclusive scan: the inclusive scan's exchanges, but a rank's result only
 * takes what comes from lower groups (the first such partial is copied, later ones added on the
 * left). Rank 0's receive buffer is left untouched, as MPI leaves it undefined. Any op. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_exscan_recursive_doubling(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                                size_t count, MPI_Datatype dt, const vbt_op_t *op)
{
    int n = comm->size, me = comm->rank;
    int commute = vbt_op_commutative(op), have = 0;
    void *partial = NULL, *tmp = NULL;
    vbt_status_t st;

    if (n == 1)
        return VBT_OK;
    partial = vbt_coll_tmp_alloc(count, dt);
    tmp = vbt_coll_tmp_alloc(count, dt);
    if (partial == NULL || tmp == NULL) {
        st = VBT_ERR_NO_MEMORY;
        goto out;
    }
    st = vbt_coll_copy(sbuf, count, dt, partial, count, dt);
    for (int mask = 1; mask < n && st == VBT_OK; mask <<= 1) {
        int dst = me ^ mask;

        if (dst >= n)
            continue;
        st = vbt_coll_sendrecv(comm, partial, count, dt, dst, tmp, count, dt, dst,
                               VBT_COLL_TAG_EXSCAN);
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
    vbt_coll_tmp_free(tmp, dt);
    vbt_coll_tmp_free(partial, dt);
    return st;
}
