/* Binomial-tree gather: rank v (numbered from the root) collects the blocks of its subtree
 * [v, v + lowbit(v)) in a temporary buffer, in order, and sends them to v - lowbit(v) in one
 * message. log2 n rounds instead of n - 1 receives at the root: the choice for small blocks.
 * The root's buffer is in relative order, so unless the root is rank 0 it is rotated into place
 * at the end.
 *
 * The temporary buffer holds the blocks packed, as bytes: a rank's send type says nothing about
 * the other ranks' data, and may even have overlapping elements (legal for sending), so its
 * layout cannot hold what arrives. Only rank 0 as the root gathers straight into its buffer. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_gather_binomial(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                      MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                                      int root)
{
    int n = comm->size, me = comm->rank;
    int vr = me >= root ? me - root : me - root + n, sub = n;
    /* One rank's block is the same number of bytes everywhere: the root's recvcount/recvtype,
     * elsewhere sendcount/sendtype (recv arguments mean nothing there). The accumulating buffer
     * counts in elements of bt, bc of them per block. */
    size_t bc = me == root ? vbt_coll_bytes(rcount, rdt) : vbt_coll_bytes(scount, sdt);
    MPI_Datatype bt = MPI_BYTE;
    void *tmp = NULL, *acc;
    vbt_status_t st = VBT_OK;

    for (int mask = 1; mask < n; mask <<= 1) {
        if (vr & mask) {
            sub = mask < n - vr ? mask : n - vr;
            break;
        }
    }
    if (me != root && sub == 1) {
        /* A leaf (every rank but the root at 2 ranks, half of them at any size) sends its
         * block straight from sbuf: no temporary to allocate, fill and free. */
        int parent = me - (vr & -vr);
        return vbt_coll_send(comm, sbuf, scount, sdt, parent < 0 ? parent + n : parent,
                             VBT_COLL_TAG_GATHER);
    }
    if (me == root && root == 0) {
        acc = rbuf;
        bc = rcount;
        bt = rdt;
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
                           vbt_coll_at(rbuf, (size_t)root * rcount, rdt),
                           (size_t)(n - root) * rcount, rdt);
        if (st == VBT_OK)
            st = vbt_coll_copy(vbt_coll_at(acc, (size_t)(n - root) * bc, bt), (size_t)root * bc, bt,
                               rbuf, (size_t)root * rcount, rdt);
    }
    vbt_coll_tmp_free(tmp, (size_t)sub * bc, bt);
    return st;
}
