#!/bin/sh
# The verbs tests (test/integration/verbs_*.sh): natively where this machine has an RDMA
# device, otherwise inside the Soft-RoCE VM (test/rxevm), all in one boot. Where neither is
# possible this fails loudly, unless VBT_ALLOW_NO_RDMA=1 turns it into a skip.
set -u
list="$abs_top_srcdir/test/integration/verbs_all.sh"
if command -v ibv_devices >/dev/null 2>&1 && [ "$(ibv_devices 2>/dev/null | awk 'NR > 2' | grep -c .)" -gt 0 ]; then
    echo "verbs tests: running natively on $(ibv_devices | awk 'NR == 3 { print $1 }')"
    exec sh "$list"
fi
if reason=$("$abs_top_srcdir/test/rxevm" --check 2>&1); then
    echo "verbs tests: no RDMA device here; running them in the Soft-RoCE VM (test/rxevm)"
    # The whole list runs in one boot: allow it more than one command's default.
    VBT_RXEVM_TIMEOUT=${VBT_RXEVM_TIMEOUT:-2700}
    export VBT_RXEVM_TIMEOUT
    exec "$abs_top_srcdir/test/rxevm" env abs_top_builddir="$abs_top_builddir" \
        abs_top_srcdir="$abs_top_srcdir" MPIRUN="$MPIRUN" sh "$list"
fi
if [ "${VBT_ALLOW_NO_RDMA:-0}" = 1 ]; then
    echo "SKIP: no RDMA device and no Soft-RoCE VM ($reason); VBT_ALLOW_NO_RDMA=1 allows this"
    exit 77
fi
echo "ERROR: the verbs tests cannot run: no RDMA device, and the Soft-RoCE VM cannot start:"
echo "  $reason"
echo "Install the VM's packages (see README), or set VBT_ALLOW_NO_RDMA=1 to skip them."
exit 1
