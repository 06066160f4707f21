#!/bin/sh
# Rendezvous over shared memory (VBT_TRANSPORTS=self,shm), natively: suite_rndv.sh, once with
# CMA reads (one copy) and once streaming through the rings (VBT_SHM_CMA=0, the path taken
# where CMA is refused).
VBT_TRANSPORTS=self,shm
export VBT_TRANSPORTS
fail=0
for cma in 1 0; do
    echo "== VBT_SHM_CMA=$cma"
    # The path the large messages take, as the ranks report it.
    [ $cma = 1 ] && want="one copy, read from the sender's memory" || want="two copies, streamed through its sends"
    if ! VBT_SHM_CMA=$cma VBT_LOG=info timeout 60 "$MPIRUN" -n 2 \
        "$abs_top_builddir/test/integration/rndv" misc 2>&1 | grep -q "transport to rank 1 (on this node): shm (large messages: $want)"; then
        echo "FAIL: VBT_SHM_CMA=$cma: rank 0 does not report large messages by $want"
        fail=1
    fi
    VBT_SHM_CMA=$cma sh "$abs_top_srcdir/test/integration/suite_rndv.sh" || fail=1
done
exit $fail
