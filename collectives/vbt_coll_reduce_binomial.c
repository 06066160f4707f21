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
    void *own = NULL, *tmp = NULL, *acc = NULL, *in = NULL, *swap;
    const void *cur = sbuf; /* our partial result: the send buffer until something arrives */
    vbt_status_t st = VBT_OK;

    /* Buffers are taken only by ranks that receive: a leaf (half the ranks) sends its send
     * buffer as it is, with no copy and no temporary, which also lets a registration cache
     * keep serving the user's buffer over verbs; a rank with one child takes one. */
    for (int mask = 1; mask < n; mask <<= 1) {
        int src = ((vr | mask) + lroot) % n;

        if (vr & mask) {
            st = vbt_coll_send(comm, cur, count, dt, ((vr & ~mask) + lroot) % n, tag);
            break;
        }
        if ((vr | mask) >= n)
            continue;
        if (acc == NULL) {
            /* The partial result lives in the root's rbuf when the tree ends there. */
            if (me == root && lroot == root) {
                acc = rbuf;
            } else {
                acc = own = vbt_coll_tmp_alloc(count, dt);
                if (own == NULL) {
                    st = VBT_ERR_NO_MEMORY;
                    goto out;
                }
            }
            if (acc != sbuf) {
                /* The first partial (of the ranks above ours) lands in acc and ours goes on
                 * its left, in rank order: no copy of sbuf, and no second buffer at a rank
                 * with one child. Not in place: acc holds our data there. */
                st = vbt_coll_recv(comm, acc, count, dt, src, tag);
                if (st == VBT_OK)
                    st = vbt_coll_reduce_local(op, sbuf, acc, count, dt);
                if (st != VBT_OK)
                    goto out;
                cur = acc;
                continue;
            }
        }
        if (tmp == NULL) {
            in = tmp = vbt_coll_tmp_alloc(count, dt);
            if (tmp == NULL) {
                st = VBT_ERR_NO_MEMORY;
                goto out;
            }
        }
        st = vbt_coll_recv(comm, in, count, dt, src, tag);
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
        cur = acc;
    }
    if (st != VBT_OK)
        goto out;
    if (lroot != root) {
        if (me == lroot)
            st = vbt_coll_send(comm, cur, count, dt, root, tag);
        else if (me == root)
            st = vbt_coll_recv(comm, rbuf, count, dt, lroot, tag);
    } else if (me == root && cur != rbuf) {
        st = vbt_coll_copy(cur, count, dt, rbuf, count, dt);
    }
out:
    vbt_coll_tmp_free(tmp, count, dt);
    vbt_coll_tmp_free(own, count, dt);
    return st;
}
