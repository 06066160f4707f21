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

vbt_status_t vbt_coll_ring_reduce_scatter(vbt_comm_t *comm, void *buf, const size_t *counts,
                                          const size_t *displs, MPI_Datatype dt, const vbt_op_t *op,
                                          int shift, void *tmp, int tag)
{
    int n = comm->size, me = comm->rank;
    int right = mod(me + 1, n), left = mod(me - 1, n);

    /* Step s: pass on the partial sum of block me + shift - 1 - s, take the left neighbour's
     * partial of block me + shift - 2 - s and add ours to it; after n - 1 steps block
     * me + shift holds every rank's contribution. */
    for (int s = 0; s < n - 1; s++) {
        int sb = mod(me + shift - 1 - s, n), rb = mod(me + shift - 2 - s, n);
        vbt_request_t *reqs[2] = {NULL, NULL};
        vbt_status_t st;

        /* An empty block is neither sent nor received: the right neighbour's rb of this step
         * is our sb, so both sides skip the same message (short vectors over many ranks: 8
         * bytes of floats over 4 ranks are blocks of 1, 1, 0, 0). */
        st = VBT_OK;
        if (counts[rb] > 0)
            st = vbt_coll_irecv(comm, tmp, counts[rb], dt, left, tag, &reqs[0]);
        if (st == VBT_OK && counts[sb] > 0)
            st = vbt_coll_isend(comm, vbt_coll_at(buf, displs[sb], dt), counts[sb], dt, right, tag,
                                &reqs[1]);
        st = vbt_coll_finish(reqs, 2, st);
        if (st != VBT_OK)
            return st;
        if (counts[rb] == 0)
            continue;
        st = vbt_coll_reduce_local(op, tmp, vbt_coll_at(buf, displs[rb], dt), counts[rb], dt);
        if (st != VBT_OK)
            return st;
    }
    return VBT_OK;
}

vbt_status_t vbt_coll_ring_allgather(vbt_comm_t *comm, void *buf, const size_t *counts,
                                     const size_t *displs, MPI_Datatype dt, int shift, int tag)
{
    int n = comm->size, me = comm->rank;
    int right = mod(me + 1, n), left = mod(me - 1, n);

    /* Step s: forward block me + shift - s (ours at s = 0, then the one just received). */
    for (int s = 0; s < n - 1; s++) {
        int sb = mod(me + shift - s, n), rb = mod(me + shift - s - 1, n);
        vbt_request_t *reqs[2] = {NULL, NULL};
        vbt_status_t st;

        st = vbt_coll_irecv(comm, vbt_coll_at(buf, displs[rb], dt), counts[rb], dt, left, tag,
                            &reqs[0]);
        if (st == VBT_OK)
            st = vbt_coll_isend(comm, vbt_coll_at(buf, displs[sb], dt), counts[sb], dt, right, tag,
                                &reqs[1]);
        st = vbt_coll_finish(reqs, 2, st);
        if (st != VBT_OK)
            return st;
    }
    return VBT_OK;
}
