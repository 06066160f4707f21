#!/bin/sh
# The tools interface over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): mpit.sh's
# checks at 2 and 3 ranks with the ib_* counters (exactly N messages and N * B bytes per pair,
# eager or rendezvous by VBT_RNDV_THRESHOLD read through MPI_T) and the registration cache's
# (with VBT_RCACHE_MAX=256k: evictions, pinned bytes and their high-water mark), NIC atomics
# on and off through MPI_T_cvar_write.
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
MPIT_TL=ib
MPIT_NPS=${MPIT_NPS:-2 3}
# A registration cache of 256 KiB: mpit.c's 8 rendezvous of 128 KiB must evict.
VBT_RCACHE_MAX=256k
export VBT_TRANSPORTS MPIT_TL MPIT_NPS VBT_RCACHE_MAX
exec sh "$abs_top_srcdir/test/integration/mpit.sh"
