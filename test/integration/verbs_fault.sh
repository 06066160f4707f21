#!/bin/sh
# A rank that dies mid-exchange over verbs (VBT_TRANSPORTS=self,ib: shm, which notices a dead
# local rank through its pidfd, is not used), on a machine or in the Soft-RoCE VM with an RDMA
# device: fault_kill.sh's checks (fault_lib.sh) for fault.c's ping-pong, allreduce and recv
# loops, the victim raising SIGKILL, killed from outside, or calling exit(3), at 2 and 4
# ranks: mpirun exits 137 (3 for the exit) within 10 s of the death, with one line naming the
# rank and the signal (or code), and no process is left. Each case runs in one VBT_PROGRESS
# mode, shared between spin and block so that each mode sees every loop, a raise, a kill from
# outside and an exit (a job costs about 20 s in the VM under TCG; fault_kill.sh runs every
# case in every mode natively).
# mpirun ends such a job itself; verbs2_fault.sh shows, under Slurm on two nodes without
# --kill-on-bad-exit, that the transport notices the death by itself.
# First a control, at 4 ranks in each mode: ranks that wait idle for 4 s in MPI_Recv from a
# live peer (liveness probes go out every second, vbt_ib_liveness.c) get their message and
# finalize: a probe to a live peer never fails, and a peer that finalized first is not
# reported. Needs an RDMA device (run
# through test/integration/verbs.sh). Exit 0 pass, other fail.
# CI's whole list runs the controls and four deaths (every loop, every way to die and both
# modes at least once, at 2 and at 4 ranks); verbs_fault_full.sh (make check-long) sets
# VERBS_FULL=1, which adds the six lines marked "full" below.
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
FAULT_ENV=VBT_TRANSPORTS=self,ib
# Under TCG on a busy host, 4 ranks in the VM take tens of seconds to start and to reach the
# victim's 300th iteration (seen: past 60 s with the host's load at 7, and past 240 s at load
# 12), so the hang guard is much wider here; a death is still held to LIMIT_MS.
FAULT_TIMEOUT=600
# full: true in verbs_fault_full.sh only; "full && ..." is a case CI's list leaves out.
full() { [ "${VERBS_FULL:-0}" = 1 ]; }

if [ "$(ibv_devices 2>/dev/null | awk 'NR > 2' | grep -c .)" -eq 0 ]; then
    echo "FAIL: no RDMA device (run this through test/integration/verbs.sh)"
    exit 1
fi

np=4
for progress in spin block; do
    what="control: $np ranks wait 4 s in MPI_Recv from a live rank 1, VBT_PROGRESS=$progress"
    run_env $FAULT_ENV VBT_PROGRESS=$progress -- --oversubscribe -n $np "$FAULT" recv 1 late 4000 "$MARK"
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^fault: ok ($np ranks)\$" ||
        printf '%s\n' "$out" | grep -q 'liveness probe\|error'; then
        failed "$what: exit $rc" "$out"
    else
        echo "ok: $what ($elapsed s)"
    fi
    expect_no_strays "$what"
done

kill_run spin 2 pingpong 1 raise 300
kill_run block 2 pingpong 0 wait 300
full && kill_run block 4 pingpong 2 raise 300
full && kill_run spin 2 pingpong 1 exit 300
full && kill_run spin 2 allreduce 1 wait 300
full && kill_run block 4 allreduce 3 raise 300
kill_run spin 4 allreduce 2 exit 300
full && kill_run block 2 recv 1 raise 300
full && kill_run spin 4 recv 3 wait 300
kill_run block 4 recv 0 exit 300

echo "verbs_fault: $nruns jobs, longest from a death to mpirun's end: $worst ms"
finish
