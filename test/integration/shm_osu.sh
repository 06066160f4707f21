#!/bin/sh
# The OSU-style benchmarks over shared memory (VBT_TRANSPORTS=self,shm), natively: suite_osu.sh.
VBT_TRANSPORTS=self,shm
export VBT_TRANSPORTS
exec sh "$abs_top_srcdir/test/integration/suite_osu.sh"
