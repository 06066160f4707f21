#!/bin/sh
# Transport selection, natively (no RDMA device needed): the default picks shm for on-node
# peers and self for a rank's own messages (VBT_LOG=info says so per peer); a job whose peers
# no listed transport reaches, or a bad VBT_TRANSPORTS or VBT_PROGRESS, stops in MPI_Init with
# one clear message and a non-zero exit, never a hang, and so does a rendezvous threshold above
# what may go as fragments; every VBT_PROGRESS mode moves messages.
set -u
p2p="$abs_top_builddir/test/integration/p2p"
fail=0

# run ENV... -- MPIRUN-ARGS...: sets $out and $rc.
run() {
    envs=
    while [ "$1" != -- ]; do
        envs="$envs $1"
        shift
    done
    shift
    out=$(env $envs timeout 60 "$MPIRUN" "$@" 2>&1)
    rc=$?
}
expect_ok() {
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "$2"; then
        echo "FAIL: $1: exit $rc, expected output matching /$2/"
        printf '%s\n' "$out" | tail -20
        fail=1
    else
        echo "ok: $1"
    fi
}
expect_error() {
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! printf '%s\n' "$out" | grep -q "$2"; then
        echo "FAIL: $1: exit $rc, expected a failure saying /$2/"
        printf '%s\n' "$out" | tail -20
        fail=1
    else
        echo "ok: $1: $(printf '%s\n' "$out" | grep -m 1 "$2" | sed 's/^\[[^]]*\] [^ ]* *error *//' | cut -c 1-150)"
    fi
}

run VBT_LOG=info -- -n 3 "$p2p" wildcards
expect_ok "default transports, 3 ranks" "p2p wildcards: ok (3 ranks)"
for pair in "0 1" "0 2" "2 1"; do
    set -- $pair
    if ! printf '%s\n' "$out" | grep -q "^\[[^]]*:$1\] .*transport to rank $2 (on this node): shm"; then
        echo "FAIL: rank $1 should reach rank $2 over shm"
        printf '%s\n' "$out" | grep "transport to rank"
        fail=1
    fi
done

for mode in spin hybrid block auto; do
    run VBT_PROGRESS=$mode -- -n 2 "$p2p" pingpong probe ssend
    expect_ok "VBT_PROGRESS=$mode" "p2p ssend: ok (2 ranks)"
done
run VBT_PROGRESS=block -- --oversubscribe -n 6 "$p2p" alltoall barrier
expect_ok "VBT_PROGRESS=block, 6 ranks on $(nproc) cores" "p2p barrier: ok (6 ranks)"

run VBT_TRANSPORTS=self,shmem -- -n 2 "$p2p" pingpong
expect_error "VBT_TRANSPORTS=self,shmem" "unknown transport 'shmem'"
run VBT_TRANSPORTS=shm -- -n 2 "$p2p" pingpong
expect_error "VBT_TRANSPORTS=shm" "leaves out self"
# Fragments are bounded (a receiver buffers an unexpected fragmented message whole).
run VBT_SHM_RNDV_THRESHOLD=65m -- -n 2 "$p2p" pingpong
expect_error "VBT_SHM_RNDV_THRESHOLD=65m" "the shm transport's rendezvous threshold (68157440 bytes.*at most 64m"
run VBT_PROGRESS=busy -- -n 2 "$p2p" pingpong
expect_error "VBT_PROGRESS=busy" "VBT_PROGRESS=busy: unknown mode"
# No shm and (here) no RDMA device: the peers cannot reach each other.
if [ "$(ibv_devices 2>/dev/null | awk 'NR > 2' | grep -c .)" -eq 0 ]; then
    run VBT_TRANSPORTS=self,ib -- -n 2 "$p2p" pingpong
    expect_error "VBT_TRANSPORTS=self,ib without a device" "cannot reach rank .*no usable RDMA device"
fi
# A single rank needs neither.
run VBT_TRANSPORTS=self -- -n 1 "$p2p" self
expect_ok "VBT_TRANSPORTS=self, 1 rank" "p2p self: ok (1 ranks)"

[ $fail -eq 0 ] && echo "runtime_transports: all passed"
exit $fail
