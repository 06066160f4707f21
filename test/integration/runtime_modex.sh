#!/bin/sh
# The modex: every rank publishes a distinct blob and verifies every peer's, at 1..4 ranks and
# with the fence forced through the launcher's fence_nb upcall.
set -u
prog="$abs_top_builddir/test/integration/modex"
fail=0
for n in 1 2 3 4; do
    for localonly in 1 0; do
        out=$(PMIX_MCA_pmix_server_fence_localonly_opt=$localonly \
            timeout 60 "$MPIRUN" --oversubscribe -n $n "$prog" 2>&1)
        rc=$?
        ok=$(printf '%s\n' "$out" | grep -c "verified $n blobs, 0 errors")
        if [ $rc -ne 0 ] || [ "$ok" -ne $n ]; then
            echo "FAIL: -n $n (fence_localonly_opt=$localonly): exit $rc, $ok of $n ranks ok"
            printf '%s\n' "$out"
            fail=1
        fi
    done
done
# A singleton (no launcher) has a modex of its own.
out=$(env -u PMIX_NAMESPACE timeout 30 "$prog" 2>&1) || { echo "FAIL: singleton: $out"; fail=1; }
printf '%s\n' "$out" | grep -q "verified 1 blobs, 0 errors" || { echo "FAIL: singleton: $out"; fail=1; }
[ $fail -eq 0 ] && echo "modex: all passed"
exit $fail
