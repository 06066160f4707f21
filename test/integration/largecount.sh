#!/bin/sh
# MPI-4 large counts (test/integration/largecount.c): the small _c calls of every family at 1 to
# 4 ranks, then, at 2 ranks (memory: about 4.5 GiB a rank at the peak), messages of more than
# 2^31 bytes, with CMA and through the shm rings (VBT_SHM_CMA=0). LARGECOUNT_HUGE=0 skips
# the huge part (wide, a 2^31-byte count of a 16-byte type, runs instead); the verbs list runs
# this with VBT_TRANSPORTS=self,ib.
set -u
prog="$abs_top_builddir/test/integration/largecount"
fail=0
run() { # label, expected "ok" line, mpirun arguments...
    label=$1 want=$2
    shift 2
    out=$(timeout 900 "$MPIRUN" "$@" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^largecount $want"; then
        echo "FAIL: $label: exit $rc"
        fail=1
    fi
}
for n in 1 2 3 4; do
    run "small at $n ranks" "small: ok ($n ranks)" -n $n "$prog" small
done
# The error messages (logged at debug level under MPI_ERRORS_RETURN) name the _c call.
export VBT_LOG=debug
run "errors" "errors: ok (2 ranks)" -n 2 "$prog" errors
unset VBT_LOG
if [ "${LARGECOUNT_HUGE:-1}" = 1 ]; then
    for cma in 1 0; do
        export VBT_SHM_CMA=$cma
        run "huge, VBT_SHM_CMA=$cma" "huge: ok (2 ranks)" -n 2 "$prog" huge
    done
    unset VBT_SHM_CMA
else
    run "wide" "wide: ok (2 ranks)" -n 2 "$prog" wide
fi
exit $fail
