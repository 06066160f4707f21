#!/bin/sh
# MPI_Win_allocate when /dev/shm has no room for the node's segment: in a private mount
# namespace (unshare -m, as root) with an 8 MiB tmpfs on /dev/shm (room for the shm transport's
# rings, not for rma_allocate's 16 MiB parts), each window falls back to private memory reached
# by messages: no failure, one debug line per rank saying so, MPI_Win_shared_query of the
# others 0 and NULL, the data right (rma_allocate large with RMA_EXPECT_SEGMENT=0), and
# nothing left in /dev/shm. At 2, 3 and 5 ranks. Skips (77) when not root or without unshare.
. "$(dirname "$0")/lib.sh"

prog=$abs_top_builddir/test/integration/rma_allocate
[ "$(id -u)" -eq 0 ] || skip "a private /dev/shm needs a mount namespace, which needs root"
command -v unshare >/dev/null 2>&1 || skip "unshare(1) not found (Debian: util-linux)"
unshare -m --propagation private sh -c 'mount -t tmpfs -o size=8m vbt-test /dev/shm' ||
    skip "cannot mount a tmpfs in a private mount namespace here (unshare -m)"

for np in 2 3 5; do
    out=$(unshare -m --propagation private sh -c '
        mount -t tmpfs -o size=8m vbt-test /dev/shm || exit 99
        RMA_EXPECT_SEGMENT=0 VBT_LOG=debug timeout 120 "$@"
        rc=$?
        left=$(ls /dev/shm | grep "^vbt-win-")
        [ -z "$left" ] || { echo "left in /dev/shm: $left"; exit 98; }
        exit $rc' sh "$MPIRUN" --oversubscribe -n $np "$prog" large 2>&1)
    rc=$?
    n=$(printf '%s\n' "$out" | grep -c "no shared segment on this node.*private memory, reached by messages")
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "^rma_allocate large: ok ($np ranks)"; then
        failed "-n $np rma_allocate large with no room in /dev/shm (exit $rc)" \
            "$(printf '%s\n' "$out" | grep -v ' debug ' | tail -20)"
    elif [ "$n" -ne $np ]; then
        failed "-n $np: $n ranks logged the fallback to private memory, expected $np" \
            "$(printf '%s\n' "$out" | grep 'shared memory\|private' | tail -20)"
    else
        echo "-n $np: the windows fell back to private memory, data right"
    fi
done
finish
