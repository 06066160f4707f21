#!/bin/sh
# MPI_THREAD_MULTIPLE over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): threads.sh's
# whole set (ping-pongs, collectives, a blocked receive, matched probes, Iprobe loops, cancels,
# Comm_dup/free, RMA, each from 4 threads at once, payloads and order checked) at 2 and 3 ranks,
# then again with 3 VCIs (VBT_VCIS=3: a set of queue pairs and a completion queue per VCI, the
# threads' communicators spread over them). Needs an RDMA device (run through
# test/integration/verbs.sh).
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
THREADS_NPS="2 3"
export VBT_TRANSPORTS THREADS_NPS
fail=0
sh "$abs_top_srcdir/test/integration/threads.sh" || fail=1
THREADS_ENV=VBT_VCIS=3 sh "$abs_top_srcdir/test/integration/threads.sh" || fail=1
exit $fail
