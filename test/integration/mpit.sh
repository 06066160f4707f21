#!/bin/sh
# The tools interface (test/integration/mpit.c) over shared memory at 1 to 4 ranks: MPI_T
# before MPI_Init and after MPI_Finalize, enumeration, sessions, handles and their errors,
# counters equal to the traffic sent (N messages of B bytes: exactly N and N * B, eager or
# rendezvous), writes that change behaviour; the debug line MPI_T's VBT_LOG write turns on
# appears exactly while it is on; send stalls, progress wake-ups, the registration cache over ib,
# the one-sided knobs written through MPI_T; examples/mpit_table's table after its benchmark;
# verbatim-info --mpit lists the same variables.
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

# examples/mpit_table around its benchmark (10 exchanges each of 8 B, 4 KiB, 64 KiB and 1 MiB
# with the ring's neighbours, then a barrier) at 2 ranks: each rank's table has the transport's
# rows, changed by at least what the benchmark sent and received (the barrier adds a few
# messages of no payload): 40 messages of 11182160 bytes, the 20 small ones eager, the 20 of
# 64 KiB and 1 MiB rendezvous (over both VBT_SHM_RNDV_THRESHOLD and VBT_RNDV_THRESHOLD).
TABLE=$abs_top_builddir/examples/mpit_table
run_env VBT_PROGRESS=block -- -n 2 "$TABLE" 10
expect_rc "mpit_table" 0
for r in 0 1; do
    tab=$(printf '%s\n' "$out" | awk -v r="rank $r of 2:" 'index($0, r) == 1 { on = 1; next }
        /^rank / { on = 0 } on')
    for want in "msgs_sent 40 50" "msgs_recvd 40 50" "bytes_sent 11182160 11182160" \
        "bytes_recvd 11182160 11182160" "eager_sent 20 30" "eager_recvd 20 30" \
        "rndv_sent 20 20" "rndv_recvd 20 20"; do
        set -- $want
        chg=$(printf '%s\n' "$tab" | awk -v n="${tl}_$1" '$1 == n { print $4 }')
        [ -n "$chg" ] && [ "$chg" -ge "$2" ] && [ "$chg" -le "$3" ] ||
            failed "mpit_table, rank $r: ${tl}_$1 changed by '$chg', expected $2 to $3" "$out"
    done
done
echo "mpit: mpit_table done"

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
