#!/bin/sh
# MPI-4 large counts of the datatype constructors (test/integration/largecount_type.c): each _c
# constructor next to its int twin (envelope and contents, size and extents, pack and unpack,
# a transfer to the next rank checked byte by byte) at 1 to 7 ranks (LARGECOUNT_NPS: the rank
# counts, for a smaller machine), sizes and extents beyond 2^31, a struct_c block 2^31 + 4096
# bytes away sent from rank 0 to 1; and the errors: a negative count naming the _c call,
# MPI_Type_get_envelope of a _c type pointing to MPI_Type_get_envelope_c.
# verbs_largecount_type.sh runs this over ib.
set -u
prog="$abs_top_builddir/test/integration/largecount_type"
fail=0
run() { # label, expected "ok" line, mpirun arguments...
    label=$1 want=$2
    shift 2
    out=$(timeout 300 "$MPIRUN" "$@" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^largecount_type $want"; then
        echo "FAIL: $label: exit $rc"
        fail=1
    fi
}
for n in ${LARGECOUNT_NPS:-1 2 3 4 5 6 7}; do
    run "small at $n ranks" "small: ok ($n ranks)" -n $n "$prog" small
done
# The error messages (logged at debug level under MPI_ERRORS_RETURN) name the call.
VBT_LOG=debug run "errors" "errors: ok (1 ranks)" -n 1 "$prog" errors
exit $fail
