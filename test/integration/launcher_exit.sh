#!/bin/sh
# Exit status: 0 when all ranks exit 0, otherwise the failing rank's code (128+N for signal N,
# the MPI_Abort code, 1 for an exit before MPI_Finalize), with one line naming the rank, and
# the other ranks (waiting in a fence, or sleeping) ended within seconds.
. "$(dirname "$0")/lib.sh"

pidhost="\\(pid [0-9]+ on $HOST\\)"
ending="(; terminating the job)?"

# A rank exiting 3 while the others wait in MPI_Finalize's fence.
run --oversubscribe -n 3 "$PROG_MPI" exit 2 3
expect_rc "exit 3" 3
expect_line "exit 3" "^mpirun: rank 2 $pidhost exited with code 3$ending\$"

# ... and while the others sleep: they must be killed.
run --oversubscribe -n 3 "$PROG_MPI" exit 0 5 sleep "$MARK"
expect_rc "exit 5, others sleeping" 5
expect_line "exit 5, others sleeping" "^mpirun: rank 0 $pidhost exited with code 5; terminating the job\$"
[ "$elapsed" -lt 20 ] || failed "exit 5, others sleeping: took $elapsed s"
expect_no_strays "exit 5, others sleeping"

# Programs without PMIx: a non-zero exit ends the job too.
run -n 2 sh -c '[ "$PMIX_RANK" = 1 ] && exit 4; sleep 100' "$MARK"
expect_rc "sh exit 4" 4
expect_line "sh exit 4" "^mpirun: rank 1 $pidhost exited with code 4; terminating the job\$"
expect_no_strays "sh exit 4"

# A segfault, the others in the fence, then sleeping; also with the fence through fence_nb.
for others in finalize sleep; do
    for localonly in 1 0; do
        what="SIGSEGV, others $others, fence_localonly_opt=$localonly"
        _start=$(date +%s)
        out=$(PMIX_MCA_pmix_server_fence_localonly_opt=$localonly \
            timeout 60 "$MPIRUN" --oversubscribe -n 3 "$PROG_MPI" segv 1 $others "$MARK" 2>&1)
        rc=$?
        elapsed=$(($(date +%s) - _start))
        expect_rc "$what" 139
        expect_line "$what" \
            "^mpirun: rank 1 $pidhost exited on signal 11 \\(Segmentation fault\\)$ending\$"
        [ "$elapsed" -lt 20 ] || failed "$what: took $elapsed s"
        expect_no_strays "$what"
    done
done

# MPI_Abort: its code, its line.
for others in finalize sleep; do
    run --oversubscribe -n 3 "$PROG_MPI" abort 1 7 $others "$MARK"
    expect_rc "MPI_Abort, others $others" 7
    expect_line "MPI_Abort, others $others" \
        "^mpirun: rank 1 called MPI_Abort with error code 7(: .*)?$ending\$"
    [ "$elapsed" -lt 20 ] || failed "MPI_Abort, others $others: took $elapsed s"
    expect_no_strays "MPI_Abort, others $others"
done

# Exit 0 without MPI_Finalize while the others wait for it.
for others in finalize sleep; do
    run --oversubscribe -n 3 "$PROG_MPI" nofinalize 2 $others "$MARK"
    expect_rc "no MPI_Finalize, others $others" 1
    expect_line "no MPI_Finalize, others $others" \
        "^mpirun: rank 2 $pidhost exited with code 0 without calling MPI_Finalize while other ranks were still running$ending\$"
    expect_no_strays "no MPI_Finalize, others $others"
done

# Success is silent.
run -n 2 "$PROG_MPI" hello
expect_rc "all exit 0" 0
[ -z "$(launcher_lines)" ] || failed "all exit 0: launcher said something" "$out"

finish
