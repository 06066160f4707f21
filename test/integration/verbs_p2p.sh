#!/bin/sh
# Point-to-point over verbs: every subtest of p2p at 2 ranks, the multi-rank ones at 3 and 4,
# and the examples. Needs an RDMA device (run through test/integration/verbs.sh).
set -u
p2p="$abs_top_builddir/test/integration/p2p"
ex="$abs_top_builddir/examples"
fail=0
run() {
    want=$1
    shift
    out=$(timeout 300 "$MPIRUN" "$@" 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c "$want")
    echo "mpirun $* -> exit $rc"
    if [ $rc -ne 0 ] || [ "$got" -eq 0 ]; then
        echo "FAIL: mpirun $*"
        printf '%s\n' "$out" | tail -30
        fail=1
    fi
}
run "p2p barrier: ok (2 ranks)" -n 2 "$p2p" all
run "p2p barrier: ok (3 ranks)" --oversubscribe -n 3 "$p2p" wildcards alltoall ordering misc barrier
run "p2p barrier: ok (4 ranks)" --oversubscribe -n 4 "$p2p" wildcards alltoall flood self misc barrier
run "^  65536 " -n 2 "$ex/pingpong" -m 0:65536 -i 3 -x 1
run "ring: token 12 after 3 laps of 4 ranks" --oversubscribe -n 4 "$ex/ring" 3
exit $fail
