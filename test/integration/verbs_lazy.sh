#!/bin/sh
# Connections made on first use over verbs (VBT_TRANSPORTS=self,ib, on-node peers included):
# a rank that talks to its partner only connects to that one peer, counted from its
# VBT_LOG=debug lines (one "RTS" line per connection); every rank sending to every other at
# once connects every pair exactly once; a peer busy for 2 s is reached all the same; the same
# with VBT_PROGRESS=block; and VBT_LOG=info shows nothing of the connection manager. Needs an
# RDMA device (run through test/integration/verbs.sh). Exit 0 pass, other fail.
# CI's whole list runs each case once (pair at 5 ranks, all at 4 in both progress modes and with
# a small eager limit, busy in both modes); verbs_lazy_full.sh (make check-long) sets
# VERBS_FULL=1, which adds the lines marked "full" below: the same cases at 2, 4 and 6 ranks.
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
set -u
prog="$abs_top_builddir/test/integration/lazy"
VBT_TRANSPORTS=self,ib
export VBT_TRANSPORTS
fail=0
# full: true in verbs_lazy_full.sh only; "full && run ..." is a case CI's list leaves out.
full() { [ "${VERBS_FULL:-0}" = 1 ]; }

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
full && run 2 1
full && run 4 1
# Ranks 0 to 3 pair up and connect once each; rank 4 has no partner and connects to nobody
# (checked from the same job's output).
failed_before=$fail
run 5 "-"
if [ $fail -eq $failed_before ]; then
    r=0
    while [ $r -lt 5 ]; do
        want=1
        [ $r -eq 4 ] && want=0
        got=$(printf '%s\n' "$out" | grep -c ":$r\] vbt_ib_ep.c:[0-9]* debug .*: RTS, path MTU")
        if [ "$got" -ne $want ]; then
            echo "FAIL: -n 5 pair: rank $r connected $got times (expected $want)"
            fail=1
        fi
        r=$((r + 1))
    done
fi
mode=all
full && run 2 1
run 4 3
full && run 6 5
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
