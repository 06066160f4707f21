/* Binomial-tree reduce: in round k, rank v (numbered from the root) with bit k clear adds the
 * partial result of v + 2^k to its own; with bit k set it sends its partial to v - 2^k and is
 * done. A rank's partial always covers the consecutive ranks [v, v + 2^k), so a
 * non-commutative op is applied in rank order if the tree is rooted at rank 0 (the result then
 * takes one more hop to the root). */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_reduce_binomial(vbt_comm_t *comm, const void *sbuf, void *rbuf, size_t count,
                                      MPI_Datatype dt, const vbt_op_t *op, int root, int tag)
{
    int n = comm->size, me = comm->rank;
    int commute = vbt_op_commutative(op);
    int lroot = commute ? root : 0;
    int vr = (me - lroot + n) % n;
    void *own = NULL, *tmp = NULL, *acc, *in, *swap;
    vbt_status_t st;

    /* The partial result lives in the root's rbuf when the tree ends there, else in own. */
    if (me == root && lroot == root) {
        acc = rbuf;
    } else {
        acc = own = vbt_coll_tmp_alloc(count, dt);
        if (own == NULL)
            return VBT_ERR_NO_MEMORY;
    }
    in = tmp = vbt_coll_tmp_alloc(count, dt);
    if (tmp == NULL) {
        st = VBT_ERR_NO_MEMORY;
        goto out;
    }
    st = vbt_coll_copy(sbuf, count, dt, acc, count, dt);
    if (st != VBT_OK)
        goto out;

    for (int mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            st = vbt_coll_send(comm, acc, count, dt, ((vr & ~mask) + lroot) % n, tag);
            break;
        }
        if ((vr | mask) >= n)
            continue;
        st = vbt_coll_recv(comm, in, count, dt, ((vr | mask) + lroot) % n, tag);
        if (st != VBT_OK)
            goto out;
        if (commute) {
            st = vbt_coll_reduce_local(op, in, acc, count, dt);
        } else {
            /* acc covers the lower ranks: acc op in, which lands in `in`. */
            st = vbt_coll_reduce_local(op, acc, in, count, dt);
            swap = acc;
            acc = in;
            in = swap;
        }
        if (st != VBT_OK)
            goto out;
    }
    if (st != VBT_OK)
        goto out;
    if (lroot != root) {
        if (me == lroot)
            st = vbt_coll_send(comm, acc, count, dt, root, tag);
        else if (me == root)
            st = vbt_coll_recv(comm, rbuf, count, dt, lroot, tag);
    } else if (me == root && acc != rbuf) {
        st = vbt_coll_copy(acc, count, dt, rbuf, count, dt);
    }
out:
    vbt_coll_tmp_free(tmp, dt);
    vbt_coll_tmp_free(own, dt);
    return st;
}
