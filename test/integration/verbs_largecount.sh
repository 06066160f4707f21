#!/bin/sh
# verbs_all: long
# Large counts over verbs (VBT_TRANSPORTS=self,ib): largecount.sh's small calls at 1-4 ranks and,
# as the Soft-RoCE guest's memory allows, the huge messages or (LARGECOUNT_HUGE=0, the default
# here) a count of more than 2^31 bytes of a 16-byte type, split into several RDMA WRITEs.
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
# The 2 GiB + 4 KiB message needs that much at each of the two ranks: a guest of 7 GiB.
if [ -z "${verbs_runner:-}" ]; then
    VBT_RXEVM_MEM=${VBT_RXEVM_MEM:-7G}
    export VBT_RXEVM_MEM
    exec sh "$(dirname "$0")/verbs.sh" "$0"
fi
VBT_TRANSPORTS=self,ib
LARGECOUNT_HUGE=${LARGECOUNT_HUGE:-0}
export VBT_TRANSPORTS LARGECOUNT_HUGE
exec sh "$abs_top_srcdir/test/integration/largecount.sh"
