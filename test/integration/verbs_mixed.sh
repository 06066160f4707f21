#!/bin/sh
# One job where some peers talk over shm and others over verbs: ranks 0 and 1 may use only
# ib (VBT_TRANSPORTS=self,ib), ranks 2 and 3 everything, so 2<->3 goes over shm and every
# other pair over ib. p2p's multi-rank subtests and the rendezvous sizes, payloads verified.
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
set -u
p2p="$abs_top_builddir/test/integration/p2p"
rndv="$abs_top_builddir/test/integration/rndv"
fail=0
mixed() {
    prog=$1
    shift
    out=$(VBT_LOG=info timeout 600 "$MPIRUN" --oversubscribe -n 2 env VBT_TRANSPORTS=self,ib "$prog" "$@" : \
        -n 2 "$prog" "$@" 2>&1)
    rc=$?
}
check_transports() {
    for pair in "2 3 shm" "3 2 shm" "2 0 ib" "3 1 ib" "0 1 ib" "1 3 ib"; do
        set -- $pair
        if ! printf '%s\n' "$out" | grep -q "^\[[^]]*:$1\] .*transport to rank $2 (on this node): $3"; then
            echo "FAIL: rank $1 should reach rank $2 over $3"
            printf '%s\n' "$out" | grep "transport to rank"
            fail=1
        fi
    done
}
mixed "$p2p" wildcards alltoall ordering flood misc barrier
ok=$(printf '%s\n' "$out" | grep -c '^p2p .*: ok (4 ranks)')
echo "p2p, mixed: exit $rc, $ok of 6 subtests ok"
if [ $rc -ne 0 ] || [ "$ok" -ne 6 ]; then
    echo "FAIL: p2p, mixed transports"
    printf '%s\n' "$out" | grep -v ' info ' | tail -30
    fail=1
fi
check_transports
mixed "$rndv" sizes concurrent anysrc
ok=$(printf '%s\n' "$out" | grep -c '^rndv .*: ok')
echo "rndv, mixed: exit $rc, $ok of 3 subtests ok"
if [ $rc -ne 0 ] || [ "$ok" -ne 3 ]; then
    echo "FAIL: rndv, mixed transports"
    printf '%s\n' "$out" | grep -v ' info ' | tail -30
    fail=1
fi
exit $fail
