#!/bin/sh
# Intercommunicators (test/integration/inter.c) natively at 2 to 7 ranks (oversubscribed where
# the machine has fewer cores): the world split into 2 and 3 groups of uneven sizes, every
# subtest; then the nonblocking ones with the progress mode that sleeps at once (block), where
# only the progress hook moves schedules on; and a singleton run (nothing to pair: vacuous).
# INTER_NPS and INTER_NPS_BLOCK (empty: none) override the rank counts of the two loops,
# INTER_SINGLETON=no skips the singleton, INTER_TESTS names the subtests (verbs_inter.sh runs it
# over ib so). Each subtest's time is shown.
set -u
inter="$abs_top_builddir/test/integration/inter"
fail=0
all=${INTER_TESTS:-query p2p colls outstanding merge dup split create errors fromgroups}

run() {
    tests=$1
    n=$2
    shift 2
    want=$(echo $tests | wc -w)
    out=$(env "$@" timeout 300 "$MPIRUN" --oversubscribe -n $n "$inter" $tests 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "$* mpirun -n $n inter $tests -> exit $rc, $got of $want ok"
    printf '%s\n' "$out" | grep ": ok ($n ranks)" | sed 's/^/    /'
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: $* mpirun -n $n inter $tests"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
}

for n in ${INTER_NPS:-2 3 4 5 6 7}; do
    run "$all" $n
done
for n in ${INTER_NPS_BLOCK-3 5}; do
    run "outstanding dup" $n VBT_PROGRESS=block
done

if [ "${INTER_SINGLETON:-yes}" != no ]; then
    out=$(timeout 120 "$inter" $all 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok (1 ranks)")
    want=$(echo $all | wc -w)
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: singleton (exit $rc, $got of $want ok)"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
fi

[ $fail -eq 0 ] && echo "inter: all passed"
exit $fail
