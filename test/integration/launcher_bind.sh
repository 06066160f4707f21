#!/bin/sh
# Binding and oversubscription: ranks that fit the cores are bound one per core (and
# --report-bindings says where, matching what the rank sees); more ranks than cores run
# unbound, or are refused with both counts named under --nooversubscribe.
. "$(dirname "$0")/lib.sh"

# How many cores mpirun may use: ask for more ranks than any machine has.
run -n 65536 --nooversubscribe true
cores=$(printf '%s\n' "$out" | sed -n 's/^mpirun: 65536 ranks requested but only \([0-9]*\) cores\{0,1\} \(is\|are\) available.*/\1/p')
[ $rc -eq 1 ] && [ -n "$cores" ] || { failed "-n 65536 (exit $rc)" "$out"; finish; }

affinity='echo "rank $PMIX_RANK cpus $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"'
if [ "$cores" -ge 2 ]; then
    run -n 2 --report-bindings sh -c "$affinity"
    bound=$(printf '%s\n' "$out" | sed -n "s/^\\[$HOST\\] rank \\([01]\\) bound to core [0-9]* (cpus \\([0-9]*\\))\$/rank \\1 cpus \\2/p" | sort)
    seen=$(printf '%s\n' "$out" | grep '^rank ' | sort)
    [ $rc -eq 0 ] && [ "$(printf '%s\n' "$bound" | grep -c .)" -eq 2 ] && [ "$bound" = "$seen" ] &&
        [ "$(printf '%s\n' "$bound" | awk '{print $4}' | sort -u | grep -c .)" -eq 2 ] ||
        failed "-n 2 --report-bindings: reported and actual bindings differ (exit $rc)" "$out"

    run -n 2 --bind-to none --report-bindings true
    [ $rc -eq 0 ] && [ "$out" = "[$HOST] rank 0 not bound
[$HOST] rank 1 not bound" ] || failed "--bind-to none (exit $rc)" "$out"
fi

if [ "$cores" -le 64 ]; then
    n=$((cores + 1))
    # More ranks than cores run unbound by default (MPICH's way) ...
    run -n $n --report-bindings true
    expect="$(i=0; while [ $i -lt $n ]; do echo "[$HOST] rank $i not bound"; i=$((i + 1)); done)"
    [ $rc -eq 0 ] && [ "$out" = "$expect" ] || failed "-n $n on $cores cores (exit $rc)" "$out"

    # ... and --nooversubscribe refuses them, as Open MPI does by default.
    run -n $n --nooversubscribe true
    expect_rc "-n $n --nooversubscribe on $cores cores" 1
    expect_line "-n $n --nooversubscribe on $cores cores" \
        "^mpirun: $n ranks requested but only $cores cores? (is|are) available to mpirun on $HOST, and --nooversubscribe was given; drop it to run more ranks than cores \\(they are then not bound\\)\$"

    run -n $n --oversubscribe --report-bindings true
    expect="$(i=0; while [ $i -lt $n ]; do echo "[$HOST] rank $i not bound"; i=$((i + 1)); done)"
    [ $rc -eq 0 ] && [ "$out" = "$expect" ] || failed "-n $n --oversubscribe (exit $rc)" "$out"

    run -n $n --oversubscribe --bind-to core true
    expect_rc "--bind-to core, oversubscribed" 2
    expect_line "--bind-to core, oversubscribed" "^mpirun: --bind-to core cannot give $n ranks a core each"
fi

# mpirun's own cpuset counts: with one CPU allowed, two ranks are too many.
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
    out=$(taskset -c 0 timeout 60 "$MPIRUN" -n 2 --nooversubscribe true 2>&1)
    rc=$?
    expect_rc "taskset -c 0, -n 2" 1
    expect_line "taskset -c 0, -n 2" "^mpirun: 2 ranks requested but only 1 core is available to mpirun on $HOST,"
    out=$(taskset -c 0 timeout 60 "$MPIRUN" -n 1 --report-bindings sh -c "$affinity" 2>&1)
    rc=$?
    [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq "^\\[$HOST\\] rank 0 bound to core [0-9]+ \\(cpus 0\\)\$" &&
        printf '%s\n' "$out" | grep -q '^rank 0 cpus 0$' ||
        failed "taskset -c 0, -n 1 (exit $rc)" "$out"
else
    echo "note: taskset unusable here; cpuset checks skipped"
fi

finish
