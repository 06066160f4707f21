#!/bin/sh
# Several virtual communication interfaces per rank (VBT_VCIS): communicators spread over their
# own transport instances and matching state. Natively over shared memory: threads.c's whole
# MPI_THREAD_MULTIPLE set with 4 VCIs at 1 to 7 ranks (a communicator per thread, so the
# threads' messages travel on different VCIs, payloads and order checked); communicators
# (comm.c: dup, split, create, intercommunicators, topologies), collectives (coll.c) and
# nonblocking collectives (nbc.c) with 3 VCIs; the rendezvous over shm (large messages on each
# VCI's instance); then that each VCI has its own shared-memory segment, and that ranks started
# with different VBT_VCIS, or a value out of range, stop at MPI_Init with a message naming it.
set -u
: "${abs_top_builddir:?run by make check}" "${abs_top_srcdir:?run by make check}" "${MPIRUN:?}"
bin="$abs_top_builddir/test/integration"
fail=0

# run WHAT N WANT PROG TESTS... : with VBT_VCIS as exported, WANT subtests must say ok.
run() {
    what=$1
    n=$2
    want=$3
    prog=$4
    shift 4
    out=$(timeout 300 "$MPIRUN" --oversubscribe -n "$n" "$bin/$prog" "$@" 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "VBT_VCIS=$VBT_VCIS $what: mpirun -n $n $prog -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: VBT_VCIS=$VBT_VCIS mpirun -n $n $prog $*"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
}

VBT_VCIS=4
export VBT_VCIS
THREADS_NPS="1 2 3 4 5 6 7" sh "$abs_top_srcdir/test/integration/threads.sh" || fail=1

VBT_VCIS=3
for n in 2 3 5; do
    run communicators $n 11 comm all
done
for n in 3 4; do
    run collectives $n 13 coll bcast reduce allreduce gather gatherv scatter allgather alltoall \
        alltoallv reduce_scatter scan comms derived
done
run "nonblocking collectives" 4 9 nbc nonblocking persistent inplace outstanding derived \
    noncommutative neighbor idup progress
VBT_TRANSPORTS=self,shm sh "$abs_top_srcdir/test/integration/suite_rndv.sh" || fail=1

# Each VCI's shm instance is a segment of its own: the debug log names them, the second and
# third with their instance number.
out=$(VBT_LOG=debug timeout 120 "$MPIRUN" -n 2 "$bin/p2p" misc 2>&1)
segs=$(printf '%s\n' "$out" | grep -c 'shared-memory segment vbt-shm\.[^ ]*\.[01]\.[12]:')
if [ "$segs" -ne 4 ]; then
    echo "FAIL: VBT_VCIS=3 at 2 ranks: $segs segments of instances 1 and 2 in the debug log, not 4"
    printf '%s\n' "$out" | grep 'shared-memory segment' | head
    fail=1
else
    echo "VBT_VCIS=3: every rank made a segment for each of its 3 VCIs"
fi

# refused WHAT PATTERN CMD...: CMD must fail within 120 s, with PATTERN in its output.
refused() {
    what=$1
    pattern=$2
    shift 2
    out=$(timeout 120 "$@" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! printf '%s\n' "$out" | grep -q "$pattern"; then
        echo "FAIL: $what: exit $rc, and no error matching '$pattern'"
        printf '%s\n' "$out" | tail -10
        fail=1
    else
        echo "$what: refused, exit $rc"
    fi
}

# Ranks that disagree: the one that differs from rank 0 says so, and ends the job.
refused "VBT_VCIS 1 and 3 in one job" 'VBT_VCIS=3 on this rank but 1 on rank 0' \
    env VBT_VCIS=1 "$MPIRUN" -n 1 "$bin/p2p" misc : -n 1 env VBT_VCIS=3 "$bin/p2p" misc
for bad in 0 65; do
    refused "VBT_VCIS=$bad" "VBT_VCIS=$bad: .* must be 1 to 64" \
        env VBT_VCIS=$bad "$MPIRUN" -n 2 "$bin/p2p" misc
done

[ $fail -eq 0 ] && echo "vcis: all passed"
exit $fail
