#!/bin/sh
# Persistent point-to-point, MPI_Isendrecv, MPI_Request_get_status, generalized requests and
# partitioned communication (test/integration/preq.c) natively at 1 to 7 ranks: every subtest
# with the default thresholds, then with small eager and rendezvous limits so that more of the
# sizes go by rendezvous; and a world of one without a launcher. PREQ_NPS overrides the rank
# counts, PREQ_SMALL the variable and value that lower the rendezvous threshold (verbs_preq.sh
# runs it over ib).
set -u
preq="$abs_top_builddir/test/integration/preq"
fail=0
all="persist modes dtype isendrecv get_status greq part part_dtype part_early part_order part_eager
errors"
want=$(echo $all | wc -w)

# run NRANKS [VAR=value ...]: every subtest must report ok.
run() {
    n=$1
    shift
    out=$(env "$@" timeout 300 "$MPIRUN" --oversubscribe -n $n "$preq" $all 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "$* mpirun -n $n preq -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: $* mpirun -n $n preq"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
}

for n in ${PREQ_NPS:-1 2 3 4 5 6 7}; do
    run $n
done
for n in ${PREQ_NPS:-2 5}; do
    # shellcheck disable=SC2086 # PREQ_SMALL is words: VAR=value pairs
    run $n ${PREQ_SMALL:-VBT_SHM_RNDV_THRESHOLD=1k}
done

out=$(timeout 120 "$preq" $all 2>&1)
rc=$?
got=$(printf '%s\n' "$out" | grep -c ": ok (1 ranks)")
if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
    echo "FAIL: singleton (exit $rc, $got of $want ok)"
    printf '%s\n' "$out" | tail -20
    fail=1
fi

[ $fail -eq 0 ] && echo "preq: all passed"
exit $fail
