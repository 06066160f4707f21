#!/bin/sh
# A rank that dies mid-exchange, natively (shm): killed by SIGKILL (it raises it, or the script
# kills it by pid while it loops) in a ping-pong and in collectives (allreduce, bcast rooted at
# the dying rank, barrier, alltoall), at 2, 4 and 8 ranks (8 oversubscribed), in every
# VBT_PROGRESS mode; one killed while the others sleep in MPI_Recv from it; one that calls
# exit(3) without MPI_Finalize. Each time: mpirun exits 137 (128+9; 3 for the exit) within
# 10 s of the death, measured, with one line naming the rank and the signal (or the code),
# and no rank process is left. The worst time from death to mpirun's end is printed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"

for progress in spin hybrid block; do
    # Ping-pong: the victim is an odd rank (it receives first) or an even one; at 4 and 8 the
    # other pairs are not waiting for it, and must be ended all the same.
    kill_run $progress 2 pingpong 1 raise 300
    kill_run $progress 2 pingpong 0 wait 300
    kill_run $progress 4 pingpong 2 raise 300
    kill_run $progress 8 pingpong 5 wait 100
    # Collectives: rank 0 is never the only victim; bcast's root is the victim.
    kill_run $progress 2 allreduce 1 wait 300
    kill_run $progress 4 bcast 3 raise 300
    kill_run $progress 4 barrier 1 wait 300
    kill_run $progress 8 alltoall 6 raise 50
    kill_run $progress 8 bcast 0 wait 50
    kill_run $progress 8 allreduce 7 raise 50
    # exit(3) without MPI_Finalize, mid-exchange.
    kill_run $progress 4 allreduce 2 exit 300
    kill_run $progress 2 pingpong 1 exit 300
done
# Killed while the others sleep in MPI_Recv from it (block: in poll()); raised, and from
# outside; and an exit.
kill_run block 4 recv 1 raise 300
kill_run block 8 recv 3 wait 300
kill_run block 2 recv 0 exit 300
kill_run hybrid 4 recv 2 raise 300

echo "fault_kill: $nruns jobs, longest from a death to mpirun's end: $worst ms"
finish
