#!/bin/sh
# Setup errors over verbs, on a machine (or the Soft-RoCE VM) with an RDMA device: each ends
# MPI_Init with one clear message naming the setting, and a non-zero exit within seconds,
# never a hang, a crash or a job that runs anyway:
# - VBT_IB_DEVICE naming a device that does not exist (with VBT_TRANSPORTS=self,ib and with
#   the default transports), or a port the device does not have;
# - VBT_IB_GID_INDEX at an index the port has no GID at;
# - RLIMIT_MEMLOCK of 64 KiB (ulimit -l 64) without CAP_IPC_LOCK (setpriv drops it: the VM
#   runs as root, whose CAP_IPC_LOCK lifts the limit);
# - no ACTIVE port: the netdev under the device taken down (restored at the end).
# A control run first shows the same job works without the bad setting. Needs an RDMA device
# (run through test/integration/verbs.sh). Exit 0 pass, other fail.
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
. "$(dirname "$0")/lib.sh"
p2p="$abs_top_builddir/test/integration/p2p"

dev=$(ibv_devices 2>/dev/null | awk 'NR == 3 { print $1 }')
if [ -z "$dev" ]; then
    echo "FAIL: no RDMA device (run this through test/integration/verbs.sh)"
    exit 1
fi

# expect_error WHAT REGEX: a clean failure (not a timeout, not a crash) within 60 s, a message
# matching REGEX (ERE), and no rank that ran the test.
expect_error() {
    case $rc in
    0 | 124 | 134 | 135 | 136 | 137 | 139)
        echo "FAIL: $1: exit $rc, expected a clean failure"
        printf '%s\n' "$out" | tail -20
        fail=1
        return
        ;;
    esac
    if ! printf '%s\n' "$out" | grep -Eq -- "$2"; then
        echo "FAIL: $1: exit $rc, no message matching /$2/"
        printf '%s\n' "$out" | tail -20
        fail=1
    elif [ "$elapsed" -gt 60 ]; then
        echo "FAIL: $1: took $elapsed s"
        fail=1
    elif printf '%s\n' "$out" | grep -q ': ok ('; then
        echo "FAIL: $1: the program ran anyway"
        printf '%s\n' "$out" | tail -20
        fail=1
    else
        echo "ok: $1 (exit $rc, $elapsed s): $(printf '%s\n' "$out" | grep -Em 1 -- "$2" |
            sed 's/^\[[^]]*\] [^ ]* *error *//' | cut -c 1-200)"
    fi
}

run_env VBT_TRANSPORTS=self,ib -- -n 2 "$p2p" pingpong
if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q 'p2p pingpong: ok (2 ranks)'; then
    echo "FAIL: control: VBT_TRANSPORTS=self,ib on $dev: exit $rc"
    printf '%s\n' "$out" | tail -20
    exit 1
fi
echo "ok: control: VBT_TRANSPORTS=self,ib on $dev"

run_env VBT_TRANSPORTS=self,ib VBT_IB_DEVICE=nonexistent -- -n 2 "$p2p" pingpong
expect_error "VBT_IB_DEVICE=nonexistent, self,ib" \
    "VBT_IB_DEVICE=nonexistent: there is no RDMA device nonexistent; this host has .*$dev"
run_env VBT_IB_DEVICE=nonexistent -- -n 2 "$p2p" pingpong
expect_error "VBT_IB_DEVICE=nonexistent, default transports" \
    "VBT_IB_DEVICE=nonexistent: there is no RDMA device nonexistent"
run_env VBT_TRANSPORTS=self,ib VBT_IB_DEVICE=$dev:9 -- -n 2 "$p2p" pingpong
expect_error "VBT_IB_DEVICE=$dev:9 (no such port)" "VBT_IB_DEVICE=$dev:9"
run_env VBT_TRANSPORTS=self,ib VBT_IB_GID_INDEX=99 -- -n 2 "$p2p" pingpong
expect_error "VBT_IB_GID_INDEX=99" "VBT_IB_GID_INDEX=99: $dev port [0-9]+ has no GID at that index"

# RoCE ranks on GIDs of different kinds (one IPv4-mapped, one IPv6) cannot reach each other:
# refused when they connect, naming both and the knob, not left to time out.
gids=$(ibv_devinfo -v -d "$dev" 2>/dev/null | sed -n 's/^.*GID\[ *\([0-9]*\)\]:[[:space:]]*\([^,]*\), RoCE v2.*/\1 \2/p')
v4=$(printf '%s\n' "$gids" | awk '$2 ~ /^::ffff:/ { print $1; exit }')
v6=$(printf '%s\n' "$gids" | awk '$2 !~ /^::ffff:/ && NF == 2 { print $1; exit }')
if [ -n "$v4" ] && [ -n "$v6" ]; then
    run_env VBT_TRANSPORTS=self,ib -- -n 1 env VBT_IB_GID_INDEX="$v4" "$p2p" pingpong : \
        -n 1 env VBT_IB_GID_INDEX="$v6" "$p2p" pingpong
    expect_error "VBT_IB_GID_INDEX=$v4 (IPv4) on rank 0, $v6 (IPv6) on rank 1" \
        "addressed by an IPv[46] GID and this rank \\([01]\\) by an IPv[46] one: RoCE v2 cannot route between IPv4 and IPv6.*VBT_IB_GID_INDEX"
else
    echo "note: $dev has no RoCE v2 GIDs of both kinds: the mixed-GID case is not run"
fi

if command -v setpriv >/dev/null 2>&1; then
    start=$(date +%s)
    out=$( (ulimit -l 64 && VBT_TRANSPORTS=self,ib setpriv --inh-caps=-ipc_lock \
        --bounding-set=-ipc_lock timeout 120 "$MPIRUN" -n 2 "$p2p" pingpong) 2>&1)
    rc=$?
    elapsed=$(($(date +%s) - start))
    expect_error "RLIMIT_MEMLOCK 64 KiB without CAP_IPC_LOCK" \
        "RLIMIT_MEMLOCK \\(max locked memory\\) is 64 KiB"
else
    echo "note: no setpriv: the RLIMIT_MEMLOCK case is not run"
fi

# No ACTIVE port: Soft-RoCE's port follows its netdev. Last, and put back whatever happens, so
# the tests after this one (verbs_all.sh runs them in one boot) find the port up.
netdev=$(rdma link show 2>/dev/null | sed -n "s|^link $dev/[0-9]* .* netdev \\([^ ]*\\).*|\\1|p" | head -1)
if [ -n "$netdev" ] && [ "${RXEVM_GUEST:-0}" = 1 ]; then
    port_active() { ibv_devinfo -d "$dev" 2>/dev/null | grep -q 'state:.*PORT_ACTIVE'; }
    ip link set "$netdev" down
    for _i in $(seq 50); do
        port_active || break
        sleep 0.1
    done
    run_env VBT_TRANSPORTS=self,ib -- -n 2 "$p2p" pingpong
    ip link set "$netdev" up
    expect_error "no ACTIVE port ($netdev down)" \
        "no usable RDMA device \\(no usable RDMA port: $dev port [0-9]+ is (down|PORT_DOWN)"
    for _i in $(seq 100); do
        port_active && break
        sleep 0.1
    done
    port_active || { echo "FAIL: $dev did not come back ACTIVE after $netdev up"; fail=1; }
else
    echo "note: not in the Soft-RoCE VM (or no netdev under $dev): the no-ACTIVE-port case is not run"
fi

[ $fail -eq 0 ] && echo "verbs_setup_errors: all passed"
exit $fail
