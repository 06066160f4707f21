#!/bin/sh
# The one-sided suite over verbs, on-node peers included (VBT_TRANSPORTS=self,ib), at 2 and 3
# ranks: rma.sh. Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
RMA_NPS="2 3"
RMA_CMA=1 # shm is not used: CMA plays no part
export VBT_TRANSPORTS RMA_NPS RMA_CMA
exec sh "$abs_top_srcdir/test/integration/rma.sh"
