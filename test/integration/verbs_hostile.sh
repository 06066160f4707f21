#!/bin/sh
# Malformed protocol messages from a peer over verbs (VBT_TRANSPORTS=self,ib): hostile.sh.
# Needs an RDMA device (run through test/integration/verbs.sh).
VBT_TRANSPORTS=self,ib
export VBT_TRANSPORTS
exec sh "$abs_top_srcdir/test/integration/hostile.sh"
