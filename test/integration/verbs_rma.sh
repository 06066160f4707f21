#!/bin/sh
# The one-sided suite over verbs, on-node peers included (VBT_TRANSPORTS=self,ib), at 2 ranks:
# rma.sh with the programs whose operations cross the transport in every way (accumulates and
# fetches, errors, attributes, dynamic windows, a computing target), not rma_basic and
# rma_dtype: their 1 B to 16 MiB sweeps over every flavor and mode took 50 to 85 s per subtest
# at 3 ranks in the TCG VM (past rma.sh's 300 s per program, and the VM's share of CI), and the
# one-sided operations reach the transport as the point-to-point messages verbs_p2p.sh and
# verbs_rndv.sh already cover; they run natively at 1 to 7 ranks (rma.sh). rma_shared needs
# no transport. Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
RMA_NPS=2
RMA_PROGS="rma_acc:8 rma_errors:4 rma_attr:5 rma_dynamic:2 rma_passive:1"
RMA_CMA=1 # shm is not used: CMA plays no part
RMA_MIX=0 # nor shared memory for MPI_Win_allocate: the mixed runs would be the same again
export VBT_TRANSPORTS RMA_NPS RMA_CMA RMA_PROGS RMA_MIX
exec sh "$abs_top_srcdir/test/integration/rma.sh"
