/* Binomial-tree scatter, the gather's mirror: rank v (numbered from the root) receives the
 * blocks of its subtree [v, v + lowbit(v)) in one message from v - lowbit(v), keeps the first
 * and hands each child v + 2^k its part. log2 n rounds: the choice for small blocks. Unless the
 * root is rank 0, the root first rotates its buffer into relative order.
 *
 * The temporary buffer holds the blocks packed, as bytes (see vbt_coll_gather_binomial.c): the
 * root's send type may have overlapping elements, which its layout could not hold as a copy.
 * Only rank 0 as the root sends straight from its buffer. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_scatter_binomial(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                       MPI_Datatype sdt, void *rbuf, size_t rcount,
                                       MPI_Datatype rdt, int root)
{
    int n = comm->size, me = comm->rank;
    int vr = me >= root ? me - root : me - root + n, sub = n, mask = 1, nreq = 0;
    /* Bytes of one rank's block (the same everywhere); the buffer the blocks are sent from
     * counts in elements of bt, bc of them per block. */
    size_t bc = me == root ? vbt_coll_bytes(scount, sdt) : vbt_coll_bytes(rcount, rdt);
    MPI_Datatype bt = MPI_BYTE;
    vbt_request_t *reqs[32]; /* one a round at most; vbt_coll_finish reads the first nreq */
    void *tmp = NULL;
    const void *acc;
    vbt_status_t st = VBT_OK;

    for (; mask < n; mask <<= 1) {
        if (vr & mask) {
            sub = mask < n - vr ? mask : n - vr;
            break;
        }
    }
    if (me != root && sub == 1) {
        /* A leaf (every rank but the root at 2 ranks, half of them at any size) receives its
         * block straight into rbuf: no temporary to allocate, copy out of and free. */
        int parent = me - mask;
        return vbt_coll_recv(comm, rbuf, rcount, rdt, parent < 0 ? parent + n : parent,
                             VBT_COLL_TAG_SCATTER);
    }
    if (me == root && root == 0) {
        acc = sbuf;
        bc = scount;
        bt = sdt;
    } else {
        acc = tmp = vbt_coll_tmp_alloc((size_t)sub * bc, bt);
        if (tmp == NULL)
            return VBT_ERR_NO_MEMORY;
    }
    if (me == root && root != 0) {
        /* tmp[i] is the block of rank i + root. */
        st = vbt_coll_copy(vbt_coll_at(sbuf, (size_t)root * scount, sdt),
                           (size_t)(n - root) * scount, sdt, tmp, (size_t)(n - root) * bc, bt);
        if (st == VBT_OK)
            st =
                vbt_coll_copy(sbuf, (size_t)root * scount, sdt,
                              vbt_coll_at(tmp, (size_t)(n - root) * bc, bt), (size_t)root * bc, bt);
    } else if (me != root) {
        st = vbt_coll_recv(comm, tmp, (size_t)sub * bc, bt, (vr - mask + root) % n,
                           VBT_COLL_TAG_SCATTER);
    }
    for (mask >>= 1; mask > 0 && st == VBT_OK; mask >>= 1) {
        int child = vr + mask;

        if (child >= n)
            continue;
        st = vbt_coll_isend(comm, vbt_coll_at(acc, (size_t)mask * bc, bt),
                            (size_t)(mask < n - child ? mask : n - child) * bc, bt,
                            (child + root) % n, VBT_COLL_TAG_SCATTER, &reqs[nreq++]);
    }
    if (st == VBT_OK)
        st = vbt_coll_copy(acc, bc, bt, rbuf, rcount, rdt);
    st = vbt_coll_finish(reqs, nreq, st);
    vbt_coll_tmp_free(tmp, (size_t)sub * bc, bt);
    return st;
}
