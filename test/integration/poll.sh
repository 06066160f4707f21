#!/bin/sh
# Programs that poll (test/integration/poll.c): rings where each rank loops on MPI_Iprobe,
# MPI_Improbe, MPI_Test or the other polling calls until its left neighbour's message arrives,
# natively at 1 to 7 ranks (oversubscribed where the machine has fewer cores), payloads checked.
# Then, with VBT_LOG=debug, that a polling loop yields the core where the node has more ranks
# than cores ("polling calls yielded the core N times", N > 0, in MPI_Finalize's log) and
# never where every rank has its core, nor with VBT_PROGRESS=spin. POLL_NPS overrides the rank
# counts (set and empty: only the checks below), POLL_ENV adds VAR=value words.
set -u
poll="$abs_top_builddir/test/integration/poll"
fail=0
all="iprobe improbe test test_variants"
want=$(echo $all | wc -w)
cores=$(nproc)

# run NRANKS [VAR=value ...]: every subtest must report ok; the output is left in $out.
run() {
    n=$1
    shift
    # shellcheck disable=SC2086 # POLL_ENV is words: VAR=value pairs
    out=$(env ${POLL_ENV:-} "$@" timeout 120 "$MPIRUN" --oversubscribe -n $n "$poll" $all 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "$* mpirun -n $n poll -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: $* mpirun -n $n poll"
        printf '%s\n' "$out" | tail -20
        fail=1
        return 1
    fi
}

for n in ${POLL_NPS-1 2 3 4 5 6 7}; do
    run $n
done

# yielded: how many ranks logged that their polling calls yielded (more than 0 times).
yielded() {
    printf '%s\n' "$out" | grep 'polling calls yielded the core' | grep -vc 'yielded the core 0 times'
}

# Oversubscribed: every rank's polling loop must have yielded (each waits most of every lap).
over=$((cores + 2))
if [ $over -le 10 ]; then
    if run $over VBT_LOG=debug; then
        y=$(yielded)
        echo "  $over ranks on $cores cores: $y of $over ranks yielded in their polling loops"
        if [ "$y" -ne $over ]; then
            echo "FAIL: $over ranks on $cores cores: only $y of $over ranks' polling loops yielded the core"
            printf '%s\n' "$out" | grep 'progress:' | head -20
            fail=1
        fi
    fi
    # Spinning oversubscribed takes a time slice a hop: a few laps.
    if run $over VBT_LOG=debug VBT_PROGRESS=spin POLL_LAPS=10; then
        if printf '%s\n' "$out" | grep -q 'polling calls yield'; then
            echo "FAIL: VBT_PROGRESS=spin, $over ranks on $cores cores: polling calls yield"
            fail=1
        fi
    fi
else
    echo "  $cores cores: the oversubscribed check (needs $over ranks) left out"
fi
# A core per rank: nothing yields, nothing is even counted.
if [ "$cores" -ge 2 ] && run 2 VBT_LOG=debug; then
    if printf '%s\n' "$out" | grep -q 'polling calls yield'; then
        echo "FAIL: 2 ranks on $cores cores: polling calls yield"
        printf '%s\n' "$out" | grep 'polling calls' | head
        fail=1
    fi
fi

[ $fail -eq 0 ] && echo "poll: all passed"
exit $fail
