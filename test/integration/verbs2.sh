#!/bin/sh
# Two nodes over verbs: two Soft-RoCE VMs (test/rxevm --nodes 2: vnode0 and vnode1, each its own
# kernel with rxe0 on eth0, the VMs' private link) with a private Slurm cluster inside
# (test/slurm/slurm-up: slurmctld and slurmd on vnode0, slurmd on vnode1; its configuration
# generated here, in a directory of the build tree both VMs see). vnode1 runs verbs2_peer.sh
# (slurmd, and the server end of the link check); vnode0 runs the tests, verbs2_slurm.sh. One
# boot of the two VMs for all of them. After the base tests come the parts in
# VBT_VERBS2_PARTS ("base fault" by default, CI's): verbs2_fault.sh (ranks that die, no launcher
# to end the job) and verbs2_loss.sh (netem drops packets on the link: verbs2_long.sh runs it,
# in make check-long). Where the VMs cannot run this fails like verbs.sh
# (VBT_ALLOW_NO_RDMA=1 makes it a skip); it skips without Slurm installed, or when not root.
set -u
src=$abs_top_srcdir
for c in slurmctld slurmd munged srun salloc sinfo; do
    if ! command -v $c >/dev/null 2>&1; then
        echo "SKIP: Slurm is not installed ($c not found; Debian: apt-get install slurm-wlm slurm-wlm-basic-plugins munge)"
        exit 77
    fi
done
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: slurmd runs as root in the VMs (SlurmUser=root) and the VMs need root"
    exit 77
fi
if ! reason=$("$src/test/rxevm" --check 2>&1); then
    if [ "${VBT_ALLOW_NO_RDMA:-0}" = 1 ]; then
        echo "SKIP: the Soft-RoCE VMs cannot start ($reason); VBT_ALLOW_NO_RDMA=1 allows this"
        exit 77
    fi
    echo "ERROR: the two-node tests cannot run: the Soft-RoCE VMs cannot start:"
    echo "  $reason"
    echo "Install the VM's packages (see README), or set VBT_ALLOW_NO_RDMA=1 to skip them."
    exit 1
fi

dir=$(mktemp -d "$abs_top_builddir/test/integration/verbs2-slurm.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM HUP
# Two CPUs per node for Slurm (two ranks each in the 4-rank jobs), whatever the VMs have.
sh "$src/test/slurm/slurm-up" --dir "$dir" --config-only --ctld vnode0 \
    --nodes vnode0=10.77.0.1:2,vnode1=10.77.0.2:2 || exit 1

# One virtual CPU per VM: the two VMs then take the host's two cores, and boot faster than
# with two each.
VBT_RXEVM_SMP=${VBT_RXEVM_SMP:-1}
VBT_RXEVM_TIMEOUT=${VBT_RXEVM_TIMEOUT:-900}
export VBT_RXEVM_SMP VBT_RXEVM_TIMEOUT
start=$(date +%s)
"$src/test/rxevm" --nodes 2 --peer "sh '$src/test/integration/verbs2_peer.sh' '$dir'" -- \
    env abs_top_builddir="$abs_top_builddir" abs_top_srcdir="$src" MPIRUN="$MPIRUN" \
    VBT_VERBS2_PARTS="${VBT_VERBS2_PARTS:-base fault}" sh "$src/test/integration/verbs2_slurm.sh" "$dir"
rc=$?
echo "verbs2: two VMs, boot to power-off: $(($(date +%s) - start)) s, exit $rc"
exit $rc
