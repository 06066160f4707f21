#!/bin/sh
# Verbatim under a real Slurm on this machine (test/slurm/slurm-up: private munged, slurmctld
# and slurmd, 4 CPUs configured on this one node), torn down at the end whatever happens:
# - srun --mpi=pmix alone starts MPI programs: hello at 2 ranks, every job key the runtime
#   reads from Slurm's PMIx plugin (prog_pmix at 3), point-to-point over shm with payloads
#   checked (p2p at 2 and 3 ranks, examples/pingpong), the collectives at 3 ranks, a failing
#   rank ending the step with its exit code; a rank killed (SIGKILL) mid ping-pong, with and
#   without --kill-on-bad-exit, in every VBT_PROGRESS mode: its peer notices the death itself
#   (shm) and the step ends within seconds;
# - mpirun inside an allocation (salloc): in one of a single node it starts the ranks itself;
#   with --launcher slurm, or an allocation that says it has 2 nodes, it execs srun, which
#   gets -n (or the allocation's task count), -x, --wdir and stdin for rank 0, and whose exit
#   status mpirun returns.
# Skips (77) only when Slurm or munge is not installed, or when not root (slurmd needs it).
. "$(dirname "$0")/lib.sh"
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"

for c in slurmctld slurmd munged srun salloc sinfo; do
    command -v $c >/dev/null 2>&1 ||
        skip "Slurm is not installed ($c not found; Debian: apt-get install slurm-wlm slurm-wlm-basic-plugins munge)"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd runs as root here (SlurmUser=root) and this is not root"

hello=$abs_top_builddir/examples/hello
pingpong=$abs_top_builddir/examples/pingpong
p2p=$abs_top_builddir/test/integration/p2p
coll=$abs_top_builddir/test/integration/coll
fault=$abs_top_builddir/test/integration/fault
for p in "$hello" "$pingpong" "$p2p" "$coll" "$fault" "$PROG_PMIX" "$PROG_MPI"; do
    [ -x "$p" ] || { failed "$p is not built"; finish; }
done

# The enclosing environment must not be taken for an allocation.
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

SLDIR=$TEST_TMP/slurm
NODE=$(hostname -s)
slurm_down() {
    sh "$abs_top_srcdir/test/slurm/slurm-down" --dir "$SLDIR" --purge 2>&1 | sed 's/^/    /'
}
trap 'slurm_down; rm -rf "$TEST_TMP"' EXIT
trap 'exit 1' INT TERM HUP

# The daemons must not see the test's private TMPDIR (lib.sh), which goes before they do.
if ! up=$(env TMPDIR=/tmp sh "$abs_top_srcdir/test/slurm/slurm-up" --dir "$SLDIR" \
    --nodes "$NODE=127.0.0.1:4" --timeout 60 2>&1); then
    failed "slurm-up" "$up"
    finish
fi
. "$SLDIR/slurm.env"
srun --mpi=list 2>&1 | grep -q pmix || failed "srun --mpi=list has no pmix" "$(srun --mpi=list 2>&1)"

# srun_run ARGS...: srun under timeout(1); sets $out (without srun's notes that a job waits
# for the previous one to leave the node) and $rc.
srun_run() {
    timeout 120 srun "$@" >"$WORK/out" 2>&1
    rc=$?
    out=$(grep -v '^srun: job [0-9]* \(queued and waiting\|has been allocated\)' "$WORK/out")
}
# expect_sorted WHAT EXPECTED: $rc is 0 and $out, sorted, is EXPECTED.
expect_sorted() {
    [ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "$2" ] || failed "$1 (exit $rc)" "$out"
}
# expect_count WHAT REGEX N: $rc is 0 and N lines of $out match REGEX.
expect_count() {
    _n=$(printf '%s\n' "$out" | grep -c -- "$2")
    [ $rc -eq 0 ] && [ "$_n" -eq "$3" ] || failed "$1: $_n of $3 lines /$2/ (exit $rc)" "$out"
}

# --- srun --mpi=pmix alone ---
srun_run -n 2 --mpi=pmix "$hello"
expect_sorted "srun -n 2 hello" "Hello from rank 0 of 2 on $NODE
Hello from rank 1 of 2 on $NODE"

srun_run -n 3 --mpi=pmix "$PROG_PMIX" x
expect_sorted "srun -n 3 prog_pmix: the job keys" \
    "rank 0 size 3 local_rank 0 node_rank 0 local_size 3 peers 0,1,2 appnum 0 host $NODE argv1 x
rank 1 size 3 local_rank 1 node_rank 1 local_size 3 peers 0,1,2 appnum 0 host $NODE argv1 x
rank 2 size 3 local_rank 2 node_rank 2 local_size 3 peers 0,1,2 appnum 0 host $NODE argv1 x"

# What the runtime made of them, and the transport it chose.
srun_run -n 2 --mpi=pmix env VBT_LOG=debug VBT_TRANSPORTS=self,shm "$p2p" pingpong
expect_count "p2p pingpong at VBT_LOG=debug" "PMIx: nspace slurm\\.pmix\\.[0-9.]* rank [01] of 2, local rank [01] of 2, node rank [01], app 0" 2
expect_count "p2p pingpong: transport" "transport to rank [01] (on this node): shm" 2
expect_count "p2p pingpong" "p2p pingpong: ok (2 ranks)" 1

srun_run -n 2 --mpi=pmix "$p2p" all
expect_count "p2p all at 2" "p2p .*: ok (2 ranks)" 11
srun_run -n 3 --mpi=pmix "$p2p" wildcards alltoall ordering misc barrier
expect_count "p2p at 3" "p2p .*: ok (3 ranks)" 5
srun_run -n 2 --mpi=pmix "$pingpong" -m 0:65536 -i 3 -x 1
expect_count "pingpong (payloads checked)" "^  65536 " 1

colls="bcast reduce allreduce gather gatherv scatter scatterv allgather allgatherv alltoall
alltoallv alltoallw reduce_scatter reduce_scatter_block scan exscan noncommutative comms derived"
srun_run -n 3 --mpi=pmix "$coll" $colls
expect_count "coll at 3" ": ok (3 ranks)" "$(echo $colls | wc -w)"

# A failing rank ends the step (srun's status is the largest of the ranks': here 143 for the
# rank it terminated).
srun_run -n 2 --mpi=pmix --kill-on-bad-exit=1 "$PROG_MPI" exit 1 5 sleep
[ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'task 1: Exited with exit code 5' ||
    failed "srun: rank 1 exits 5 (exit $rc)" "$out"

# A rank killed mid ping-pong. Without --kill-on-bad-exit nothing in Slurm ends the step at
# once: the surviving rank must notice the death itself (shm's peer-death check, which a
# spinning wait makes too), fail with MPI_ERR_PROC_ABORTED, and abort the step.
for kill_opt in "" --kill-on-bad-exit=1; do
    for progress in spin hybrid block; do
        what="srun $kill_opt: rank 1 killed mid ping-pong, VBT_PROGRESS=$progress"
        srun_run -n 2 --mpi=pmix $kill_opt env VBT_PROGRESS=$progress "$fault" pingpong 1 raise 300 "$MARK"
        end=$(date +%s%3N)
        death=$(printf '%s\n' "$out" | sed -n 's/^fault: rank 1 dies at \([0-9]*\)$/\1/p')
        if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ -z "$death" ] ||
            ! printf '%s\n' "$out" | grep -q 'task 1: Killed' ||
            ! printf '%s\n' "$out" | grep -q 'local rank 1 (pid [0-9]*) died without finalizing'; then
            failed "$what (exit $rc)" "$out"
        elif [ $((end - death)) -gt 10000 ]; then
            failed "$what: the step ended $((end - death)) ms after the death" "$out"
        fi
        expect_no_strays "$what"
    done
done

# --- mpirun inside an allocation ---
# One node: mpirun starts the ranks itself (its own PMIx namespace).
out=$(timeout 120 salloc -n 2 "$MPIRUN" -n 2 sh -c 'echo "$PMIX_RANK $PMIX_NAMESPACE"' 2>/dev/null)
rc=$?
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c '^[01] vbt-mpirun')" -eq 2 ] ||
    failed "salloc -n 2 mpirun -n 2 (one node: mpirun's own PMIx server) (exit $rc)" "$out"

# --launcher slurm: srun starts them; without -n, the allocation's 2 tasks.
out=$(timeout 120 salloc -n 2 "$MPIRUN" --launcher slurm "$hello" 2>/dev/null)
rc=$?
expect_sorted "salloc -n 2 mpirun --launcher slurm hello" "Hello from rank 0 of 2 on $NODE
Hello from rank 1 of 2 on $NODE"

# An allocation of 2 nodes (as far as mpirun can tell): srun, with -x, --wdir and stdin.
mkdir -p "$WORK/wd"
out=$(echo to-rank-0 | timeout 120 salloc -n 2 env SLURM_JOB_NUM_NODES=2 "$MPIRUN" -n 2 \
    -x VBT_TEST_VALUE=a,b --wdir "$WORK/wd" \
    sh -c 'read -r line; echo "$PMIX_RANK ${PMIX_NAMESPACE%%.[0-9]*} $VBT_TEST_VALUE $(pwd -P) [$line]"' \
    2>/dev/null)
rc=$?
wd=$(cd "$WORK/wd" && pwd -P)
expect_sorted "salloc, 2 nodes: mpirun -x --wdir through srun" "0 slurm.pmix a,b $wd [to-rank-0]
1 slurm.pmix a,b $wd []"

# MPI over srun from mpirun: the p2p suite's ranks, payloads checked.
out=$(timeout 120 salloc -n 3 "$MPIRUN" --launcher slurm "$p2p" wildcards alltoall barrier 2>/dev/null)
rc=$?
expect_count "salloc -n 3 mpirun --launcher slurm p2p" "p2p .*: ok (3 ranks)" 3

# srun's exit status is mpirun's; the first rank to fail ends the job.
out=$(timeout 120 salloc -n 2 "$MPIRUN" --launcher slurm sh -c 'exit 3' 2>&1)
rc=$?
[ $rc -eq 3 ] || failed "mpirun --launcher slurm, ranks exit 3: exit $rc" "$out"
out=$(timeout 120 salloc -n 2 "$MPIRUN" --launcher slurm "$PROG_MPI" exit 0 3 sleep 2>&1)
rc=$?
[ $rc -ne 0 ] && printf '%s\n' "$out" | grep -q 'task 0: Exited with exit code 3' ||
    failed "mpirun --launcher slurm, rank 0 exits 3, rank 1 sleeps (exit $rc)" "$out"

finish
