#!/bin/sh
# Rendezvous over verbs (RDMA WRITE, the registration cache), on-node peers included
# (VBT_TRANSPORTS=self,ib): suite_rndv.sh. Needs an RDMA device (run through verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
export VBT_TRANSPORTS
exec sh "$abs_top_srcdir/test/integration/suite_rndv.sh"
