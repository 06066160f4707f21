#!/bin/sh
# Environment calls under mpirun and as a singleton; errors before MPI_Init and under
# MPI_ERRORS_ARE_FATAL end the job with one clear message; bad knobs are named.
set -u
prog="$abs_top_builddir/test/integration/env_api"
fail=0
failed() { echo "FAIL: $1"; printf '%s\n' "$2"; fail=1; }

out=$(timeout 60 "$MPIRUN" -n 2 "$prog" 2>&1)
[ $? -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'env_api passed')" -eq 2 ] ||
    failed "mpirun -n 2 env_api" "$out"

out=$(timeout 30 "$prog" 2>&1)
[ $? -eq 0 ] && printf '%s\n' "$out" | grep -q 'rank 0 of 1: env_api passed' ||
    failed "singleton env_api" "$out"

out=$(timeout 30 "$prog" before-init 2>&1)
rc=$?
{ [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'MPI_Comm_rank.*before MPI_Init'; } ||
    failed "call before MPI_Init (exit $rc)" "$out"

out=$(timeout 60 "$MPIRUN" -n 2 "$prog" fatal 2>&1)
rc=$?
{ [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'MPI_Comm_rank.*MPI_ERR_COMM' &&
    ! printf '%s\n' "$out" | grep -q 'returned under'; } ||
    failed "MPI_ERRORS_ARE_FATAL (exit $rc)" "$out"

out=$(VBT_LOG=shouting timeout 30 "$prog" 2>&1)
rc=$?
{ [ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'VBT_LOG="shouting" is not valid'; } ||
    failed "bad VBT_LOG value (exit $rc)" "$out"

out=$(VBT_LOGG=debug timeout 30 "$prog" 2>&1)
{ [ $? -eq 0 ] && printf '%s\n' "$out" | grep -q 'VBT_LOGG ignored: did you mean VBT_LOG'; } ||
    failed "misspelt knob" "$out"

[ $fail -eq 0 ] && echo "runtime_env: all passed"
exit $fail
