#!/bin/sh
# The OSU-style benchmarks (examples/osu) over the transport the caller names in
# VBT_TRANSPORTS: every benchmark with -c (every payload byte checked) over small sizes and few
# iterations, its text output (header lines, one row per size, numeric figures) and its --csv
# output; -f columns; bad options and rank counts (usage message from rank 0 only, exit 2 on
# every rank). Run by verbs_osu.sh (ib) and shm_osu.sh (shm). Exit 0 (pass), 77 (skip) or 1.
# OSU_TRANSPORT_ONLY=1 (verbs_osu.sh, CI's VM list): only what the transport changes, every
# benchmark's payload checks and the 1 MiB bw, not the output formats, the corrupting copy
# (a compile, slow in the VM) or the usage errors, which shm_osu.sh checks natively and
# verbs_osu_full.sh (make check-long) over ib.
set -u
: "${abs_top_builddir:=$(pwd)}"
MPIRUN=${MPIRUN:-$abs_top_builddir/launcher/mpirun}
ex="$abs_top_builddir/examples/osu"
fail=0
# full: true unless OSU_TRANSPORT_ONLY=1.
full() { [ "${OSU_TRANSPORT_ONLY:-0}" != 1 ]; }
for b in latency bw bibw mbw_mr multi_lat; do
    if [ ! -x "$ex/vbt_osu_$b" ]; then
        echo "SKIP: $ex/vbt_osu_$b not built"
        exit 77
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vbt-osu.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

failed() {
    echo "FAIL: $1"
    [ $# -gt 1 ] && sed 's/^/    /' "$2" | tail -40
    fail=1
}

# run NRANKS BENCH ARGS...: runs the benchmark; $out is its stdout file, $err its stderr, $rc.
run() {
    _n=$1
    _b=$2
    shift 2
    out=$tmp/out
    err=$tmp/err
    _t=$(date +%s)
    timeout 300 "$MPIRUN" --oversubscribe -n "$_n" "$ex/vbt_osu_$_b" "$@" >"$out" 2>"$err"
    rc=$?
    echo "mpirun -n $_n vbt_osu_$_b $* -> exit $rc ($(($(date +%s) - _t)) s)"
}

# The sizes MIN, 2*MIN ... MAX, as the benchmarks walk them.
sizes() {
    _s=$1
    while [ "$_s" -le "$2" ]; do
        printf '%s ' "$_s"
        if [ "$_s" -eq 0 ]; then _s=1; else _s=$((_s * 2)); fi
    done
}

# check_text WHAT COLUMN NCOLS MIN MAX: $out is the text output of a successful run: the title
# and library lines, a "# Size" line naming COLUMN, then one row per size with NCOLS fields,
# the size then numbers (0.00 is possible: tiny messages on a slow NIC), positive in the last row.
check_text() {
    if [ "$rc" -ne 0 ]; then
        cat "$out" >>"$err"
        failed "$1: exit $rc" "$err"
        return
    fi
    if ! awk -v col="$2" -v ncols="$3" -v want="$(sizes "$4" "$5")" '
        BEGIN { n = split(want, size, " "); i = 0 }
        NR == 1 { if ($0 !~ /^# OSU-style .*\(vbt_osu_[a-z_]+\)$/) { print "bad title: " $0; bad = 1 }; next }
        NR == 2 { if ($0 !~ /^# Library: Verbatim /) { print "bad library line: " $0; bad = 1 }; next }
        /^# Size/ { if (index($0, col) == 0) { print "no column " col ": " $0; bad = 1 }; hdr = 1; next }
        /^#/ { next }
        {
            if (!hdr) { print "row before the # Size line: " $0; bad = 1 }
            i++
            if ($1 != size[i]) { print "row " i ": size " $1 ", expected " size[i]; bad = 1 }
            if (NF != ncols) { print "row " i ": " NF " fields, expected " ncols; bad = 1 }
            for (f = 2; f <= NF; f++)
                if ($f !~ /^[0-9]+\.[0-9][0-9]$/ || (i == n && $f + 0 <= 0)) {
                    print "row " i ": field " f " is not a number (positive in the last row): " $f
                    bad = 1
                }
        }
        END {
            if (!hdr) { print "no # Size line"; bad = 1 }
            if (i != n) { print i " rows, expected " n; bad = 1 }
            exit bad
        }' "$out" >"$tmp/why" 2>&1; then
        cat "$out" >>"$tmp/why"
        failed "$1: output format" "$tmp/why"
    fi
}

# check_csv WHAT HEADER BENCH MIN MAX: $out is CSV: HEADER, then one row per size with as many
# fields, the benchmark's name, the library (Verbatim ...), the size, numbers.
check_csv() {
    if [ "$rc" -ne 0 ]; then
        cat "$out" >>"$err"
        failed "$1: exit $rc" "$err"
        return
    fi
    if ! awk -F, -v header="$2" -v bench="$3" -v want="$(sizes "$4" "$5")" '
        BEGIN { n = split(want, size, " "); nf = split(header, h, ",") }
        NR == 1 { if ($0 != header) { print "header " $0 ", expected " header; bad = 1 }; next }
        {
            i = NR - 1
            if (NF != nf) { print "row " i ": " NF " fields, expected " nf; bad = 1 }
            if ($1 != bench) { print "row " i ": benchmark " $1 ", expected " bench; bad = 1 }
            if ($2 !~ /^Verbatim [^,]+$/) { print "row " i ": library " $2; bad = 1 }
            if ($3 != size[i]) { print "row " i ": size " $3 ", expected " size[i]; bad = 1 }
            for (f = 4; f <= NF; f++)
                if ($f !~ /^[0-9]+\.[0-9]+$/) { print "row " i ": field " f ": " $f; bad = 1 }
        }
        END { if (NR - 1 != n) { print NR - 1 " rows, expected " n; bad = 1 }; exit bad }' \
        "$out" >"$tmp/why" 2>&1; then
        cat "$out" >>"$tmp/why"
        failed "$1: CSV format" "$tmp/why"
    fi
}

# Every benchmark with every payload checked, as text and as CSV (with -f for some). Up to
# 64 KiB: messages of several eager fragments; bw -f also checks 1 MiB messages.
run 2 latency -c -m 0:64k -i 20 -x 2
check_text latency "Latency (us)" 2 0 65536
if full; then
    run 2 latency -c --csv -m 0:1024 -i 10 -x 1
    check_csv "latency --csv" "benchmark,library,size,latency_us" osu_latency 0 1024
fi
run 2 bw -c -m 1:64k -i 5 -x 1 -W 8
check_text bw "Bandwidth (MB/s)" 2 1 65536
run 2 bw -c -f --csv -m 256k:1m -i 2 -x 0 -W 4
check_csv "bw -f --csv" "benchmark,library,size,bandwidth_MBps,min_MBps,max_MBps" osu_bw \
    262144 1048576
run 2 bibw -c -m 1:64k -i 5 -x 1 -W 8
check_text bibw "Bandwidth (MB/s)" 2 1 65536
if full; then
    run 2 bibw -c -f --csv -m 8:8 -i 3 -W 4
    check_csv "bibw -f --csv" "benchmark,library,size,bandwidth_MBps,min_MBps,max_MBps" osu_bibw 8 8
fi
run 4 mbw_mr -c -f -m 1:16k -i 5 -x 1 -W 8
check_text "mbw_mr -f" "Messages/s" 5 1 16384
if full; then
    run 4 mbw_mr -c --csv -m 8:16 -i 3 -W 4
    check_csv "mbw_mr --csv" "benchmark,library,size,bandwidth_MBps,messages_per_s" osu_mbw_mr 8 16
fi
run 4 multi_lat -c -m 0:16k -i 10 -x 1
check_text multi_lat "Latency (us)" 2 0 16384
if full; then
    run 4 multi_lat -c -f --csv -m 8:16 -i 3
    check_csv "multi_lat -f --csv" "benchmark,library,size,latency_us,min_us,max_us" osu_multi_lat 8 16
fi
run 2 latency -c -f -m 4k:8k -i 5 -x 0
check_text "latency -f" "Max Latency(us)" 4 4096 8192

# The barrier: no sizes, one row (the average, or avg/min/max/iterations with -f).
barrier_sizes=2
full && barrier_sizes="2 3"
for n in $barrier_sizes; do
    run $n barrier -i 20 -x 2
    if [ "$rc" -ne 0 ] || ! sed -n 4p "$out" | grep -q '^# Avg Latency(us)$' ||
        ! sed -n 5p "$out" | grep -Eq '^ *[0-9]+\.[0-9][0-9]$' || [ "$(wc -l <"$out")" -ne 5 ]; then
        cat "$out" >>"$err"
        failed "barrier -n $n: exit $rc or output format" "$err"
    fi
done
if ! full; then
    [ $fail -eq 0 ] && echo "verbs_osu: all passed (OSU_TRANSPORT_ONLY=1)"
    exit $fail
fi
run 3 barrier -f --csv -i 10 -x 1
check_csv "barrier -f --csv" "benchmark,library,size,latency_us,min_us,max_us" osu_barrier 0 0
run 1 barrier -i 1
[ "$rc" -eq 2 ] || failed "barrier -n 1: exit $rc, expected 2 (needs 2 ranks)" "$err"

# -c catches a corrupted byte and says where, and mpirun forwards that line before the job
# ends (a regression: it was lost when MPI_Abort followed at once). A copy of the sources whose
# fill flips bit 0 of byte 77 of every message above 100 bytes.
mpicc="$abs_top_builddir/build-bin/mpicc"
src=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/examples/osu
mkdir "$tmp/corrupt"
sed 's|^    if (len % 8) {|    if (len > 100) p[77] ^= 1; /* corrupt */\n    if (len % 8) {|' \
    "$src/osu_common.c" >"$tmp/corrupt/osu_common.c"
cp "$src/osu_common.h" "$src/osu_bw.c" "$tmp/corrupt/"
if ! grep -q '/\* corrupt \*/' "$tmp/corrupt/osu_common.c"; then
    failed "could not make the corrupting copy of osu_common.c (osu_fill changed?)"
elif ! "$mpicc" -O2 -o "$tmp/corrupt/bw" "$tmp/corrupt/osu_bw.c" "$tmp/corrupt/osu_common.c" \
    >"$tmp/cc.log" 2>&1; then
    failed "building the corrupting copy with $mpicc" "$tmp/cc.log"
else
    timeout 300 "$MPIRUN" -n 2 "$tmp/corrupt/bw" -c -m 64:256 -i 3 -x 0 -W 2 >"$tmp/out" 2>&1
    rc=$?
    echo "mpirun -n 2 (corrupting copy of vbt_osu_bw) -c -> exit $rc"
    want='vbt_osu_bw: validation failed on rank 1: size 128, iteration 0, byte 77: got 0x'
    if [ $rc -ne 3 ] || ! grep -q "$want" "$tmp/out"; then
        failed "-c with a corrupted byte: exit $rc, expected 3 (MPI_Abort) and /$want/" "$tmp/out"
    fi
fi

# Bad options and rank counts: exit 2 from every rank, one usage message (from rank 0).
expect_usage() {
    if [ "$rc" -ne 2 ]; then
        failed "$1: exit $rc, expected 2" "$err"
    elif ! grep -q "$2" "$err" || [ "$(grep -c '^usage: \|needs ' "$err")" -ne 1 ]; then
        failed "$1: expected one message matching /$2/ (and one usage) on stderr" "$err"
    fi
    [ -s "$out" ] && failed "$1: printed on stdout" "$out"
}
run 2 latency -m 9:3
expect_usage "MIN > MAX" "MIN is larger than MAX"
run 2 latency -W 8
expect_usage "-W for latency" "unknown option or argument '-W'"
run 2 bw -i 0
expect_usage "-i 0" "bad iteration count '0'"
run 3 multi_lat -m 8
expect_usage "multi_lat on 3 ranks" "needs an even number of ranks, not 3"
run 2 bw -h
if [ "$rc" -ne 0 ] || [ "$(grep -c '^usage: vbt_osu_bw' "$out")" -ne 1 ] || ! grep -q -- '--csv' "$out"; then
    failed "-h: exit $rc, expected 0 and one usage on stdout" "$out"
fi

[ $fail -eq 0 ] && echo "verbs_osu: all passed"
exit $fail
