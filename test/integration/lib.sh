# Sourced by the launcher tests (test/integration/launcher_*.sh). make check exports
# abs_top_builddir and MPIRUN (test/Makefile.inc); by hand, run a test from the build directory
# or set them yourself.
set -u
: "${abs_top_builddir:=$(pwd)}"
MPIRUN=${MPIRUN:-$abs_top_builddir/launcher/mpirun}
PROG_MPI=$abs_top_builddir/test/integration/prog_mpi
PROG_PMIX=$abs_top_builddir/test/integration/prog_pmix
HOST=$(hostname)
TEST_NAME=$(basename "$0" .sh)
# A marker in the command lines of this test's ranks, to look for stray processes. It ends
# with a fixed word so that test 123's marker is not a prefix of test 1234's.
MARK=vbt-launcher-test-$$-mark
fail=0

if [ ! -x "$MPIRUN" ]; then
    echo "FAIL: no mpirun at $MPIRUN (run from the build directory or set MPIRUN)"
    exit 1
fi

# A private TMPDIR: mpirun makes its PMIx directory there and must leave nothing behind.
# WORK is for the test's own files.
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/vbt-lt.XXXXXX") || exit 1
WORK=$TEST_TMP/work
mkdir "$WORK" || exit 1
TMPDIR=$TEST_TMP
export TMPDIR
trap 'rm -rf "$TEST_TMP"' EXIT

failed() {
    echo "FAIL: $1"
    [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'
    fail=1
}

skip() {
    echo "SKIP: $*"
    exit 77
}

# run [mpirun args...]: mpirun under timeout(1); sets $out (stdout and stderr), $rc and
# $elapsed (seconds).
run() {
    _start=$(date +%s)
    out=$(timeout 60 "$MPIRUN" "$@" 2>&1)
    rc=$?
    elapsed=$(($(date +%s) - _start))
}

# run_env VAR=value... -- [mpirun args...]: run with those variables set for mpirun.
run_env() {
    _envs=
    while [ "$1" != -- ]; do
        _envs="$_envs $1"
        shift
    done
    shift
    _start=$(date +%s)
    out=$(env $_envs timeout 60 "$MPIRUN" "$@" 2>&1)
    rc=$?
    elapsed=$(($(date +%s) - _start))
}

# Lines of $out starting with "mpirun:" (the launcher's own messages).
launcher_lines() {
    printf '%s\n' "$out" | grep '^mpirun:' || true
}

# expect_line WHAT REGEX: $out has exactly one launcher line, and it matches REGEX (ERE).
expect_line() {
    _lines=$(launcher_lines)
    if [ "$(printf '%s\n' "$_lines" | grep -c .)" -ne 1 ] ||
        ! printf '%s\n' "$_lines" | grep -Eq "$2"; then
        failed "$1: expected one line matching /$2/" "$out"
    fi
}

# expect_rc WHAT CODE
expect_rc() {
    [ "$rc" -eq "$2" ] || failed "$1: exit code $rc, expected $2" "$out"
}

# No process of this test may survive its mpirun.
expect_no_strays() {
    sleep 0.2
    _strays=$(pgrep -f "$MARK")
    if [ -n "$_strays" ]; then
        failed "$1: stray processes left behind" "$(pgrep -af "$MARK")"
        for _pid in $_strays; do kill -KILL "$_pid" 2>/dev/null; done
    fi
}

finish() {
    if ls "$TEST_TMP" | grep -q '^vbt-mpirun\.'; then
        failed "mpirun left files in TMPDIR" "$(ls -la "$TEST_TMP")"
    fi
    [ $fail -eq 0 ] && echo "$TEST_NAME: all passed"
    exit $fail
}
