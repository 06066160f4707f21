#!/bin/sh
# Setup errors natively: each ends MPI_Init with one clear message and a non-zero exit within
# seconds, never a hang, a crash or a silent fallback:
# - VBT_TRANSPORTS=self,ib on a machine without an RDMA device (the peers cannot reach each
#   other), VBT_IB_DEVICE=nonexistent (with the default transports and with self,ib);
# - a PMIx server that cannot be reached: PMIX_NAMESPACE without a server address, a server
#   address where nothing listens, and one where a server accepts but never answers (the
#   handshake must time out: vbt_pmix.c bounds it to 10 s); the program must not run as a
#   singleton instead;
# - RLIMIT_MEMLOCK of 64 KiB: shm pins nothing, the job runs.
# The device-side errors on a real device (a bad VBT_IB_GID_INDEX, RLIMIT_MEMLOCK too small for
# ib) are checked in the Soft-RoCE VM by verbs_setup_errors.sh.
. "$(dirname "$0")/lib.sh"

P2P=$abs_top_builddir/test/integration/p2p
[ -x "$P2P" ] || { failed "$P2P is not built"; finish; }

# expect_error WHAT REGEX MAX_S: $rc is a failure (not a timeout, not a crash), $out matches
# REGEX (ERE), took at most MAX_S seconds, and nothing ran.
expect_error() {
    case $rc in
    0 | 124 | 134 | 135 | 136 | 137 | 139) failed "$1: exit $rc, expected a clean failure" "$out" ;;
    *)
        if ! printf '%s\n' "$out" | grep -Eq -- "$2"; then
            failed "$1: exit $rc, no message matching /$2/" "$out"
        elif [ "$elapsed" -gt "$3" ]; then
            failed "$1: took $elapsed s (at most $3)" "$out"
        elif printf '%s\n' "$out" | grep -q ': ok ('; then
            failed "$1: the program ran anyway" "$out"
        else
            echo "ok: $1 (exit $rc, $elapsed s): $(printf '%s\n' "$out" | grep -Em 1 -- "$2" |
                sed 's/^\[[^]]*\] [^ ]* *error *//' | cut -c 1-160)"
        fi
        ;;
    esac
}

# --- transports ---
ndev=$(ibv_devices 2>/dev/null | awk 'NR > 2' | grep -c .)
if [ "$ndev" -eq 0 ]; then
    run_env VBT_TRANSPORTS=self,ib -- -n 2 "$P2P" pingpong
    expect_error "VBT_TRANSPORTS=self,ib without a device" \
        "cannot reach rank 1 .*no usable RDMA device" 20
    nodev="no RDMA device"
else
    nodev="VBT_IB_DEVICE=nonexistent: there is no RDMA device nonexistent"
fi
run_env VBT_IB_DEVICE=nonexistent -- -n 2 "$P2P" pingpong
expect_error "VBT_IB_DEVICE=nonexistent" "$nodev" 20
run_env VBT_IB_DEVICE=nonexistent VBT_TRANSPORTS=self,ib -- -n 2 "$P2P" pingpong
expect_error "VBT_IB_DEVICE=nonexistent, VBT_TRANSPORTS=self,ib" "$nodev" 20

# --- PMIx server not there ---
# run_alone ENV...: the program started without a launcher; sets $out, $rc, $elapsed.
run_alone() {
    _start=$(date +%s)
    out=$(env "$@" timeout 60 "$P2P" pingpong 2>&1)
    rc=$?
    elapsed=$(($(date +%s) - _start))
}
pmix_msg="cannot connect to the PMIx server of the launcher"
run_alone PMIX_NAMESPACE=vbt-nowhere PMIX_RANK=0
expect_error "PMIX_NAMESPACE, no server address" "$pmix_msg" 10
# Port 1 (tcpmux): nothing listens there, the connection is refused.
uri="pmix-server.1;tcp4://127.0.0.1:1"
run_alone PMIX_NAMESPACE=vbt-nowhere PMIX_RANK=0 "PMIX_SERVER_URI41=$uri" "PMIX_SERVER_URI4=$uri"
expect_error "PMIx server address where nothing listens" "$pmix_msg at pmix-server" 10
if command -v python3 >/dev/null 2>&1; then
    # A server that accepts and never says a word.
    python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
conns, end = [], time.time() + 40
while time.time() < end:
    s.settimeout(0.5)
    try: conns.append(s.accept()[0])
    except OSError: pass
' >"$WORK/port" &
    server=$!
    for _i in $(seq 50); do
        [ -s "$WORK/port" ] && break
        sleep 0.1
    done
    uri="pmix-server.1;tcp4://127.0.0.1:$(cat "$WORK/port")"
    run_alone PMIX_NAMESPACE=vbt-nowhere PMIX_RANK=0 "PMIX_SERVER_URI41=$uri" \
        "PMIX_SERVER_URI4=$uri"
    expect_error "PMIx server that never answers" "$pmix_msg at pmix-server" 20
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
else
    echo "note: no python3: the silent PMIx server case is not run"
fi

# --- RLIMIT_MEMLOCK ---
out=$( (ulimit -l 64 && timeout 60 "$MPIRUN" -n 2 "$P2P" pingpong) 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q 'p2p pingpong: ok (2 ranks)'; then
    failed "RLIMIT_MEMLOCK 64 KiB, shm: exit $rc" "$out"
else
    echo "ok: RLIMIT_MEMLOCK 64 KiB: shm runs"
fi

finish
