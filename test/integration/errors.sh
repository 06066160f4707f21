#!/bin/sh
# MPI error handling (test/integration/errors.c): the table of bad calls under
# MPI_ERRORS_RETURN (class and message of each, then a real exchange), made-up and freed handles
# of every kind (refused with the kind's class, never followed), user error handlers and
# MPI_Add_error_class/code/string at 2 and 3 ranks; a bad call under MPI_ERRORS_ARE_FATAL ends
# the job quickly with one message naming the call, argument, value and rank; calls before
# MPI_Init and after MPI_Finalize fail with a clear message, while the calls allowed then work.
set -u
prog="$abs_top_builddir/test/integration/errors"
fail=0
failed() { echo "FAIL: $1"; printf '%s\n' "$2" | tail -n 40; fail=1; }

# errors.c reads the messages of MPI_ERRORS_RETURN back from the debug log.
for n in 2 3; do
    out=$(VBT_LOG=debug timeout 120 "$MPIRUN" -n $n "$prog" all 2>&1)
    rc=$?
    { [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q "errors: all passed ($n ranks)" &&
        printf '%s\n' "$out" | grep -q "errors: made-up and freed handles"; } ||
        failed "errors at $n ranks (exit $rc)" "$out"
    printf '%s\n' "$out" | grep '^errors: [0-9]* bad calls'
done

start=$(date +%s)
out=$(timeout 60 "$MPIRUN" -n 2 "$prog" fatal 2>&1)
rc=$?
secs=$(($(date +%s) - start))
msg=$(printf '%s\n' "$out" | grep 'Verbatim: rank 1: MPI_Send' || true)
{ [ $rc -ne 0 ] && [ $secs -lt 20 ] && [ "$(printf '%s\n' "$msg" | grep -c .)" -eq 1 ] &&
    printf '%s\n' "$msg" | grep -q 'argument count is -4.*MPI_ERR_COUNT' &&
    ! printf '%s\n' "$out" | grep -q 'returned under'; } ||
    failed "MPI_ERRORS_ARE_FATAL (exit $rc after $secs s)" "$out"

out=$(timeout 30 "$prog" before-init 2>&1)
rc=$?
{ [ $rc -ne 0 ] && [ $rc -lt 128 ] && printf '%s\n' "$out" | grep -q 'allowed calls ok' &&
    printf '%s\n' "$out" | grep -q 'MPI_Send failed: called before MPI_Init' &&
    ! printf '%s\n' "$out" | grep -q 'returned'; } ||
    failed "call before MPI_Init (exit $rc)" "$out"

out=$(timeout 60 "$MPIRUN" -n 2 "$prog" after-finalize 2>&1)
rc=$?
{ [ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'allowed calls ok')" -eq 2 ] &&
    printf '%s\n' "$out" | grep -q 'MPI_Barrier failed: called after MPI_Finalize' &&
    ! printf '%s\n' "$out" | grep -q 'returned'; } ||
    failed "call after MPI_Finalize (exit $rc)" "$out"

[ $fail -eq 0 ] && echo "errors: all passed"
exit $fail
