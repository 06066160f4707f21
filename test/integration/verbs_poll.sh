#!/bin/sh
# Programs that poll over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): poll.sh's
# checks only (4 ranks on 2 cores yield, with spin they do not, 2 ranks do not; every ring's
# payloads checked), with fewer laps: Soft-RoCE's work is on the same cores. Needs an RDMA
# device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
POLL_NPS=
POLL_LAPS=${POLL_LAPS:-20}
export VBT_TRANSPORTS POLL_NPS POLL_LAPS
exec sh "$abs_top_srcdir/test/integration/poll.sh"
