#!/bin/sh
# The collectives over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): every subtest of
# coll at 3 and 4 ranks with the automatic choice, and of nbr (neighborhood collectives) at 4
# (the full matrix of sizes, forced algorithms and rank counts runs natively, in coll.sh and
# nbr.sh: over verbs in the VM each rank count costs minutes).
# Needs an RDMA device (run through test/integration/verbs.sh).
set -u
coll="$abs_top_builddir/test/integration/coll"
all="bcast reduce allreduce gather gatherv scatter scatterv allgather allgatherv alltoall
alltoallv alltoallw reduce_scatter reduce_scatter_block scan exscan noncommutative comms derived
errors"
want=$(echo $all | wc -w)
fail=0
for n in 3 4; do
    out=$(VBT_TRANSPORTS=self,ib timeout 900 "$MPIRUN" --oversubscribe -n $n "$coll" $all 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "VBT_TRANSPORTS=self,ib mpirun -n $n coll (all) -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: -n $n"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
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
