#!/bin/sh
# test/rxevm --bind: the VM keeps /tmp private and binds in the top directory of its working
# directory there, and of each --bind DIR. A script of a tree in one directory under /tmp run
# from another (as bench/run --vm --out DIR runs bench/run from its results directory) must find
# both: the script and its output. A bad --bind is a usage error (exit 2) before any boot. Skips
# (77) where the VM cannot run; one boot (VM tests take /tmp/vbt-vm.lock on shared machines).
set -u
: "${abs_top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
rxevm=$abs_top_srcdir/test/rxevm
fail=0

"$rxevm" --bind /nonexistent/dir -- true >/dev/null 2>&1
rc=$?
if [ $rc -ne 2 ]; then
    echo "FAIL: test/rxevm --bind /nonexistent/dir: exit $rc, expected 2 (usage error)"
    fail=1
fi
if ! reason=$("$rxevm" --check 2>&1); then
    echo "SKIP: the Soft-RoCE VM cannot run here: $reason"
    exit 77
fi

# Two top directories under /tmp (not under one another): the tree and the results.
tree=$(mktemp -d /tmp/vbt-rxevm-tree.XXXXXX) || exit 1
res=$(mktemp -d /tmp/vbt-rxevm-out.XXXXXX) || exit 1
trap 'rm -rf "$tree" "$res"' EXIT
mkdir -p "$tree/bench" "$res/sub"
# shellcheck disable=SC2016 # $(pwd) is for the script
printf '#!/bin/sh\necho "ran in $(pwd)" >result.txt\n' >"$tree/bench/script"
out=$(cd "$res/sub" && VBT_RXEVM_TIMEOUT=300 "$rxevm" --bind "$tree/bench" -- sh "$tree/bench/script" 2>&1)
rc=$?
got=$(cat "$res/sub/result.txt" 2>/dev/null)
echo "rxevm --bind TREE from RESULTS -> exit $rc, result.txt: ${got:-none}"
if [ $rc -ne 0 ] || [ "$got" != "ran in $res/sub" ]; then
    echo "FAIL: a script of a tree under /tmp, run from another directory there with --bind"
    printf '%s\n' "$out" | tail -20
    fail=1
fi

[ $fail -eq 0 ] && echo "rxevm_bind: all passed"
exit $fail
