# Sourced after lib.sh by the tests of a rank that dies mid-exchange (fault_kill.sh natively,
# verbs_fault.sh over verbs): kill_run runs one job of the fault program and checks how it
# ended. FAULT_ENV (default empty): VAR=value words set for every job (e.g.
# VBT_TRANSPORTS=self,ib). FAULT_TIMEOUT (default 60): seconds after which a job counts as hung
# and is ended (timeout's exit 124): a guard against hangs, not the measure, which is
# LIMIT_MS from the death to mpirun's end. The caller prints the worst time ($worst, over $nruns jobs).
FAULT=$abs_top_builddir/test/integration/fault
[ -x "$FAULT" ] || { failed "$FAULT is not built"; finish; }
pidhost="\\(pid [0-9]+ on $HOST\\)"
ending="(; terminating the job)?"
LIMIT_MS=10000
worst=0
nruns=0

now_ms() { date +%s%3N; }

# kill_run PROGRESS NPROCS LOOP VICTIM HOW N: one job; checks it. HOW raise and exit: VICTIM
# does it after N iterations and says when; wait: the script kills VICTIM once it says it loops.
kill_run() {
    progress=$1 np=$2 loop=$3 victim=$4 how=$5 n=$6
    what="$how: rank $victim of $np in $loop, VBT_PROGRESS=$progress"
    nruns=$((nruns + 1))
    env ${FAULT_ENV:-} VBT_PROGRESS=$progress timeout "${FAULT_TIMEOUT:-60}" "$MPIRUN" --oversubscribe -n "$np" \
        "$FAULT" "$loop" "$victim" "$how" "$n" "$MARK" >"$WORK/out" 2>&1 &
    job=$!
    death=
    if [ "$how" = wait ]; then
        for _i in $(seq 200); do
            pid=$(sed -n "s/^fault: rank $victim pid \\([0-9]*\\) looping\$/\\1/p" "$WORK/out")
            [ -n "$pid" ] && break
            sleep 0.1
        done
        if [ -z "$pid" ]; then
            failed "$what: rank $victim never said it loops" "$(cat "$WORK/out")"
            kill "$job" 2>/dev/null
            wait "$job"
            expect_no_strays "$what"
            return
        fi
        death=$(now_ms)
        kill -KILL "$pid"
    fi
    wait "$job"
    rc=$?
    end=$(now_ms)
    out=$(cat "$WORK/out")
    [ -n "$death" ] || death=$(sed -n "s/^fault: rank $victim dies at \\([0-9]*\\)\$/\\1/p" "$WORK/out")
    if [ $rc -eq 124 ]; then
        failed "$what: still running after ${FAULT_TIMEOUT:-60} s, ended by the hang guard${death:+ $((end - death)) ms after the death}" "$out"
        expect_no_strays "$what"
        return
    fi
    if [ -z "$death" ]; then
        failed "$what: rank $victim did not say when it died" "$out"
        return
    fi
    took=$((end - death))
    [ $took -gt $worst ] && worst=$took
    if [ "$how" = exit ]; then
        expect_rc "$what" 3
        expect_line "$what" "^mpirun: rank $victim $pidhost exited with code 3$ending\$"
    else
        expect_rc "$what" 137
        expect_line "$what" "^mpirun: rank $victim $pidhost exited on signal 9 \\(Killed\\)$ending\$"
    fi
    [ $took -le $LIMIT_MS ] || failed "$what: the job ended $took ms after the death" "$out"
    expect_no_strays "$what"
}
