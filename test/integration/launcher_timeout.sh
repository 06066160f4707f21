#!/bin/sh
# --timeout and MPIEXEC_TIMEOUT end the job with 124; SIGTERM to mpirun reaches the ranks; ranks
# that ignore SIGTERM are killed after the 2-second grace, or at once on a second signal.
. "$(dirname "$0")/lib.sh"

# Ranks that sleep after MPI_Init (rank 99 does not exist, so every rank just sleeps).
run --timeout 2 -n 2 "$PROG_MPI" exit 99 0 sleep "$MARK"
expect_rc "--timeout 2" 124
expect_line "--timeout 2" "^mpirun: job timed out after 2 seconds; terminated\$"
[ "$elapsed" -ge 2 ] && [ "$elapsed" -lt 15 ] || failed "--timeout 2: took $elapsed s"
expect_no_strays "--timeout 2"

out=$(MPIEXEC_TIMEOUT=1 timeout 60 "$MPIRUN" -n 1 sh -c 'sleep 100' "$MARK" 2>&1)
rc=$?
expect_rc "MPIEXEC_TIMEOUT=1" 124
expect_line "MPIEXEC_TIMEOUT=1" "^mpirun: job timed out after 1 second; terminated\$"
expect_no_strays "MPIEXEC_TIMEOUT=1"

# Ranks ignoring SIGTERM: SIGKILL after the grace period.
run --timeout 1 -n 2 sh -c 'trap "" TERM; sleep 100; sleep 100' "$MARK"
expect_rc "--timeout, SIGTERM ignored" 124
[ "$elapsed" -ge 2 ] && [ "$elapsed" -lt 15 ] || failed "--timeout, SIGTERM ignored: took $elapsed s"
expect_no_strays "--timeout, SIGTERM ignored"

# signal_mpirun SIG [SIG2]: start mpirun on ranks that ignore SIGTERM (SIG2 sent 0.3 s after
# SIG), signal mpirun itself, wait for it; sets $rc, $out, $elapsed.
signal_mpirun() {
    "$MPIRUN" -n 2 sh -c 'trap "" TERM; echo ready; sleep 100; sleep 100' "$MARK" \
        >"$WORK/out" 2>&1 &
    _pid=$!
    (sleep 60 && kill -KILL $_pid 2>/dev/null) &
    _watchdog=$!
    _i=0
    while [ "$(grep -c ready "$WORK/out" 2>/dev/null)" != 2 ] && [ $_i -lt 100 ]; do
        sleep 0.1
        _i=$((_i + 1))
    done
    _start=$(date +%s)
    kill -"$1" $_pid
    if [ $# -gt 1 ]; then
        sleep 0.3
        kill -"$2" $_pid
    fi
    wait $_pid
    rc=$?
    elapsed=$(($(date +%s) - _start))
    kill $_watchdog 2>/dev/null
    out=$(cat "$WORK/out")
}

signal_mpirun TERM
expect_rc "SIGTERM to mpirun" 143
printf '%s\n' "$out" | grep -q '^mpirun: caught SIGTERM; forwarding it to the ranks' ||
    failed "SIGTERM to mpirun: no message" "$out"
[ "$elapsed" -ge 1 ] && [ "$elapsed" -lt 15 ] || failed "SIGTERM to mpirun: took $elapsed s"
expect_no_strays "SIGTERM to mpirun"

signal_mpirun TERM TERM
expect_rc "SIGTERM twice" 143
[ "$elapsed" -lt 2 ] || failed "SIGTERM twice: took $elapsed s, expected the kill at once"
printf '%s\n' "$out" | grep -q '^mpirun: caught SIGTERM again; killing the ranks' ||
    failed "SIGTERM twice: no message" "$out"
expect_no_strays "SIGTERM twice"

finish
