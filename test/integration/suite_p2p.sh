#!/bin/sh
# Point-to-point over one transport: every subtest of p2p at 2 ranks, the multi-rank ones at
# 3, 4 and (oversubscribed) 8 ranks, and the examples. The caller says which transport in
# VBT_TRANSPORTS (exported); the first run checks, at VBT_LOG=info, that it is the one used.
# Run by verbs_p2p.sh (ib, on a device or in the Soft-RoCE VM) and shm_p2p.sh (natively).
set -u
p2p="$abs_top_builddir/test/integration/p2p"
ex="$abs_top_builddir/examples"
tl=$(printf '%s\n' "${VBT_TRANSPORTS:?the caller sets VBT_TRANSPORTS}" | tr ',' '\n' | grep -v '^self$' | head -1)
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
run "transport to rank 1 (on this node): $tl" -n 2 -x VBT_LOG=info "$p2p" pingpong
run "p2p barrier: ok (2 ranks)" -n 2 "$p2p" all
run "p2p barrier: ok (3 ranks)" --oversubscribe -n 3 "$p2p" wildcards alltoall ordering misc barrier
run "p2p barrier: ok (4 ranks)" --oversubscribe -n 4 "$p2p" wildcards alltoall flood self misc barrier
run "p2p barrier: ok (8 ranks)" --oversubscribe -n 8 "$p2p" wildcards alltoall ordering barrier
run "^  65536 " -n 2 "$ex/pingpong" -m 0:65536 -i 3 -x 1
run "ring: token 12 after 3 laps of 4 ranks" --oversubscribe -n 4 "$ex/ring" 3
exit $fail
