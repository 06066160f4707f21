#!/bin/sh
# The one-sided suite (test/integration/rma_*.c): every program, every subtest, at 1 to 7 ranks
# (oversubscribed where the machine has fewer cores), over the transports the caller lists in
# VBT_TRANSPORTS (unset: the default, shm between ranks of this node), with CMA allowed and
# streaming through the rings (VBT_SHM_CMA=0). RMA_NPS overrides the rank counts: the verbs
# list runs it with VBT_TRANSPORTS=self,ib at 2 and 3 ranks (verbs_rma.sh). RMA_CMA (default
# "1 0") the VBT_SHM_CMA values to run with: over ib, where CMA plays no part, only 1.
# RMA_PROGS (default: all of them) the programs to run, each as name:number of subtests.
set -u
dir="$abs_top_builddir/test/integration"
fail=0
progs=${RMA_PROGS:-"rma_basic:10 rma_acc:8 rma_errors:4 rma_attr:5 rma_dynamic:2 rma_shared:3 rma_passive:1 rma_dtype:11"}
for cma in ${RMA_CMA:-1 0}; do
    for np in ${RMA_NPS:-1 2 3 4 5 6 7}; do
        for p in $progs; do
            prog=${p%:*}
            want=${p#*:}
            start=$(date +%s)
            out=$(VBT_SHM_CMA=$cma timeout 300 "$MPIRUN" --oversubscribe -n $np "$dir/$prog" all 2>&1)
            rc=$?
            secs=$(($(date +%s) - start))
            got=$(printf '%s\n' "$out" | grep -c "^$prog [a-z_]*: ok ($np ranks)")
            echo "VBT_TRANSPORTS=${VBT_TRANSPORTS:-(default)} VBT_SHM_CMA=$cma -n $np $prog -> exit $rc, $got of $want ok ($secs s)"
            printf '%s\n' "$out" | grep 'origins waited' || true
            if [ $rc -eq 77 ]; then
                continue
            fi
            if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
                echo "FAIL: VBT_SHM_CMA=$cma -n $np $prog"
                printf '%s\n' "$out" | tail -20
                fail=1
            fi
        done
    done
done
[ $fail -eq 0 ] && echo "rma: all passed"
exit $fail
