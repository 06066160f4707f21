#!/bin/sh
# The rendezvous protocol over one transport, named by the caller in VBT_TRANSPORTS (exported):
# every size from 0 B to 16 MiB byte for byte, many large transfers at once in both directions,
# receives posted after the RTS, MPI_ANY_SOURCE, probes, synchronous sends, truncation, cancel,
# memory freed or unmapped and replaced at the same address on either side; then the same at 3
# ranks and with other thresholds. Over ib also the registration cache: eviction under a small
# VBT_RCACHE_MAX, and a small RLIMIT_MEMLOCK. Run by verbs_rndv.sh (ib) and shm_rndv.sh (shm).
set -u
prog="$abs_top_builddir/test/integration/rndv"
fail=0

if [ ! -x "$prog" ]; then
    echo "FAIL: $prog is not built (make check builds it)"
    exit 1
fi

# run N WANT ENV... -- ARGS...: mpirun -n N rndv ARGS with ENV; every subtest must say ok.
run() {
    n=$1
    want=$2
    shift 2
    envs=
    while [ "$1" != -- ]; do
        envs="$envs $1"
        shift
    done
    shift
    out=$(env $envs timeout 600 "$MPIRUN" --oversubscribe -n "$n" "$prog" "$@" 2>&1)
    rc=$?
    ok=$(printf '%s\n' "$out" | grep -c '^rndv .*: ok')
    printf '%s\n' "$out" | grep '^rndv .*: ok' | sed "s/^/  -n $n$envs: /"
    if [ $rc -ne 0 ] || [ "$ok" -ne "$want" ]; then
        echo "FAIL: -n $n$envs rndv $*: exit $rc, $ok of $want subtests ok"
        printf '%s\n' "$out" | grep -v ' debug ' | tail -40
        fail=1
        return 1
    fi
    return 0
}

# The stale-registration sequences first, in a fresh process: glibc serves a large malloc from
# a free heap chunk left by earlier tests instead of mmap, and the malloc cases need mmap.
run 2 1 -- stale
run 2 9 -- sizes concurrent late anysrc probe ssend truncate cancel misc
run 3 2 -- anysrc misc
case ",${VBT_TRANSPORTS:?the caller sets VBT_TRANSPORTS}," in
*,ib,*) ;;
*)
    run 2 3 VBT_SHM_RNDV_THRESHOLD=64k RNDV_MAX_SIZE=1048576 -- sizes truncate probe
    [ $fail -eq 0 ] && echo "rndv: all passed"
    exit $fail
    ;;
esac
# Over ib only: the eager limit, and the registration cache.
run 2 3 VBT_RNDV_THRESHOLD=16k VBT_EAGER_LIMIT=4k RNDV_MAX_SIZE=1048576 -- sizes truncate probe

# A cache that holds two of the six 1 MiB buffers: evictions must happen on both ranks (the
# statistics line at finalize, VBT_LOG=debug), and the data must stay right.
if run 2 1 VBT_RCACHE_MAX=2m VBT_LOG=debug -- evict; then
    stats=$(printf '%s\n' "$out" | grep 'rcache: [0-9]* hits')
    printf '%s\n' "$stats" | sed 's/^.*rcache: /  rcache: /'
    evicting=$(printf '%s\n' "$stats" | grep -c ', [1-9][0-9]* evictions')
    if [ "$evicting" -ne 2 ]; then
        echo "FAIL: VBT_RCACHE_MAX=2m: expected evictions on both ranks"
        fail=1
    fi
fi

# No cache at all: every registration is dropped when its transfer ends, so a receive buffer is
# writable by a peer only during its rendezvous. Nothing may stay registered between messages.
if run 2 2 VBT_RCACHE_MAX=0 VBT_LOG=debug RNDV_MAX_SIZE=4194304 -- sizes concurrent; then
    stats=$(printf '%s\n' "$out" | grep 'rcache: [0-9]* hits')
    printf '%s\n' "$stats" | sed 's/^.*rcache: /  rcache: /'
    if [ "$(printf '%s\n' "$stats" | grep -c ', [1-9][0-9]* evictions')" -ne 2 ] ||
        [ "$(printf '%s\n' "$out" | grep -c 'rcache: .*evict')" -eq 0 ]; then
        echo "FAIL: VBT_RCACHE_MAX=0: expected every registration dropped after use on both ranks"
        fail=1
    fi
fi

# RLIMIT_MEMLOCK of 8 MiB (root must also drop CAP_IPC_LOCK, which lifts it): the cache is
# limited to what the transport's pools leave, with a warning, and messages that fit still go
# (evicting, and retrying a refused registration); one that cannot fit fails, saying why.
if [ "$(id -u)" = 0 ] && ! command -v setpriv >/dev/null 2>&1; then
    echo "note: RLIMIT_MEMLOCK not tested (setpriv missing)"
else
    limited() {
        if [ "$(id -u)" = 0 ]; then
            (ulimit -l 8192 && env "$@" timeout 300 setpriv --inh-caps=-ipc_lock \
                --bounding-set=-ipc_lock "$MPIRUN" -n 2 "$prog" sizes) 2>&1
        else
            (ulimit -l 8192 && env "$@" timeout 300 "$MPIRUN" -n 2 "$prog" sizes) 2>&1
        fi
    }
    out=$(limited RNDV_MAX_SIZE=2097152)
    rc=$?
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q '^rndv sizes: ok' ||
        ! printf '%s\n' "$out" | grep -q 'RLIMIT_MEMLOCK leaves [0-9]* bytes for the registration cache'; then
        echo "FAIL: RLIMIT_MEMLOCK 8 MiB, messages up to 2 MiB: exit $rc"
        printf '%s\n' "$out" | tail -20
        fail=1
    else
        echo "ok: memlock 8 MiB, up to 2 MiB: $(printf '%s\n' "$out" | grep -m 1 'RLIMIT_MEMLOCK leaves' | sed 's/^\[[^]]*\] [^ ]* warn *//' | cut -c 1-100)..."
    fi
    out=$(limited)
    rc=$?
    if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q 'cannot register .*RLIMIT_MEMLOCK'; then
        echo "FAIL: RLIMIT_MEMLOCK 8 MiB, a 16 MiB message: exit $rc, expected a registration error"
        printf '%s\n' "$out" | tail -20
        fail=1
    else
        echo "ok: memlock 8 MiB, 16 MiB message: $(printf '%s\n' "$out" | grep -m 1 'cannot register' | sed 's/^\[[^]]*\] [^ ]* error *//' | cut -c 1-120)..."
    fi
fi

[ $fail -eq 0 ] && echo "rndv: all passed"
exit $fail
