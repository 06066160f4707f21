/* Linear gather: the root posts a receive for every other rank at once and they send straight
 * into place. One round, no intermediate copies: the choice for large blocks, where the root's
 * link is the bottleneck anyway. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_gather_linear(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                    MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                                    int root)
{
    int n = comm->size, me = comm->rank, nreq = 0;
    vbt_request_t *stack[VBT_COLL_STACK_RANKS], **reqs;
    vbt_status_t st = VBT_OK;

    if (me != root)
        return vbt_coll_send(comm, sbuf, scount, sdt, root, VBT_COLL_TAG_GATHER);
    reqs = vbt_coll_scratch(stack, sizeof(stack), (size_t)n * sizeof(*reqs));
    if (reqs == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < n && st == VBT_OK; i++) {
        if (i != me)
            st = vbt_coll_irecv(comm, vbt_coll_at(rbuf, (size_t)i * rcount, rdt), rcount, rdt, i,
                                VBT_COLL_TAG_GATHER, &reqs[nreq++]);
    }
    if (st == VBT_OK)
        st = vbt_coll_copy(sbuf, scount, sdt, vbt_coll_at(rbuf, (size_t)me * rcount, rdt), rcount,
                           rdt);
    st = vbt_coll_finish(reqs, nreq, st);
    vbt_coll_scratch_free(reqs, stack);
    return st;
}
