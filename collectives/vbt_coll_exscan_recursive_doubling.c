/* Recursive-doubling exclusive scan: the inclusive scan's exchanges, but a rank's result only
 * takes what comes from lower groups (the first such partial is copied, later ones added on the
 * left). Rank 0's receive buffer is left untouched, as MPI leaves it undefined. Any op. */
#include "vbt_coll_int.h"

vbt_status_t vbt_coll_exscan_recursive_doubling(vbt_comm_t *comm, const void *sbuf, void *rbuf,
                                                size_t count, MPI_Datatype dt, const vbt_op_t *op)
{
    if (comm->size == 1)
        return VBT_OK;
    return vbt_coll_scan_rounds(comm, sbuf, rbuf, count, dt, op, 1, VBT_COLL_TAG_EXSCAN);
}
