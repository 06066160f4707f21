#!/bin/sh
# transport-shm under the real mpirun, natively: every size, the 100,000-message flood,
# all-to-all, blocking receives woken through the doorbell (in a poll() on it alone, and in one
# with a pipe), sleeps called off, and CMA at 2 and 4 ranks; CMA refused by a seccomp filter
# (at the probe, and a read refused after it: READ_PEER cleared);
# doorbells that cannot be rung (another network namespace); ranks SIGKILLed after wireup,
# before the fence and between fence and wireup. After each job,
# nothing of Verbatim may be left in /dev/shm, and no process may still map one of the job's
# segments (they are memfds: the kernel frees them with their last user). Exit 0 pass, 77
# skip, other fail.
set -u
: "${abs_top_builddir:=$(pwd)}"
MPIRUN=${MPIRUN:-$abs_top_builddir/launcher/mpirun}
prog="$abs_top_builddir/test/integration/shm_transport"
fail=0

if [ ! -x "$prog" ]; then
    echo "FAIL: $prog is not built (make check builds it)"
    exit 1
fi
if [ ! -r /proc/self/maps ]; then
    echo "SKIP: no /proc: the shared-memory transport needs it"
    exit 77
fi

failed() {
    echo "FAIL: $1"
    [ $# -gt 1 ] && printf '%s\n' "$2" | tail -40 | sed 's/^/    /'
    fail=1
}

dev_shm_vbt() {
    ls -a /dev/shm 2>/dev/null | grep -i vbt | sort
}
before=$(dev_shm_vbt)

# run N MODE [env...]: mpirun -n N shm_transport MODE; sets $out, $rc, $ns, $elapsed.
run() {
    n=$1
    mode=$2
    shift 2
    _start=$(date +%s)
    out=$(env "$@" timeout 600 "$MPIRUN" -n "$n" "$prog" "$mode" 2>&1)
    rc=$?
    elapsed=$(($(date +%s) - _start))
    ns=$(printf '%s\n' "$out" | sed -n 's/^rank [0-9]*: ns=//p' | head -n 1)
}

# Nothing left behind by the job just run: no new /dev/shm entry, no process mapping its
# segments (named /memfd:vbt-shm.<nspace>.<rank>) or holding one open.
expect_clean() {
    sleep 0.5
    now=$(dev_shm_vbt)
    if [ "$now" != "$before" ]; then
        failed "$1: /dev/shm has new Verbatim entries" "$now"
    fi
    if [ -z "$ns" ]; then
        failed "$1: the ranks did not print their namespace" "$out"
        return
    fi
    holders=$(
        grep -l "memfd:vbt-shm\.$ns\." /proc/[0-9]*/maps 2>/dev/null
        ls -l /proc/[0-9]*/fd 2>/dev/null | grep "memfd:vbt-shm\.$ns\."
    )
    if [ -n "$holders" ]; then
        failed "$1: processes still map the job's segments" "$holders"
    else
        echo "ok: $1: nothing in /dev/shm, no process maps the job's segments"
    fi
}

# A singleton has no peer: no segment, nothing reachable.
out=$(env -u PMIX_NAMESPACE -u PMIX_RANK timeout 60 "$prog" init 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "init OK: 1 local ranks"; then
    failed "singleton init: exit $rc" "$out"
else
    echo "ok: singleton: no shared-memory segment"
fi

# The data runs.
for n in 2 4; do
    run $n all VBT_LOG=info
    ok=$(printf '%s\n' "$out" | grep -c "shm_transport OK: .* 0 errors")
    printf '%s\n' "$out" |
        grep -E "^shm_transport:|^rank [0-9]*: (pingpong|flood|alltoall|wake|calloff|fdwait|sleepy|cma|doorbell)" |
        sed "s/^/  -n $n: /"
    printf '%s\n' "$out" | grep -m 1 "CMA single-copy" | sed "s/^.*info  */  -n $n: /"
    if [ $rc -eq 77 ]; then
        echo "SKIP: $(printf '%s\n' "$out" | grep -m 1 SKIP)"
        exit 77
    fi
    if [ $rc -ne 0 ] || [ "$ok" -ne $n ]; then
        failed "-n $n: exit $rc, $ok of $n ranks ok" "$out"
    else
        echo "ok: -n $n: every byte right in $elapsed s"
    fi
    expect_clean "-n $n"
done

# CMA refused (rank 0 under a seccomp filter): the probe says so at info, reads answer
# VBT_ERR_UNSUPPORTED, the rings still work; the other ranks still read rank 0. Then rank 1 gets
# the filter too: its next read is refused and READ_PEER goes.
run 3 nocma VBT_LOG=info
if [ $rc -eq 77 ]; then
    echo "note: CMA refusal not tested ($(printf '%s\n' "$out" | grep -m 1 SKIP))"
else
    ok=$(printf '%s\n' "$out" | grep -c "nocma OK")
    line=$(printf '%s\n' "$out" | grep -m 1 "CMA single-copy reads: not permitted")
    if [ $rc -ne 0 ] || [ "$ok" -ne 3 ] || [ -z "$line" ] ||
        ! printf '%s\n' "$line" | grep -q "Operation not permitted"; then
        failed "nocma: exit $rc, $ok of 3 ranks ok" "$out"
    else
        echo "ok: nocma: $(printf '%s\n' "$line" | sed 's/^.*info  *//')"
        printf '%s\n' "$out" | grep -m 1 "rank 1: nocma:" | sed 's/^rank 1: nocma: /    rank 1: /'
    fi
    expect_clean "nocma"
fi

# Doorbells that cannot be rung (rank 1 in its own network namespace when we may make one, else
# a wrong name): the messages arrive, the sleeper wakes by its 500 ms limit, and rank 0 warns
# once however many posts found rank 1 asleep.
run 2 nobell
printf '%s\n' "$out" | grep -E "^rank [0-9]*: nobell:" | sed "s/^/  /"
warn1=$(printf '%s\n' "$out" | grep -c "cannot ring the shared-memory doorbell of local rank 1")
warn0=$(printf '%s\n' "$out" | grep -c "cannot ring the shared-memory doorbell of local rank 0")
if [ $rc -ne 0 ] || [ "$(printf '%s\n' "$out" | grep -c "nobell OK")" -ne 2 ] ||
    [ "$warn1" -ne 1 ] || [ "$warn0" -gt 1 ]; then
    failed "nobell: exit $rc, $warn1 warnings about rank 1's doorbell (expected 1)" "$out"
else
    echo "ok: nobell: $(printf '%s\n' "$out" | grep -m 1 "cannot ring the shared-memory doorbell" |
        sed 's/^\[[^]]*\] [^ ]* warn *//')"
fi
expect_clean "nobell"

# Bad input from a peer: a segment of another version, a corrupt cell, a finalized receiver.
run 2 bad
if [ $rc -ne 0 ] || [ "$(printf '%s\n' "$out" | grep -c "bad OK")" -ne 2 ] ||
    ! printf '%s\n' "$out" | grep -q "segment of local rank 1 does not match ours (version 99" ||
    ! printf '%s\n' "$out" | grep -q "ring from local rank 1 is corrupt" ||
    ! printf '%s\n' "$out" | grep -q "cannot send to local rank 0: it has finalized"; then
    failed "bad: exit $rc" "$out"
else
    printf '%s\n' "$out" | grep "error" | sed 's/^\[[^]]*\] [^ ]* error */ok: bad: /'
fi
expect_clean "bad"

# A rank killed after wireup (0.3 s in): the others notice, rank 0 asleep on its doorbell
# (within its 0.5 s sleep limit), rank 2 sending into its full ring; nothing leaks.
run 3 kill-after-wireup
blk=$(printf '%s\n' "$out" | grep -m 1 "rank 0: kill-after-wireup: sleeping said")
snd=$(printf '%s\n' "$out" | grep -m 1 "rank 2: kill-after-wireup: send said")
if [ $rc -ne 137 ] || ! printf '%s\n' "$blk" | grep -q "peer failed\|PEER_FAILED\|failed" ||
    ! printf '%s\n' "$out" | grep -q "rank 0: kill-after-wireup: then send said .*fail" ||
    ! printf '%s\n' "$snd" | grep -q "fail" ||
    ! printf '%s\n' "$out" | grep -q "local rank 1 (pid [0-9]*) died without finalizing" ||
    ! printf '%s\n' "$out" |
    grep -q "rank 0: 3 segments mapped (memfd), 0 vbt entries in /dev/shm"; then
    failed "kill-after-wireup: exit $rc (expected 137)" "$out"
elif ! printf '%s\n' "$blk" | awk '{ exit !($(NF - 1) < 1.5) }'; then
    failed "kill-after-wireup: rank 0 slept too long before noticing (rank 1 died 0.3 s in)" "$blk"
else
    echo "ok: kill-after-wireup: $(printf '%s\n' "$blk" | sed 's/^rank 0: kill-after-wireup: //')"
    echo "    $(printf '%s\n' "$snd" | sed 's/^rank 2: kill-after-wireup: //')"
fi
expect_clean "kill-after-wireup"

# A rank killed between init and the fence: its segment existed, unmapped by anyone.
run 2 kill-before-wireup
if [ $rc -ne 137 ] || [ $elapsed -gt 30 ]; then
    failed "kill-before-wireup: exit $rc after $elapsed s (expected 137, quickly)" "$out"
else
    echo "ok: kill-before-wireup: the job ended (exit $rc) in $elapsed s"
fi
expect_clean "kill-before-wireup"

# A rank killed between the fence and the peers' wireup: their wireup says so.
run 2 kill-after-fence
if [ $rc -ne 137 ] ||
    ! printf '%s\n' "$out" | grep -q "rank 0: kill-after-fence: wireup said .*fail" ||
    ! printf '%s\n' "$out" | grep -q "local rank 1 (pid [0-9]*) exited before we could map"; then
    failed "kill-after-fence: exit $rc (expected 137)" "$out"
else
    echo "ok: kill-after-fence: $(printf '%s\n' "$out" | grep -m 1 'exited before we could map' |
        sed 's/^\[[^]]*\] [^ ]* error *//')"
fi
expect_clean "kill-after-fence"

[ $fail -eq 0 ] && echo "runtime_shm: all passed"
exit $fail
