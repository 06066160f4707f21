/* Binomial-tree gather: rank v (numbered from the root) collects the blocks of its subtree
 * [v, v + lowbit(v)) in a temporary buffer, in order, and sends them to v - lowbit(v) in one
 * message. log2 n rounds instead of n - 1 receives at the root: the choice for small blocks.
 * The root's buffer is in relative order, so unless the root is rank 0 it is rotated into place
 * at the end. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_gather_binomial(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                      MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                                      int root)
{
    int n = comm->size, me = comm->rank;
    int vr = (me - root + n) % n, sub = n;
    /* Blocks are counted in the local description of one rank's data: recvcount/recvtype at
     * the root, sendcount/sendtype elsewhere (recv arguments mean nothing there). */
    size_t bc = me == root ? rcount : scount;
    MPI_Datatype bt = me == root ? rdt : sdt;
    void *tmp = NULL, *acc;
    vbt_status_t st = VBT_OK;

    for (int mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            sub = mask < n - vr ? mask : n - vr;
            break;
        }
    }
    if (me == root && root == 0) {
        acc = rbuf;
    } else {
        acc = tmp = vbt_coll_tmp_alloc((size_t)sub * bc, bt);
        if (tmp == NULL)
            return VBT_ERR_NO_MEMORY;
    }
    st = vbt_coll_copy(sbuf, scount, sdt, acc, bc, bt);

    for (int mask = 1; mask < n && st == VBT_OK; mask <<= 1) {
        int child = vr + mask;

        if (vr & mask) {
            st = vbt_coll_send(comm, acc, (size_t)sub * bc, bt, (vr - mask + root) % n,
                               VBT_COLL_TAG_GATHER);
            break;
        }
        if (child >= n)
            continue;
        st = vbt_coll_recv(comm, vbt_coll_at(acc, (size_t)mask * bc, bt),
                           (size_t)(mask < n - child ? mask : n - child) * bc, bt,
                           (child + root) % n, VBT_COLL_TAG_GATHER);
    }
    if (st == VBT_OK && me == root && root != 0) {
        /* tmp[i] is the block of rank i + root. */
        st = vbt_coll_copy(acc, (size_t)(n - root) * bc, bt,
                           vbt_coll_at(rbuf, (size_t)root * bc, bt), (size_t)(n - root) * bc, bt);
        if (st == VBT_OK)
            st = vbt_coll_copy(vbt_coll_at(acc, (size_t)(n - root) * bc, bt), (size_t)root * bc, bt,
                               rbuf, (size_t)root * bc, bt);
    }
    vbt_coll_tmp_free(tmp, bt);
    return st;
}
