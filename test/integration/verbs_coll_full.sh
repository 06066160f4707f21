#!/bin/sh
# The collectives over verbs, on-node peers included (VBT_TRANSPORTS=self,ib), the whole set:
# every subtest of coll (with the large-message switch points, big) at 2, 3, 4 and 7 ranks with
# the automatic choice (5 and 6 add little over those and cost a minute each in the VM under
# TCG); every algorithm forced through the VBT_COLL_* knobs at 4 and 5 ranks (a power of two
# and not), the same three rounds as coll.sh, with negext (datatypes of negative extent) too;
# and every subtest of nbr (neighborhood collectives) at 4. About 16 minutes in the VM, so it
# stays out of CI's whole list (make check-long runs it); verbs_coll.sh runs a part of it in
# CI (VERBS_COLL_CI=1, see there).
# coll.sh and nbr.sh run the rest of the matrix (more rank counts, forced algorithms at every
# size, the singleton, errors under the fatal handler) natively.
# verbs_all: long
# Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
set -u
coll="$abs_top_builddir/test/integration/coll"
fail=0

# run TESTS NRANKS [VAR=value ...]: every subtest must report ok.
run() {
    tests=$1
    n=$2
    shift 2
    want=$(echo $tests | wc -w)
    out=$(env VBT_TRANSPORTS=self,ib "$@" timeout 900 "$MPIRUN" --oversubscribe -n $n "$coll" $tests 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "VBT_TRANSPORTS=self,ib $* mpirun -n $n coll -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: $* -n $n coll $tests"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
}

all="bcast reduce allreduce gather gatherv scatter scatterv allgather allgatherv alltoall
alltoallv alltoallw reduce_scatter reduce_scatter_block scan exscan noncommutative comms derived
errors"
forced="bcast allreduce gather scatter allgather alltoall reduce_scatter reduce_scatter_block
noncommutative derived negext"
# VERBS_COLL_CI=1 (verbs_coll.sh): every subtest at 2 and 3 ranks (a power of two and not; big
# only at 2: its switch points are the same at every size) and the forced rounds at 5 only.
if [ "${VERBS_COLL_CI:-0}" = 1 ]; then
    sizes="2 3"
    forced_sizes=5
else
    sizes="2 3 4 7"
    forced_sizes="4 5"
fi
for n in $sizes; do
    if [ "${VERBS_COLL_CI:-0}" = 1 ] && [ $n -ne 2 ]; then
        run "$all" $n
    else
        run "$all big" $n
    fi
done
for n in $forced_sizes; do
    run "$forced" $n VBT_COLL_BCAST=binomial VBT_COLL_ALLREDUCE=recursive_doubling \
        VBT_COLL_GATHER=linear VBT_COLL_SCATTER=linear VBT_COLL_ALLGATHER=bruck \
        VBT_COLL_ALLTOALL=bruck VBT_COLL_REDUCE_SCATTER=ring
    run "$forced" $n VBT_COLL_BCAST=scatter_allgather VBT_COLL_ALLREDUCE=rabenseifner \
        VBT_COLL_GATHER=binomial VBT_COLL_SCATTER=binomial VBT_COLL_ALLGATHER=recursive_doubling \
        VBT_COLL_ALLTOALL=pairwise VBT_COLL_REDUCE_SCATTER=reduce_scatterv
    run "allreduce allgather noncommutative derived negext" $n VBT_COLL_ALLREDUCE=ring \
        VBT_COLL_ALLGATHER=ring
done

nbr_all="cart1d cart2d graph distgraph big errors"
want=$(echo $nbr_all | wc -w)
out=$(VBT_TRANSPORTS=self,ib timeout 900 "$MPIRUN" --oversubscribe -n 4 \
    "$abs_top_builddir/test/integration/nbr" $nbr_all 2>&1)
rc=$?
got=$(printf '%s\n' "$out" | grep -c ": ok (4 ranks)")
echo "VBT_TRANSPORTS=self,ib mpirun -n 4 nbr (all) -> exit $rc, $got of $want ok"
if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
    echo "FAIL: nbr -n 4"
    printf '%s\n' "$out" | tail -20
    fail=1
fi
exit $fail
