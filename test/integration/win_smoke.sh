#!/bin/sh
# One-sided communication smoke test (test/integration/win_smoke.c): every flavor and every
# synchronisation mode at 1 to 7 ranks (oversubscribed where the machine has fewer cores), and
# as a singleton.
set -u
prog="$abs_top_builddir/test/integration/win_smoke"
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
out=$(timeout 300 "$prog" 2>&1)
rc=$?
check "singleton" 1
for np in 1 2 3 4 5 6 7; do
    out=$(timeout 300 "$MPIRUN" --oversubscribe -n $np "$prog" 2>&1)
    rc=$?
    check "mpirun -n $np" $np
done
[ $fail -eq 0 ] && echo "win_smoke: all passed"
exit $fail
