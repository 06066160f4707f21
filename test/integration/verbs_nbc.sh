#!/bin/sh
# Nonblocking and persistent collectives and MPI_Comm_idup over verbs, on-node peers included
# (VBT_TRANSPORTS=self,ib): nbc.sh's subtests at 2 and 3 ranks, every call (its 70001-int
# counts go by rendezvous, RDMA WRITE; Iallreduce at 1001 and 70001 ints runs Rabenseifner's
# schedule); the progress mode that sleeps at once at 3 ranks; the long subtest at 2 ranks with
# the ring allreduce and the scatter-allgather bcast forced, up to 70001 ints (rendezvous too).
# Trimmed so to stay near 150 s in the Soft-RoCE VM (4 ranks and every long mode took 341 s
# there); nbc.sh runs them all natively. Needs an RDMA device (run through
# test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
NBC_NPS="2 3"
NBC_BLOCK_NPS=3
NBC_LONG_NPS=2
NBC_LONG_MODES=ring
NBC_LONG_MAX=70001
export VBT_TRANSPORTS NBC_NPS NBC_BLOCK_NPS NBC_LONG_NPS NBC_LONG_MODES NBC_LONG_MAX
exec sh "$abs_top_srcdir/test/integration/nbc.sh"
