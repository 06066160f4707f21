#!/bin/sh
# Neighborhood collectives (test/integration/nbr.c) natively over shared memory at 1, 2, 3, 4
# and 6 ranks, and in a singleton: every subtest must report ok.
set -u
nbr="$abs_top_builddir/test/integration/nbr"
all="cart1d cart2d graph distgraph big errors"
want=$(echo $all | wc -w)
fail=0

for n in 1 2 3 4 6; do
    out=$(timeout 120 "$MPIRUN" --oversubscribe -n $n "$nbr" $all 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "mpirun -n $n nbr $all -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: mpirun -n $n nbr"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
done

out=$(timeout 60 "$nbr" $all 2>&1)
rc=$?
got=$(printf '%s\n' "$out" | grep -c ": ok (1 ranks)")
echo "singleton nbr $all -> exit $rc, $got of $want ok"
if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
    echo "FAIL: singleton nbr"
    printf '%s\n' "$out" | tail -20
    fail=1
fi
exit $fail
