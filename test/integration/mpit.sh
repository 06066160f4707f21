#!/bin/sh
# The tools interface (test/integration/mpit.c) over shared memory at 1 to 4 ranks: MPI_T
# before MPI_Init and after MPI_Finalize, enumeration, sessions, handles and their errors,
# counters equal to the traffic sent (N messages of B bytes: exactly N and N * B, eager or
# rendezvous), writes that change behaviour; the debug line MPI_T's VBT_LOG write turns on
# appears exactly while it is on; verbatim-info --mpit lists the same variables.
. "$(dirname "$0")/lib.sh"

PROG=$abs_top_builddir/test/integration/mpit
# verbs_mpit.sh runs the same over ib (MPIT_TL=ib, VBT_TRANSPORTS=self,ib) at fewer ranks.
tl=${MPIT_TL:-shm}
nps=${MPIT_NPS:-1 2 3 4}
INFO=$abs_top_builddir/tools/verbatim-info

for np in $nps; do
    run_env VBT_PROGRESS=block -- --oversubscribe -n $np "$PROG" "$tl" 5 "$MARK"
    expect_rc "-n $np" 0
    printf '%s\n' "$out" | grep -q "^mpit: ok ($np ranks)\$" || failed "-n $np: no ok line" "$out"
    n=$(printf '%s\n' "$out" | grep -c "MPI_T_cvar_get_index returns MPI_T_ERR_INVALID_NAME: no control variable is named \"VBT_MPIT_PROBE_WHILE_DEBUG\"")
    [ "$n" -eq "$np" ] || failed "-n $np: VBT_LOG written to debug: $n debug lines, expected $np" "$out"
    ! printf '%s\n' "$out" | grep -q "VBT_MPIT_PROBE_WHILE_WARN" ||
        failed "-n $np: VBT_LOG written back to warn: still logging debug lines" "$out"
    echo "mpit: $np ranks done"
done

# verbatim-info --mpit: every knob of the table is a control variable.
if [ -x "$INFO" ]; then
    mpit=$("$INFO" --mpit 2>&1) || failed "verbatim-info --mpit: exit $?" "$mpit"
    for knob in $("$INFO" 2>/dev/null | awk '/^  VBT_/ { print $1 }'); do
        printf '%s\n' "$mpit" | grep -q "^  *cvar  *[0-9]*  *$knob " ||
            failed "verbatim-info --mpit: no cvar $knob" "$mpit"
    done
    for v in shm_msgs_sent ib_bytes_recvd p2p_unexpected_hwm rcache_misses progress_blocked_time; do
        printf '%s\n' "$mpit" | grep -q "^  *pvar  *[0-9]*  *$v " ||
            failed "verbatim-info --mpit: no pvar $v" "$mpit"
    done
fi

finish
