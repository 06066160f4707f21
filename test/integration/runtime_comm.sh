#!/bin/sh
# Groups, communicators and topologies (test/integration/comm.c): every subtest at 1, 2, 3, 4
# and 7 ranks (oversubscribed where the machine has fewer cores), and as a singleton; each run
# must also show the MPI_COMM_SELF attribute deleted at MPI_Finalize.
set -u
prog="$abs_top_builddir/test/integration/comm"
ntests=11
fail=0
check() {
    what=$1
    n=$(printf '%s\n' "$out" | grep -c ": ok ($2 ranks)")
    fin=$(printf '%s\n' "$out" | grep -c 'MPI_COMM_SELF attribute deleted at MPI_Finalize')
    echo "$what -> exit $rc, $n of $ntests ok"
    if [ $rc -ne 0 ] || [ "$n" -ne $ntests ] || [ "$fin" -ne 1 ]; then
        echo "FAIL: $what (exit $rc, $n of $ntests ok, finalize line seen $fin times)"
        printf '%s\n' "$out" | tail -30
        fail=1
    fi
}
out=$(timeout 300 "$prog" all 2>&1)
rc=$?
check "singleton" 1
for np in 1 2 3 4 7; do
    out=$(timeout 300 "$MPIRUN" --oversubscribe -n $np "$prog" all 2>&1)
    rc=$?
    check "mpirun -n $np" $np
done
[ $fail -eq 0 ] && echo "runtime_comm: all passed"
exit $fail
