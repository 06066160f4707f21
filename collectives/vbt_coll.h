/* Collective algorithms, layered on the runtime's point-to-point calls over each
 * communicator's collective context (so they never match user messages). */
#ifndef VBT_COLL_H
#define VBT_COLL_H

#include "vbt_comm.h"
#include "vbt_status.h"

vbt_status_t vbt_coll_barrier(vbt_comm_t *comm);

#endif
