#!/bin/sh
# vnode1's part of verbs2.sh (test/rxevm --nodes 2 --peer): the server end of the link check
# (one ib_send_lat run, the client being verbs2_slurm.sh on vnode0), then slurmd from the
# configuration in $1 (test/slurm/slurm-up --role d; vnode0 waits for it to register). It
# returns once slurmd is up; the VM stays up until vnode0 is done.
set -u
dir=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
ib_send_lat -d rxe0 -n 5 -x 1 >"$RXEVM_SHARED/ib_send_lat.vnode1" 2>&1 </dev/null &
exec sh "$src/test/slurm/slurm-up" --dir "$dir" --node vnode1 --role d --wait none
