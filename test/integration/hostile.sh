#!/bin/sh
# A peer that sends malformed protocol messages (hostile.c): each is dropped with one error
# naming the sender and the field, and the job goes on with every genuine message intact.
# Over the default transports (shm on one node); verbs_*.sh cover ib.
set -u
: "${abs_top_builddir:?run by make check}" "${MPIRUN:?run by make check}"
prog="$abs_top_builddir/test/integration/hostile"
err=$(mktemp) || exit 1
trap 'rm -f "$err"' EXIT
fail=0

out=$(timeout 120 "$MPIRUN" -n 2 "$prog" 2>"$err")
rc=$?
if [ $rc -ne 0 ] || [ "$(printf '%s\n' "$out" | grep -c 'hostile: rank [01] ok$')" -ne 2 ]; then
    echo "FAIL: exit $rc"
    printf '%s\n' "$out"
    fail=1
fi
# One line for each message rank 0 forged, naming rank 0 and what was wrong.
while IFS='|' read -r count text; do
    n=$(grep -F -c "$text" "$err")
    if [ "$n" -ne "$count" ]; then
        echo "FAIL: expected $count error(s) with '$text', found $n"
        fail=1
    fi
done <<'LIST'
1|from rank 0 with wire version 6
1|from rank 0 (type 42, 32 bytes): bad type
1|from rank 0 (type 1, 42 bytes): bad len (not the payload's length)
1|from rank 0 (type 1, 10 bytes): bad length (shorter than the header)
1|acknowledgement from rank 0: field id 0x7ffd12345678 names no synchronous send
1|rendezvous FIN from rank 0: field id 0xdead00000001 names no rendezvous receive
1|rendezvous DONE from rank 0: field id 0xdead00000002 names no rendezvous send
1|64 bytes of rendezvous data from rank 0: field id 0xdead00000003 names no rendezvous receive
1|from rank 0 (type 6, 32 bytes): bad length (too short for its type)
1|clear-to-send from rank 0: field id 0xdead00000005 or len 64 names no rendezvous send
1|message (type 5) from rank 0: field context_id 4294967280 names no communicator
1|message (type 1) from rank 0: field src 1 is not its rank in communicator
1|fragment of 16 bytes from rank 0
1|from rank 0 (type 2, 48 bytes): bad len (shorter than the payload, or above the 64 MiB
1|from rank 0: it started before its previous message's fragments (40 of 100 bytes)
1|fragment of 8 bytes from rank 0
LIST
total=$(grep -c "dropped" "$err")
if [ "$total" -ne 16 ]; then
    echo "FAIL: $total messages dropped, not 16"
    fail=1
fi
if [ $fail -ne 0 ]; then
    echo "--- stderr:"
    cat "$err"
else
    echo "hostile: 16 forged messages dropped, each named; the genuine ones intact"
fi
exit $fail
