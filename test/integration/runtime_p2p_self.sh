#!/bin/sh
# Point-to-point that needs no network: a single rank talking to itself (self path, PROC_NULL,
# COMM_SELF, Bsend, the Wait/Test families, Barrier), as a singleton and under mpirun -n 1.
set -u
p2p="$abs_top_builddir/test/integration/p2p"
fail=0
for how in singleton mpirun; do
    if [ $how = singleton ]; then
        out=$(timeout 60 "$p2p" self misc barrier ordering pingpong 2>&1)
    else
        out=$(timeout 60 "$MPIRUN" -n 1 "$p2p" self misc barrier ordering pingpong 2>&1)
    fi
    rc=$?
    n=$(printf '%s\n' "$out" | grep -c ': ok (1 ranks)')
    if [ $rc -ne 0 ] || [ "$n" -ne 5 ]; then
        echo "FAIL: $how (exit $rc, $n of 5 ok)"
        printf '%s\n' "$out"
        fail=1
    fi
done
[ $fail -eq 0 ] && echo "runtime_p2p_self: all passed"
exit $fail
