/* Dissemination barrier (Hensgen, Finkel and Manber): in round k every rank signals the rank
 * 2^k ahead and waits for the one 2^k behind; after ceil(log2 n) rounds every rank has heard,
 * directly or not, from every other. Works for any n, not only powers of two. */
#include "vbt_coll.h"
#include "vbt_p2p.h"

#include <mpi.h>

#define VBT_COLL_TAG_BARRIER 1

vbt_status_t vbt_coll_barrier(vbt_comm_t *comm)
{
    int n = comm->size, me = comm->rank;
    vbt_status_t status;

    for (int dist = 1; dist < n; dist <<= 1) {
        vbt_request_t *sreq, *rreq;

        status = vbt_p2p_irecv(comm, VBT_CTX_COLL, NULL, 0, (me - dist + n) % n,
                               VBT_COLL_TAG_BARRIER, &rreq);
        if (status != VBT_OK)
            return status;
        status = vbt_p2p_isend(comm, VBT_CTX_COLL, NULL, 0, (me + dist) % n, VBT_COLL_TAG_BARRIER,
                               0, &sreq);
        if (status != VBT_OK) {
            vbt_p2p_cancel(rreq);
            vbt_request_release(rreq);
            return status;
        }
        status = vbt_p2p_wait_flag(&sreq->complete);
        if (status == VBT_OK)
            status = vbt_p2p_wait_flag(&rreq->complete);
        vbt_request_release(sreq);
        vbt_request_release(rreq);
        if (status != VBT_OK)
            return status;
    }
    return VBT_OK;
}
