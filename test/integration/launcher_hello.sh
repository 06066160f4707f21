#!/bin/sh
# Hello at 1..4 ranks: N distinct ranks of size N, through the real MPI library (and with the
# fence forced through mpirun's fence_nb upcall); what mpirun's PMIx server tells each rank;
# programs that never talk to PMIx.
. "$(dirname "$0")/lib.sh"

hello=$abs_top_builddir/examples/hello
[ -x "$hello" ] || skip "examples/hello is not built"

for n in 1 2 3 4; do
    for localonly in 1 0; do
        expect=$(i=0; while [ $i -lt $n ]; do
            echo "Hello from rank $i of $n on $HOST"; i=$((i + 1)); done)
        out=$(PMIX_MCA_pmix_server_fence_localonly_opt=$localonly \
            timeout 60 "$MPIRUN" --oversubscribe -n $n "$hello" 2>&1)
        rc=$?
        got=$(printf '%s\n' "$out" | sort)
        [ $rc -eq 0 ] && [ "$got" = "$expect" ] ||
            failed "hello -n $n (fence_localonly_opt=$localonly): exit $rc" "$out"
    done
done

# The job information every rank can read (PMIx keys the runtime relies on).
run --oversubscribe -n 3 "$PROG_PMIX" x
expect="rank 0 size 3 local_rank 0 node_rank 0 local_size 3 peers 0,1,2 appnum 0 host $HOST argv1 x
rank 1 size 3 local_rank 1 node_rank 1 local_size 3 peers 0,1,2 appnum 0 host $HOST argv1 x
rank 2 size 3 local_rank 2 node_rank 2 local_size 3 peers 0,1,2 appnum 0 host $HOST argv1 x"
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "$expect" ] ||
    failed "PMIx job information (exit $rc)" "$out"

# Programs that never connect to PMIx are fine.
run -n 2 hostname
[ $rc -eq 0 ] && [ "$out" = "$HOST
$HOST" ] || failed "mpirun -n 2 hostname (exit $rc)" "$out"

# Output of an MPI rank is the same as without mpirun.
run -n 2 "$PROG_MPI" hello
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "rank 0 of 2
rank 1 of 2" ] || failed "prog_mpi hello (exit $rc)" "$out"

finish
