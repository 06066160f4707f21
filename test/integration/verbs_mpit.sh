#!/bin/sh
# The tools interface over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): mpit.sh's
# checks at 2 and 3 ranks with the ib_* counters (exactly N messages and N * B bytes per pair,
# eager or rendezvous by VBT_RNDV_THRESHOLD read through MPI_T) and the registration cache's.
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
MPIT_TL=ib
MPIT_NPS=${MPIT_NPS:-2 3}
export VBT_TRANSPORTS MPIT_TL MPIT_NPS
exec sh "$abs_top_srcdir/test/integration/mpit.sh"
