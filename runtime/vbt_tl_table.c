/* The transports built into the library, in the order a peer is offered them (after self).
 * Adding a transport: a folder that defines its vbt_tl_ops_t (runtime/base/vbt_tl_ops.h), its
 * Makefile.inc, and one line here; no protocol code changes (README, "Adding a transport"). */
#include "vbt_tl_ops.h"

extern const vbt_tl_ops_t vbt_shm_tl_ops; /* transport-shm/: ranks of this node */
extern const vbt_tl_ops_t vbt_ib_tl_ops;  /* transport-ib/: InfiniBand and RoCE verbs */

const vbt_tl_ops_t *const vbt_tl_table[] = {&vbt_shm_tl_ops, &vbt_ib_tl_ops, NULL};
