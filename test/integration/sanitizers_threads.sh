#!/bin/sh
# ThreadSanitizer on MPI_THREAD_MULTIPLE, as part of make check: a third build tree,
# $abs_top_builddir/tsan, where libverbatim and test/integration/threads are built with
# -fsanitize=thread, and threads.c (every subtest: threads ping-ponging, probing, cancelling,
# creating communicators, running collectives and RMA at once) runs at TSAN_NPS ranks (default
# 1 to 4, and 3 with VBT_VCIS=3) under the normal tree's mpirun (not instrumented: its PMIx
# server threads are not ours to check). Any report fails.
# Time, on 2 shared cores: about 2 minutes to build the tree, 1 to run.
set -u
: "${abs_top_builddir:?run by make check}" "${abs_top_srcdir:?run by make check}" "${MPIRUN:?}"
fail=0
unset MAKEFLAGS MFLAGS MAKELEVEL
start=$(date +%s)

tsan=$abs_top_builddir/tsan
reports=$tsan/reports
mkdir -p "$tsan" || exit 1
cd "$tsan" || exit 1
flags="-O1 -g -fsanitize=thread -fno-omit-frame-pointer"
if [ ! -f Makefile ]; then
    "$abs_top_srcdir/configure" CFLAGS="$flags" LDFLAGS="-fsanitize=thread" >configure.log 2>&1 || {
        cat configure.log
        echo "FAIL: configure of the ThreadSanitizer tree (log above)"
        exit 1
    }
fi
if ! make -j2 test/integration/threads >build.log 2>&1; then
    tail -50 build.log
    echo "FAIL: build of the ThreadSanitizer tree (last lines of $tsan/build.log above)"
    exit 1
fi
echo "ThreadSanitizer tree built in $(($(date +%s) - start)) s"

rm -rf "$reports"
mkdir -p "$reports" || exit 1
TSAN_OPTIONS="halt_on_error=0:log_path=$reports/tsan"
export TSAN_OPTIONS
all="level pingpong coll blocked mprobe iprobe cancel dup rma objs session"
want=$(echo $all | wc -w)
# Every rank count with one VCI, then 3 ranks with three (VBT_VCIS: the threads'
# communicators on VCIs of their own).
for run in ${TSAN_NPS-1 2 3 4} 3:3; do
    n=${run%%:*}
    vcis=1
    [ "$run" = "$n" ] || vcis=${run#*:}
    out=$(VBT_VCIS=$vcis timeout 600 "$MPIRUN" --oversubscribe -n "$n" \
        "$tsan/test/integration/threads" $all 2>&1)
    rc=$?
    got=$(printf '%s\n' "$out" | grep -c ": ok ($n ranks)")
    echo "tsan: VBT_VCIS=$vcis mpirun -n $n threads -> exit $rc, $got of $want ok"
    if [ $rc -ne 0 ] || [ "$got" -ne "$want" ]; then
        echo "FAIL: tsan: VBT_VCIS=$vcis mpirun -n $n threads"
        printf '%s\n' "$out" | tail -20
        fail=1
    fi
done
for f in "$reports"/tsan.*; do
    [ -f "$f" ] || continue
    echo "FAIL: ThreadSanitizer report $f:"
    head -60 "$f"
    fail=1
done
[ $fail -eq 0 ] && echo "sanitizers_threads: no ThreadSanitizer report ($(($(date +%s) - start)) s)"
exit $fail
