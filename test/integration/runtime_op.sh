#!/bin/sh
# Reduction ops through the MPI API (test/integration/op.c): MPI_Reduce_local with predefined
# and user ops, MPI_Op_create/free/commutative, error classes under MPI_ERRORS_RETURN, and a
# reduction folded by hand on rank 0; as a singleton and under mpirun -n 1 and -n 2. Then an
# op refused under MPI_ERRORS_ARE_FATAL: the job fails with a message naming the call, the op
# and the type.
set -u
op="$abs_top_builddir/test/integration/op"
fail=0
ntests=5
for how in singleton 1 2; do
    if [ $how = singleton ]; then
        out=$(timeout 60 "$op" all 2>&1)
    else
        out=$(timeout 60 "$MPIRUN" -n $how "$op" all 2>&1)
    fi
    rc=$?
    ranks=$([ $how = singleton ] && echo 1 || echo $how)
    n=$(printf '%s\n' "$out" | grep -c ": ok ($ranks ranks)")
    if [ $rc -ne 0 ] || [ "$n" -ne $ntests ]; then
        echo "FAIL: $how (exit $rc, $n of $ntests ok)"
        printf '%s\n' "$out"
        fail=1
    fi
done

out=$(timeout 60 "$MPIRUN" -n 1 "$op" fatal 2>&1)
rc=$?
msg=$(printf '%s\n' "$out" | grep 'MPI_Reduce_local.* failed: ' || true)
if [ $rc -eq 0 ] || [ -z "$msg" ]; then
    echo "FAIL: fatal: exit $rc, no MPI_Reduce_local error message"
    printf '%s\n' "$out"
    fail=1
else
    for word in MPI_BAND MPI_DOUBLE MPI_ERR_OP; do
        case $msg in
        *$word*) ;;
        *)
            echo "FAIL: fatal: the message does not name $word: $msg"
            fail=1
            ;;
        esac
    done
fi

[ $fail -eq 0 ] && echo "runtime_op: all passed"
exit $fail
