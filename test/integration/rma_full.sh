#!/bin/sh
# The one-sided suite's whole matrix (make check-long): rma.sh with RMA_FULL=1, every program at
# 1 to 7 ranks with CMA on, off, and with rank 0 (from 5 ranks the last too) out of shared
# memory. make check's rma.sh runs the last two at 2 and 5 ranks only.
RMA_FULL=1
export RMA_FULL
exec sh "$abs_top_srcdir/test/integration/rma.sh"
