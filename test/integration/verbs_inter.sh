#!/bin/sh
# Intercommunicators over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): inter.sh at 2
# and 3 ranks, every subtest (point-to-point across with rendezvous payloads, every collective
# blocking, nonblocking and persistent, merge/dup/split/create, errors), and the nonblocking
# ones again with the progress mode that sleeps at once; under a minute in the VM. Needs an
# RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
INTER_NPS="2 3"
INTER_NPS_BLOCK="3"
export VBT_TRANSPORTS INTER_NPS INTER_NPS_BLOCK
exec sh "$abs_top_srcdir/test/integration/inter.sh"
