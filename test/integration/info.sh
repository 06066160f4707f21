#!/bin/sh
# Info objects (test/integration/info.c): every subtest as a singleton and at 1 and 3 ranks
# under mpirun, with the before-MPI_Init and after-MPI_Finalize checks of each run.
set -u
prog="$abs_top_builddir/test/integration/info"
ntests=8
fail=0
check() {
    n=$(printf '%s\n' "$out" | grep -c ": ok ($2 ranks)")
    fin=$(printf '%s\n' "$out" | grep -c 'info: after finalize ok')
    echo "$1 -> exit $rc, $n of $ntests ok"
    if [ $rc -ne 0 ] || [ "$n" -ne $ntests ] || [ "$fin" -ne 1 ]; then
        echo "FAIL: $1 (exit $rc, $n of $ntests ok, after-finalize line seen $fin times)"
        printf '%s\n' "$out" | tail -30
        fail=1
    fi
}
out=$(timeout 120 "$prog" all 2>&1)
rc=$?
check "singleton" 1
for np in 1 3; do
    out=$(timeout 120 "$MPIRUN" --oversubscribe -n $np "$prog" all 2>&1)
    rc=$?
    check "mpirun -n $np" $np
done
[ $fail -eq 0 ] && echo "info: all passed"
exit $fail
