/* Linear scatter: the root sends every rank its block at once (all sends in flight) and copies
 * its own. One round, straight from the send buffer: the choice for large blocks. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_scatter_linear(vbt_comm_t *comm, const void *sbuf, size_t scount,
                                     MPI_Datatype sdt, void *rbuf, size_t rcount, MPI_Datatype rdt,
                                     int root)
{
    int n = comm->size, me = comm->rank, nreq = 0;
    vbt_request_t *stack[VBT_COLL_STACK_RANKS], **reqs;
    vbt_status_t st = VBT_OK;

    if (me != root)
        return vbt_coll_recv(comm, rbuf, rcount, rdt, root, VBT_COLL_TAG_SCATTER);
    reqs = vbt_coll_scratch(stack, sizeof(stack), (size_t)n * sizeof(*reqs));
    if (reqs == NULL)
        return VBT_ERR_NO_MEMORY;
    for (int i = 0; i < n && st == VBT_OK; i++) {
        if (i != me)
            st = vbt_coll_isend(comm, vbt_coll_at(sbuf, (size_t)i * scount, sdt), scount, sdt, i,
                                VBT_COLL_TAG_SCATTER, &reqs[nreq++]);
    }
    if (st == VBT_OK)
        st = vbt_coll_copy(vbt_coll_at(sbuf, (size_t)me * scount, sdt), scount, sdt, rbuf, rcount,
                           rdt);
    st = vbt_coll_finish(reqs, nreq, st);
    vbt_coll_scratch_free(reqs, stack);
    return st;
}
