#!/bin/sh
# transport-ib on a real verbs device (run through test/integration/verbs.sh: natively, or in
# the Soft-RoCE VM): device listing and choice, the user errors (unknown device or port, bad
# GID index, RLIMIT_MEMLOCK too small), then ping-pong of every size, the 10,000-message flood
# and all-to-all under mpirun at 2 and 4 ranks and with another eager limit, connections on
# first use (the published address has one size at 2 and 6 ranks, a rank connects only to the
# peers it talks to, crossing connections, a peer busy for 2 s), receive memory that grows with
# the peers connected (7 ranks), and finally the failure
# tests: receiver not ready (a credit bug must fail at once, not storm), a peer that is gone
# (must fail in seconds with the likely cause), and liveness probes to a live and to a vanished
# peer (idle). Then the one-sided operations: get() and the atomics between ranks (a counter
# of concurrent FADDs exact), what a registration grants them, and two instances in one
# process. The device's RNR counters must not move during the data runs. Exit 0 pass, 77 skip
# (no device), other fail. A hostile peer of the transport itself: verbs_hostile.sh.
# CI's whole list runs each check once; verbs_ib_transport_full.sh (make check-long) sets
# VERBS_FULL=1, which adds the lines marked "full" below: the data runs at 4 ranks, get() and
# the atomics at 2, and the busy peer (verbs_lazy.sh retries a busy peer through MPI in CI).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
set -u
prog="$abs_top_builddir/test/integration/ib_transport"
fail=0
# full: true in verbs_ib_transport_full.sh only; "full && ..." is a case CI's list leaves out.
full() { [ "${VERBS_FULL:-0}" = 1 ]; }

if [ ! -x "$prog" ]; then
    echo "FAIL: $prog is not built (make check builds it)"
    exit 1
fi

# A singleton needs no launcher: it checks the device part, and whether there is one at all.
single() {
    env -u PMIX_NAMESPACE -u PMIX_RANK timeout 120 "$prog" "$@" 2>&1
}
out=$(VBT_LOG=info single init)
rc=$?
if [ $rc -eq 77 ]; then
    echo "SKIP: no usable RDMA device: $(printf '%s\n' "$out" | grep -m 1 'unavailable')"
    exit 77
fi
if [ $rc -ne 0 ]; then
    echo "FAIL: singleton init (exit $rc)"
    printf '%s\n' "$out"
    exit 1
fi
printf '%s\n' "$out" | grep 'InfiniBand: ' | sed 's/^.*info  /singleton: /'

# verbatim-info's device section: every device, port and GID, and the choice.
out=$(single describe)
out0=$out
printf '%s\n' "$out"
dev=$(printf '%s\n' "$out" | sed -n 's/^  Verbatim would use: \([^ ]*\) port \([0-9]*\).*/\1/p')
port=$(printf '%s\n' "$out" | sed -n 's/^  Verbatim would use: \([^ ]*\) port \([0-9]*\).*/\2/p')
if [ -z "$dev" ] || ! printf '%s\n' "$out" | grep -q "^  $dev: " ||
    ! printf '%s\n' "$out" | grep -q "^    port $port: " ||
    ! printf '%s\n' "$out" | grep -q "RLIMIT_MEMLOCK"; then
    echo "FAIL: describe does not list the chosen device, its port and RLIMIT_MEMLOCK"
    fail=1
fi
roce=0
printf '%s\n' "$out" | grep -q "^    port $port: .*link layer Ethernet" && roce=1
if [ $roce -eq 1 ] && ! printf '%s\n' "$out" | grep -q "GID\[[0-9]*\] RoCE v2"; then
    echo "FAIL: describe lists no RoCE v2 GID on a RoCE port"
    fail=1
fi

# expect_error WHAT PATTERN ENV...: a singleton init must fail, saying PATTERN.
expect_error() {
    what=$1
    pattern=$2
    shift 2
    out=$(env "$@" sh -c 'exec env -u PMIX_NAMESPACE -u PMIX_RANK timeout 120 "$0" init' \
        "$prog" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 77 ] || ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
        echo "FAIL: $what: exit $rc, expected an error saying '$pattern':"
        printf '%s\n' "$out"
        fail=1
    else
        echo "ok: $what: $(printf '%s\n' "$out" | grep -m 1 -- "$pattern" | sed 's/^\[[^]]*\] [^ ]* error *//')"
    fi
}
expect_error "unknown device" "this host has .*$dev" VBT_IB_DEVICE=nosuchdev0
expect_error "missing port" "has no port 9" VBT_IB_DEVICE="$dev:9"
expect_error "malformed VBT_IB_DEVICE" "not valid" VBT_IB_DEVICE="$dev:x"
[ $roce -eq 1 ] && expect_error "bad GID index" "no GID at that index" VBT_IB_GID_INDEX=99
expect_error "eager limit out of range" "VBT_EAGER_LIMIT=.*out of range" VBT_EAGER_LIMIT=16

# Settings that differ between ranks must be caught when the ranks connect (on first use),
# naming the fix.
expect_job_error() {
    what=$1
    pattern=$2
    shift 2
    out=$(timeout 120 "$MPIRUN" "$@" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q -- "$pattern"; then
        echo "FAIL: $what: exit $rc, expected an error saying '$pattern':"
        printf '%s\n' "$out" | tail -20
        fail=1
    else
        echo "ok: $what: $(printf '%s\n' "$out" | grep -m 1 -- "$pattern" |
            sed 's/^\[[^]]*\] [^ ]* error *//')"
    fi
}
expect_job_error "eager limit differs" "VBT_EAGER_LIMIT differs between ranks" \
    -n 1 env VBT_EAGER_LIMIT=8k "$prog" hello : -n 1 env VBT_EAGER_LIMIT=16k "$prog" hello
v4=$(printf '%s\n' "$out0" | sed -n 's/^      GID\[\([0-9]*\)\] RoCE v2 .* IPv4-mapped.*/\1/p' | head -n 1)
v6=$(printf '%s\n' "$out0" | sed -n 's/^      GID\[\([0-9]*\)\] RoCE v2 .* link-local.*/\1/p' | head -n 1)
if [ $roce -eq 1 ] && [ -n "$v4" ] && [ -n "$v6" ]; then
    expect_job_error "IPv4 and IPv6 GIDs mixed" "cannot route between IPv4 and IPv6" \
        -n 1 env VBT_IB_GID_INDEX="$v4" "$prog" hello : -n 1 env VBT_IB_GID_INDEX="$v6" "$prog" hello
fi

# RLIMIT_MEMLOCK too small: root must also drop CAP_IPC_LOCK, which lifts the limit.
if [ "$(id -u)" = 0 ]; then
    if command -v setpriv >/dev/null 2>&1; then
        out=$( (ulimit -l 64 && env -u PMIX_NAMESPACE -u PMIX_RANK timeout 120 setpriv \
            --inh-caps=-ipc_lock --bounding-set=-ipc_lock "$prog" init) 2>&1)
        rc=$?
    else
        out="setpriv missing"
        rc=77
    fi
else
    out=$( (ulimit -l 64 && env -u PMIX_NAMESPACE -u PMIX_RANK timeout 120 "$prog" init) 2>&1)
    rc=$?
fi
if [ $rc -eq 77 ]; then
    echo "note: memlock check not tested ($out)"
elif [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q "RLIMIT_MEMLOCK.*is 64 KiB.*ulimit -l"; then
    echo "FAIL: RLIMIT_MEMLOCK of 64 KiB: exit $rc, expected the memlock message:"
    printf '%s\n' "$out"
    fail=1
else
    echo "ok: memlock: $(printf '%s\n' "$out" | grep -m 1 RLIMIT_MEMLOCK | sed 's/^\[[^]]*\] [^ ]* error *//')"
fi

# Data runs. The RNR counters of the device (rxe, mlx5 name them differently; absent: skip).
counters=/sys/class/infiniband/$dev/ports/$port/hw_counters
rnr_count() {
    total=0
    for f in send_rnr_err rcvd_rnr_err rnr_nak_retry_err; do
        [ -r "$counters/$f" ] && total=$((total + $(cat "$counters/$f")))
    done
    echo $total
}
run() {
    n=$1
    shift
    before=$(rnr_count)
    out=$(env "$@" timeout 600 "$MPIRUN" --oversubscribe -n $n "$prog" all 2>&1)
    rc=$?
    after=$(rnr_count)
    ok=$(printf '%s\n' "$out" | grep -c "ib_transport OK: .* 0 errors")
    printf '%s\n' "$out" | grep -E "^ib_transport:|rank 0: (pingpong|flood|alltoall)" |
        sed "s/^/  -n $n $*: /"
    if [ $rc -ne 0 ] || [ "$ok" -ne "$n" ]; then
        echo "FAIL: -n $n $*: exit $rc, $ok of $n ranks ok"
        printf '%s\n' "$out" | tail -40
        fail=1
    elif [ "$before" != "$after" ]; then
        echo "FAIL: -n $n $*: the device counted $((after - before)) RNR NAKs"
        fail=1
    else
        echo "ok: -n $n $*: every byte right, no RNR"
    fi
}
run 2
full && run 4
run 2 VBT_EAGER_LIMIT=32k

# Connections on first use: the address each rank publishes has one size at 2 and at 6 ranks;
# a rank that talks to one peer connects only to it; all ranks then send to all at once.
sizes=""
for n in 2 6; do
    out=$(timeout 600 "$MPIRUN" --oversubscribe -n $n "$prog" lazy 2>&1)
    rc=$?
    ok=$(printf '%s\n' "$out" | grep -c "lazy: OK")
    size=$(printf '%s\n' "$out" | sed -n 's/^rank 0: lazy: ib.addr is \([0-9]*\) bytes.*/\1/p')
    if [ $rc -ne 0 ] || [ "$ok" -ne $n ] || [ -z "$size" ]; then
        echo "FAIL: lazy -n $n: exit $rc, $ok of $n ranks ok"
        printf '%s\n' "$out" | tail -30
        fail=1
    else
        echo "ok: lazy -n $n: ib.addr $size bytes; $(printf '%s\n' "$out" | grep -m 1 'rank 0: lazy: after')"
    fi
    sizes="$sizes $size"
done
set -- $sizes
if [ $# -eq 2 ] && [ "$1" != "$2" ]; then
    echo "FAIL: lazy: ib.addr has $1 bytes at 2 ranks but $2 at 6: it grows with the job"
    fail=1
fi

# Receive memory grows with the peers connected: buffers for 2 peers at init (the test lowers
# the first chunk from 8), rank 0 connects to 6 peers one by one and grows twice (2 -> 4 -> 6
# peers, one debug line each), every chunk carries messages, all send to rank 0 at once into the
# grown CQ, then all to all (every rank grows); every byte checked.
out=$(VBT_LOG=debug timeout 600 "$MPIRUN" --oversubscribe -n 7 "$prog" grow 2>&1)
rc=$?
ok=$(printf '%s\n' "$out" | grep -c "grow: OK")
grows=$(printf '%s\n' "$out" | grep -c ':0\] [^ ]* debug *receive pool: ')
if [ $rc -ne 0 ] || [ "$ok" -ne 7 ] || [ "$grows" -ne 2 ]; then
    echo "FAIL: grow: exit $rc, $ok of 7 ranks ok, rank 0 grew $grows times (expected 2)"
    printf '%s\n' "$out" | grep -v ' debug ' | tail -30
    fail=1
else
    echo "ok: grow: rank 0 grew twice, every chunk used, nothing lost:"
    printf '%s\n' "$out" | grep -E '^rank 0: grow: ' | sed 's/^/    /'
    printf '%s\n' "$out" | grep ':0\] [^ ]* debug *receive pool: ' |
        sed 's/^\[[^]]*\] [^ ]* debug */    /'
fi

# Growth past RLIMIT_MEMLOCK: 2 MiB covers init (receive buffers for 2 peers) but not buffers
# for 4: rank 0's connection to its third peer must fail with the memlock message.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
    out=$( (ulimit -l 2048 && timeout 300 setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock \
        "$MPIRUN" --oversubscribe -n 7 "$prog" grow) 2>&1)
    rc=$?
elif [ "$(id -u)" != 0 ]; then
    out=$( (ulimit -l 2048 && timeout 300 "$MPIRUN" --oversubscribe -n 7 "$prog" grow) 2>&1)
    rc=$?
else
    out="setpriv missing"
    rc=77
fi
pattern="RLIMIT_MEMLOCK.*is 2 MiB.*for 4 connected peers (connecting to rank 3) need about.*ulimit -l"
if [ $rc -eq 77 ]; then
    echo "note: memlock check at growth not tested ($out)"
elif [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q "$pattern"; then
    echo "FAIL: grow with RLIMIT_MEMLOCK of 2 MiB: exit $rc, expected the memlock message:"
    printf '%s\n' "$out" | tail -20
    fail=1
else
    echo "ok: memlock at growth: $(printf '%s\n' "$out" | grep -m 1 "$pattern" |
        sed 's/^\[[^]]*\] [^ ]* error *//')"
fi

# A peer busy for 2 s before it polls: the connection request is retransmitted until it answers.
# full (verbs_lazy.sh's busy case covers it in CI).
if full; then
    out=$(VBT_LOG=debug timeout 300 "$MPIRUN" -n 2 "$prog" busy 2>&1)
    rc=$?
    reqs=$(printf '%s\n' "$out" | grep -c ':0\] .*connection manager: REQ to rank 1')
    if [ $rc -ne 0 ] || [ "$(printf '%s\n' "$out" | grep -c 'busy: OK')" -ne 2 ] || [ "$reqs" -lt 3 ]; then
        echo "FAIL: busy: exit $rc, rank 0 sent $reqs REQs"
        printf '%s\n' "$out" | grep -v debug | tail -30
        fail=1
    else
        echo "ok: busy: $(printf '%s\n' "$out" | grep -m 1 'rank 0: busy: answered') ($reqs REQs)"
    fi
fi

# Receiver not ready: rank 0 ignores its credits while rank 1 does not poll. With rnr_retry 0
# this must fail at once with a sentence naming the cause, not hang or retry forever.
before=$(rnr_count)
out=$(timeout 300 "$MPIRUN" -n 2 "$prog" rnr 2>&1)
rc=$?
after=$(rnr_count)
if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "rank 0: rnr: .* as expected" ||
    ! printf '%s\n' "$out" | grep -q "eager send to rank 1 failed: .*RNR.*flow-control"; then
    echo "FAIL: rnr: exit $rc"
    printf '%s\n' "$out" | tail -30
    fail=1
else
    echo "ok: rnr: $(printf '%s\n' "$out" | grep -m 1 'eager send to rank 1 failed' |
        sed 's/^\[[^]]*\] [^ ]* error *//') (device RNR count +$((after - before)))"
fi

# run_mode MODE REGEX...: mpirun -n 2 of the program in MODE must exit 0 and print a line
# matching each REGEX; on success, prints "ok: MODE:" and the first line of each (the log's
# prefix dropped).
run_mode() {
    _mode=$1
    shift
    out=$(timeout 300 "$MPIRUN" -n 2 "$prog" "$_mode" 2>&1)
    rc=$?
    _miss=
    [ $rc -eq 0 ] || _miss=" exit $rc;"
    for _re in "$@"; do
        printf '%s\n' "$out" | grep -q -- "$_re" || _miss="$_miss no line /$_re/;"
    done
    if [ -n "$_miss" ]; then
        echo "FAIL: $_mode:$_miss"
        printf '%s\n' "$out" | tail -30
        fail=1
        return 1
    fi
    echo "ok: $_mode:"
    for _re in "$@"; do
        echo "    $(printf '%s\n' "$out" | grep -m 1 -- "$_re" | sed 's/^\[[^]]*\] [^ ]* error *//')"
    done
}

# A peer that closed its endpoints: sends to it must fail within the retry budget (~4 s), with
# the sentence naming the likely cause, not hang.
run_mode gone "rank 0: gone: failed as expected" "eager send to rank 1 failed: .*exited"

# Liveness probes (vbt_ib_liveness.c): to a live peer, among a stream of eager messages, they
# never fail and are all retired (on both ranks); to a peer whose QP went without a goodbye (as
# a killed process's does), with nothing else outstanding, one fails within 10 s, naming the
# rank and the cause.
run_mode idle "rank 0: idle: .* probes to a live peer, all retired" \
    "rank 1: idle: .* probes to a live peer, all retired" \
    "rank 0: idle: the dead peer was noticed after" \
    "rank 1.*failed.*rank 1 did not acknowledge: it exited"

# Remote access as narrow as the rendezvous needs: a WRITE into a receive buffer's registration
# lands; one into a send buffer's (registered without remote access) is refused by the NIC,
# reported with the status, the rank, the operation and the cause, and changes nothing.
run_mode access "rank 0: access: the WRITE into the receive buffer landed" \
    "rank 1: access: the WRITE into the send buffer was refused" \
    "RDMA write to rank 0 failed: remote access error.*rank 0 refused the write" \
    "rank 0: access: the send buffer is untouched"

# One-sided: get() whole and in part, FADDs from every other rank into one counter (exact, each
# old value once), CSWAP races, at 4 ranks (full: and at 2).
rma_sizes=4
full && rma_sizes="2 4"
for n in $rma_sizes; do
    out=$(timeout 600 "$MPIRUN" --oversubscribe -n $n "$prog" rma 2>&1)
    rc=$?
    if [ $rc -eq 77 ]; then
        echo "note: rma: $(printf '%s\n' "$out" | grep -m 1 SKIP)"
    elif [ $rc -ne 0 ] || [ "$(printf '%s\n' "$out" | grep -c 'rma: OK')" -ne $n ] ||
        ! printf '%s\n' "$out" | grep -q "rank 0: rma: .* FADD counter .* exact"; then
        echo "FAIL: rma -n $n: exit $rc"
        printf '%s\n' "$out" | tail -30
        fail=1
    else
        echo "ok: rma -n $n: $(printf '%s\n' "$out" | grep -m 1 'rank 0: rma: ' | sed 's/^rank 0: rma: //')"
    fi
done

# What a registration grants, for get() and atomics too: memory registered for them works, a
# rendezvous receive buffer (remote write only) refuses them.
run_mode deny-get "rank 1: deny-get: the get of memory registered for it worked" \
    "rank 1: deny-get: the get of the receive buffer was refused as expected" \
    "RDMA read to rank 0 failed: remote access error.*rank 0 refused the read" \
    "rank 0: deny-get: the receive buffer is untouched"
run_mode deny-atomic "rank 1: deny-atomic: the atomic of memory registered for it worked" \
    "rank 1: deny-atomic: the atomic of the receive buffer was refused as expected" \
    "atomic to rank 0 failed: remote access error.*rank 0 refused the atomic" \
    "rank 0: deny-atomic: the receive buffer is untouched"

# Two instances in one process, no MPI ranks (the contract's promise: an instance keeps all of
# its state): messages, put, get and atomics between them through the device.
out=$(single pair)
rc=$?
if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q '^pair: OK'; then
    echo "FAIL: pair: exit $rc"
    printf '%s\n' "$out" | tail -30
    fail=1
else
    echo "ok: pair:"
    printf '%s\n' "$out" | grep '^pair: ' | sed 's/^/    /'
fi

[ $fail -eq 0 ] && echo "ib_transport: all passed"
exit $fail
