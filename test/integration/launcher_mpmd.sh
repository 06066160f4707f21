#!/bin/sh
# MPMD: "-n 1 a : -n 2 b" numbers the ranks in order, gives each app its PMIX_APPNUM and its
# own arguments, and -n belongs to its own program.
. "$(dirname "$0")/lib.sh"

run --oversubscribe -n 1 "$PROG_PMIX" first : -n 2 "$PROG_PMIX" second
expect="rank 0 size 3 local_rank 0 node_rank 0 local_size 3 peers 0,1,2 appnum 0 host $HOST argv1 first
rank 1 size 3 local_rank 1 node_rank 1 local_size 3 peers 0,1,2 appnum 1 host $HOST argv1 second
rank 2 size 3 local_rank 2 node_rank 2 local_size 3 peers 0,1,2 appnum 1 host $HOST argv1 second"
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "$expect" ] ||
    failed "-n 1 prog_pmix first : -n 2 prog_pmix second (exit $rc)" "$out"

# Three apps, different programs, default -n 1, options in later segments.
run --oversubscribe -l sh -c 'echo a "$PMIX_RANK"' : -n 2 sh -c 'echo b "$PMIX_RANK"' \
    : --tag-output echo c
# -l then --tag-output: the last one given wins, for the whole job.
expect="[1,0]<stdout>: a 0
[1,1]<stdout>: b 1
[1,2]<stdout>: b 2
[1,3]<stdout>: c"
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "$expect" ] ||
    failed "three apps (exit $rc)" "$out"

# The MPI library sees the whole world across apps.
run -n 1 "$PROG_MPI" hello : -n 1 "$PROG_MPI" hello
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "rank 0 of 2
rank 1 of 2" ] || failed "MPMD MPI world (exit $rc)" "$out"

finish
