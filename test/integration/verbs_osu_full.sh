#!/bin/sh
# The OSU-style benchmarks over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): the
# whole suite_osu.sh (output formats, the corrupting copy, usage errors too). Out of CI's
# whole list (make check-long runs it): verbs_osu.sh runs its transport part there.
# verbs_all: long
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
export VBT_TRANSPORTS
exec sh "$abs_top_srcdir/test/integration/suite_osu.sh"
