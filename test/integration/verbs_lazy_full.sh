#!/bin/sh
# verbs_lazy.sh's whole set (VERBS_FULL=1): CI's cases and the lines marked "full" there, the
# same connection counts at 2, 4 and 6 ranks. Out of CI's whole list for its time; make
# check-long runs it.
# verbs_all: long
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VERBS_FULL=1
export VERBS_FULL
exec sh "$abs_top_srcdir/test/integration/verbs_lazy.sh"
