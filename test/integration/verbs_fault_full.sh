#!/bin/sh
# verbs_fault.sh's whole set (VERBS_FULL=1): the controls and all ten deaths, each loop with
# each way to die in both modes (CI's list runs four of them). Out of CI's whole list for its
# time; make check-long runs it.
# verbs_all: long
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VERBS_FULL=1
export VERBS_FULL
exec sh "$abs_top_srcdir/test/integration/verbs_fault.sh"
