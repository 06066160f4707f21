#!/bin/sh
# Derived datatypes over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): dtype.sh.
# Needs an RDMA device (run through test/integration/verbs.sh).
VBT_TRANSPORTS=self,ib
export VBT_TRANSPORTS
exec sh "$abs_top_srcdir/test/integration/dtype.sh"
