#!/bin/sh
# Programs that poll over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): poll.sh at 2
# and 4 ranks with fewer laps (Soft-RoCE's work is on the same cores), the yield checks
# included. Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
POLL_NPS="2 4"
POLL_LAPS=${POLL_LAPS:-50}
export VBT_TRANSPORTS POLL_NPS POLL_LAPS
exec sh "$abs_top_srcdir/test/integration/poll.sh"
