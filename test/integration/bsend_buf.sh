#!/bin/sh
# The buffers of buffered-mode sends (test/integration/bsend_buf.c): the process's, a
# communicator's and a session's, user memory and MPI_BUFFER_AUTOMATIC, flush, iflush, detach
# and their errors, natively at 1 to 7 ranks; then at 2 and 5 ranks with a low on-node
# rendezvous threshold, so that more messages wait in the buffer for their receivers.
# BSEND_BUF_NPS overrides the rank counts.
set -u
prog="$abs_top_builddir/test/integration/bsend_buf"
fail=0
all="process flush comm session persist errors"
want=$(echo $all | wc -w)

# run NRANKS [VAR=value ...]: every subtest must report ok.
run() {
    n=$1
    shift
    out=$(env "$@" timeout 300 "$MPIRUN" --oversubscribe -n $n "$prog" $all 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "$* mpirun -n $n bsend_buf -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: $* mpirun -n $n bsend_buf"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
}

for n in ${BSEND_BUF_NPS:-1 2 3 4 5 6 7}; do
    run $n
done
for n in ${BSEND_BUF_NPS:-2 5}; do
    run $n VBT_SHM_RNDV_THRESHOLD=1k
done

[ $fail -eq 0 ] && echo "bsend_buf: all passed"
exit $fail
