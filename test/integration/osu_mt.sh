#!/bin/sh
# The multi-threaded OSU-style benchmarks (examples/osu: vbt_osu_latency_mt, vbt_osu_mbw_mr_mt),
# natively: bad options and rank counts first (exit 2 on every rank, one usage message; they
# need no thread level), then, with VBT_THREAD_LEVEL=multiple, every payload byte checked (-c)
# at small sizes: latency_mt at 2 ranks with several SEND:RECV thread counts, mbw_mr_mt at 2
# and 4 ranks with 1 to 3 threads, threads kept apart by tag and by communicator; the rows (one
# per size, numbers) and the "# Threads:" line; --csv; and a copy whose payloads are corrupted
# must fail its -c. While the library does not provide MPI_THREAD_MULTIPLE the benchmarks say
# what it provided and exit 77 on every rank: the test checks that message and skips (77).
set -u
: "${abs_top_builddir:=$(pwd)}"
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
MPIRUN=${MPIRUN:-$abs_top_builddir/launcher/mpirun}
ex="$abs_top_builddir/examples/osu"
src="$abs_top_srcdir/examples/osu"
for b in latency_mt mbw_mr_mt; do
    if [ ! -x "$ex/vbt_osu_$b" ]; then
        echo "SKIP: $ex/vbt_osu_$b not built"
        exit 77
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vbt-osu-mt.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
VBT_THREAD_LEVEL=multiple
export VBT_THREAD_LEVEL
fail=0

failed() {
    echo "FAIL: $1"
    [ $# -gt 1 ] && sed 's/^/    /' "$2" | tail -40
    fail=1
}

# run NRANKS PROGRAM ARGS...: $out is its stdout file, $err its stderr, $rc its status.
run() {
    _n=$1
    _p=$2
    shift 2
    out=$tmp/out
    err=$tmp/err
    _t=$(date +%s)
    timeout 300 "$MPIRUN" --oversubscribe -n "$_n" "$_p" "$@" >"$out" 2>"$err"
    rc=$?
    echo "mpirun -n $_n $(basename "$_p") $* -> exit $rc ($(($(date +%s) - _t)) s)"
}

# Bad options and rank counts: exit 2, one message naming the problem, nothing on stdout.
expect_usage() {
    if [ "$rc" -ne 2 ]; then
        failed "$1: exit $rc, expected 2" "$err"
    elif ! grep -q "$2" "$err" || [ "$(grep -c '^usage: \|needs ' "$err")" -ne 1 ]; then
        failed "$1: expected one message matching /$2/ (and one usage) on stderr" "$err"
    fi
    [ -s "$out" ] && failed "$1: printed on stdout" "$out"
}
run 2 "$ex/vbt_osu_latency_mt" -t 0
expect_usage "latency_mt -t 0" "bad thread count '0'"
run 2 "$ex/vbt_osu_latency_mt" -t 2:129
expect_usage "latency_mt -t 2:129" "bad thread count '2:129'"
run 2 "$ex/vbt_osu_mbw_mr_mt" -t 2:3
expect_usage "mbw_mr_mt -t 2:3 (no RECV part)" "bad thread count '2:3': expected a number"
run 2 "$ex/vbt_osu_mbw_mr_mt" -s thread
expect_usage "mbw_mr_mt -s thread" "bad separation 'thread': expected tag or comm"
run 2 "$ex/vbt_osu_latency_mt" -s tag
expect_usage "latency_mt -s (mbw_mr_mt only)" "unknown option or argument '-s'"
run 3 "$ex/vbt_osu_latency_mt" -m 8
expect_usage "latency_mt on 3 ranks" "needs exactly 2 ranks, not 3"
run 3 "$ex/vbt_osu_mbw_mr_mt" -m 8
expect_usage "mbw_mr_mt on 3 ranks" "needs an even number of ranks, not 3"
run 2 "$ex/vbt_osu_mbw_mr_mt" -h
if [ "$rc" -ne 0 ] || [ "$(grep -c '^usage: vbt_osu_mbw_mr_mt' "$out")" -ne 1 ] ||
    ! grep -q -- '-s, --separation tag|comm' "$out" || ! grep -q -- '-t, --num-threads' "$out"; then
    failed "mbw_mr_mt -h: exit $rc, expected 0 and one usage naming -t and -s on stdout" "$out"
fi

# The thread level: MULTIPLE, or exit 77 on every rank with rank 0 saying what was provided.
run 2 "$ex/vbt_osu_latency_mt" -c -m 0:1024 -i 20 -x 2
if [ "$rc" -eq 77 ]; then
    if [ "$(grep -c 'SKIP: the MPI library (Verbatim [^)]*) provided MPI_THREAD_[A-Z]*;' "$out")" -ne 1 ] ||
        ! grep -q 'VBT_THREAD_LEVEL=multiple' "$out" || grep -q 'MPI_THREAD_MULTIPLE;' "$out"; then
        failed "exit 77 without one message naming the level provided and VBT_THREAD_LEVEL" "$out"
    fi
    skip=$(sed 's/^vbt_osu_latency_mt: SKIP: //' "$out")
    run 4 "$ex/vbt_osu_mbw_mr_mt" -c -m 8 -i 2
    [ "$rc" -eq 77 ] || failed "mbw_mr_mt on 4 ranks without MPI_THREAD_MULTIPLE: exit $rc, expected 77" "$err"
    [ $fail -ne 0 ] && exit 1
    echo "SKIP: $skip"
    exit 77
fi

# The sizes MIN, 2*MIN ... MAX, as the benchmarks walk them.
sizes() {
    _s=$1
    while [ "$_s" -le "$2" ]; do
        printf '%s ' "$_s"
        if [ "$_s" -eq 0 ]; then _s=1; else _s=$((_s * 2)); fi
    done
}

# check_text WHAT THREADS NCOLS MIN MAX: $out is a successful run's text: a "# Threads:" line
# matching THREADS, then one row per size with NCOLS fields, the size then numbers (0.00 is
# possible: 1-byte bandwidth), positive in the last row.
check_text() {
    if [ "$rc" -ne 0 ]; then
        cat "$out" >>"$err"
        failed "$1: exit $rc" "$err"
        return
    fi
    if ! awk -v thr="$2" -v ncols="$3" -v want="$(sizes "$4" "$5")" '
        BEGIN { n = split(want, size, " ") }
        NR == 2 && $0 !~ /^# Library: Verbatim / { print "bad library line: " $0; bad = 1 }
        /^# Threads: / { if (index($0, thr) == 0) { print "threads line: " $0 ", expected " thr; bad = 1 }; t = 1; next }
        /^#/ { next }
        {
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
            if (!t) { print "no # Threads: line"; bad = 1 }
            if (i != n) { print i " rows, expected " n; bad = 1 }
            exit bad
        }' "$out" >"$tmp/why" 2>&1; then
        cat "$out" >>"$tmp/why"
        failed "$1: output format" "$tmp/why"
    fi
}

lat=$ex/vbt_osu_latency_mt
mr=$ex/vbt_osu_mbw_mr_mt
check_text "latency_mt -c" "1 sending (rank 0), 2 receiving (rank 1)" 2 0 1024
run 2 "$lat" -c -t 2 -m 0:16k -i 20 -x 2
check_text "latency_mt -c -t 2" "2 sending (rank 0), 2 receiving (rank 1)" 2 0 16384
run 2 "$lat" -c -f -t 3:2 -m 1:4096 -i 30 -x 3
check_text "latency_mt -c -f -t 3:2" "3 sending (rank 0), 2 receiving (rank 1)" 4 1 4096
run 2 "$lat" -c -t 1:4 -m 64k:128k -i 8 -x 1
check_text "latency_mt -c -t 1:4 (rendezvous sizes)" "1 sending (rank 0), 4 receiving" 2 65536 131072
run 2 "$lat" -c --csv -t 2:1 -m 8:16 -i 10
if [ "$rc" -ne 0 ] || [ "$(sed -n 1p "$out")" != "benchmark,library,size,latency_us" ] ||
    [ "$(grep -c '^osu_latency_mt,Verbatim [^,]*,\(8\|16\),[0-9.]*$' "$out")" -ne 2 ]; then
    failed "latency_mt --csv: exit $rc or format" "$out"
fi
for n in 2 4; do
    run $n "$mr" -c -t 1 -m 1:16k -i 5 -x 1 -W 8
    check_text "mbw_mr_mt -c -t 1, $n ranks" "1 per rank ($((n / 2)) streams), a tag pair" 3 1 16384
    run $n "$mr" -c -t 2 -s tag -m 1:64k -i 5 -x 1 -W 8
    check_text "mbw_mr_mt -c -t 2 -s tag, $n ranks" "2 per rank ($n streams), a tag pair" 3 1 65536
    run $n "$mr" -c -f -t 3 -s comm -m 1:4096 -i 5 -x 1 -W 4
    check_text "mbw_mr_mt -c -f -t 3 -s comm, $n ranks" "3 per rank ($((3 * n / 2)) streams), a communicator per thread" 5 1 4096
done
run 4 "$mr" -c --csv -t 2 -m 8:16 -i 3 -W 4
if [ "$rc" -ne 0 ] || [ "$(sed -n 1p "$out")" != "benchmark,library,size,bandwidth_MBps,messages_per_s" ] ||
    [ "$(grep -c '^osu_mbw_mr_mt,Verbatim [^,]*,\(8\|16\),[0-9.]*,[0-9.]*$' "$out")" -ne 2 ]; then
    failed "mbw_mr_mt --csv: exit $rc or format" "$out"
fi

# -c catches a corrupted byte from a thread: a copy whose fill flips bit 0 of byte 77 of every
# message above 100 bytes.
mpicc="$abs_top_builddir/build-bin/mpicc"
mkdir "$tmp/corrupt"
sed 's|^    if (len % 8) {|    if (len > 100) p[77] ^= 1; /* corrupt */\n    if (len % 8) {|' \
    "$src/osu_common.c" >"$tmp/corrupt/osu_common.c"
cp "$src/osu_common.h" "$src/osu_mt.h" "$src/osu_mt.c" "$src/osu_mbw_mr_mt.c" "$tmp/corrupt/"
if ! grep -q '/\* corrupt \*/' "$tmp/corrupt/osu_common.c"; then
    failed "could not make the corrupting copy of osu_common.c (osu_fill changed?)"
elif ! "$mpicc" -O2 -o "$tmp/corrupt/mr" "$tmp/corrupt/osu_mbw_mr_mt.c" "$tmp/corrupt/osu_mt.c" \
    "$tmp/corrupt/osu_common.c" >"$tmp/cc.log" 2>&1; then
    failed "building the corrupting copy with $mpicc" "$tmp/cc.log"
else
    run 2 "$tmp/corrupt/mr" -c -t 2 -m 64:256 -i 3 -x 0 -W 2
    want='vbt_osu_mbw_mr_mt: validation failed on rank 1: size 128, iteration 0, byte 77: got 0x'
    if [ $rc -eq 0 ] || ! grep -q "$want" "$out" "$err"; then
        failed "mbw_mr_mt -c with a corrupted byte: exit $rc, expected non-zero and /$want/" "$err"
    fi
fi

[ $fail -eq 0 ] && echo "osu_mt: all passed"
exit $fail
