#!/bin/sh
# verbs_all: long
# A flood of small unexpected messages over verbs, on-node peers included
# (VBT_TRANSPORTS=self,ib): unexp_flood.sh at 2 and 3 ranks with 20000 messages (Soft-RoCE's
# work is on the same cores), every payload and the order per sender and tag checked, the
# receiver's peak RSS bounded. Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
UNEXP_NPS=${UNEXP_NPS:-2 3}
UNEXP_TOTAL=${UNEXP_TOTAL:-20000}
export VBT_TRANSPORTS UNEXP_NPS UNEXP_TOTAL
exec sh "$abs_top_srcdir/test/integration/unexp_flood.sh"
