#!/bin/sh
# Intercommunicators over verbs, on-node peers included (VBT_TRANSPORTS=self,ib): inter.sh at 3
# ranks (two groups of 2 and 1, three of 1), every subtest (point-to-point across with
# rendezvous payloads, every collective blocking, nonblocking and persistent, merge/dup/split/
# create, errors), with the large collectives at 10000 ints (INTER_QUICK=1: still rendezvous);
# at 2 ranks all but the collectives; neither the block-mode runs nor the singleton: under a
# minute in the VM. Needs an RDMA device (run through
# test/integration/verbs.sh).
# Started on its own (not by verbs_all.sh): through verbs.sh, alone, on a device or in the VM.
[ -n "${verbs_runner:-}" ] || exec sh "$(dirname "$0")/verbs.sh" "$0"
VBT_TRANSPORTS=self,ib
INTER_NPS_BLOCK=
INTER_SINGLETON=no
INTER_QUICK=1
export VBT_TRANSPORTS INTER_NPS_BLOCK INTER_SINGLETON INTER_QUICK
INTER_NPS=2 INTER_TESTS="query p2p merge dup split create errors" \
    sh "$abs_top_srcdir/test/integration/inter.sh" || exit 1
INTER_NPS=3 exec sh "$abs_top_srcdir/test/integration/inter.sh"
