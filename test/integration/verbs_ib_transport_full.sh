#!/bin/sh
# verbs_ib_transport.sh's whole set (VERBS_FULL=1): CI's checks and the lines marked "full"
# there (the data runs at 4 ranks, get() and the atomics at 2, the busy peer). Out of CI's
# whole list for its time; make check-long runs it.
# verbs_all: long
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VERBS_FULL=1
export VERBS_FULL
exec sh "$abs_top_srcdir/test/integration/verbs_ib_transport.sh"
