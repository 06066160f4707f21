/* Linear scatterv: the root starts every send at once, each from its place. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_scatterv_linear(vbt_comm_t *comm, const void *sbuf, const vbt_coll_vbuf_t *sv,
                                      void *rbuf, size_t rcount, MPI_Datatype rdt, int root)
{
    int n = comm->size, me = comm->rank, nreq = 0;
    vbt_request_t *stack[VBT_COLL_STACK_RANKS], **reqs;
    vbt_status_t st = VBT_OK;

    if (me != root)
        return vbt_coll_recv(comm, rbuf, rcount, rdt, root, VBT_COLL_TAG_SCATTERV);
    reqs = vbt_coll_scratch(stack, sizeof(stack), (size_t)n * sizeof(*reqs));
    if (reqs == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < n && st == VBT_OK; i++) {
        if (i != me)
            st = vbt_coll_isend(comm, vbt_coll_vaddr(sv, sbuf, i),
                                (size_t)vbt_coll_vec_at(sv->counts, i), sv->dt, i,
                                VBT_COLL_TAG_SCATTERV, &reqs[nreq++]);
    }
    if (st == VBT_OK && rbuf != MPI_IN_PLACE)
        st = vbt_coll_copy(vbt_coll_vaddr(sv, sbuf, me), (size_t)vbt_coll_vec_at(sv->counts, me),
                           sv->dt, rbuf, rcount, rdt);
    st = vbt_coll_finish(reqs, nreq, st);
    vbt_coll_scratch_free(reqs, stack);
    return st;
}
