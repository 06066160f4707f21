#!/bin/sh
# verbs_all: long
# Large counts of the v and w collectives over verbs (VBT_TRANSPORTS=self,ib): largecount_v.sh's
# every _c form (blocking, nonblocking, persistent, neighbourhood) with payloads checked element
# by element, and their errors. The huge part (2.1 GiB a rank) does not fit the Soft-RoCE guest:
# largecount_v.sh runs it natively. Rank counts sized to the guest (4 GiB, 2 vCPUs): 1 to 4
# (LARGECOUNT_NPS). 29 s in the VM (2026-12-06): started on its own (not by verbs_all.sh's list),
# through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
LARGECOUNT_HUGE=${LARGECOUNT_HUGE:-0}
LARGECOUNT_NPS=${LARGECOUNT_NPS:-1 2 3 4}
export VBT_TRANSPORTS LARGECOUNT_HUGE LARGECOUNT_NPS
exec sh "$abs_top_srcdir/test/integration/largecount_v.sh"
