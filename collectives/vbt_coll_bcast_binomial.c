/* Binomial-tree broadcast: with ranks renumbered so that the root is 0, rank v receives from
 * v - lowbit(v) and then sends to v + 2^k for every 2^k below lowbit(v) (all at once). ceil(log2
 * n) rounds, each carrying the whole message: the right choice for short messages, where
 * latency dominates. */
#include "vbt_coll_int.h"

#include <stdlib.h>

vbt_status_t vbt_coll_bcast_binomial(vbt_comm_t *comm, void *buf, size_t count, MPI_Datatype dt,
                                     int root)
{
    int n = comm->size, me = comm->rank;
    /* Ranks wrap with a compare, not %: a division is tens of cycles, and an 8-byte broadcast
     * at 2 ranks is a few hundred in all. */
    int vr = me >= root ? me - root : me - root + n;
    vbt_request_t *reqs[32]; /* one a round at most; vbt_coll_finish reads the first nreq */
    int nreq = 0, mask = 1;
    vbt_status_t st = VBT_OK;

    while (mask < n) {
        if (vr & mask) {
            int src = me >= mask ? me - mask : me - mask + n;
            st = vbt_coll_recv(comm, buf, count, dt, src, VBT_COLL_TAG_BCAST);
            if (st != VBT_OK)
                return st;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0 && st == VBT_OK; mask >>= 1) {
        if (vr + mask < n) {
            int dst = me + mask < n ? me + mask : me + mask - n;
            st = vbt_coll_isend(comm, buf, count, dt, dst, VBT_COLL_TAG_BCAST, &reqs[nreq++]);
        }
    }
    return vbt_coll_finish(reqs, nreq, st);
}
