#!/bin/sh
# MPI_THREAD_MULTIPLE (test/integration/threads.c): THREADS_NT threads per rank (default 4)
# doing tagged ping-pongs, collectives on a communicator each, a blocked MPI_Recv while the
# others send, matched probes, MPI_Iprobe loops, cancels, MPI_Comm_dup/free and RMA on a window
# each, all at once; natively at 1 to 7 ranks (oversubscribed where the machine has fewer
# cores), payloads and per-thread order checked. THREADS_NPS overrides the rank counts,
# THREADS_ENV adds VAR=value words to every run.
set -u
prog="$abs_top_builddir/test/integration/threads"
fail=0
all="level pingpong coll blocked mprobe iprobe cancel dup rma objs session"
want=$(echo $all | wc -w)

for n in ${THREADS_NPS-1 2 3 4 5 6 7}; do
    # shellcheck disable=SC2086 # THREADS_ENV is words: VAR=value pairs
    out=$(env ${THREADS_ENV:-} timeout 300 "$MPIRUN" --oversubscribe -n $n "$prog" $all 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "mpirun -n $n threads -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: ${THREADS_ENV:-} mpirun -n $n threads"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
done

[ $fail -eq 0 ] && echo "threads: all passed"
exit $fail
