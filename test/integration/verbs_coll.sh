#!/bin/sh
# The collectives over verbs in CI's whole list: the representative part of verbs_coll_full.sh
# (VERBS_COLL_CI=1): every subtest of coll at 2 ranks with the large-message switch points
# (big) and at 3 (not a power of two), every algorithm forced through the VBT_COLL_* knobs at 5
# ranks (the three rounds of coll.sh, negext included), every subtest of nbr at 4. What it
# leaves out (4 and 7 ranks, forced rounds at 4) runs the same code over ib at other sizes; it
# runs in verbs_coll_full.sh (make check-long) and, with every rank count, natively in coll.sh.
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VERBS_COLL_CI=1
export VERBS_COLL_CI
exec sh "$abs_top_srcdir/test/integration/verbs_coll_full.sh"
