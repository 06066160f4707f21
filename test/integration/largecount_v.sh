#!/bin/sh
# MPI-4 large counts of the v and w collectives (test/integration/largecount_v.c): every _c form
# (blocking, nonblocking, persistent, neighbourhood) at 1 to 7 ranks (LARGECOUNT_NPS: the rank
# counts, for a smaller machine) with payloads checked element by element, their errors naming
# the _c call, then at 2 ranks a block of 2^31 + 4096 bytes at a displacement beyond 2^31
# (MPI_Gatherv_c/MPI_Scatterv_c, about 2.1 GiB a rank) and displacements beyond 2^31 bytes
# (MPI_Alltoallw_c, MPI_Allgatherv_c), with CMA and through the shm rings (VBT_SHM_CMA=0; about
# 2 minutes for both). LARGECOUNT_HUGE=0 skips the huge part. verbs_largecount_v.sh runs this
# over ib.
set -u
prog="$abs_top_builddir/test/integration/largecount_v"
fail=0
run() { # label, expected "ok" line, mpirun arguments...
    label=$1 want=$2
    shift 2
    out=$(timeout 900 "$MPIRUN" "$@" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^largecount_v $want"; then
        echo "FAIL: $label: exit $rc"
        fail=1
    fi
}
for n in ${LARGECOUNT_NPS:-1 2 3 4 5 6 7}; do
    run "small at $n ranks" "small: ok ($n ranks)" -n $n "$prog" small
done
# The error messages (logged at debug level under MPI_ERRORS_RETURN) name the _c call.
VBT_LOG=debug run "errors" "errors: ok (2 ranks)" -n 2 "$prog" errors
if [ "${LARGECOUNT_HUGE:-1}" = 1 ]; then
    for cma in 1 0; do
        VBT_SHM_CMA=$cma run "huge, VBT_SHM_CMA=$cma" "huge: ok (2 ranks)" -n 2 "$prog" huge
    done
fi
exit $fail
