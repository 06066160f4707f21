#!/bin/sh
# vnode0's part of verbs2.sh, in the first of two Soft-RoCE VMs (test/rxevm --nodes 2), vnode1
# running verbs2_peer.sh: ranks on two kernels, over verbs between the nodes.
# - The link first: ping over eth0, then ib_send_lat between the two rxe0s.
# - Slurm: slurmctld and slurmd here (test/slurm/slurm-up, configuration in $1), both nodes idle.
# - srun -N 2 -n 2 --mpi=pmix: one rank per node, over ib (VBT_LOG=info says so): pingpong at
#   eager and rendezvous sizes, p2p's subtests and rndv's sizes, payloads checked.
# - srun -N 2 -n 4 --mpi=pmix, two ranks per node: allreduce and alltoall, each rank's on-node
#   peer over shm and its off-node peers over ib in the same job.
# - mpirun inside salloc -N 2 (it becomes srun).
# A round trip between the VMs takes ~0.5 ms (ib_send_lat) and everything runs under TCG: the
# runs stay small.
. "$(dirname "$0")/lib.sh"
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
sldir=${1:?the Slurm configuration directory (verbs2.sh passes it)}
[ "${RXEVM_NODE:-}" = 0 ] || { failed "not in vnode0 of test/rxevm --nodes 2 (run verbs2.sh)"; finish; }

pingpong=$abs_top_builddir/examples/pingpong
hello=$abs_top_builddir/examples/hello
p2p=$abs_top_builddir/test/integration/p2p
rndv=$abs_top_builddir/test/integration/rndv
coll=$abs_top_builddir/test/integration/coll
for p in "$pingpong" "$hello" "$p2p" "$rndv" "$coll"; do
    [ -x "$p" ] || { failed "$p is not built (make check builds it)"; finish; }
done

t0=$(date +%s)
# step WHAT: a line with the seconds since the start, for the log.
step() {
    echo "verbs2: [$(($(date +%s) - t0)) s] $*"
}

# --- the link -----------------------------------------------------------------------------
step "ping vnode1 over eth0"
out=$(busybox ping -c 3 -w 20 vnode1 2>&1)
printf '%s\n' "$out" | grep -q ' 0% packet loss' || failed "ping vnode1" "$out"
step "ib_send_lat -d rxe0 -n 5 -x 1 vnode1 (rxe0 to rxe0, two kernels)"
out=$(timeout 60 ib_send_lat -d rxe0 -n 5 -x 1 10.77.0.2 2>&1)
rc=$?
lat=$(printf '%s\n' "$out" | awk '$1 == 2 && $2 == 5 { print $5 }')
if [ $rc -ne 0 ] || [ -z "$lat" ]; then
    failed "ib_send_lat between the VMs (exit $rc)" "$out
$(cat "$RXEVM_SHARED/ib_send_lat.vnode1" 2>/dev/null)"
    finish
fi
echo "verbs2: ib_send_lat between the VMs: $lat us typical round trip / 2 (2 B)"

# --- Slurm --------------------------------------------------------------------------------
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
step "slurm-up (slurmctld and slurmd on vnode0; slurmd on vnode1)"
# The daemons must not see the test's private TMPDIR (lib.sh), which goes before they do.
if ! up=$(env TMPDIR=/tmp sh "$abs_top_srcdir/test/slurm/slurm-up" --dir "$sldir" --node vnode0 \
    --role ctld+d --wait all --timeout 240 2>&1); then
    failed "slurm-up on vnode0" "$up"
    finish
fi
. "$sldir/slurm.env"
out=$(sinfo -h -N -o '%N %t' 2>&1)
[ "$(printf '%s\n' "$out" | grep -c '^vnode[01] idle$')" -eq 2 ] ||
    failed "sinfo: both nodes idle" "$out"

# srun_run ARGS...: srun under timeout(1); sets $out (without srun's notes that a job waits
# for the previous one to leave the nodes) and $rc.
srun_run() {
    step "srun $(echo "$*" | sed "s|$abs_top_builddir/||g")"
    timeout 300 srun "$@" >"$WORK/out" 2>&1
    rc=$?
    out=$(grep -v '^srun: job [0-9]* \(queued and waiting\|has been allocated\)' "$WORK/out")
}
# expect_count WHAT REGEX N: $rc is 0 and N lines of $out match REGEX.
expect_count() {
    _n=$(printf '%s\n' "$out" | grep -c -- "$2")
    [ $rc -eq 0 ] && [ "$_n" -eq "$3" ] ||
        failed "$1: $_n of $3 lines /$2/ (exit $rc)" "$(printf '%s\n' "$out" | tail -40)"
}
# expect_transports WHAT RANK:HOST:PEER:TRANSPORT...: each rank, on the host given, logged
# (VBT_LOG=info) that it reaches the peer over that transport (shm on its node, ib on the other).
expect_transports() {
    _what=$1
    shift
    for _t in "$@"; do
        _r=${_t%%:*}
        _t=${_t#*:}
        _h=${_t%%:*}
        _t=${_t#*:}
        _p=${_t%%:*}
        _tl=${_t#*:}
        _where="on another node"
        [ "$_tl" = shm ] && _where="on this node"
        printf '%s\n' "$out" |
            grep -q "^\[$_h:[0-9]*:$_r\] .*transport to rank $_p ($_where): $_tl" ||
            failed "$_what: rank $_r on $_h should reach rank $_p ($_where) over $_tl" \
                "$(printf '%s\n' "$out" | grep 'transport to rank')"
    done
}

srun_run -N 2 -n 2 --mpi=pmix hostname
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort | tr '\n' ' ')" = "vnode0 vnode1 " ] ||
    failed "srun -N 2 -n 2 hostname: one task on each node (exit $rc)" "$out"

# The parts to run (VBT_VERBS2_PARTS, "base fault" by default): "base" is the rest of this file; any other
# part P is verbs2_P.sh, sourced here in the order given, with the functions above.
parts=${VBT_VERBS2_PARTS:-base fault}
want() {
    case " $parts " in *" $1 "*) return 0 ;; esac
    return 1
}
run_parts() {
    for _part in $parts; do
        [ "$_part" = base ] && continue
        if [ -f "$abs_top_srcdir/test/integration/verbs2_$_part.sh" ]; then
            . "$abs_top_srcdir/test/integration/verbs2_$_part.sh"
        else
            failed "VBT_VERBS2_PARTS: no part '$_part' (test/integration/verbs2_$_part.sh)"
        fi
    done
}
if ! want base; then
    run_parts
    step "done"
    finish
fi

# --- one rank per node: point-to-point over ib --------------------------------------------
srun_run -N 2 -n 2 --mpi=pmix env VBT_LOG=info "$pingpong" -m 0:1048576 -i 2 -x 1
expect_count "pingpong 0 B to 1 MiB between the nodes (payloads checked)" "^  *1048576 " 1
expect_transports "pingpong" 0:vnode0:1:ib 1:vnode1:0:ib
printf '%s\n' "$out" | grep -E '^ *(0|8|16384|65536|1048576) ' | sed 's/^/    /'

# Every subtest but "barrier", which compares MPI_Wtime across ranks: the two kernels' monotonic
# clocks started at different times.
srun_run -N 2 -n 2 --mpi=pmix "$p2p" pingpong wildcards ordering truncate alltoall flood probe ssend \
    self misc
expect_count "p2p at 2 ranks (0 B to 70000 B, payloads checked)" "^p2p .*: ok (2 ranks)" 10

srun_run -N 2 -n 2 --mpi=pmix env RNDV_MAX_SIZE=4194304 "$rndv" sizes concurrent anysrc probe ssend
expect_count "rndv up to 4 MiB" "^rndv .*: ok" 5

# --- two ranks per node: shm on the node, ib between the nodes ----------------------------
srun_run -N 2 -n 4 --ntasks-per-node=2 --mpi=pmix env VBT_LOG=info "$coll" allreduce alltoall
expect_count "coll allreduce alltoall at 4 ranks on 2 nodes" ": ok (4 ranks)" 2
expect_transports "coll, 2 ranks per node" \
    0:vnode0:1:shm 1:vnode0:0:shm 2:vnode1:3:shm 3:vnode1:2:shm \
    0:vnode0:2:ib 0:vnode0:3:ib 1:vnode0:2:ib 1:vnode0:3:ib \
    2:vnode1:0:ib 2:vnode1:1:ib 3:vnode1:0:ib 3:vnode1:1:ib

# --- mpirun in an allocation of the two nodes (it runs srun) -------------------------------
step "salloc -N 2 -n 4 mpirun p2p wildcards alltoall ordering"
out=$(timeout 300 salloc -N 2 -n 4 --ntasks-per-node=2 "$MPIRUN" "$p2p" wildcards alltoall ordering 2>&1)
rc=$?
expect_count "salloc -N 2 -n 4 mpirun p2p" "^p2p .*: ok (4 ranks)" 3
step "salloc -N 2 mpirun -n 2 hello"
out=$(timeout 300 salloc -N 2 "$MPIRUN" -n 2 "$hello" 2>&1)
rc=$?
expect_count "salloc -N 2 mpirun -n 2 hello: rank 0 on vnode0" "^Hello from rank 0 of 2 on vnode0$" 1
expect_count "salloc -N 2 mpirun -n 2 hello: rank 1 on vnode1" "^Hello from rank 1 of 2 on vnode1$" 1

run_parts
step "done"
finish
