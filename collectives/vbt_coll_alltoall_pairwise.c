/* Pairwise-exchange alltoall: in step s every rank sends to me + s and receives from me - s, so
 * each rank has one partner in each direction per step and no link is shared by two exchanges.
 * Up to VBT_COLL_A2A_WINDOW steps are in flight at once (receives posted first), which hides
 * per-message latency without flooding a rank with unexpected messages. Data goes straight from
 * the send buffer into place: the choice beyond short blocks. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_alltoall_pairwise(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                        MPI_Datatype sdt, void *rbuf, size_t rcount,
                                        MPI_Datatype rdt)
{
    int n = comm->size, me = comm->rank;
    vbt_status_t st;

    st = vbt_coll_copy(vbt_coll_at(sbuf, (size_t)me * scount, sdt), scount, sdt,
                       vbt_coll_at(rbuf, (size_t)me * rcount, rdt), rcount, rdt);
    for (int s0 = 1; s0 < n && st == VBT_OK; s0 += VBT_COLL_A2A_WINDOW) {
        vbt_request_t *reqs[2 * VBT_COLL_A2A_WINDOW] = {NULL};
        int nreq = 0;

        for (int s = s0; s < n && s < s0 + VBT_COLL_A2A_WINDOW && st == VBT_OK; s++) {
            int src = (me - s + n) % n;
            st = vbt_coll_irecv(comm, vbt_coll_at(rbuf, (size_t)src * rcount, rdt), rcount, rdt,
                                src, VBT_COLL_TAG_ALLTOALL, &reqs[nreq++]);
        }
        for (int s = s0; s < n && s < s0 + VBT_COLL_A2A_WINDOW && st == VBT_OK; s++) {
            int dst = (me + s) % n;
            st = vbt_coll_isend(comm, vbt_coll_at(sbuf, (size_t)dst * scount, sdt), scount, sdt,
                                dst, VBT_COLL_TAG_ALLTOALL, &reqs[nreq++]);
        }
        st = vbt_coll_finish(reqs, nreq, st);
    }
    return st;
}
