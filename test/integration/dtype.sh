#!/bin/sh
# Derived datatypes through point-to-point (test/integration/dtype.c) at 2 ranks, over the
# transports the caller lists in VBT_TRANSPORTS (unset: the default, shm between the two ranks
# of this node), once with CMA allowed and once streaming through the rings (VBT_SHM_CMA=0).
# The verbs list runs it with VBT_TRANSPORTS=self,ib.
set -u
prog="$abs_top_builddir/test/integration/dtype"
fail=0
for cma in 1 0; do
    echo "== VBT_TRANSPORTS=${VBT_TRANSPORTS:-(default)} VBT_SHM_CMA=$cma"
    out=$(VBT_SHM_CMA=$cma timeout 300 "$MPIRUN" -n 2 "$prog" all 2>&1)
    rc=$?
    printf '%s\n' "$out"
    # Every subtest reports ok on rank 0.
    nok=$(printf '%s\n' "$out" | grep -c '^dtype [a-z_]*: ok (2 ranks)')
    if [ $rc -ne 0 ] || [ "$nok" -ne 13 ]; then
        echo "FAIL: VBT_SHM_CMA=$cma: exit $rc, $nok of 13 subtests ok"
        fail=1
    fi
done
exit $fail
