#!/bin/sh
# The verbs tests (test/integration/verbs_*.sh, run by verbs_all.sh): natively where this
# machine has an RDMA device, otherwise inside the Soft-RoCE VM (test/rxevm), all in one boot.
# Where neither is possible this fails loudly, unless VBT_ALLOW_NO_RDMA=1 turns it into a skip.
#
#   verbs.sh [NAME...]   only the tests NAME... (else those of VBT_VERBS_TESTS, else all)
#
# VBT_VERBS_TESTS: the tests to run, comma- or space-separated, each with or without verbs_ and
# .sh (VBT_VERBS_TESTS=rndv,verbs_p2p make check TESTS=test/integration/verbs.sh): still one
# boot; a name that is no test fails at once, listing the known ones. A verbs test run on its
# own (make check TESTS=test/integration/verbs_rndv.sh, or sh verbs_rndv.sh) comes here with
# its name and gets a boot of its own, its whole output in its own log.
# Run by hand from the build directory, it finds the source and build trees by itself.
set -u
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${abs_top_builddir:=$(pwd)}"
: "${MPIRUN:=$abs_top_builddir/launcher/mpirun}"
export abs_top_srcdir abs_top_builddir MPIRUN
runner="$abs_top_srcdir/test/integration/verbs_all.sh"
[ $# -gt 0 ] || [ -z "${VBT_VERBS_TESTS:-}" ] || set -- "$VBT_VERBS_TESTS"
tests=$(sh "$runner" --resolve "$@") || exit 1
# Not a knob of the library: keep it from the ranks, which would warn about it.
unset VBT_VERBS_TESTS
what="the verbs tests"
[ $# -gt 0 ] && what=$tests
if command -v ibv_devices >/dev/null 2>&1 && [ "$(ibv_devices 2>/dev/null | awk 'NR > 2' | grep -c .)" -gt 0 ]; then
    echo "verbs tests: running $what natively on $(ibv_devices | awk 'NR == 3 { print $1 }')"
    exec sh "$runner" $tests
fi
if reason=$("$abs_top_srcdir/test/rxevm" --check 2>&1); then
    echo "verbs tests: no RDMA device here; running $what in the Soft-RoCE VM (test/rxevm)"
    # The whole list runs in one boot: allow it more than one command's default.
    VBT_RXEVM_TIMEOUT=${VBT_RXEVM_TIMEOUT:-4800}
    export VBT_RXEVM_TIMEOUT
    exec "$abs_top_srcdir/test/rxevm" env abs_top_builddir="$abs_top_builddir" \
        abs_top_srcdir="$abs_top_srcdir" MPIRUN="$MPIRUN" sh "$runner" $tests
fi
if [ "${VBT_ALLOW_NO_RDMA:-0}" = 1 ]; then
    echo "SKIP: no RDMA device and no Soft-RoCE VM ($reason); VBT_ALLOW_NO_RDMA=1 allows this"
    exit 77
fi
echo "ERROR: the verbs tests cannot run: no RDMA device, and the Soft-RoCE VM cannot start:"
echo "  $reason"
echo "Install the VM's packages (see README), or set VBT_ALLOW_NO_RDMA=1 to skip them."
exit 1
