#!/bin/sh
# Large on-node messages under Yama's ptrace scopes. CMA (process_vm_readv) needs ptrace read
# access to the peer: scope 0 allows it, scope 1 only to ancestors (each rank then allows its
# peers with PR_SET_PTRACER_ANY), scope 2 only with CAP_SYS_PTRACE. This host's kernel may have
# no Yama, and setting the scope needs root: so the test runs in the Soft-RoCE VM's kernel with
# the verbs list (it uses shm only). Scope 3 is never set: it cannot be undone before a reboot.
# For scopes 0, 1 and 2 (restored at the end): 2 ranks exchange rendezvous sizes up to 1 MiB over
# shm, payloads checked; the probe's line at info says CMA is permitted at 0 and 1 (without
# CAP_SYS_PTRACE: setpriv drops it), refused at 2 with the scope named, and the job still
# passes. Exit 0 pass, 77 skip (not root, no Yama), other fail.
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
. "$(dirname "$0")/lib.sh"
prog="$abs_top_builddir/test/integration/rndv"
knob=/proc/sys/kernel/yama/ptrace_scope

[ -x "$prog" ] || { echo "FAIL: $prog is not built (make check builds it)"; exit 1; }
if [ ! -w "$knob" ] || [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: needs root and a kernel with Yama ($knob)"
    exit 77
fi
if ! command -v setpriv >/dev/null 2>&1; then
    echo "SKIP: setpriv is missing (root's CAP_SYS_PTRACE would bypass the scope)"
    exit 77
fi
saved=$(cat "$knob")
trap 'echo "$saved" >"$knob"; rm -rf "$TEST_TMP"' EXIT

# scope N WANT: the job passes, and the CMA probe's line matches WANT (ERE).
scope() {
    echo "$1" >"$knob" || {
        failed "cannot set kernel.yama.ptrace_scope to $1"
        return
    }
    out=$(VBT_TRANSPORTS=self,shm VBT_LOG=info RNDV_MAX_SIZE=1048576 \
        setpriv --inh-caps=-sys_ptrace --bounding-set=-sys_ptrace \
        timeout 300 "$MPIRUN" -n 2 "$prog" sizes 2>&1)
    rc=$?
    line=$(printf '%s\n' "$out" | grep -m 1 'CMA single-copy' | sed 's/^.*info  *//')
    if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q '^rndv sizes: ok'; then
        failed "ptrace_scope $1: rndv sizes (exit $rc)" "$(printf '%s\n' "$out" | tail -20)"
    elif ! printf '%s\n' "$line" | grep -Eq -- "$2"; then
        failed "ptrace_scope $1: the CMA probe said: $line (expected /$2/)"
    else
        echo "ok: ptrace_scope $1: $line"
    fi
}
scope 0 'CMA single-copy reads of the 1 local peers: permitted'
scope 1 'CMA single-copy reads of the 1 local peers: permitted'
scope 2 'not permitted for 1 of 1 local peers .*kernel.yama.ptrace_scope is 2'
finish
