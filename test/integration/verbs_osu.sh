#!/bin/sh
# The OSU-style benchmarks over verbs, on-node peers included (VBT_TRANSPORTS=self,ib), in CI's
# whole list: what the transport changes (suite_osu.sh with OSU_TRANSPORT_ONLY=1: every
# benchmark with every payload checked, bw to 1 MiB). The output formats, the corrupting copy
# and the usage errors do not depend on the transport: shm_osu.sh checks them natively, and
# verbs_osu_full.sh (make check-long) over ib.
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib OSU_TRANSPORT_ONLY=1
export VBT_TRANSPORTS OSU_TRANSPORT_ONLY
exec sh "$abs_top_srcdir/test/integration/suite_osu.sh"
