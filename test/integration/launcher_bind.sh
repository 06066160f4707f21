#!/bin/sh
# Mapping, binding and oversubscription.
# - On this machine: ranks that fit the cores are bound (--bind-to core by default, hwthread,
#   socket, numa), and what --report-bindings says is the cpuset each rank really has;
#   --bind-to none leaves the ranks mpirun's whole cpuset; more ranks than cores run unbound,
#   or are refused with both counts named under --nooversubscribe.
# - On machines this one is not: hwloc reads a synthetic topology (HWLOC_SYNTHETIC, or an XML
#   file), mpirun shows its plan with --do-not-launch --report-bindings, and the exact cpus of
#   every rank are checked for --map-by core/socket/numa and --bind-to core/hwthread/socket/numa.
#   Without --do-not-launch, mpirun refuses to bind to such a topology.
# - Bad values name the option, the value and the accepted words, with exit status 2.
. "$(dirname "$0")/lib.sh"

# How many cores mpirun may use: ask for more ranks than any machine has.
run -n 65536 --nooversubscribe true
cores=$(printf '%s\n' "$out" | sed -n 's/^mpirun: 65536 ranks requested but only \([0-9]*\) cores\{0,1\} \(is\|are\) available.*/\1/p')
[ $rc -eq 1 ] && [ -n "$cores" ] || { failed "-n 65536 (exit $rc)" "$out"; finish; }

cpus_of() {
    sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status
}
own=$(cpus_of)
affinity='echo "rank $PMIX_RANK cpus $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"'

# bound_as_reported WHAT NPROCS: $out (from a run of $affinity under --report-bindings) has a
# "bound to" line for each of the NPROCS ranks, and each rank's cpuset is the one reported.
# Sets $bound to the "rank R cpus LIST" lines, sorted.
bound_as_reported() {
    bound=$(printf '%s\n' "$out" | sed -n "s/^\\[$HOST\\] rank \\([0-9]*\\) bound to [a-z0-9 ]* (cpus \\([0-9,-]*\\))\$/rank \\1 cpus \\2/p" | sort)
    _seen=$(printf '%s\n' "$out" | grep '^rank ' | sort)
    [ $rc -eq 0 ] && [ "$(printf '%s\n' "$bound" | grep -c .)" -eq "$2" ] && [ "$bound" = "$_seen" ] ||
        failed "$1: reported and actual bindings differ (exit $rc)" "$out"
}

# Distinct cpusets, one per rank: no two ranks share a core or hwthread.
distinct_cpus() {
    [ "$(printf '%s\n' "$bound" | awk '{print $4}' | sort -u | grep -c .)" -eq "$2" ] ||
        failed "$1: two ranks share cpus" "$out"
}

if [ "$cores" -ge 2 ]; then
    # The default and an explicit --bind-to core: a core each, really applied.
    run -n 2 --report-bindings sh -c "$affinity"
    bound_as_reported "-n 2 --report-bindings" 2
    distinct_cpus "-n 2 --report-bindings" 2
    printf '%s\n' "$out" | grep -Eq "^\\[$HOST\\] rank 0 bound to (socket [0-9]+ )?core [0-9]+ \\(cpus" ||
        failed "-n 2: rank 0 not bound to a core" "$out"
    run -n 2 --bind-to core --report-bindings sh -c "$affinity"
    bound_as_reported "--bind-to core" 2
    distinct_cpus "--bind-to core" 2

    # One hardware thread each.
    run -n 2 --bind-to hwthread --report-bindings sh -c "$affinity"
    bound_as_reported "--bind-to hwthread" 2
    distinct_cpus "--bind-to hwthread" 2
    printf '%s\n' "$bound" | awk '$4 !~ /^[0-9]+$/ {exit 1}' ||
        failed "--bind-to hwthread: a rank has more than one cpu" "$out"

    # The package and NUMA node of the rank's core: whatever they are here, applied as said.
    for obj in socket numa; do
        run -n 2 --map-by $obj --bind-to $obj --report-bindings sh -c "$affinity"
        bound_as_reported "--map-by $obj --bind-to $obj" 2
        printf '%s\n' "$out" | grep -Eq "^\\[$HOST\\] rank 0 bound to ($obj [0-9]+|machine) \\(cpus" ||
            failed "--bind-to $obj: not reported as bound to a $obj" "$out"
    done

    # Unbound ranks keep all of mpirun's cpus.
    run -n 2 --bind-to none --report-bindings sh -c "$affinity"
    expect="[$HOST] rank 0 not bound
[$HOST] rank 1 not bound
rank 0 cpus $own
rank 1 cpus $own"
    [ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | LC_ALL=C sort)" = "$expect" ] ||
        failed "--bind-to none: ranks should keep cpus $own (exit $rc)" "$out"
fi

# --do-not-launch: the plan, and nothing started.
run -n 2 --do-not-launch --report-bindings sh -c "echo launched-$MARK"
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c "^\\[$HOST\\] rank [01] ")" -eq 2 ] &&
    ! printf '%s\n' "$out" | grep -q "launched-" || failed "--do-not-launch (exit $rc)" "$out"
run -n 1 --do-not-launch true
[ $rc -eq 0 ] && [ -z "$out" ] || failed "--do-not-launch alone prints nothing (exit $rc)" "$out"

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
    [ $rc -eq 0 ] && [ "$out" = "$expect" ] || failed "-n $n --oversubscribe (exit $rc)" "$out"

    # An explicit binding cannot be kept: refused, as Open MPI refuses to overload.
    for b in core socket numa; do
        run -n $n --oversubscribe --bind-to $b true
        expect_rc "--bind-to $b, oversubscribed" 2
        expect_line "--bind-to $b, oversubscribed" \
            "^mpirun: --bind-to $b cannot place $n ranks one per core: only $cores cores? (is|are) available on $HOST; drop --bind-to $b to run them unbound\$"
    done
fi

# mpirun's own cpuset counts: with one CPU allowed, two ranks are too many.
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
    out=$(taskset -c 0 timeout 60 "$MPIRUN" -n 2 --nooversubscribe true 2>&1)
    rc=$?
    expect_rc "taskset -c 0, -n 2" 1
    expect_line "taskset -c 0, -n 2" "^mpirun: 2 ranks requested but only 1 core is available to mpirun on $HOST,"
    out=$(taskset -c 0 timeout 60 "$MPIRUN" -n 1 --report-bindings sh -c "$affinity" 2>&1)
    rc=$?
    [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq "^\\[$HOST\\] rank 0 bound to (socket [0-9]+ )?core [0-9]+ \\(cpus 0\\)\$" &&
        printf '%s\n' "$out" | grep -q '^rank 0 cpus 0$' ||
        failed "taskset -c 0, -n 1 (exit $rc)" "$out"
    # Binding to the package stays within mpirun's cpuset.
    out=$(taskset -c 0 timeout 60 "$MPIRUN" -n 1 --bind-to socket --report-bindings sh -c "$affinity" 2>&1)
    rc=$?
    [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq "^\\[$HOST\\] rank 0 bound to (socket [0-9]+|machine) \\(cpus 0\\)\$" &&
        printf '%s\n' "$out" | grep -q '^rank 0 cpus 0$' ||
        failed "taskset -c 0, -n 1 --bind-to socket (exit $rc)" "$out"
else
    echo "note: taskset unusable here; cpuset checks skipped"
fi

# plan TOPOLOGY EXPECTED mpirun-args...: mpirun's plan for the synthetic machine TOPOLOGY
# (hwloc's syntax) is EXPECTED, one "rank R ..." line per rank, for the program true, which
# is not started.
plan() {
    _topo=$1
    _expect=$(printf '%s\n' "$2" | while IFS= read -r _l; do printf '[%s] %s\n' "$HOST" "$_l"; done)
    shift 2
    out=$(HWLOC_SYNTHETIC=$_topo timeout 60 "$MPIRUN" --do-not-launch --report-bindings "$@" true 2>&1)
    rc=$?
    [ $rc -eq 0 ] && [ "$out" = "$_expect" ] ||
        failed "'$_topo' $*: expected (exit 0)" "$_expect
got (exit $rc):
$out"
}

# Two packages of two cores, a NUMA node each.
T="pack:2 numa:1 core:2 pu:1"
plan "$T" "rank 0 bound to socket 0 core 0 (cpus 0)
rank 1 bound to socket 1 core 2 (cpus 2)
rank 2 bound to socket 0 core 1 (cpus 1)
rank 3 bound to socket 1 core 3 (cpus 3)" -n 4 --map-by socket
# Open MPI's default: by socket beyond two ranks, by core up to two.
plan "$T" "rank 0 bound to socket 0 core 0 (cpus 0)
rank 1 bound to socket 1 core 2 (cpus 2)
rank 2 bound to socket 0 core 1 (cpus 1)" -n 3
plan "$T" "rank 0 bound to socket 0 core 0 (cpus 0)
rank 1 bound to socket 0 core 1 (cpus 1)" -n 2
for m in core slot node CORE; do
    plan "$T" "rank 0 bound to socket 0 core 0 (cpus 0)
rank 1 bound to socket 0 core 1 (cpus 1)
rank 2 bound to socket 1 core 2 (cpus 2)
rank 3 bound to socket 1 core 3 (cpus 3)" -n 4 --map-by $m
done
plan "$T" "rank 0 bound to socket 0 (cpus 0-1)
rank 1 bound to socket 1 (cpus 2-3)
rank 2 bound to socket 0 (cpus 0-1)" -n 3 --map-by socket --bind-to socket
plan "$T" "rank 0 bound to socket 0 (cpus 0-1)
rank 1 bound to socket 1 (cpus 2-3)" -n 2 --map-by package --bind-to package
plan "$T" "rank 0 bound to socket 0 (cpus 0-1)
rank 1 bound to socket 0 (cpus 0-1)
rank 2 bound to socket 1 (cpus 2-3)
rank 3 bound to socket 1 (cpus 2-3)" -n 4 --map-by core --bind-to socket
plan "$T" "rank 0 bound to numa 0 (cpus 0-1)
rank 1 bound to numa 1 (cpus 2-3)" -n 2 --map-by numa --bind-to numa
plan "$T" "rank 0 not bound
rank 1 not bound" -n 2 --map-by socket --bind-to none
plan "$T" "rank 0 not bound
rank 1 not bound
rank 2 not bound
rank 3 not bound
rank 4 not bound" -n 5 --map-by socket

# One package, two NUMA nodes of four cores with two hardware threads each.
T="pack:1 numa:2 core:4 pu:2"
plan "$T" "rank 0 bound to socket 0 core 0 (cpus 0-1)
rank 1 bound to socket 0 core 4 (cpus 8-9)
rank 2 bound to socket 0 core 1 (cpus 2-3)
rank 3 bound to socket 0 core 5 (cpus 10-11)" -n 4 --map-by numa
plan "$T" "rank 0 bound to numa 0 (cpus 0-7)
rank 1 bound to numa 1 (cpus 8-15)
rank 2 bound to numa 0 (cpus 0-7)" -n 3 --map-by numa --bind-to numa
plan "$T" "rank 0 bound to socket 0 (cpus 0-15)
rank 1 bound to socket 0 (cpus 0-15)" -n 2 --map-by numa --bind-to socket
# One socket: by socket is by core.
plan "$T" "rank 0 bound to socket 0 core 0 (cpus 0-1)
rank 1 bound to socket 0 core 1 (cpus 2-3)
rank 2 bound to socket 0 core 2 (cpus 4-5)" -n 3
plan "$T" "rank 0 bound to socket 0 core 0 hwthread 0 (cpus 0)
rank 1 bound to socket 0 core 4 hwthread 8 (cpus 8)
rank 2 bound to socket 0 core 1 hwthread 2 (cpus 2)" -n 3 --map-by numa --bind-to hwthread
# Hardware threads: every core's first before any core's second.
plan "$T" "rank 0 bound to socket 0 core 0 hwthread 0 (cpus 0)
rank 1 bound to socket 0 core 1 hwthread 2 (cpus 2)
rank 2 bound to socket 0 core 2 hwthread 4 (cpus 4)
rank 3 bound to socket 0 core 3 hwthread 6 (cpus 6)
rank 4 bound to socket 0 core 4 hwthread 8 (cpus 8)
rank 5 bound to socket 0 core 5 hwthread 10 (cpus 10)
rank 6 bound to socket 0 core 6 hwthread 12 (cpus 12)
rank 7 bound to socket 0 core 7 hwthread 14 (cpus 14)
rank 8 bound to socket 0 core 0 hwthread 1 (cpus 1)
rank 9 bound to socket 0 core 1 hwthread 3 (cpus 3)" -n 10 --map-by core --bind-to hwthread

# Two packages of two NUMA nodes of two cores.
T="pack:2 numa:2 core:2 pu:1"
plan "$T" "rank 0 bound to socket 0 core 0 (cpus 0)
rank 1 bound to socket 0 core 2 (cpus 2)
rank 2 bound to socket 1 core 4 (cpus 4)
rank 3 bound to socket 1 core 6 (cpus 6)
rank 4 bound to socket 0 core 1 (cpus 1)" -n 5 --map-by numa
plan "$T" "rank 0 bound to numa 0 (cpus 0-1)
rank 1 bound to numa 2 (cpus 4-5)
rank 2 bound to numa 0 (cpus 0-1)" -n 3 --map-by socket --bind-to numa

# No package at all (some VMs): the machine is one socket.
T="numa:2 core:2 pu:1"
plan "$T" "rank 0 bound to core 0 (cpus 0)
rank 1 bound to core 1 (cpus 1)
rank 2 bound to core 2 (cpus 2)" -n 3 --map-by socket
plan "$T" "rank 0 bound to machine (cpus 0-3)
rank 1 bound to machine (cpus 0-3)" -n 2 --bind-to socket

# Too many ranks for the synthetic machine: the same rules as on a real one.
T="pack:1 numa:2 core:4 pu:2"
out=$(HWLOC_SYNTHETIC=$T timeout 60 "$MPIRUN" --do-not-launch -n 9 --bind-to core true 2>&1)
rc=$?
expect_rc "'$T' -n 9 --bind-to core" 2
expect_line "'$T' -n 9 --bind-to core" \
    "^mpirun: --bind-to core cannot place 9 ranks one per core: only 8 cores are available on $HOST; drop --bind-to core to run them unbound\$"
out=$(HWLOC_SYNTHETIC=$T timeout 60 "$MPIRUN" --do-not-launch -n 17 --bind-to hwthread true 2>&1)
rc=$?
expect_rc "'$T' -n 17 --bind-to hwthread" 2
expect_line "'$T' -n 17 --bind-to hwthread" \
    "^mpirun: --bind-to hwthread cannot place 17 ranks one per hwthread: only 16 hwthreads are available on $HOST; drop --bind-to hwthread to run them unbound\$"
out=$(HWLOC_SYNTHETIC=$T timeout 60 "$MPIRUN" --do-not-launch -n 17 --bind-to hwthread --nooversubscribe true 2>&1)
rc=$?
expect_rc "'$T' -n 17 --bind-to hwthread --nooversubscribe" 1
expect_line "'$T' -n 17 --bind-to hwthread --nooversubscribe" \
    "^mpirun: 17 ranks requested but only 16 hwthreads are available to mpirun on $HOST, and --nooversubscribe"

# Another machine's cpus cannot be bound to: refused unless nothing is bound.
out=$(HWLOC_SYNTHETIC=$T timeout 60 "$MPIRUN" -n 2 true 2>&1)
rc=$?
expect_rc "'$T' launched" 2
expect_line "'$T' launched" \
    "^mpirun: hwloc's topology is not this machine's \\(HWLOC_SYNTHETIC is set\\), so the ranks cannot be bound to its cpus; add --do-not-launch to only show the plan, or --bind-to none\$"
out=$(HWLOC_SYNTHETIC=$T timeout 60 "$MPIRUN" -n 2 --bind-to none --report-bindings sh -c "$affinity" 2>&1)
rc=$?
expect="[$HOST] rank 0 not bound
[$HOST] rank 1 not bound
rank 0 cpus $own
rank 1 cpus $own"
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | LC_ALL=C sort)" = "$expect" ] ||
    failed "'$T' --bind-to none: launched unbound (exit $rc)" "$out"

# An XML topology with unequal packages (three cores and one): a package whose cores are all
# taken is skipped.
lstopo=$(command -v lstopo-no-graphics || command -v lstopo)
if [ -n "$lstopo" ] &&
    "$lstopo" -i "pack:2 numa:1 core:3 pu:1" --restrict 0xf --of xml "$WORK/uneven.xml" 2>/dev/null; then
    out=$(HWLOC_XMLFILE=$WORK/uneven.xml timeout 60 "$MPIRUN" --do-not-launch --report-bindings -n 4 --map-by socket true 2>&1)
    rc=$?
    expect="[$HOST] rank 0 bound to socket 0 core 0 (cpus 0)
[$HOST] rank 1 bound to socket 1 core 3 (cpus 3)
[$HOST] rank 2 bound to socket 0 core 1 (cpus 1)
[$HOST] rank 3 bound to socket 0 core 2 (cpus 2)"
    [ $rc -eq 0 ] && [ "$out" = "$expect" ] || failed "uneven packages, --map-by socket (exit $rc)" "$out"
    out=$(HWLOC_XMLFILE=$WORK/uneven.xml timeout 60 "$MPIRUN" -n 2 true 2>&1)
    rc=$?
    expect_rc "XML topology launched" 2
    expect_line "XML topology launched" "^mpirun: hwloc's topology is not this machine's \\(HWLOC_XMLFILE is set\\)"
else
    echo "note: lstopo cannot write an XML topology here; the uneven-packages check is skipped"
fi

# Bad values: the option, the value and every accepted word; usage error.
help="; see 'mpirun --help'\$"
run --map-by banana true
expect_rc "--map-by banana" 2
expect_line "--map-by banana" "^mpirun: --map-by 'banana': expected core, socket, numa, slot, node or package$help"
run --bind-to banana true
expect_rc "--bind-to banana" 2
expect_line "--bind-to banana" "^mpirun: --bind-to 'banana': expected core, hwthread, socket, numa, none or package$help"
run --map-by socket:PE=2 true
expect_rc "--map-by socket:PE=2" 2
expect_line "--map-by socket:PE=2" "^mpirun: --map-by 'socket:PE=2': expected core, socket, numa, slot, node or package \\(modifiers after ':' are not supported\\)$help"
run --bind-to=l3cache true
expect_rc "--bind-to=l3cache" 2
expect_line "--bind-to=l3cache" "^mpirun: --bind-to 'l3cache': expected core, hwthread"
run -n 1 --map-by
expect_rc "--map-by without a value" 2
expect_line "--map-by without a value" "^mpirun: option '--map-by' needs a value$help"

finish
