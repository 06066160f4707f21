#!/bin/sh
# The Sessions model (test/integration/sessions.c): every mode as a singleton and at 1 to 7
# ranks under mpirun; MPI_COMM_WORLD used without MPI_Init is refused with a message; and a
# rank that exits without finalizing its session is still reported by mpirun, also when it
# connected to PMIx a second time (a session after MPI_Finalize's teardown).
. "$(dirname "$0")/lib.sh"

PROG=$abs_top_builddir/test/integration/sessions
modes="alone world before two after errors"

for mode in $modes; do
    _start=$(date +%s)
    out=$(timeout 60 "$PROG" $mode 2>&1)
    rc=$?
    expect_rc "singleton $mode" 0
    printf '%s\n' "$out" | grep -q "^sessions $mode: ok (1 ranks)\$" ||
        failed "singleton $mode: no ok line" "$out"
done

for np in 1 2 3 4 5 6 7; do
    for mode in $modes; do
        run --oversubscribe -n $np "$PROG" $mode "$MARK"
        expect_rc "-n $np $mode" 0
        printf '%s\n' "$out" | grep -q "^sessions $mode: ok ($np ranks)\$" ||
            failed "-n $np $mode: no ok line" "$out"
    done
    echo "sessions: $np ranks done"
done

# MPI_COMM_WORLD is the World model's: without MPI_Init, an error that says so.
run --oversubscribe -n 2 "$PROG" world_handle "$MARK"
[ "$rc" -ne 0 ] || failed "MPI_COMM_WORLD without MPI_Init: exit 0" "$out"
printf '%s\n' "$out" | grep -q "MPI_Comm_rank failed: argument comm is MPI_COMM_WORLD, which is valid only between MPI_Init and MPI_Finalize" ||
    failed "MPI_COMM_WORLD without MPI_Init: no message" "$out"
expect_no_strays "MPI_COMM_WORLD without MPI_Init"

# A rank exiting 0 with its session open while the others finalize theirs.
pidhost="\\(pid [0-9]+ on $HOST\\)"
for mode in nofinalize reinit_nofinalize; do
    run --oversubscribe -n 3 "$PROG" $mode "$MARK"
    expect_rc "$mode" 1
    expect_line "$mode" \
        "^mpirun: rank 2 $pidhost exited with code 0 without calling MPI_Finalize while other ranks were still running(; terminating the job)?\$"
    [ "$elapsed" -lt 30 ] || failed "$mode: took $elapsed s"
    expect_no_strays "$mode"
done

finish
