#!/bin/sh
# Small rules of the MPI object model (test/integration/misc.c): every subtest as a singleton
# and at 1, 2, 3 and 7 ranks (oversubscribed where the machine has fewer cores).
set -u
prog="$abs_top_builddir/test/integration/misc"
ntests=9
fail=0
check() {
    n=$(printf '%s\n' "$out" | grep -c ": ok ($2 ranks)")
    echo "$1 -> exit $rc, $n of $ntests ok"
    if [ $rc -ne 0 ] || [ "$n" -ne $ntests ]; then
        echo "FAIL: $1 (exit $rc, $n of $ntests ok)"
        printf '%s\n' "$out" | tail -30
        fail=1
    fi
}
out=$(timeout 120 "$prog" all 2>&1)
rc=$?
check "singleton" 1
for np in 1 2 3 7; do
    out=$(timeout 120 "$MPIRUN" --oversubscribe -n $np "$prog" all 2>&1)
    rc=$?
    check "mpirun -n $np" $np
done
[ $fail -eq 0 ] && echo "misc: all passed"
exit $fail
