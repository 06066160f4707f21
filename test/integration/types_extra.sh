#!/bin/sh
# The datatype extras (test/integration/types_extra.c): every subtest at 1 to 7 ranks.
set -u
prog="$abs_top_builddir/test/integration/types_extra"
ntests=$("$prog" --count 2>/dev/null || echo 0)
fail=0
for np in 1 2 3 4 5 6 7; do
    out=$(timeout 120 "$MPIRUN" --oversubscribe -n $np "$prog" 2>&1)
    rc=$?
    n=$(printf '%s\n' "$out" | grep -c ": ok ($np ranks)")
    echo "-n $np -> exit $rc, $n of $ntests subtests ok"
    if [ $rc -ne 0 ] || [ "$n" -ne "$ntests" ] || [ "$ntests" -eq 0 ]; then
        printf '%s\n' "$out" | tail -30
        fail=1
    fi
done
exit $fail
