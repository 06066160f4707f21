/* Pairwise-exchange alltoallv and alltoallw: the alltoall's schedule (step s: send to me + s,
 * receive from me - s, VBT_COLL_A2A_WINDOW steps in flight) with each block's own count, place
 * and, for alltoallw, datatype. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_alltoallv_pairwise(vbt_comm_t *comm, const void *sbuf,
                                         const vbt_coll_vbuf_t *sv, void *rbuf,
                                         const vbt_coll_vbuf_t *rv, int tag)
{
    int n = comm->size, me = comm->rank;
    vbt_status_t st;

    st = vbt_coll_copy(vbt_coll_vaddr(sv, sbuf, me), (size_t)vbt_coll_vec_at(sv->counts, me),
                       vbt_coll_vtype(sv, me), vbt_coll_vaddr(rv, rbuf, me),
                       (size_t)vbt_coll_vec_at(rv->counts, me), vbt_coll_vtype(rv, me));
    for (int s0 = 1; s0 < n && st == VBT_OK; s0 += VBT_COLL_A2A_WINDOW) {
        vbt_request_t *reqs[2 * VBT_COLL_A2A_WINDOW] = {NULL};
        int nreq = 0;

        for (int s = s0; s < n && s < s0 + VBT_COLL_A2A_WINDOW && st == VBT_OK; s++) {
            int src = (me - s + n) % n;
            st = vbt_coll_irecv(comm, vbt_coll_vaddr(rv, rbuf, src),
                                (size_t)vbt_coll_vec_at(rv->counts, src), vbt_coll_vtype(rv, src),
                                src, tag, &reqs[nreq++]);
        }
        for (int s = s0; s < n && s < s0 + VBT_COLL_A2A_WINDOW && st == VBT_OK; s++) {
            int dst = (me + s) % n;
            st = vbt_coll_isend(comm, vbt_coll_vaddr(sv, sbuf, dst),
                                (size_t)vbt_coll_vec_at(sv->counts, dst), vbt_coll_vtype(sv, dst),
                                dst, tag, &reqs[nreq++]);
        }
        st = vbt_coll_finish(reqs, nreq, st);
    }
    return st;
}
