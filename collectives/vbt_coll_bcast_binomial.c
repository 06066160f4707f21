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
    int vr = (me - root + n) % n;
    vbt_request_t *reqs[32] = {NULL};
    int nreq = 0, mask = 1;
    vbt_status_t st = VBT_OK;

    while (mask < n) {
        if (vr & mask) {
            st = vbt_coll_recv(comm, buf, count, dt, (me - mask + n) % n, VBT_COLL_TAG_BCAST);
            if (st != VBT_OK)
                return st;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0 && st == VBT_OK; mask >>= 1) {
        if (vr + mask < n)
            st = vbt_coll_isend(comm, buf, count, dt, (me + mask) % n, VBT_COLL_TAG_BCAST,
                                &reqs[nreq++]);
    }
    return vbt_coll_finish(reqs, nreq, st);
}
