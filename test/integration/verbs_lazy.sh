#!/bin/sh
# Connections made on first use over verbs (VBT_TRANSPORTS=self,ib, on-node peers included):
# a rank that talks to its partner only connects to that one peer, counted from its
# VBT_LOG=debug lines (one "RTS" line per connection); every rank sending to every other at
# once connects every pair exactly once; a peer busy for 2 s is reached all the same; the same
# with VBT_PROGRESS=block; and VBT_LOG=info shows nothing of the connection manager. Needs an
# RDMA device (run through test/integration/verbs.sh). Exit 0 pass, other fail.
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
set -u
prog="$abs_top_builddir/test/integration/lazy"
VBT_TRANSPORTS=self,ib
export VBT_TRANSPORTS
fail=0

# run N WANT_CONNECTIONS ENV... -- ARGS: every rank must say ok and, when WANT_CONNECTIONS is
# not "-", have brought exactly that many QPs to RTS.
run() {
    n=$1
    want=$2
    shift 2
    out=$(env VBT_LOG=debug "$@" timeout 300 "$MPIRUN" --oversubscribe -n "$n" "$prog" "$mode" 2>&1)
    rc=$?
    what="-n $n $* $mode"
    ok=$(printf '%s\n' "$out" | grep -c "^lazy: rank [0-9]*: $mode ok")
    if [ $rc -ne 0 ] || [ "$ok" -ne "$n" ]; then
        echo "FAIL: $what: exit $rc, $ok of $n ranks ok"
        printf '%s\n' "$out" | grep -v ' debug ' | tail -30
        fail=1
        return
    fi
    bad=""
    if [ "$want" != - ]; then
        r=0
        while [ $r -lt "$n" ]; do
            got=$(printf '%s\n' "$out" | grep -c ":$r\] vbt_ib_ep.c:[0-9]* debug .*: RTS, path MTU")
            [ "$got" -ne "$want" ] && bad="$bad rank $r: $got;"
            r=$((r + 1))
        done
    fi
    if [ -n "$bad" ]; then
        echo "FAIL: $what: connections made (expected $want each):$bad"
        printf '%s\n' "$out" | grep 'connection manager\|RTS' | head -40
        fail=1
        return
    fi
    reqs=$(printf '%s\n' "$out" | grep -c 'connection manager: REQ to')
    echo "ok: $what: $want connection(s) per rank, $reqs REQs sent$(printf '%s\n' "$out" |
        sed -n 's/^lazy: busy: rank 1 answered/; rank 1 answered/p')"
}

mode=pair
run 2 1
run 4 1
run 5 "-" # rank 4 has no partner: checked below
out=$(VBT_LOG=debug timeout 300 "$MPIRUN" --oversubscribe -n 5 "$prog" pair 2>&1)
if [ "$(printf '%s\n' "$out" | grep -c ':4\] vbt_ib_ep.c:[0-9]* debug .*: RTS, path MTU')" -ne 0 ]; then
    echo "FAIL: -n 5 pair: rank 4, which talks to nobody, connected"
    fail=1
fi
mode=all
run 2 1
run 4 3
run 6 5
run 4 3 VBT_PROGRESS=block
run 4 3 VBT_EAGER_LIMIT=1k
mode=busy
run 2 1
run 3 - VBT_PROGRESS=block

# VBT_LOG=info: nothing per connection.
out=$(VBT_LOG=info timeout 300 "$MPIRUN" -n 2 "$prog" all 2>&1)
if [ $? -ne 0 ] || printf '%s\n' "$out" | grep -q 'connection manager\|RTS, path'; then
    echo "FAIL: VBT_LOG=info shows the connection manager's steps"
    printf '%s\n' "$out" | tail -20
    fail=1
else
    echo "ok: VBT_LOG=info shows nothing per connection"
fi

[ $fail -eq 0 ] && echo "verbs_lazy: all passed"
exit $fail
