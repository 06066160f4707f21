#!/bin/sh
# A flood of small unexpected messages (test/integration/unexp_flood.c): rank 0 takes 200000
# messages of mixed sizes (0 B to past the eager limit, a few by rendezvous) from every other
# rank on three communicators and five tags before it posts a receive, then receives them all,
# checking every payload and the order per sender and tag. Natively at 1 to 7 ranks
# (oversubscribed where the machine has fewer cores), with rank 0's peak RSS checked against a
# bound sized by the payload (UNEXP_RSS_CHECK=1) that a 16 KiB buffer per message exceeded.
# UNEXP_NPS overrides the rank counts, UNEXP_TOTAL the number of messages, UNEXP_ENV adds
# VAR=value words.
set -u
prog="$abs_top_builddir/test/integration/unexp_flood"
fail=0
UNEXP_RSS_CHECK=${UNEXP_RSS_CHECK:-1}
export UNEXP_RSS_CHECK

for n in ${UNEXP_NPS-1 2 3 4 5 6 7}; do
    # shellcheck disable=SC2086 # UNEXP_ENV is words: VAR=value pairs
    out=$(env ${UNEXP_ENV:-} timeout 300 "$MPIRUN" --oversubscribe -n $n "$prog" 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep 'peak RSS'
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q "unexp_flood: ok ($n ranks)"; then
        echo "FAIL: mpirun -n $n unexp_flood -> exit $rc"
        printf '%s\n' "$out" | tail -20
        fail=1
    else
        echo "mpirun -n $n unexp_flood: ok"
    fi
done

# At the bound: VBT_UNEXP_MAX=1m cannot keep the flood; the receiver must fail, saying so.
if [ -n "${UNEXP_NPS-x}" ]; then
    # shellcheck disable=SC2086 # UNEXP_ENV is words: VAR=value pairs
    out=$(env ${UNEXP_ENV:-} VBT_UNEXP_MAX=1m UNEXP_TOTAL=20000 timeout 120 "$MPIRUN" -n 2 "$prog" 2>&1)
    rc=$?
    if [ $rc -eq 0 ] || ! printf '%s\n' "$out" | grep -q 'no room for an unexpected message.*VBT_UNEXP_MAX is 1048576'; then
        echo "FAIL: VBT_UNEXP_MAX=1m: exit $rc, and no error naming the bound"
        printf '%s\n' "$out" | tail -10
        fail=1
    else
        echo "VBT_UNEXP_MAX=1m: refused with exit $rc: $(printf '%s\n' "$out" | grep -m1 -o 'no room.*VBT_UNEXP_MAX is [0-9]*')"
    fi
fi

[ $fail -eq 0 ] && echo "unexp_flood: all passed"
exit $fail
