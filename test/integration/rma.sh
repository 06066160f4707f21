#!/bin/sh
# The one-sided suite (test/integration/rma_*.c): every program, every subtest, at 1 to 7 ranks
# (oversubscribed where the machine has fewer cores), over the transports the caller lists in
# VBT_TRANSPORTS (unset: the default, shm between ranks of this node), with CMA allowed and
# streaming through the rings (VBT_SHM_CMA=0). RMA_NPS overrides the rank counts: the verbs
# list runs it with VBT_TRANSPORTS=self,ib at 2 and 3 ranks (verbs_rma.sh). RMA_CMA (default
# "1 0") the VBT_SHM_CMA values to run with: over ib, where CMA plays no part, only 1.
# RMA_PROGS (default: all of them) the programs to run, each as name:number of subtests.
# RMA_MIX (default "0 1"): 1 runs each program again (with the first RMA_CMA value, from 2
# ranks) with rank 0, and from 5 ranks the last rank too, started with VBT_WIN_ALLOCATE_SHM=0:
# they stand for ranks of other nodes, so an MPI_Win_allocate window has parts reached by
# loads and stores and parts reached by messages at once, which one machine cannot show
# otherwise (rma_allocate works out which is which and checks it).
# Without RMA_NPS, make check (CI) runs the runs after the first (VBT_SHM_CMA=0, and the mixed
# ones) at 2 and 5 ranks only: what they change is below the rank count (how bytes cross the
# rings; which ranks reach a window part by messages), and 2 and 5 are both shapes of the
# mixed runs (rank 0 out; ranks 0 and the last out). RMA_FULL=1 (rma_full.sh, make
# check-long) runs them at every rank count as well.
set -u
dir="$abs_top_builddir/test/integration"
fail=0
progs=${RMA_PROGS:-"rma_basic:10 rma_acc:9 rma_errors:4 rma_attr:5 rma_dynamic:4 rma_shared:3 rma_passive:1 rma_dtype:11 rma_allocate:4"}
cmas=${RMA_CMA:-1 0}
for cma in $cmas; do
    for np in ${RMA_NPS:-1 2 3 4 5 6 7}; do
        for mix in ${RMA_MIX:-0 1}; do
            [ "$mix" -eq 0 ] || { [ "$cma" = "${cmas%% *}" ] && [ "$np" -ge 2 ]; } || continue
            if [ "${RMA_FULL:-0}" != 1 ] && [ -z "${RMA_NPS:-}" ] &&
                { [ "$mix" -eq 1 ] || [ "$cma" != "${cmas%% *}" ]; }; then
                case $np in 2 | 5) ;; *) continue ;; esac
            fi
            for p in $progs; do
                prog=${p%:*}
                want=${p#*:}
                out_rank="env VBT_WIN_ALLOCATE_SHM=0 $dir/$prog all"
                if [ "$mix" -eq 0 ]; then
                    ranks="-n $np $dir/$prog all"
                    what="-n $np"
                elif [ "$np" -ge 5 ]; then
                    ranks="-n 1 $out_rank : -n $((np - 2)) $dir/$prog all : -n 1 $out_rank"
                    what="-n $np (ranks 0 and $((np - 1)) out of shared memory)"
                else
                    ranks="-n 1 $out_rank : -n $((np - 1)) $dir/$prog all"
                    what="-n $np (rank 0 out of shared memory)"
                fi
                start=$(date +%s)
                # shellcheck disable=SC2086 # $ranks is words: program paths have no blanks
                out=$(VBT_SHM_CMA=$cma timeout 300 "$MPIRUN" --oversubscribe $ranks 2>&1)
                rc=$?
                secs=$(($(date +%s) - start))
                got=$(printf '%s\n' "$out" | grep -c "^$prog [a-z_]*: ok ($np ranks)")
                echo "VBT_TRANSPORTS=${VBT_TRANSPORTS:-(default)} VBT_SHM_CMA=$cma $what $prog -> exit $rc, $got of $want ok ($secs s)"
                printf '%s\n' "$out" | grep 'origins waited' || true
                if [ $rc -eq 77 ]; then
                    continue
                fi
                if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
                    echo "FAIL: VBT_SHM_CMA=$cma $what $prog"
                    printf '%s\n' "$out" | tail -20
                    fail=1
                fi
            done
        done
    done
done
[ $fail -eq 0 ] && echo "rma: all passed"
exit $fail
