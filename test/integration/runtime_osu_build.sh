#!/bin/sh
# The OSU-style benchmark sources (examples/osu, point-to-point, collective, one-sided and
# nonblocking collective, multi-threaded) are
# plain MPI:
# they build standalone with the build tree's mpicc (-std=c99 -pedantic -Wall -Wextra -Werror)
# and start as a world of one rank
# (-h: usage, exit 0; one rank: "needs exactly 2 ranks", exit 2). Where Open MPI's or MPICH's
# mpicc is installed (mpicc.openmpi, mpicc.mpich), they build with those too and run a short
# validated job over that MPI on this machine. Where gnuplot is installed, vbt-osu-plot draws
# sample CSV files into a PNG. The other-MPI and gnuplot parts are skipped (said so) when the
# tools are missing; the test passes when the mandatory parts pass. The one-sided ones (osu_rma.c)
# are built with Verbatim's mpicc only once its library has MPI_Win_* (said so otherwise); with
# the other MPIs they build and run a short job in every -w mode and several -s modes. The
# nonblocking collective ones (osu_nbc.c) likewise once Verbatim's library has MPI_Iallreduce &
# co; with the other MPIs each runs a short validated job (2 to 4 ranks, with and without -f and
# -t), its rows checked for OSU's columns and an overlap between 0 and 100, and a copy whose
# payloads are corrupted must fail its -c. The multi-threaded ones (osu_mt.c) build everywhere;
# with the other MPIs (which provide MPI_THREAD_MULTIPLE) they run validated jobs with several
# thread counts and both -s modes, and a corrupting copy must fail its -c.
# CI's make check builds and runs them with Open MPI only; runtime_osu_build_full.sh (make
# check-long) sets OSU_BUILD_MPIS="openmpi mpich", which adds MPICH (the same checks, about
# three minutes more).
set -u
: "${abs_top_builddir:=$(pwd)}"
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
src="$abs_top_srcdir/examples/osu"
plot="$src/vbt-osu-plot"
benches="latency bw bibw mbw_mr multi_lat barrier"
# The collective ones share a driver, osu_coll.c.
coll_benches="bcast reduce allreduce gather scatter allgather alltoall reduce_scatter"
coll_benches="$coll_benches gatherv scatterv allgatherv alltoallv"
# The one-sided ones share osu_rma.c.
rma_benches="put_latency get_latency acc_latency get_acc_latency fop_latency cas_latency"
rma_benches="$rma_benches put_bw get_bw put_bibw"
# The nonblocking collectives share osu_nbc.c (and osu_coll.c's buffers and validation).
nbc_benches="ibarrier ibcast ireduce iallreduce igather iscatter iallgather ialltoall"
nbc_benches="$nbc_benches ireduce_scatter igatherv iscatterv iallgatherv ialltoallv"
# The multi-threaded ones share osu_mt.c.
mt_benches="latency_mt mbw_mr_mt"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vbt-osu-build.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
[ -n "${VBT_OSU_KEEP_PNG:-}" ] && trap 'cp "$tmp/plot.png" "$VBT_OSU_KEEP_PNG"; rm -rf "$tmp"' EXIT
fail=0
failed() {
    echo "FAIL: $1"
    [ $# -gt 1 ] && printf '%s\n' "$2" | tail -30 | sed 's/^/    /'
    fail=1
}

# build NAME MPICC [FLAGS...]: builds every benchmark into $tmp/NAME/ ($with_rma and $with_nbc
# say whether the one-sided and the nonblocking ones too); 0 when all built. The shared sources
# (osu_common.c, the collective, one-sided and nonblocking drivers) are compiled once, with the
# same flags, and linked into each benchmark.
with_rma=1
with_nbc=1
build() {
    _name=$1
    _cc=$2
    shift 2
    _dir=$tmp/$_name
    mkdir -p "$_dir"
    _shared="common coll mt"
    [ $with_rma = 1 ] && _shared="$_shared rma"
    [ $with_nbc = 1 ] && _shared="$_shared nbc"
    for s in $_shared; do
        if ! _out=$("$_cc" "$@" -c -o "$_dir/osu_$s.o" "$src/osu_$s.c" 2>&1); then
            failed "$_name: $_cc $* -c osu_$s.c" "$_out"
            return 1
        fi
    done
    _all="$benches $coll_benches $mt_benches"
    [ $with_rma = 1 ] && _all="$_all $rma_benches"
    [ $with_nbc = 1 ] && _all="$_all $nbc_benches"
    for b in $_all; do
        _extra=
        case " $coll_benches " in *" $b "*) _extra="$_dir/osu_coll.o" ;; esac
        case " $rma_benches " in *" $b "*) _extra="$_dir/osu_rma.o" ;; esac
        case " $mt_benches " in *" $b "*) _extra="$_dir/osu_mt.o" ;; esac
        _extra2=
        case " $nbc_benches " in *" $b "*) _extra="$_dir/osu_nbc.o" _extra2="$_dir/osu_coll.o" ;; esac
        if ! _out=$("$_cc" "$@" -o "$_dir/vbt_osu_$b" "$src/osu_$b.c" "$_dir/osu_common.o" ${_extra:+"$_extra"} ${_extra2:+"$_extra2"} 2>&1); then
            failed "$_name: $_cc $* osu_$b.c osu_common.o $_extra" "$_out"
            return 1
        fi
    done
    echo "built the benchmarks with $_cc ($_name)"
}

# rma_singleton NAME: the one-sided options as a world of one rank: -h lists -w and each
# benchmark's -s modes; a mode a benchmark does not accept, or a bad -w, is a usage error.
rma_singleton() {
    out=$("$tmp/$1/vbt_osu_put_bibw" -h 2>&1)
    rc=$?
    case $rc:$out in
    0:*"-w, --win-option"*"default allocate"*"default pscw"*fence*) ;;
    *) failed "$1: vbt_osu_put_bibw -h: exit $rc" "$out" ;;
    esac
    out=$("$tmp/$1/vbt_osu_put_bibw" -s flush 2>&1)
    rc=$?
    case $rc:$out in
    2:*"bad synchronization 'flush': expected pscw, fence"*) ;;
    *) failed "$1: vbt_osu_put_bibw -s flush: exit $rc, expected 2" "$out" ;;
    esac
    out=$("$tmp/$1/vbt_osu_get_acc_latency" -w shared 2>&1)
    rc=$?
    case $rc:$out in
    2:*"bad window creation 'shared'"*"default create"*"default lock"*) ;;
    *) failed "$1: vbt_osu_get_acc_latency -w shared: exit $rc, expected 2" "$out" ;;
    esac
    out=$("$tmp/$1/vbt_osu_fop_latency" -m 8 2>&1)
    rc=$?
    case $rc:$out in
    2:*"unknown option"*) ;;
    *) failed "$1: vbt_osu_fop_latency -m (it has one size): exit $rc, expected 2" "$out" ;;
    esac
}

# nbc_singleton NAME: the nonblocking options as a world of one rank: -h names -t and the
# columns; a bad -t, and -m for the ibarrier (no sizes), are usage errors; one rank is too few.
nbc_singleton() {
    out=$("$tmp/$1/vbt_osu_iallreduce" -h 2>&1)
    rc=$?
    case $rc:$out in
    0:*"-t, --num-test-calls CALLS"*"overall_us,compute_us,pure_comm_us"*) ;;
    *) failed "$1: vbt_osu_iallreduce -h: exit $rc" "$out" ;;
    esac
    out=$("$tmp/$1/vbt_osu_ialltoall" -t x 2>&1)
    rc=$?
    case $rc:$out in
    2:*"bad MPI_Test call count 'x'"*) ;;
    *) failed "$1: vbt_osu_ialltoall -t x: exit $rc, expected 2" "$out" ;;
    esac
    out=$("$tmp/$1/vbt_osu_ibarrier" -m 8 2>&1)
    rc=$?
    case $rc:$out in
    2:*"unknown option"*) ;;
    *) failed "$1: vbt_osu_ibarrier -m (it has no sizes): exit $rc, expected 2" "$out" ;;
    esac
    out=$("$tmp/$1/vbt_osu_ibcast" -m 8 2>&1)
    rc=$?
    case $rc:$out in
    2:*"needs at least 2 ranks, not 1"*) ;;
    *) failed "$1: vbt_osu_ibcast on one rank: exit $rc, expected 2" "$out" ;;
    esac
}

# nbc_rows OUT FULL: the rows of a nonblocking benchmark's text output have OSU's columns (size,
# Overall, Compute, Pure Comm., Overlap; -f: nine figures; the ibarrier without the size) and
# an overlap from 0 to 100; prints the row count, or a reason and fails.
nbc_rows() {
    printf '%s\n' "$1" | awk -v full="$2" '
        /^# Overall = Coll. Init \+ Compute \+ MPI_Test \+ MPI_Wait$/ { pre = 1 }
        /Overall\(us\)/ { hdr = ($0 ~ /Pure Comm\.\(us\)/ && $0 ~ /Overlap\(%\)$/); nosize = ($0 !~ /Size/) }
        /^ *[0-9]/ {
            want = (full ? 9 : 4) + (nosize ? 0 : 1)
            if (NF != want) { print "a row of " NF " fields, expected " want ": " $0; bad = 1; exit }
            if ($NF + 0 < 0 || $NF + 0 > 100) { print "overlap out of 0..100: " $0; bad = 1; exit }
            rows++
        }
        END {
            if (bad) exit 1
            if (!pre || !hdr) { print "no OSU nonblocking header"; exit 1 }
            print rows + 0
        }'
}

# mt_singleton NAME: the multi-threaded options as a world of one rank: -h names -t (and -s);
# a bad -t or -s is a usage error before any thread level is looked at; one rank is too few.
mt_singleton() {
    out=$("$tmp/$1/vbt_osu_latency_mt" -h 2>&1)
    rc=$?
    case $rc:$out in
    0:*"-t, --num-threads SEND[:RECV]"*) ;;
    *) failed "$1: vbt_osu_latency_mt -h: exit $rc" "$out" ;;
    esac
    out=$("$tmp/$1/vbt_osu_mbw_mr_mt" -s ring 2>&1)
    rc=$?
    case $rc:$out in
    2:*"bad separation 'ring': expected tag or comm"*) ;;
    *) failed "$1: vbt_osu_mbw_mr_mt -s ring: exit $rc, expected 2" "$out" ;;
    esac
    out=$("$tmp/$1/vbt_osu_latency_mt" -t 1:x 2>&1)
    rc=$?
    case $rc:$out in
    2:*"bad thread count '1:x'"*) ;;
    *) failed "$1: vbt_osu_latency_mt -t 1:x: exit $rc, expected 2" "$out" ;;
    esac
    out=$("$tmp/$1/vbt_osu_latency_mt" -m 8 2>&1)
    rc=$?
    case $rc:$out in
    2:*"needs exactly 2 ranks, not 1"*) ;;
    *) failed "$1: vbt_osu_latency_mt on one rank: exit $rc, expected 2" "$out" ;;
    esac
}

# With Verbatim's build-tree mpicc, as strictly as the compiler allows; the one-sided benchmarks
# only when a program calling MPI_Win_free links (Verbatim before its one-sided engine: no).
vcc="$abs_top_builddir/build-bin/mpicc"
printf '#include <mpi.h>\nint main(void) { MPI_Win w = MPI_WIN_NULL; MPI_Init(0, 0); if (w != MPI_WIN_NULL) MPI_Win_free(&w); MPI_Finalize(); return 0; }\n' >"$tmp/win.c"
if ! _out=$("$vcc" -o "$tmp/win" "$tmp/win.c" 2>&1); then
    if printf '%s\n' "$_out" | grep -q 'MPI_Win_free'; then
        echo "SKIP (part): Verbatim's library has no MPI_Win_free yet: the one-sided benchmarks are built with the other MPIs only"
        with_rma=0
    else
        failed "$vcc: a probe calling MPI_Win_free does not build, for another reason" "$_out"
    fi
fi
vbt_rma=$with_rma
# The nonblocking ones only when a program calling MPI_Iallreduce builds (not before Verbatim
# has its nonblocking collectives).
printf '#include <mpi.h>\nint main(void) { MPI_Request r = MPI_REQUEST_NULL; float a = 0, b; MPI_Init(0, 0); if (r != MPI_REQUEST_NULL) MPI_Iallreduce(&a, &b, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r); MPI_Finalize(); return 0; }\n' >"$tmp/nbc.c"
if ! _out=$("$vcc" -o "$tmp/nbc" "$tmp/nbc.c" 2>&1); then
    if printf '%s\n' "$_out" | grep -q 'MPI_Iallreduce'; then
        echo "SKIP (part): Verbatim's library has no MPI_Iallreduce yet: the nonblocking benchmarks are built with the other MPIs only"
        with_nbc=0
    else
        failed "$vcc: a probe calling MPI_Iallreduce does not build, for another reason" "$_out"
    fi
fi
vbt_nbc=$with_nbc
if build verbatim "$abs_top_builddir/build-bin/mpicc" -std=c99 -pedantic -O2 -Wall -Wextra -Werror; then
    out=$("$tmp/verbatim/vbt_osu_bw" -h 2>&1)
    rc=$?
    case $rc:$out in
    0:*"usage: vbt_osu_bw"*"-W, --window-size"*--csv*) ;;
    *) failed "vbt_osu_bw -h as a singleton: exit $rc" "$out" ;;
    esac
    out=$("$tmp/verbatim/vbt_osu_latency" -m 8 2>&1)
    rc=$?
    case $rc:$out in
    2:*"needs exactly 2 ranks, not 1"*) ;;
    *) failed "vbt_osu_latency on one rank: exit $rc, expected 2" "$out" ;;
    esac
    out=$("$tmp/verbatim/vbt_osu_latency" -x 2>&1)
    rc=$?
    case $rc:$out in
    2:*"bad warm-up count"*"usage: vbt_osu_latency"*) ;;
    *) failed "vbt_osu_latency -x without a value: exit $rc, expected 2" "$out" ;;
    esac
    [ $vbt_rma = 1 ] && rma_singleton verbatim
    [ $vbt_nbc = 1 ] && nbc_singleton verbatim
    mt_singleton verbatim
fi
with_rma=1 # the other MPIs have one-sided functions
with_nbc=1 # and nonblocking collectives

# Another MPI: build with its wrapper; run latency and bw with -c on 2 ranks and mbw_mr on 4
# over its default (shared-memory) path, then a short job of each one-sided benchmark. A
# validation error fails the test, and so does a job that fails after an earlier one of the
# same MPI ran; a launcher that cannot start here at all only gets a note.
rival() {
    _name=$1
    _cc=$2
    _run=$3
    shift 3
    if ! command -v "$_cc" >/dev/null 2>&1; then
        echo "SKIP (part): no $_cc, not building with $_name"
        return
    fi
    build "$_name" "$_cc" -O2 -Wall -Wextra -Werror || return
    rma_singleton "$_name"
    nbc_singleton "$_name"
    mt_singleton "$_name"
    _ran=0
    for job in "2 latency -c -m 0:4096 -i 20 -x 2" "2 bw -c -m 1:65536 -i 4 -W 8" \
        "4 mbw_mr -c -m 1:4096 -i 4 -W 8" \
        "2 put_latency -w create -s lock -m 1:4096 -i 20 -x 2" \
        "2 get_latency -w dynamic -s fence -m 1:4096 -i 20 -x 2" \
        "2 acc_latency -w allocate -s pscw -m 1:4096 -i 20 -x 2" \
        "2 get_acc_latency -m 1:4096 -i 20 -x 2" "2 fop_latency -s lock_all -i 20 -x 2" \
        "2 cas_latency -w dynamic -s flush_local -i 20 -x 2" \
        "2 put_bw -w create -s fence -m 1:65536 -i 4 -W 8" \
        "2 get_bw -w dynamic -s flush -m 1:65536 -i 4 -W 8" \
        "2 put_bibw -s pscw -m 1:65536 -i 4 -W 8" \
        "2 ibarrier -i 20 -x 2" "3 ibarrier -f -t 5 -i 20 -x 2" \
        "4 iallreduce -c -m 4:4096 -i 10 -x 2" "3 ireduce -c -f -t 10 -m 1:4096 -i 10 -x 2" \
        "3 ibcast -c -t 3 -m 1:65536 -i 10 -x 2" "2 igather -c -f -m 1:4096 -i 10 -x 2" \
        "3 iscatter -c -t 2 -m 1:4096 -i 10 -x 2" "4 iallgather -c -m 1:4096 -i 10 -x 2" \
        "3 ialltoall -c -f -t 7 -m 1:4096 -i 10 -x 2" \
        "4 ireduce_scatter -c -t 4 -m 4:4096 -i 10 -x 2" "3 ireduce_scatter -c -m 4:64 -i 10 -x 2" \
        "3 igatherv -c -m 1:4096 -i 10 -x 2" "4 iscatterv -c -f -m 1:4096 -i 10 -x 2" \
        "3 iallgatherv -c -t 1 -m 1:4096 -i 10 -x 2" "2 ialltoallv -c -m 1:4096 -i 10 -x 2" \
        "2 latency_mt -c -m 0:4096 -i 20 -x 2" "2 latency_mt -c -f -t 3:2 -m 1:65536 -i 12 -x 2" \
        "2 mbw_mr_mt -c -t 2 -m 1:65536 -i 4 -W 8" "4 mbw_mr_mt -c -f -t 3 -s comm -m 1:4096 -i 4 -W 4"; do
        # shellcheck disable=SC2086 # split the job into words
        set -- $job
        _n=$1
        _b=$2
        shift 2
        out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            timeout 120 "$_run" $RIVAL_RUN_ARGS -n "$_n" "$tmp/$_name/vbt_osu_$_b" "$@" 2>&1)
        rc=$?
        if [ $rc -eq 0 ]; then
            _ran=1
            rows=$(printf '%s\n' "$out" | grep -c '^[0-9]')
            case " $nbc_benches " in
            *" $_b "*)
                _full=0
                case " $* " in *" -f "*) _full=1 ;; esac
                if ! rows=$(nbc_rows "$out" $_full); then
                    failed "$_name: vbt_osu_$_b $* on $_n ranks: $rows" "$out"
                    continue
                fi
                ;;
            esac
            [ "$rows" -gt 0 ] || failed "$_name: vbt_osu_$_b printed no rows" "$out"
            case " $mt_benches " in
            *" $_b "*)
                printf '%s\n' "$out" | grep -q '^# Threads: ' ||
                    failed "$_name: vbt_osu_$_b $* printed no '# Threads:' line" "$out"
                ;;
            esac
            case " $rma_benches $nbc_benches " in
            *" $_b "*) echo "ran vbt_osu_$_b $* on $_n ranks with $_name: $rows sizes" ;;
            *) echo "ran vbt_osu_$_b -c on $_n ranks with $_name: $rows sizes checked" ;;
            esac
        elif printf '%s\n' "$out" | grep -q 'validation failed'; then
            failed "$_name: vbt_osu_$_b -c: validation failed" "$out"
        elif [ $_ran = 1 ]; then
            failed "$_name: vbt_osu_$_b $* on $_n ranks: exit $rc (earlier jobs of this MPI ran)" "$out"
        else
            echo "NOTE: $_run could not run vbt_osu_$_b here (exit $rc); only the build is checked:"
            printf '%s\n' "$out" | tail -5 | sed 's/^/    /'
            return
        fi
    done
}
# -c must catch a corrupted byte and say where, on stderr that the launcher forwards (a
# regression: the message was lost when MPI_Abort followed it at once). A copy of the sources
# whose fill flips bit 0 of byte 77 of every message above 100 bytes, run with another MPI.
corrupt() {
    _cc=$1
    _run=$2
    command -v "$_cc" >/dev/null 2>&1 && command -v "$_run" >/dev/null 2>&1 || return 0
    mkdir -p "$tmp/corrupt"
    sed 's|^    if (len % 8) {|    if (len > 100) p[77] ^= 1; /* corrupt */\n    if (len % 8) {|' \
        "$src/osu_common.c" >"$tmp/corrupt/osu_common.c"
    if ! grep -q '/\* corrupt \*/' "$tmp/corrupt/osu_common.c"; then
        failed "could not make the corrupting copy of osu_common.c (osu_fill changed?)"
        return
    fi
    cp "$src/osu_common.h" "$src/osu_bw.c" "$tmp/corrupt/"
    cp "$src/osu_coll.h" "$src/osu_coll.c" "$src/osu_nbc.h" "$src/osu_nbc.c" "$src/osu_ialltoall.c" \
        "$src/osu_mt.h" "$src/osu_mt.c" "$src/osu_latency_mt.c" "$tmp/corrupt/"
    if ! out=$("$_cc" -O2 -o "$tmp/corrupt/bw" "$tmp/corrupt/osu_bw.c" "$tmp/corrupt/osu_common.c" 2>&1) ||
        ! out=$("$_cc" -O2 -o "$tmp/corrupt/ialltoall" "$tmp/corrupt/osu_ialltoall.c" \
            "$tmp/corrupt/osu_nbc.c" "$tmp/corrupt/osu_coll.c" "$tmp/corrupt/osu_common.c" 2>&1) ||
        ! out=$("$_cc" -O2 -o "$tmp/corrupt/latency_mt" "$tmp/corrupt/osu_latency_mt.c" \
            "$tmp/corrupt/osu_mt.c" "$tmp/corrupt/osu_common.c" 2>&1); then
        failed "building the corrupting copy with $_cc" "$out"
        return
    fi
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        timeout 120 "$_run" $RIVAL_RUN_ARGS -n 2 "$tmp/corrupt/bw" -c -m 64:256 -i 3 -x 0 -W 2 2>&1)
    rc=$?
    want='vbt_osu_bw: validation failed on rank 1: size 128, iteration 0, byte 77: got 0x'
    if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q "$want"; then
        failed "-c with a corrupted byte under $_run: exit $rc, expected non-zero and /$want/" "$out"
    else
        echo "-c caught a corrupted byte under $_run and said where"
    fi
    # The nonblocking driver's -c: every rank's blocks carry the flipped byte.
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        timeout 120 "$_run" $RIVAL_RUN_ARGS -n 2 "$tmp/corrupt/ialltoall" -c -m 64:256 -i 3 -x 0 2>&1)
    rc=$?
    want='vbt_osu_ialltoall: validation failed on rank [01]: size 128, iteration 0, byte 77: got 0x'
    if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q "$want"; then
        failed "ialltoall -c with a corrupted byte under $_run: exit $rc, expected non-zero and /$want/" "$out"
    else
        echo "ialltoall -c caught a corrupted byte under $_run and said where"
    fi
    # The multi-threaded latency's -c, with two receiving threads: the first messages above 100
    # bytes are iteration 0's of size 128, checked by rank 1 and by rank 0 (whichever first).
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        timeout 120 "$_run" $RIVAL_RUN_ARGS -n 2 "$tmp/corrupt/latency_mt" -c -t 1:2 -m 64:256 -i 3 -x 0 2>&1)
    rc=$?
    want='vbt_osu_latency_mt: validation failed on rank [01]: size 128, iteration 0, byte 77: got 0x'
    if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q "$want"; then
        failed "latency_mt -c with a corrupted byte under $_run: exit $rc, expected non-zero and /$want/" "$out"
    else
        echo "latency_mt -c caught a corrupted byte under $_run and said where"
    fi
}

for mpi in ${OSU_BUILD_MPIS:-openmpi}; do
    case $mpi in
    openmpi)
        RIVAL_RUN_ARGS=--oversubscribe
        corrupt mpicc.openmpi mpirun.openmpi
        rival "Open MPI" mpicc.openmpi mpirun.openmpi
        ;;
    mpich)
        RIVAL_RUN_ARGS=
        corrupt mpicc.mpich mpirun.mpich
        rival MPICH mpicc.mpich mpirun.mpich
        ;;
    *) failed "OSU_BUILD_MPIS: no MPI '$mpi' (openmpi, mpich)" ;;
    esac
done

# The plot script: without gnuplot it must say what to install (checked with a PATH holding
# every tool it uses but gnuplot).
mkdir "$tmp/bin"
for t in sh sed awk mktemp rm cat grep ls basename; do
    p=$(command -v $t) && ln -s "$p" "$tmp/bin/$t"
done
printf 'benchmark,library,size,latency_us\nosu_latency,X 1,8,1.5\n' >"$tmp/one.csv"
out=$(PATH="$tmp/bin" sh "$plot" -o "$tmp/none.png" "$tmp/one.csv" 2>&1)
rc=$?
case $rc:$out in
1:*"apt-get install gnuplot-nox"*) ;;
*) failed "vbt-osu-plot without gnuplot: exit $rc, expected 1 and the package to install" "$out" ;;
esac
out=$(sh "$plot" 2>&1)
[ $? -eq 2 ] || failed "vbt-osu-plot without arguments must exit 2" "$out"

if command -v gnuplot >/dev/null 2>&1; then
    # Two runs of latency and bandwidth (as bench/run writes them: both in one file).
    for lib in "Verbatim 0.1.0:1" "Other MPI 4.1:2"; do
        name=${lib%:*}
        k=${lib#*:}
        f="$tmp/run$k.csv"
        echo "benchmark,library,size,latency_us" >"$f"
        s=0
        while [ $s -le 4194304 ]; do
            echo "osu_latency,$name,$s,$(awk -v s=$s -v k="$k" 'BEGIN { printf "%.3f", k * (1.5 + s / 3000) }')" >>"$f"
            if [ $s -eq 0 ]; then s=1; else s=$((s * 2)); fi
        done
        echo "benchmark,library,size,bandwidth_MBps,min_MBps,max_MBps" >>"$f"
        s=1
        while [ $s -le 4194304 ]; do
            echo "osu_bw,$name,$s,$(awk -v s=$s -v k="$k" 'BEGIN { b = 12000 * s / (s + 4096 * k); printf "%.3f,%.3f,%.3f", b, b * 0.9, b * 1.1 }')" >>"$f"
            s=$((s * 2))
        done
    done
    out=$(sh "$plot" -o "$tmp/plot.png" -t "sample" "$tmp/run1.csv" "$tmp/run2.csv=Rival" 2>&1)
    rc=$?
    magic=$(od -An -c -N 4 "$tmp/plot.png" 2>/dev/null | tr -d ' ')
    bytes=$(wc -c <"$tmp/plot.png" 2>/dev/null || echo 0)
    if [ $rc -ne 0 ] || [ "$magic" != '211PNG' ] || [ "$bytes" -lt 10000 ]; then
        failed "vbt-osu-plot on two CSV files: exit $rc, PNG magic '$magic', $bytes bytes" "$out"
    else
        echo "vbt-osu-plot drew two sample CSV files ($bytes bytes of PNG)"
    fi
    echo "this is not CSV" >"$tmp/bad.csv"
    out=$(sh "$plot" -o "$tmp/bad.png" "$tmp/bad.csv" 2>&1)
    [ $? -eq 1 ] || failed "vbt-osu-plot on a file that is not CSV must exit 1" "$out"
    out=$(sh "$plot" -o "$tmp/bad.png" "$tmp/missing.csv" 2>&1)
    case $? in 1) ;; *) failed "vbt-osu-plot on a missing file must exit 1" "$out" ;; esac
else
    echo "SKIP (part): no gnuplot, the plot is not drawn (apt-get install gnuplot-nox)"
fi

[ $fail -eq 0 ] && echo "runtime_osu_build: all passed"
exit $fail
