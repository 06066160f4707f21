#!/bin/sh
# make check's runner of each test script (SH_LOG_COMPILER): timed.sh SHELL SCRIPT [ARGS...]
# runs SCRIPT with SHELL as before, keeps its exit status, and appends a line
# "SECONDS STATUS SCRIPT" to test-times.txt in the build directory, which tools/check-times
# (run at the end of .ci/run) prints sorted, so that a test that became slow shows.
sh=$1
shift
start=$(date +%s)
"$sh" "$@"
rc=$?
secs=$(($(date +%s) - start))
echo "# $(basename "$1"): ${secs}s"
# One short line per test: an O_APPEND write, whole even with tests in parallel.
echo "$secs $rc $1" >>"${abs_top_builddir:-.}/test-times.txt"
exit $rc
