/* The two blocking ring schedules that the ring reduce-scatter and the ring allgather(v) are
 * made of (the ring allreduce and the scatter-allgather broadcast walk the same blocks as
 * schedules of vbt_sched.h). In each of n - 1 steps every rank sends one block to
 * its right neighbour and receives one from its left, both in flight together: bandwidth-optimal
 * (each block crosses each link once per phase) at the price of n - 1 latencies. */
#include "vbt_coll_int.h"

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

vbt_status_t vbt_coll_ring_reduce_scatter(vbt_comm_t *comm, const void *sbuf, void *work,
                                          void *result, const size_t *counts, const size_t *displs,
                                          MPI_Datatype dt, const vbt_op_t *op, int tag)
{
    int n = comm->size, me = comm->rank;
    int right = mod(me + 1, n), left = mod(me - 1, n);

    /* Step s: pass on the partial sum of block me - 1 - s (at s = 0 our own contribution,
     * straight from sbuf: no copy of the vector), take the left neighbour's partial of block
     * me - 2 - s where it belongs and add ours to it; block me comes last, into result. */
    for (int s = 0; s < n - 1; s++) {
        int sb = mod(me - 1 - s, n), rb = mod(me - 2 - s, n);
        void *to = rb == me && result != NULL ? result : vbt_coll_at(work, displs[rb], dt);
        const void *from = vbt_coll_at(s == 0 ? sbuf : work, displs[sb], dt);
        vbt_request_t *reqs[2] = {NULL, NULL};
        vbt_status_t st;

        /* An empty block is neither sent nor received: the right neighbour's rb of this step
         * is our sb, so both sides skip the same message (short vectors over many ranks: 8
         * bytes of floats over 4 ranks are blocks of 1, 1, 0, 0). */
        st = VBT_OK;
        if (counts[rb] > 0)
            st = vbt_coll_irecv(comm, to, counts[rb], dt, left, tag, &reqs[0]);
        if (st == VBT_OK && counts[sb] > 0)
            st = vbt_coll_isend(comm, from, counts[sb], dt, right, tag, &reqs[1]);
        st = vbt_coll_finish(reqs, 2, st);
        if (st != VBT_OK)
            return st;
        if (counts[rb] == 0)
            continue;
        st = vbt_coll_reduce_local(op, vbt_coll_at(sbuf, displs[rb], dt), to, counts[rb], dt);
        if (st != VBT_OK)
            return st;
    }
    return VBT_OK;
}

vbt_status_t vbt_coll_ring_allgather(vbt_comm_t *comm, void *buf, const size_t *counts,
                                     const size_t *displs, MPI_Datatype dt,
                                     const vbt_coll_own_t *own, int tag)
{
    int n = comm->size, me = comm->rank;
    int right = mod(me + 1, n), left = mod(me - 1, n);

    /* Step s: forward block me - s (ours at s = 0, then the one just received). */
    for (int s = 0; s < n - 1; s++) {
        int sb = mod(me - s, n), rb = mod(me - s - 1, n);
        vbt_request_t *reqs[2] = {NULL, NULL};
        vbt_status_t st;

        st = vbt_coll_irecv(comm, vbt_coll_at(buf, displs[rb], dt), counts[rb], dt, left, tag,
                            &reqs[0]);
        if (st == VBT_OK && s == 0 && own != NULL) {
            st = vbt_coll_isend(comm, own->buf, own->count, own->dt, right, tag, &reqs[1]);
            /* Ours goes into place while the first exchange is in flight; nobody reads it
             * there (it is never forwarded). */
            if (st == VBT_OK)
                st = vbt_coll_copy(own->buf, own->count, own->dt, vbt_coll_at(buf, displs[sb], dt),
                                   counts[sb], dt);
        } else if (st == VBT_OK) {
            st = vbt_coll_isend(comm, vbt_coll_at(buf, displs[sb], dt), counts[sb], dt, right, tag,
                                &reqs[1]);
        }
        st = vbt_coll_finish(reqs, 2, st);
        if (st != VBT_OK)
            return st;
    }
    return VBT_OK;
}
