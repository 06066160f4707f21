# Part "fault" of verbs2_slurm.sh (VBT_VERBS2_PARTS=fault; sourced on vnode0 with its functions
# and Slurm up): the transport itself notices a peer on the other node that died, with no
# launcher ending the job for it. srun without --kill-on-bad-exit leaves the other tasks of a
# step running when one exits, so here only Verbatim can end them:
# - recv: rank 0 (vnode0) waits in MPI_Recv from rank 1 (vnode1), connected but idle, which
#   calls exit(3): rank 0's liveness probe (vbt_ib_liveness.c) finds no QP there, and rank 0
#   ends by itself with one message naming rank 1, the status and the likely cause;
# - pingpong: rank 1 raises SIGKILL mid-exchange: the step ends;
# - allreduce at 4 ranks, 2 per node (shm on the node, ib between): rank 3 exits: the step
#   ends, the ranks of vnode0 naming rank 3 over ib or their local peer's abort.
# Each within FAULT2_LIMIT seconds of srun's start (the TCG VMs start a step in ~10 s; a rank
# that does not notice hangs until timeout(1)'s 120 s). The time from the death (the victim's
# clock, on vnode1) to the step's end (vnode0's) is printed: ~5 s when first run.
fault=$abs_top_builddir/test/integration/fault
FAULT2_LIMIT=40

# fault2_run WHAT ARGS...: one step under timeout; sets $out, $rc, $secs.
fault2_run() {
    _what=$1
    shift
    step "srun $(echo "$*" | sed "s|$abs_top_builddir/||g")"
    _s=$(date +%s)
    timeout 120 srun "$@" >"$WORK/out" 2>&1
    rc=$?
    _end=$(date +%s%3N)
    secs=$(($(date +%s) - _s))
    out=$(grep -v '^srun: job [0-9]* \(queued and waiting\|has been allocated\)' "$WORK/out")
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ $secs -gt $FAULT2_LIMIT ]; then
        failed "$_what: exit $rc after $secs s (expected a non-zero exit within $FAULT2_LIMIT s)" \
            "$(printf '%s\n' "$out" | tail -30)"
        return 1
    fi
    _death=$(sed -n 's/^fault: rank [0-9]* dies at \([0-9]*\)$/\1/p' "$WORK/out" | head -1)
    echo "verbs2: $_what: exit $rc after $secs s${_death:+, $((_end - _death)) ms after the death}"
    printf '%s\n' "$out" | grep -E 'error|fault:' | sed 's/^/    /' | head -8
    return 0
}

if fault2_run "rank 1 (vnode1) exits while rank 0 (vnode0) waits in MPI_Recv from it" \
    -N 2 -n 2 --mpi=pmix env VBT_TRANSPORTS=self,ib "$fault" recv 1 exit 300; then
    printf '%s\n' "$out" | grep -q '^fault: rank 1 dies at' ||
        failed "recv: rank 1 did not say it dies" "$out"
    printf '%s\n' "$out" |
        grep -Eq "^\[vnode0:[0-9]*:0\] .*liveness probe to rank 1 failed: .*rank 1 did not acknowledge: it exited" ||
        failed "recv: rank 0 should say its liveness probe to rank 1 failed and why" "$out"
fi

fault2_run "rank 1 (vnode1) raises SIGKILL mid-pingpong" \
    -N 2 -n 2 --mpi=pmix env VBT_TRANSPORTS=self,ib "$fault" pingpong 1 raise 300

fault2_run "rank 3 (vnode1) exits mid-allreduce, 2 ranks per node" \
    -N 2 -n 4 --ntasks-per-node=2 --mpi=pmix "$fault" allreduce 3 exit 300
