/* Linear gatherv: the root posts every receive at once, each into its place (blocks differ in
 * size, so there is no tree that would not need the counts everywhere). */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_gatherv_linear(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                     MPI_Datatype sdt, void *rbuf, const vbt_coll_vbuf_t *rv,
                                     int root)
{
    int n = comm->size, me = comm->rank, nreq = 0;
    vbt_request_t *stack[VBT_COLL_STACK_RANKS], **reqs;
    vbt_status_t st = VBT_OK;

    if (me != root)
        return vbt_coll_send(comm, sbuf, scount, sdt, root, VBT_COLL_TAG_GATHERV);
    reqs = vbt_coll_scratch(stack, sizeof(stack), (size_t)n * sizeof(*reqs));
    if (reqs == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < n && st == VBT_OK; i++) {
        if (i != me)
            st = vbt_coll_irecv(comm, vbt_coll_vaddr(rv, rbuf, i),
                                (size_t)vbt_coll_vec_at(rv->counts, i), rv->dt, i,
                                VBT_COLL_TAG_GATHERV, &reqs[nreq++]);
    }
    if (st == VBT_OK && sbuf != MPI_IN_PLACE)
        st = vbt_coll_copy(sbuf, scount, sdt, vbt_coll_vaddr(rv, rbuf, me),
                           (size_t)vbt_coll_vec_at(rv->counts, me), rv->dt);
    st = vbt_coll_finish(reqs, nreq, st);
    vbt_coll_scratch_free(reqs, stack);
    return st;
}
