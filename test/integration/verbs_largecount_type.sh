#!/bin/sh
# Large counts of the datatype constructors over verbs (VBT_TRANSPORTS=self,ib):
# largecount_type.sh (each _c constructor next to its int twin, transfers checked byte by byte,
# a struct_c block 2^31 + 4096 bytes away sent from rank 0 to 1, the errors) at 1 to 4 ranks
# (LARGECOUNT_NPS), as the Soft-RoCE guest's 4 GiB and 2 vCPUs allow.
# Needs an RDMA device (run through test/integration/verbs.sh).
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
LARGECOUNT_NPS=${LARGECOUNT_NPS:-1 2 3 4}
export VBT_TRANSPORTS LARGECOUNT_NPS
exec sh "$abs_top_srcdir/test/integration/largecount_type.sh"
