#!/bin/sh
# Nonblocking and persistent collectives and MPI_Comm_idup (test/integration/nbc.c) natively
# over shared memory at 1 to 7 ranks (oversubscribed where the machine has fewer cores), every
# subtest; then the outstanding/idup subtests with the progress mode that sleeps at once
# (block), where only the progress hook moves schedules on; the long-message algorithms, chosen
# by size and forced one by one; and a singleton run. NBC_NPS overrides the rank counts of the
# loops, NBC_BLOCK_NPS and NBC_LONG_NPS those of the second and third, NBC_LONG_MODES the third's
# runs (auto: chosen by size; ring: the ring allreduce and the scatter-allgather bcast forced;
# rabenseifner: forced, with VBT_PROGRESS=block), NBC_LONG_MAX (ints) caps the long subtest's
# counts (verbs_nbc.sh runs it over ib with fewer).
set -u
nbc="$abs_top_builddir/test/integration/nbc"
fail=0
all="nonblocking persistent inplace outstanding derived noncommutative neighbor idup errors
progress"

run() {
    tests=$1
    n=$2
    shift 2
    want=$(echo $tests | wc -w)
    t0=$(date +%s)
    out=$(env "$@" timeout 300 "$MPIRUN" --oversubscribe -n $n "$nbc" $tests 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "$* mpirun -n $n nbc $tests -> exit $rc, $got of $want ok ($(($(date +%s) - t0)) s)"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: $* mpirun -n $n nbc $tests"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
}

for n in ${NBC_NPS:-1 2 3 4 5 6 7}; do
    run "$all" $n
done
for n in ${NBC_BLOCK_NPS:-${NBC_NPS:-2 5}}; do
    run "outstanding idup neighbor progress" $n VBT_PROGRESS=block
done
# The long-message schedules (blocking, nonblocking, persistent): chosen by size (Rabenseifner's,
# the ring above 512 KiB at non-powers of two), then each forced at every count.
for n in ${NBC_LONG_NPS:-${NBC_NPS:-1 2 3 4 5 6 7}}; do
    for mode in ${NBC_LONG_MODES:-auto ring rabenseifner}; do
        case $mode in
        auto) run long $n ;;
        ring) run long $n VBT_COLL_ALLREDUCE=ring VBT_COLL_BCAST=scatter_allgather ;;
        *) run long $n VBT_COLL_ALLREDUCE=rabenseifner VBT_PROGRESS=block ;;
        esac
    done
done

out=$(timeout 120 "$nbc" $all long 2>&1)
rc=$?
got=$(printf '%s\n' "$out" | grep -c ": ok (1 ranks)")
want=$(($(echo $all | wc -w) + 1))
if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
    echo "FAIL: singleton (exit $rc, $got of $want ok)"
    printf '%s\n' "$out" | tail -20
    fail=1
fi

[ $fail -eq 0 ] && echo "nbc: all passed"
exit $fail
