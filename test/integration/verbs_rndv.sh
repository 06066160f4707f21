#!/bin/sh
# Rendezvous over verbs (RDMA WRITE, the registration cache), on-node peers included
# (VBT_TRANSPORTS=self,ib): suite_rndv.sh. Needs an RDMA device (run through verbs.sh).
VBT_TRANSPORTS=self,ib
export VBT_TRANSPORTS
exec sh "$abs_top_srcdir/test/integration/suite_rndv.sh"
