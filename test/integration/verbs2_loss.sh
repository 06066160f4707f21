# verbs2.sh's part "loss" (VBT_VERBS2_PARTS=loss), sourced by verbs2_slurm.sh on vnode0 with its
# functions (srun_run, expect_count, expect_transports, step, failed): packet loss on the link
# between the two VMs. rxe's loopback inside one VM never touches a link; here every RoCE packet
# crosses eth0, where netem drops some:
# - on both nodes' eth0 (egress, so both directions): 2% of all packets, and 50% of the
#   connection manager's UD packets (a u32 filter picks RoCE v2 UD opcodes into their own netem),
#   so that lost REQs and REPs (transport-ib/vbt_ib_cm.c retransmits the REQ) happen in every run
#   rather than once in a while;
# - the same jobs without loss, then with it, all with VBT_IB_WRITE_MAX=16k (see loss_env):
#   pingpong 0 B to 4 MiB (eager and rendezvous) and vbt_osu_bw -c 1 B to 1 MiB at one rank per
#   node, coll allreduce at one and at two ranks per node (shm on the node, ib across) and
#   vbt_osu_allreduce -c up to 1 MiB at two per node. Every payload is checked: all of it must
#   arrive intact, only later. Every job connects its QPs while the loss is on (connections are
#   per job, made on first use);
# - netem's drop counters must be above zero on both nodes, for UD packets on one at least (else
#   netem did nothing and the run proves nothing); the timings with and without loss, how many
#   REQs were sent again and rxe's counters go to the log, not asserted;
# - the qdisc is removed on both nodes at the end, whatever failed before (no test here ends
#   the script early).
# vnode1's qdisc is set up through srun -w vnode1 (slurmd runs the task as root).
loss_osu_bw=$abs_top_builddir/examples/osu/vbt_osu_bw
loss_osu_allreduce=$abs_top_builddir/examples/osu/vbt_osu_allreduce
for _p in "$loss_osu_bw" "$loss_osu_allreduce"; do
    [ -x "$_p" ] || failed "$_p is not built (make check builds it)"
done

# The qdiscs: a prio root with two bands, everything in band 1 (priomap all 0) but what the
# filter sends to band 2: IPv4 (rxe's GID 1, which Verbatim prefers, is the IPv4-mapped one),
# UDP to RoCE v2's port 4791, BTH opcode 0x60-0x7f (UD) in the byte after the 20-byte IP header
# (rxe sends none with options) and the 8-byte UDP header.
loss_tc_up='set -e
modprobe -a sch_prio sch_netem cls_u32
tc qdisc del dev eth0 root 2>/dev/null || :
tc qdisc add dev eth0 root handle 1: prio bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
tc qdisc add dev eth0 parent 1:1 handle 10: netem loss 2%
tc qdisc add dev eth0 parent 1:2 handle 20: netem loss 50%
tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
    match ip dport 4791 0xffff match u8 0x60 0xe0 at 28 flowid 1:2
tc qdisc show dev eth0'
# rxe (Linux 6.1) asks for an ACK every 64 packets or at a WRITE's end, takes no NAK while it
# retries, and counts every retry without an ACK against retry_cnt (6): at 2% loss both ways a
# 1 MiB WRITE (1024 packets at rxe's 1024-byte MTU) runs out of retries often
# (RETRY_EXC_ERR, "transport retry counter exceeded"). 16 KiB WRITEs end, and are
# acknowledged, every 16 packets. The same for both phases, for comparable timings; the
# caller's VBT_IB_WRITE_MAX, if set, instead (VBT_IB_WRITE_MAX=1m shows the failure).
loss_env=VBT_IB_WRITE_MAX=${VBT_IB_WRITE_MAX:-16k}
loss_tc_down='tc qdisc del dev eth0 root 2>/dev/null; tc qdisc show dev eth0'

# loss_on_node NODE SCRIPT: run SCRIPT (sh -c) on vnode0 here or on vnode1 through srun; sets
# $out and $rc.
loss_on_node() {
    if [ "$1" = vnode0 ]; then
        out=$(sh -c "$2" 2>&1)
        rc=$?
    else
        out=$(timeout 120 srun -w "$1" -N 1 -n 1 sh -c "$2" 2>&1)
        rc=$?
    fi
}

# loss_drops NODE HANDLE: netem HANDLE's drop count in $out (tc -s qdisc show of NODE).
loss_drops() {
    printf '%s\n' "$out" | awk -v h="$2:" '
        $1 == "qdisc" { in_q = ($2 == "netem" && $3 == h) }
        in_q && /dropped/ { sub(/.*dropped /, ""); sub(/,.*/, ""); print; exit }'
}

loss_summary=
# loss_note WHAT SECONDS [FIGURES]: a line of the summary.
loss_note() {
    loss_summary="$loss_summary
    $1: $2 s${3:+; $3}"
}

# loss_jobs LABEL [ENV...]: the jobs, each with its payloads checked; LABEL says which phase.
loss_jobs() {
    loss_label=$1
    shift
    loss_t0=$(date +%s)
    srun_run -N 2 -n 2 --mpi=pmix env "$@" "$pingpong" -m 0:4194304 -i 1 -x 0
    expect_count "pingpong 0 B to 4 MiB between the nodes, $loss_label (payloads checked)" \
        "^  *4194304 " 1
    loss_note "pingpong 0 B-4 MiB, $loss_label" $(($(date +%s) - loss_t0)) "$(printf '%s\n' "$out" |
        awk '$1 == 8 || $1 == 65536 || $1 == 4194304 { printf "%s%s B %s us", s, $1, $2; s = ", " }')"
    cat "$WORK/out" >>"$WORK/loss.log"

    loss_t0=$(date +%s)
    srun_run -N 2 -n 2 --mpi=pmix env "$@" "$loss_osu_bw" -c -m 1:1048576 -W 4 -i 5 -x 1
    expect_count "vbt_osu_bw -c 1 B to 1 MiB, $loss_label (payloads checked)" "^1048576 " 1
    loss_note "vbt_osu_bw -c 1 B-1 MiB, $loss_label" $(($(date +%s) - loss_t0)) "$(printf '%s\n' "$out" |
        awk '$1 == 8 || $1 == 65536 || $1 == 1048576 { printf "%s%s B %s MB/s", s, $1, $2; s = ", " }')"
    cat "$WORK/out" >>"$WORK/loss.log"

    loss_t0=$(date +%s)
    srun_run -N 2 -n 2 --mpi=pmix env "$@" "$coll" allreduce
    expect_count "coll allreduce at 2 ranks on 2 nodes, $loss_label" "^coll allreduce: ok (2 ranks)" 1
    loss_note "coll allreduce, 1 rank per node, $loss_label" $(($(date +%s) - loss_t0))
    cat "$WORK/out" >>"$WORK/loss.log"

    loss_t0=$(date +%s)
    srun_run -N 2 -n 4 --ntasks-per-node=2 --mpi=pmix env "$@" "$coll" allreduce
    expect_count "coll allreduce at 4 ranks on 2 nodes, $loss_label" "^coll allreduce: ok (4 ranks)" 1
    case " $* " in
    *" VBT_LOG=debug "*)
        expect_transports "coll allreduce, 2 ranks per node, $loss_label" \
            0:vnode0:1:shm 2:vnode1:3:shm 0:vnode0:2:ib 1:vnode0:3:ib 2:vnode1:0:ib 3:vnode1:1:ib
        ;;
    esac
    loss_note "coll allreduce, 2 ranks per node, $loss_label" $(($(date +%s) - loss_t0))
    cat "$WORK/out" >>"$WORK/loss.log"

    loss_t0=$(date +%s)
    srun_run -N 2 -n 4 --ntasks-per-node=2 --mpi=pmix env "$@" "$loss_osu_allreduce" -c \
        -m 4:1048576 -i 5 -x 1
    expect_count "vbt_osu_allreduce -c 4 B to 1 MiB at 4 ranks on 2 nodes, $loss_label" "^1048576 " 1
    loss_note "vbt_osu_allreduce -c 4 B-1 MiB, 2 ranks per node, $loss_label" $(($(date +%s) - loss_t0)) \
        "$(printf '%s\n' "$out" | awk '$1 == 1048576 { printf "1 MiB %s us", $2 }')"
    cat "$WORK/out" >>"$WORK/loss.log"
}

: >"$WORK/loss.log"
step "loss: the jobs without loss (timings for comparison)"
loss_jobs "no loss" VBT_LOG=warn $loss_env

step "loss: netem on eth0 of both nodes (2% of all packets, 50% of the UD ones)"
loss_up=1
for _n in vnode0 vnode1; do
    loss_on_node $_n "$loss_tc_up"
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q 'netem 20: .*loss 50%'; then
        failed "netem on $_n's eth0 (exit $rc)" "$out"
        loss_up=0
    fi
done

if [ $loss_up = 1 ]; then
    step "loss: the same jobs with loss (connection managers' debug log on)"
    loss_jobs "2% loss" VBT_LOG=debug $loss_env
    loss_ud=0
    for _n in vnode0 vnode1; do
        loss_on_node $_n 'tc -s qdisc show dev eth0
{ cd /sys/class/infiniband/rxe0/ports/1/hw_counters && grep -H . * | grep -v ":0$"; } || :'
        echo "verbs2: loss: $_n: rxe0's non-zero counters:" $(printf '%s\n' "$out" |
            sed -n 's/^\([a-z_]*\):\([0-9]*\)$/\1=\2/p')
        _all=$(loss_drops $_n 10)
        _ud=$(loss_drops $_n 20)
        echo "verbs2: loss: $_n's eth0 dropped ${_all:-?} packets (2%) and ${_ud:-?} UD packets (50%)"
        [ $rc -eq 0 ] && [ "${_all:-0}" -gt 0 ] ||
            failed "loss: netem dropped nothing on $_n's eth0: the run proves nothing" "$out"
        loss_ud=$((loss_ud + ${_ud:-0}))
    done
    # Over both nodes, since one may have sent too few UD packets (each job: a REQ and a REP
    # per connection, and their repeats) for 50% to be sure to hit one.
    [ "$loss_ud" -gt 0 ] ||
        failed "loss: no connection manager packet was dropped on either node (filter wrong?)"
    echo "verbs2: loss: REQs retransmitted: $(grep -c 'no REP from rank .* yet: REQ again' \
        "$WORK/loss.log"), connections made in $(grep 'connection manager: rank .* ready after' \
        "$WORK/loss.log" | sed 's/.* after \([0-9]*\) ms/\1/' | sort -n | tr '\n' ' ')ms"
fi

step "loss: netem off on both nodes"
for _n in vnode0 vnode1; do
    loss_on_node $_n "$loss_tc_down"
    # Once more if srun lost out to the loss itself.
    [ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q netem || loss_on_node $_n "$loss_tc_down"
    [ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q netem ||
        failed "loss: removing the qdisc on $_n's eth0 (exit $rc)" "$out"
done
echo "verbs2: loss: wall time per job step (srun included), without and with loss:$loss_summary"
