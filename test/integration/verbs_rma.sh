#!/bin/sh
# The one-sided suite over verbs, on-node peers included (VBT_TRANSPORTS=self,ib), at 2 ranks:
# rma.sh with the programs whose operations cross the transport in every way: rma_basic (puts
# and gets of 1 B to 16 MiB in every flavor and mode: RDMA WRITE and READ into registered
# windows), rma_acc (accumulates and fetches: the 64-bit ones by NIC atomics, ourselves through
# the loopback; counters from CAS and Fetch_and_op exact), errors, attributes, dynamic windows,
# a computing target (locks by NIC atomics), and rma_dtype (derived datatypes on either side, in
# every flavor, mode and call) in its quick form (RMA_DTYPE_QUICK=1: its small and middle sizes,
# one 4 MiB put and get, one large accumulate of each kind; the full sweep took 50 to 85 s per
# subtest in the TCG VM and runs natively at 1 to 7 ranks, rma.sh). rma_shared needs no
# transport. Needs an RDMA device (run through test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
RMA_NPS=2
RMA_PROGS="rma_basic:10 rma_acc:9 rma_errors:4 rma_attr:5 rma_dynamic:4 rma_passive:1 rma_dtype:11"
RMA_DTYPE_QUICK=1
RMA_CMA=1 # shm is not used: CMA plays no part
RMA_MIX=0 # nor shared memory for MPI_Win_allocate: the mixed runs would be the same again
RMA_DYN_RDMA=1 # rma_dynamic nocpu: its puts and gets must need no target CPU here
export VBT_TRANSPORTS RMA_NPS RMA_CMA RMA_PROGS RMA_MIX RMA_DYN_RDMA RMA_DTYPE_QUICK
exec sh "$abs_top_srcdir/test/integration/rma.sh"
