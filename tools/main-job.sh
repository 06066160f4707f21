#!/bin/sh
# The main job: a 2-rank latency and bandwidth run over verbs with the installed Verbatim (the
# two ranks share a node, so VBT_TRANSPORTS=self,ib keeps them off shared memory).
# Natively where this machine has an RDMA device, otherwise inside the Soft-RoCE VM.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
bin="$top/install/bin"
ex="$top/install/libexec/verbatim/examples"
[ -x "$bin/mpirun" ] || { echo "main-job: run tools/bootstrap.sh first" >&2; exit 1; }

job="VBT_TRANSPORTS=self,ib $bin/mpirun -n 2 $ex/pingpong -m 0:65536 -i 200 -x 20 && VBT_TRANSPORTS=self,ib $bin/mpirun -n 2 $ex/bandwidth -m 1:1048576 -i 10 -W 32"
if [ "$(ibv_devices 2>/dev/null | awk 'NR > 2' | grep -c .)" -gt 0 ]; then
    echo "main-job: on this machine's RDMA device"
    sh -c "$job"
else
    echo "main-job: no RDMA device here: running over Soft-RoCE in a VM (slow: software NIC)"
    "$top/test/rxevm" sh -c "$job"
fi
