#!/bin/sh
# Blocking collectives (test/integration/coll.c) natively over shared memory, at 1 to 7 ranks,
# and 9, 11, 12 and 17 (oversubscribed where the machine has fewer cores): every subtest with the
# automatic choice (plus the large-message switch points, "big"), then every algorithm forced
# through the VBT_COLL_* knobs, three rounds covering them all; with the temporary buffers' cache
# off and small (VBT_COLL_TMP_CACHE); datatypes of negative extent
# (negext) the same way at 1 to 5 ranks; a singleton run; an unknown algorithm name refused at
# MPI_Init; a bad root under MPI_ERRORS_ARE_FATAL ending the job with a message naming the
# call, the argument and the class; and the OSU-style collective benchmarks (examples/osu) with
# validation.
set -u
coll="$abs_top_builddir/test/integration/coll"
fail=0

# run TESTS NRANKS [VAR=value ...]: the subtests must all report ok.
run() {
    tests=$1
    n=$2
    shift 2
    want=$(echo $tests | wc -w)
    out=$(env "$@" timeout 300 "$MPIRUN" --oversubscribe -n $n "$coll" $tests 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "$* mpirun -n $n coll $tests -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: $* mpirun -n $n coll $tests"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
}

all="bcast reduce allreduce gather gatherv scatter scatterv allgather allgatherv alltoall
alltoallv alltoallw reduce_scatter reduce_scatter_block scan exscan noncommutative comms derived
errors"
forced="bcast allreduce gather scatter allgather alltoall reduce_scatter reduce_scatter_block
noncommutative derived"

for n in 1 2 3 4 5 6 7; do
    run "$all big" $n
    run "$forced" $n VBT_COLL_BCAST=binomial VBT_COLL_ALLREDUCE=recursive_doubling \
        VBT_COLL_GATHER=linear VBT_COLL_SCATTER=linear VBT_COLL_ALLGATHER=bruck \
        VBT_COLL_ALLTOALL=bruck VBT_COLL_REDUCE_SCATTER=ring
    run "$forced" $n VBT_COLL_BCAST=scatter_allgather VBT_COLL_ALLREDUCE=rabenseifner \
        VBT_COLL_GATHER=binomial VBT_COLL_SCATTER=binomial VBT_COLL_ALLGATHER=recursive_doubling \
        VBT_COLL_ALLTOALL=pairwise VBT_COLL_REDUCE_SCATTER=reduce_scatterv
    run "allreduce allgather noncommutative derived" $n VBT_COLL_ALLREDUCE=ring VBT_COLL_ALLGATHER=ring
done
# Datatypes of negative extent, negative true lower bound, holes and (sent only) overlapping
# elements through every collective: every algorithm, at 1 to 5 ranks.
for n in 1 2 3 4 5; do
    run negext $n
    run negext $n VBT_COLL_BCAST=binomial VBT_COLL_ALLREDUCE=recursive_doubling \
        VBT_COLL_GATHER=linear VBT_COLL_SCATTER=linear VBT_COLL_ALLGATHER=bruck \
        VBT_COLL_ALLTOALL=bruck VBT_COLL_REDUCE_SCATTER=ring
    run negext $n VBT_COLL_BCAST=scatter_allgather VBT_COLL_ALLREDUCE=rabenseifner \
        VBT_COLL_GATHER=binomial VBT_COLL_SCATTER=binomial VBT_COLL_ALLGATHER=recursive_doubling \
        VBT_COLL_ALLTOALL=pairwise VBT_COLL_REDUCE_SCATTER=reduce_scatterv
    run negext $n VBT_COLL_ALLREDUCE=ring VBT_COLL_ALLGATHER=ring
done
# Temporary buffers: with none kept (VBT_COLL_TMP_CACHE=0), and with only 4 KiB ones kept, so
# that larger ones are freed, full slots drop their oldest and a kept block is reused for a
# shorter vector (every call after the first takes one written by an earlier call).
for n in 3 4; do
    run "$all big negext" $n VBT_COLL_TMP_CACHE=0
    run "$all big negext" $n VBT_COLL_TMP_CACHE=4k
done
# Beyond 8 ranks: the automatic choice switches alltoall to Bruck and long bcasts to
# scatter-allgather, and pairwise exchanges take more than one window.
run "$all big" 9
run "$all big" 12
run "alltoall alltoallv alltoallw" 11 VBT_COLL_ALLTOALL=pairwise
# Beyond 16 ranks a call's request slots and block sizes come from the heap, not the stack.
run "allgather allgatherv reduce_scatter reduce_scatter_block gather gatherv scatter scatterv derived" 17
run "allgather allreduce reduce_scatter reduce_scatter_block gather scatter derived" 17 \
    VBT_COLL_ALLGATHER=ring VBT_COLL_ALLREDUCE=ring VBT_COLL_REDUCE_SCATTER=ring \
    VBT_COLL_GATHER=linear VBT_COLL_SCATTER=linear

# Without a launcher: a world of one.
out=$(timeout 60 "$coll" $all 2>&1)
rc=$?
got=$(printf '%s\n' "$out" | grep -c ": ok (1 ranks)")
want=$(echo $all | wc -w)
if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
    echo "FAIL: singleton (exit $rc, $got of $want ok)"
    printf '%s\n' "$out" | tail -20
    fail=1
fi

# An unknown algorithm stops MPI_Init, naming the knob and the known values.
out=$(VBT_COLL_ALLREDUCE=bogus timeout 60 "$MPIRUN" -n 2 "$coll" allreduce 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q "VBT_COLL_ALLREDUCE=bogus.*recursive_doubling, rabenseifner, ring"; then
    echo "FAIL: VBT_COLL_ALLREDUCE=bogus: exit $rc"
    printf '%s\n' "$out" | tail -10
    fail=1
fi

# A bad root under MPI_ERRORS_ARE_FATAL ends the job with a message saying what was wrong.
out=$(timeout 60 "$MPIRUN" -n 3 "$coll" fatal 2>&1)
rc=$?
msg=$(printf '%s\n' "$out" | grep 'MPI_Bcast' | head -1)
if [ $rc -eq 0 ] || [ -z "$msg" ]; then
    echo "FAIL: fatal: exit $rc, no MPI_Bcast error message"
    printf '%s\n' "$out" | tail -10
    fail=1
else
    for word in root MPI_ERR_ROOT; do
        case $msg in
        *$word*) ;;
        *)
            echo "FAIL: fatal: the message does not name $word: $msg"
            fail=1
            ;;
        esac
    done
fi

# The OSU-style collective benchmarks, every result checked (-c), at 3 ranks: one row per size.
osu="$abs_top_builddir/examples/osu"
for b in bcast reduce allreduce gather scatter allgather alltoall reduce_scatter gatherv \
    scatterv allgatherv alltoallv; do
    out=$(timeout 120 "$MPIRUN" --oversubscribe -n 3 "$osu/vbt_osu_$b" -c -m 4:16384 -i 3 -x 1 2>&1)
    rc=$?
    rows=$(printf '%s\n' "$out" | grep -c '^[0-9]')
    if [ $rc -ne 0 ] || [ "$rows" -ne 13 ]; then
        echo "FAIL: vbt_osu_$b -c: exit $rc, $rows of 13 rows"
        printf '%s\n' "$out" | tail -10
        fail=1
    fi
done

[ $fail -eq 0 ] && echo "coll: all passed"
exit $fail
