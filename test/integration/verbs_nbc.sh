#!/bin/sh
# Nonblocking and persistent collectives and MPI_Comm_idup over verbs, on-node peers included
# (VBT_TRANSPORTS=self,ib): nbc.sh at 2, 3 and 4 ranks, every subtest (its 70001-int counts go
# by rendezvous, RDMA WRITE), and again with the progress mode that sleeps at once. Needs an
# RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
NBC_NPS="2 3 4"
export VBT_TRANSPORTS NBC_NPS
exec sh "$abs_top_srcdir/test/integration/nbc.sh"
