#!/bin/sh
# The wire decoders and mpirun's argument parser under libFuzzer, as part of make check (so CI
# runs it): each target of test/fuzz/ is built with clang -fsanitize=fuzzer,address,undefined
# straight from the sources it tests (pure functions: no library, no device), then run for
# VBT_FUZZ_SECONDS (default 15) over a copy of its seed corpus, test/fuzz/corpus/<target>/. Any
# crash, sanitizer report or leak fails; the input that caused it is left in the work
# directory ($abs_top_builddir/fuzz/<target>/) and named below: add it to the corpus with the
# fix. Skips (77) when clang or its libFuzzer runtime is missing (tools/bootstrap.sh installs
# clang). Run longer by hand: VBT_FUZZ_SECONDS=600 make check TESTS=test/integration/fuzz.sh,
# or VBT_FUZZ_TARGETS="p2p opts" to pick targets. Time: ~1.5 minutes on 2 cores (5 targets,
# built in ~5 s each, 15 s each).
set -u
: "${abs_top_builddir:?run by make check}" "${abs_top_srcdir:?run by make check}"
src=$abs_top_srcdir
seconds=${VBT_FUZZ_SECONDS:-15}
targets=${VBT_FUZZ_TARGETS:-ib_hdr ib_cm p2p shm_cell opts}
CLANG=${CLANG:-clang}
work=$abs_top_builddir/fuzz
fail=0

if ! command -v "$CLANG" >/dev/null 2>&1; then
    echo "SKIP: no $CLANG to build the fuzz targets (tools/bootstrap.sh installs it)"
    exit 77
fi
mkdir -p "$work" || exit 1
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
    >"$work/probe.c"
if ! "$CLANG" -fsanitize=fuzzer,address,undefined -o "$work/probe" "$work/probe.c" \
    >"$work/probe.log" 2>&1; then
    cat "$work/probe.log"
    echo "SKIP: $CLANG cannot build a libFuzzer target (its compiler-rt runtime is missing)"
    exit 77
fi

cflags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -fno-omit-frame-pointer -std=gnu11 -Wall -Werror -I$abs_top_builddir -I$src/include \
  -I$src/runtime -I$src/runtime/base -I$src/transport-ib -I$src/transport-shm -I$src/launcher"
ib_cflags=$(pkg-config --cflags libibverbs 2>/dev/null)

for t in $targets; do
    case $t in
    ib_hdr | ib_cm) extra="$ib_cflags" ;;
    p2p) extra="$src/runtime/vbt_request.c $src/runtime/base/vbt_objpool.c $src/runtime/base/vbt_log.c $src/runtime/base/vbt_lock.c" ;;
    shm_cell) extra="$src/transport-shm/vbt_shm_ring.c" ;;
    opts) extra="$src/launcher/vbt_opts.c $src/launcher/vbt_msg.c $src/runtime/base/vbt_string.c" ;;
    *)
        echo "FAIL: unknown fuzz target '$t'"
        fail=1
        continue
        ;;
    esac
    dir=$work/$t
    rm -rf "$dir"
    mkdir -p "$dir/corpus" || exit 1
    # shellcheck disable=SC2086 # word splitting of the flag and source lists is intended
    if ! "$CLANG" $cflags -o "$dir/fuzz_$t" "$src/test/fuzz/fuzz_$t.c" $extra >"$dir/build.log" 2>&1; then
        cat "$dir/build.log"
        echo "FAIL: building fuzz_$t"
        fail=1
        continue
    fi
    cp "$src/test/fuzz/corpus/$t"/* "$dir/corpus/" 2>/dev/null
    # The corpus copy grows with what the run finds; the seeds in the repo do not change.
    # -close_fd_mask=3: the parser prints usage errors; libFuzzer keeps its own report.
    (cd "$dir" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "./fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
        -close_fd_mask=3 -print_final_stats=1 corpus \
        >run.log 2>&1)
    rc=$?
    crash=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
        -o -name 'oom-*' \) | head -1)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/run.log")
    if [ $rc -ne 0 ] || [ -n "$crash" ]; then
        tail -60 "$dir/run.log"
        echo "FAIL: fuzz_$t (exit $rc): reproduce with $dir/fuzz_$t ${crash:-<input>}"
        fail=1
    else
        echo "ok: fuzz_$t: ${runs:-?} inputs in $seconds s, corpus $(find "$dir/corpus" -type f | wc -l) files"
    fi
done
[ $fail -eq 0 ] && echo "PASS: every fuzz target ran clean"
exit $fail
