#!/bin/sh
# Persistent, combined, generalized and partitioned requests over verbs, on-node peers included
# (VBT_TRANSPORTS=self,ib): preq.sh at 2 and 3 ranks, with the default thresholds and with
# rendezvous from 2 KiB (VBT_EAGER_LIMIT=1k VBT_RNDV_THRESHOLD=2k), so that persistent and
# partitioned messages go by RDMA WRITE too. Needs an RDMA device (run through
# test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
PREQ_NPS="2 3"
PREQ_SMALL="VBT_EAGER_LIMIT=1k VBT_RNDV_THRESHOLD=2k"
export VBT_TRANSPORTS PREQ_NPS PREQ_SMALL
exec sh "$abs_top_srcdir/test/integration/preq.sh"
