#!/bin/sh
# Point-to-point over shared memory (VBT_TRANSPORTS=self,shm), natively: suite_p2p.sh.
VBT_TRANSPORTS=self,shm
export VBT_TRANSPORTS
exec sh "$abs_top_srcdir/test/integration/suite_p2p.sh"
