#!/bin/sh
# The two-node test's part CI's make check leaves out for its time: verbs2.sh with
# VBT_VERBS2_PARTS=loss (verbs2_loss.sh: netem drops packets on the VMs' link), in a boot of the
# two VMs of its own. make check-long runs it.
VBT_VERBS2_PARTS=loss
export VBT_VERBS2_PARTS
exec sh "$(dirname "$0")/verbs2.sh"
