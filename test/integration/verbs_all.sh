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
# NAMEs may also be separated by commas; @long stands for every test marked long (below). A NAME
# that is no test fails before anything runs, with the list of the known ones. With one test its
# whole output is shown, with several the last lines of those that skipped or failed. The tests
# run with verbs_runner=1 in their environment: a verbs test started without it (on its own, by
# make check TESTS=...) goes through verbs.sh instead.
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
# for the CI's boot; each still runs by name: make check TESTS=test/integration/verbs_X.sh,
# and make check-long runs them all), longest first by verbs_times.txt (a test not in it
# first of all: a new test's time is unknown). One queue in one boot takes the same time in
# any order; longest first makes the times file's sum the boot's length, shows a slow new
# test at once, and lets a list split over boots (or VMs) be cut into even halves.
listed() {
    for _n in $(known); do
        grep -q '^# verbs_all: long' "$here/$_n.sh" || echo "$_n"
    done | by_time
}

# The long-marked tests (the NAME @long), longest first.
long() {
    for _n in $(known); do
        grep -q '^# verbs_all: long' "$here/$_n.sh" && echo "$_n"
    done | by_time
}

# by_time: the names on stdin, longest first by verbs_times.txt ("NAME SECONDS" lines, # for
# comments); names it does not list first, in the order given.
by_time() {
    awk -v times="$here/verbs_times.txt" '
        BEGIN {
            while ((getline _l < times) > 0)
                if (_l !~ /^#/ && split(_l, _f, " ") >= 2) secs[_f[1]] = _f[2] + 0
        }
        { n++; name[n] = $1; t[n] = ($1 in secs) ? secs[$1] : -1 }
        END {
            # Insertion sort, stable: the lists are a few dozen names.
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && (t[j - 1] >= 0 && (t[j] < 0 || t[j] > t[j - 1])); j--) {
                    x = t[j]; t[j] = t[j - 1]; t[j - 1] = x
                    x = name[j]; name[j] = name[j - 1]; name[j - 1] = x
                }
            for (i = 1; i <= n; i++) print name[i]
        }'
}

# resolve NAME...: sets tests to the canonical names, in the order given, each once; returns 1
# (with a message) on a NAME that is no test.
resolve() {
    tests=
    set -f
    set -- $(printf '%s\n' "$*" | tr ',' ' ')
    set +f
    for _arg in "$@"; do
        if [ "$_arg" = @long ]; then
            for _n in $(long); do
                case " $tests " in *" $_n "*) ;; *) tests="${tests:+$tests }$_n" ;; esac
            done
            continue
        fi
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
