#!/bin/sh
# Runs every test/integration/verbs_*.sh in turn (on a machine or VM with an RDMA device) and
# prints one line per test and a summary; exits non-zero when any failed.
set -u
here="$abs_top_srcdir/test/integration"
pass=0
fail=0
skip=0
for t in "$here"/verbs_*.sh; do
    name=$(basename "$t" .sh)
    [ "$name" = verbs_all ] && continue
    start=$(date +%s)
    out=$(sh "$t" 2>&1)
    rc=$?
    secs=$(($(date +%s) - start))
    case $rc in
    0) pass=$((pass + 1)); echo "PASS: $name (${secs}s)" ;;
    77) skip=$((skip + 1)); echo "SKIP: $name"; printf '%s\n' "$out" | tail -3 ;;
    *) fail=$((fail + 1)); echo "FAIL: $name (exit $rc, ${secs}s)"; printf '%s\n' "$out" | tail -40 ;;
    esac
done
echo "verbs: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
