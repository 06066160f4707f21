#!/bin/sh
# Nonblocking and persistent collectives and MPI_Comm_idup over verbs, on-node peers included
# (VBT_TRANSPORTS=self,ib): nbc.sh at 2, 3 and 4 ranks, every subtest (its 70001-int counts go
# by rendezvous, RDMA WRITE); at 3 ranks the progress mode that sleeps at once and the
# long-message schedules (Rabenseifner's, the ring, the scatter-allgather bcast, up to 70001
# ints: by rendezvous too). Trimmed so (not every rank count for every run) to keep the run
# near 150 s in the Soft-RoCE VM. Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
NBC_NPS="2 3 4"
NBC_BLOCK_NPS=3
NBC_LONG_NPS=3
NBC_LONG_MAX=70001
export VBT_TRANSPORTS NBC_NPS NBC_BLOCK_NPS NBC_LONG_NPS NBC_LONG_MAX
exec sh "$abs_top_srcdir/test/integration/nbc.sh"
