#!/bin/sh
# Malformed protocol messages from a peer over verbs (VBT_TRANSPORTS=self,ib): the runtime's
# decoders (hostile.sh), then the transport's own defences (ib_transport's credits and forge
# modes): a peer returning more credits than it was granted, and connection messages claiming
# another rank's identity or not matching the sender's published address. Each must be
# refused with an error naming the rank, and the job go on. Needs an RDMA device (run through
# test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
set -u
prog="$abs_top_builddir/test/integration/ib_transport"
fail=0

VBT_TRANSPORTS=self,ib sh "$abs_top_srcdir/test/integration/hostile.sh" || fail=1

# hostile_mode N MODE REGEX...: mpirun -n N of ib_transport MODE must exit 0 and print a line
# matching each REGEX.
hostile_mode() {
    _n=$1
    _mode=$2
    shift 2
    out=$(timeout 300 "$MPIRUN" --oversubscribe -n "$_n" "$prog" "$_mode" 2>&1)
    rc=$?
    _miss=
    [ $rc -eq 0 ] || _miss=" exit $rc;"
    for _re in "$@"; do
        printf '%s\n' "$out" | grep -q -- "$_re" || _miss="$_miss no line /$_re/;"
    done
    if [ -n "$_miss" ]; then
        echo "FAIL: $_mode:$_miss"
        printf '%s\n' "$out" | tail -30
        fail=1
        return 1
    fi
    echo "ok: $_mode:"
    for _re in "$@"; do
        echo "    $(printf '%s\n' "$out" | grep -m 1 -- "$_re" | sed 's/^\[[^]]*\] [^ ]* error *//')"
    done
}

# Credits: each message's field is checked against a window, and their total against what was
# granted: 2 too many, in a message carrying 2, are refused.
hostile_mode 2 credits \
    "rank 1 returned credits for 2 more messages than we had sent it (a window is [0-9]*)" \
    "rank 0: credits: the excess was refused as expected"

# Connection messages: a REQ and a REP claiming rank 1 from rank 2's UD QP, a REQ of rank 2's
# with another GID.
hostile_mode 3 forge \
    "dropped a connection request claiming to be rank 1 .*bad UD QP" \
    "dropped a connection request claiming to be rank 2 .*bad gid" \
    "dropped a connection reply claiming to be rank 1 .*bad UD QP" \
    "rank 0: forge: the forged connection messages were dropped; rank 1 connected"

exit $fail
