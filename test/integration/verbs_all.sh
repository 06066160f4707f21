#!/bin/sh
# The verbs tests' runner, on a machine or VM with an RDMA device (verbs.sh brings it there):
#
#   verbs_all.sh [NAME...]            run those verbs tests (all without a NAME) in turn, one
#                                     line per test and a summary; exit 0 when none failed, 77
#                                     when all skipped, 1 when any failed
#   verbs_all.sh --resolve [NAME...]  only print the tests NAME... stands for, or fail
#
# The tests are the files test/integration/verbs_*.sh but this one. A NAME is one of them with
# or without "verbs_", ".sh" and a directory (rndv, verbs_rndv, test/integration/verbs_rndv.sh);
# NAMEs may also be separated by commas. A NAME that is no test fails before anything runs,
# with the list of the known ones. With one test its whole output is shown, with several the
# last lines of those that skipped or failed. The tests run with verbs_runner=1 in their
# environment: a verbs test started without it (on its own, by make check TESTS=...) goes
# through verbs.sh instead.
set -u
here="$abs_top_srcdir/test/integration"

# All the tests' names (verbs_X), one line each.
known() {
    for _t in "$here"/verbs_*.sh; do
        _n=$(basename "$_t" .sh)
        [ "$_n" = verbs_all ] || echo "$_n"
    done
}

# The tests of the whole list: all but those marked "# verbs_all: long" (too long or too big
# for the CI's boot; each still runs by name: make check TESTS=test/integration/verbs_X.sh).
listed() {
    for _n in $(known); do
        grep -q '^# verbs_all: long' "$here/$_n.sh" || echo "$_n"
    done
}

# resolve NAME...: sets tests to the canonical names, in the order given, each once; returns 1
# (with a message) on a NAME that is no test.
resolve() {
    tests=
    set -f
    set -- $(printf '%s\n' "$*" | tr ',' ' ')
    set +f
    for _arg in "$@"; do
        _n=$(basename "$_arg" .sh)
        _n=verbs_${_n#verbs_}
        if [ "$_n" = verbs_all ] || [ ! -f "$here/$_n.sh" ]; then
            echo "ERROR: no verbs test named '$_arg'. The verbs tests are:" >&2
            echo "  $(known | sed 's/^verbs_//' | paste -sd ' ' -)" >&2
            echo "(each with or without verbs_ and .sh; several separated by commas or spaces)" >&2
            return 1
        fi
        case " $tests " in *" $_n "*) ;; *) tests="${tests:+$tests }$_n" ;; esac
    done
    [ -n "$tests" ] || tests=$(listed | tr '\n' ' ')
    return 0
}

if [ "${1:-}" = --resolve ]; then
    shift
    resolve "$@" || exit 1
    echo $tests
    exit 0
fi
resolve "$@" || exit 1
set -- $tests
verbs_runner=1
export verbs_runner
pass=0
fail=0
skip=0
for name in "$@"; do
    start=$(date +%s)
    if [ $# -eq 1 ]; then
        sh "$here/$name.sh" 2>&1
        rc=$?
        out=
    else
        out=$(sh "$here/$name.sh" 2>&1)
        rc=$?
    fi
    secs=$(($(date +%s) - start))
    case $rc in
    0)
        pass=$((pass + 1))
        echo "PASS: $name (${secs}s)"
        ;;
    77)
        skip=$((skip + 1))
        echo "SKIP: $name"
        [ -z "$out" ] || printf '%s\n' "$out" | tail -3
        ;;
    *)
        fail=$((fail + 1))
        echo "FAIL: $name (exit $rc, ${secs}s)"
        [ -z "$out" ] || printf '%s\n' "$out" | tail -40
        ;;
    esac
done
echo "verbs: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || exit 1
[ $pass -eq 0 ] && [ $skip -gt 0 ] && exit 77
exit 0
