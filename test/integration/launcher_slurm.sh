#!/bin/sh
# mpirun and Slurm, natively and without Slurm's daemons (slurm_native.sh runs the real thing):
# - who starts the ranks: inside an allocation (SLURM_JOB_ID) of more than one node, srun; in
#   one of a single node, or outside any, mpirun itself; --launcher and --mca plm force it;
# - what mpirun's options become on srun's command line (--do-not-launch prints it);
# - mpirun execs srun (a fake one in PATH here): the environment it gets (-x values with
#   commas, no stale PMIX_*), its exit status passed on, stdin and arguments untouched; no srun
#   in PATH gives 127 and one line;
# - --host/-H/--hostfile/--machinefile: hosts other than this machine fail outside an
#   allocation with one line saying to use salloc/sbatch or srun --mpi=pmix; localhost, the
#   host name and local addresses run here, their slots giving the default -n; malformed
#   entries name the file and line.
. "$(dirname "$0")/lib.sh"

# The tests decide what Slurm environment mpirun sees.
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
SHORT=$(hostname -s)
advice="outside a Slurm allocation mpirun starts ranks on this machine only; run it inside one \\(salloc or sbatch\\), or start the ranks with srun --mpi=pmix\$"
tail="--input=0 --export=ALL --kill-on-bad-exit=1"

# plan WHAT EXPECTED mpirun-args...: --do-not-launch prints EXPECTED (exit 0).
plan() {
    _what=$1 _want=$2
    shift 2
    run --do-not-launch "$@"
    [ $rc -eq 0 ] && [ "$out" = "$_want" ] || failed "$_what: expected: $_want (exit $rc)" "$out"
}

# --- Who starts the ranks ---
export SLURM_JOB_ID=4242 SLURM_JOB_NUM_NODES=2
plan "allocation of 2 nodes" "srun --mpi=pmix --ntasks=4 $tail /usr/bin/true" -n 4 /usr/bin/true
plan "allocation of 2 nodes, no -n: srun decides" "srun --mpi=pmix $tail /usr/bin/true" /usr/bin/true
unset SLURM_JOB_NUM_NODES
export SLURM_NNODES=3
plan "SLURM_NNODES (older Slurm)" "srun --mpi=pmix --ntasks=2 $tail /usr/bin/true" -n 2 /usr/bin/true
run --launcher local -n 2 sh -c 'echo "rank $PMIX_RANK"'
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "rank 0
rank 1" ] || failed "--launcher local inside an allocation of 3 nodes (exit $rc)" "$out"
run --mca plm isolated -n 1 sh -c 'echo "local $PMIX_RANK"'
[ $rc -eq 0 ] && [ "$out" = "local 0" ] || failed "--mca plm isolated (exit $rc)" "$out"
export SLURM_NNODES=1
run -n 2 sh -c 'echo "rank $PMIX_RANK"'
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "rank 0
rank 1" ] || failed "allocation of one node: mpirun starts the ranks itself (exit $rc)" "$out"
plan "one node, --host of another: srun" \
    "srun --mpi=pmix --ntasks=2 --nodelist=other-node-$$ $tail /usr/bin/true" \
    -H other-node-$$:2 /usr/bin/true
plan "one node, --npernode 2 -n 4: srun" \
    "srun --mpi=pmix --ntasks=4 --ntasks-per-node=2 $tail /usr/bin/true" -N 2 -n 4 /usr/bin/true
unset SLURM_JOB_ID SLURM_NNODES
plan "--launcher slurm outside an allocation" "srun --mpi=pmix --ntasks=2 $tail /usr/bin/true" \
    --launcher slurm -n 2 /usr/bin/true
plan "--mca plm slurm" "srun --mpi=pmix --ntasks=2 $tail /usr/bin/true" \
    --mca plm slurm -n 2 /usr/bin/true

# --- What the options become ---
plan "binding, mapping, labels, oversubscription" \
    "srun --mpi=pmix --ntasks=3 --distribution=block:cyclic --cpu-bind=sockets --overcommit --label $tail /usr/bin/true" \
    --launcher slurm -n 3 --map-by socket --bind-to socket --oversubscribe --tag-output /usr/bin/true
for pair in core:cores hwthread:threads numa:ldoms none:none; do
    plan "--bind-to ${pair%%:*}" "srun --mpi=pmix --ntasks=2 --cpu-bind=${pair#*:} $tail /usr/bin/true" \
        --launcher slurm -n 2 --bind-to "${pair%%:*}" /usr/bin/true
done
plan "--report-bindings" "srun --mpi=pmix --ntasks=2 --cpu-bind=verbose $tail /usr/bin/true" \
    --launcher slurm -n 2 --report-bindings /usr/bin/true
plan "--report-bindings --bind-to core" \
    "srun --mpi=pmix --ntasks=2 --distribution=block --cpu-bind=verbose,cores --label $tail /usr/bin/true" \
    --launcher slurm -n 2 --report-bindings --bind-to core --map-by core -l /usr/bin/true
plan "--map-by ppr:2:node, hosts with slots" \
    "srun --mpi=pmix --ntasks=4 --ntasks-per-node=2 --nodelist=a,b $tail /usr/bin/true" \
    --launcher slurm --map-by ppr:2:node -H a:2 --host b:2 /usr/bin/true
mkdir -p "$WORK/wd"
plan "-x, --env, -genv, --wdir, --timeout, program arguments" \
    "env A=1,2 'B=two words' C=c timeout --kill-after=10 30 srun --mpi=pmix --ntasks=2 --chdir=$(cd "$WORK/wd" && pwd -P) $tail /usr/bin/printf '%s|' 'it'\\''s' --" \
    --launcher slurm -n 2 -x A=1,2 --env 'B=two words' -genv C c --wdir "$WORK/wd" --timeout 30 \
    printf '%s|' "it's" --

# MPMD has no srun equivalent here.
run --launcher slurm -n 1 true : -n 1 true
expect_rc "MPMD through srun" 2
expect_line "MPMD through srun" "^mpirun: MPMD \\(':'\\) is not supported when mpirun starts the job through srun; use srun --mpi=pmix --multi-prog\$"

# --- mpirun execs srun: a fake one records what it got and exits 7 ---
mkdir -p "$WORK/bin"
cat >"$WORK/bin/srun" <<'EOF'
#!/bin/sh
echo "args: $*"
echo "env: A=$A PMIX_NAMESPACE=${PMIX_NAMESPACE-unset} PMIX_MCA_x=${PMIX_MCA_x-unset}"
read -r line && echo "stdin: $line"
exit 7
EOF
chmod +x "$WORK/bin/srun"
out=$(echo hello | PATH="$WORK/bin:$PATH" PMIX_NAMESPACE=stale PMIX_MCA_x=kept \
    timeout 60 "$MPIRUN" --launcher slurm -n 2 -x A=1,2 /usr/bin/true x 2>&1)
rc=$?
expect_rc "exec srun: srun's exit status" 7
[ "$out" = "args: --mpi=pmix --ntasks=2 $tail /usr/bin/true x
env: A=1,2 PMIX_NAMESPACE=unset PMIX_MCA_x=kept
stdin: hello" ] || failed "exec srun: what srun got" "$out"

# No srun at all.
mkdir -p "$WORK/empty"
out=$(timeout 60 env PATH="$WORK/empty" "$MPIRUN" --launcher slurm -n 2 /usr/bin/true 2>&1)
rc=$?
expect_rc "no srun in PATH" 127
expect_line "no srun in PATH" "^mpirun: cannot run srun: No such file or directory \\(Slurm's srun must be in PATH\\)\$"

# --- Hosts outside an allocation ---
for h in node-that-is-not-here-$$ "localhost,node-that-is-not-here-$$:2"; do
    run -H "$h" -n 2 "$PROG_MPI" hello
    expect_rc "--host $h" 2
    expect_line "--host $h" "^mpirun: host node-that-is-not-here-$$ is not this machine \\($HOST\\): $advice"
done
printf '# the cluster\nlocalhost slots=2\nfar-away-%s slots=2 max_slots=4\n' $$ >"$WORK/hosts.ompi"
run --hostfile "$WORK/hosts.ompi" "$PROG_MPI" hello
expect_rc "--hostfile naming another host" 2
expect_line "--hostfile naming another host" "^mpirun: host far-away-$$ is not this machine \\($HOST\\): $advice"
run --launcher local -H far-away-$$ "$PROG_MPI" hello
expect_rc "--launcher local with another host" 2
expect_line "--launcher local with another host" "^mpirun: host far-away-$$ is not this machine \\($HOST\\): --launcher local starts ranks on this machine only\$"
run --npernode 1 -n 2 "$PROG_MPI" hello
expect_rc "--npernode 1 -n 2 here" 2
expect_line "--npernode 1 -n 2 here" "^mpirun: 2 ranks at 1 per node need 2 nodes: $advice"
expect_no_strays "hosts refused"

# This machine by any of its names: the ranks run, as many as the slots without -n.
addr=$(hostname -I 2>/dev/null | awk '{print $1}')
for h in localhost "$HOST" "$SHORT" 127.0.0.1 ${addr:+"$addr"}; do
    run -H "$h" -n 2 "$PROG_MPI" hello
    [ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "rank 0 of 2
rank 1 of 2" ] || failed "--host $h -n 2 (exit $rc)" "$out"
done
run --host "localhost:2,$HOST" "$PROG_MPI" hello
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "rank 0 of 3
rank 1 of 3
rank 2 of 3" ] || failed "--host localhost:2,$HOST: 3 slots, 3 ranks (exit $rc)" "$out"
printf 'localhost slots=2 # Open MPI\n\n' >"$WORK/hosts.local"
run --hostfile "$WORK/hosts.local" "$PROG_MPI" hello
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'of 2$')" -eq 2 ] ||
    failed "--hostfile with localhost slots=2 (exit $rc)" "$out"
printf '%s:3\n' "$HOST" >"$WORK/machines"
run --machinefile "$WORK/machines" "$PROG_MPI" hello
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'of 3$')" -eq 3 ] ||
    failed "--machinefile with $HOST:3 (MPICH) (exit $rc)" "$out"
run -N 2 "$PROG_MPI" hello
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c 'of 2$')" -eq 2 ] ||
    failed "-N 2 without -n: 2 ranks here (exit $rc)" "$out"

# --- Bad host lists and options ---
help="; see 'mpirun --help'\$"
run -H "localhost:zero" true
expect_rc "--host localhost:zero" 2
expect_line "--host localhost:zero" "^mpirun: --host: 'localhost:zero' is not a host, or host:slots with slots a positive number$help"
run -H "a,,b" true
expect_rc "--host a,,b" 2
printf 'localhost slots=x\n' >"$WORK/bad1"
run --hostfile "$WORK/bad1" true
expect_rc "hostfile slots=x" 2
expect_line "hostfile slots=x" "^mpirun: $WORK/bad1:1: 'slots=x': slots must be a positive number\$"
printf '# nothing\n\n' >"$WORK/bad2"
run --hostfile "$WORK/bad2" true
expect_line "empty hostfile" "^mpirun: --hostfile $WORK/bad2: no host in it\$"
run --hostfile "$WORK/none" true
expect_line "missing hostfile" "^mpirun: --hostfile $WORK/none: No such file or directory\$"
run --launcher pbs true
expect_rc "--launcher pbs" 2
expect_line "--launcher pbs" "^mpirun: --launcher 'pbs': expected auto, local, slurm or isolated$help"
run --mca btl self true
expect_rc "--mca btl" 2
expect_line "--mca btl" "^mpirun: --mca btl: Verbatim has no MCA parameters"
run --map-by ppr:2:socket true
expect_line "--map-by ppr:2:socket" "^mpirun: --map-by 'ppr:2:socket': expected ppr:N:node \\(N ranks per node\\)$help"
run -ppn 0 true
expect_line "-ppn 0" "^mpirun: -ppn '0': expected a positive number of ranks per node$help"

finish
