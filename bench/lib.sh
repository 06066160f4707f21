# shellcheck shell=bash disable=SC2154,SC2034 # variables set or used by the sourcing script
# bench/lib.sh: what bench/shm and bench/progress share (sourced by them, not run): messages,
# finding the Verbatim build, building the same sources with each MPI's mpicc, ending the ranks
# a killed launcher left behind, the description of the machine, and the small number
# formatters of the tables. Bash.
#
# The caller sets prog (its name for messages), here (bench/, absolute) and top (the source
# tree) before sourcing it.

say() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() {
    say "$*"
    exit 1
}

# The rivals: key, label, mpicc, mpirun.
rival_keys=(openmpi mpich)
declare -A rival_label=([verbatim]=Verbatim [openmpi]="Open MPI" [mpich]=MPICH)

# find_verbatim [DIR]: a Verbatim build tree (launcher/mpirun, build-bin/mpicc) or install
# tree (bin/mpirun, bin/mpicc): DIR, else build/ then install/ of the source tree, else
# $BENCH_BUILD. Sets vbt_mpirun, vbt_mpicc and vbt_tree, or dies saying what is missing. The
# benchmarks are built from the sources with that mpicc, as the rivals' are with theirs (the
# build tree's examples are libtool wrapper scripts, which valgrind cannot follow).
find_verbatim() {
    local d
    for d in ${1:+"$1"} "$top/build" "$top/install" ${BENCH_BUILD:+"$BENCH_BUILD"}; do
        if [ -x "$d/launcher/mpirun" ] && [ -x "$d/build-bin/mpicc" ]; then
            vbt_tree=$(cd "$d" && pwd -P)
            vbt_mpirun=$vbt_tree/launcher/mpirun
            vbt_mpicc=$vbt_tree/build-bin/mpicc
            return 0
        fi
        if [ -x "$d/bin/mpirun" ] && [ -x "$d/bin/mpicc" ]; then
            vbt_tree=$(cd "$d" && pwd -P)
            vbt_mpirun=$vbt_tree/bin/mpirun
            vbt_mpicc=$vbt_tree/bin/mpicc
            return 0
        fi
        if [ -n "${1:-}" ] && [ "$d" = "$1" ]; then
            die "--build $d: no launcher/mpirun and build-bin/mpicc (build tree) or bin/mpirun and bin/mpicc (install tree) there; build it first (make)"
        fi
    done
    die "no Verbatim build found in build/ or install/ of $top (nor \$BENCH_BUILD): build it (tools/bootstrap.sh, or configure && make), or pass --build DIR"
}

# have_rival KEY: whether mpicc.KEY and mpirun.KEY are installed.
have_rival() {
    command -v "mpicc.$1" >/dev/null 2>&1 && command -v "mpirun.$1" >/dev/null 2>&1
}

# build_prog MPICC OUT SOURCE...: compiles one program (-O2, examples/osu on the include path);
# the compiler's output goes to OUT.log. Returns the compiler's status.
build_prog() {
    local cc=$1 out=$2
    shift 2
    "$cc" -O2 -I "$top/examples/osu" -o "$out" "$@" >"$out.log" 2>&1
}

# osu_src NAME: the sources of vbt_osu_NAME (examples/osu, or bench/ for allreduce; coll-NAME:
# examples/osu's collective NAME, with the driver they share; nbc-NAME: the nonblocking NAME with
# osu_nbc.c and osu_coll.c; the one-sided ones with osu_rma.c; the multi-threaded NAME_mt with
# osu_mt.c).
osu_src() {
    if [ "$1" = allreduce ]; then
        echo "$here/osu_allreduce.c" "$top/examples/osu/osu_common.c"
    elif [ "${1#nbc-}" != "$1" ]; then
        echo "$top/examples/osu/osu_${1#nbc-}.c" "$top/examples/osu/osu_nbc.c" "$top/examples/osu/osu_coll.c" "$top/examples/osu/osu_common.c"
    elif [ "${1#coll-}" != "$1" ]; then
        case ${1#coll-} in
        barrier) echo "$top/examples/osu/osu_barrier.c" "$top/examples/osu/osu_common.c" ;;
        *) echo "$top/examples/osu/osu_${1#coll-}.c" "$top/examples/osu/osu_coll.c" "$top/examples/osu/osu_common.c" ;;
        esac
    else
        case $1 in
        *_mt) # multi-threaded: osu_mt.c
            echo "$top/examples/osu/osu_$1.c" "$top/examples/osu/osu_mt.c" "$top/examples/osu/osu_common.c" ;;
        *_latency | *_bw | *_bibw) # one-sided: the driver they share
            echo "$top/examples/osu/osu_$1.c" "$top/examples/osu/osu_rma.c" "$top/examples/osu/osu_common.c" ;;
        *) echo "$top/examples/osu/osu_$1.c" "$top/examples/osu/osu_common.c" ;;
        esac
    fi
}

# reap: after a run, no rank of ours may be left running (a launcher killed on a timeout may
# leave ranks polling, which would slow every later run): wait for them, then kill them. Ours
# are the processes whose command starts with $out/bin/ (so runs must name it absolutely).
reap() {
    local i pids
    for i in $(seq 1 20); do
        pids=$(pgrep -f "^[^ ]*$out/bin/" 2>/dev/null) || return 0
        [ "$i" = 10 ] && say "ranks left running after the launcher ended (pids $(echo "$pids" | paste -sd' ')): ending them"
        # shellcheck disable=SC2086 # one pid per word
        [ "$i" -ge 10 ] && kill -9 $pids 2>/dev/null
        sleep 1
    done
}

# machine_txt: the machine and the libraries, on stdout (machine.txt).
machine_txt() {
    local v
    echo "date:     $(date '+%Y-%m-%d %H:%M:%S %Z')"
    echo "host:     $(uname -n), $(nproc) CPUs online, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
    if command -v lscpu >/dev/null 2>&1; then
        echo "topology: $(lscpu | awk -F': *' '/^Socket\(s\)/ { s = $2 } /^Core\(s\) per socket/ { c = $2 } /^Thread\(s\) per core/ { t = $2 } /^Hypervisor vendor/ { h = $2 } END { printf "%s socket(s) x %s core(s) x %s thread(s)%s", s, c, t, (h != "" ? ", virtual machine (" h ")" : "") }')"
    fi
    echo "kernel:   $(uname -r)"
    echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start"
    v=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null) || v="no Yama"
    echo "ptrace:   $v (CMA, single-copy on-node transfers, needs 0 or 1, or no Yama)"
    echo "Verbatim: $("$vbt_mpirun" --version 2>/dev/null | head -1), tree $vbt_tree, source $(git -C "$top" describe --always --dirty 2>/dev/null || echo "not a git checkout")"
    if have_rival openmpi; then
        echo "Open MPI: $(mpirun.openmpi --version 2>/dev/null | head -1)"
    fi
    if have_rival mpich; then
        echo "MPICH:    $(mpirun.mpich --version 2>/dev/null | awk -F': *' '/Version:/ { v = $2 } END { print "HYDRA " v }'), device $(mpichversion 2>/dev/null | awk '/^MPICH Device:/ { sub(/^MPICH Device:[ \t]*/, ""); print }')"
    fi
    echo "compiler: $(cc --version 2>/dev/null | head -1)"
}

# Formatting: num V (3 significant figures, or "-"); ratio A B (A/B to 2 decimals, or "-").
num() {
    awk -v a="$1" 'BEGIN {
        if (a == "") print "-"
        else if (a >= 1000) printf "%.0f", a
        else if (a >= 100) printf "%.1f", a
        else if (a >= 10) printf "%.2f", a
        else printf "%.3f", a }'
}
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}

# ---------------------------------------------------------------------------------------------
# callgrind: instructions per 8-byte ping-pong iteration (bench/shm --callgrind, bench/run
# --callgrind). The caller sets out (absolute), run_timeout, cg_n (N), launch[LIB] (the launch
# command of 2 ranks, ending in "-n 2") and a function record NAME RC SECONDS; the programs are
# $out/bin/LIB/vbt_osu_latency. cg_opts (an array, optional) adds valgrind options: bench/run
# counts only inside MPI_Send and MPI_Recv (--toggle-collect), leaving out start-up and
# finalize, whose waits poll a different number of times in every run.
# ---------------------------------------------------------------------------------------------

# cg_run LIB RANK ITERS TRIAL: vbt_osu_latency -m 8:8 -i ITERS -x 0 with rank RANK under
# callgrind and the other native (MPMD launch); prints the counted rank's Ir, or fails. The
# profile is logs/cg-LIB-rRANK-nITERS-tTRIAL.callgrind. cg_prog (a program of bin/LIB/ instead
# of vbt_osu_latency), cg_prog_args (an array of further arguments) and cg_tag (a word the
# profile's name begins with, after "cg") count another ping-pong program the same way.
cg_run() {
    local k=$1 rank=$2 n=$3 t=$4 rc t0 ir name=cg${cg_tag:-}-$1-r$2-n$3-t$4 pidf
    local exe=$out/bin/$k/${cg_prog:-vbt_osu_latency}
    local -a args=(-m 8:8 -i "$n" -x 0 --csv ${cg_prog_args[@]+"${cg_prog_args[@]}"}) l0 l1 env=()
    # shellcheck disable=SC2206 # the launch command is words
    local -a launcher=(${launch[$k]})
    pidf=$out/logs/$name.pid
    # The counted process is the one valgrind starts: its pid is the wrapper shell's ($$, which
    # exec replaces), so its file is found among those of any children it forks.
    # shellcheck disable=SC2016 # expanded by that shell
    local -a wrapped=(sh -c 'echo $$ >"$0"; o=$1; shift
        exec valgrind -q --tool=callgrind --callgrind-out-file="$o.%p" "$@"'
        "$pidf" "$out/logs/$name.out" ${cg_opts[@]+"${cg_opts[@]}"} "$exe" "${args[@]}")
    launcher=("${launcher[@]:0:${#launcher[@]}-2}") # without "-n 2"
    if [ "$rank" = 0 ]; then
        l0=(-n 1 "${wrapped[@]}") l1=(-n 1 "$exe" "${args[@]}")
    else
        l0=(-n 1 "$exe" "${args[@]}") l1=(-n 1 "${wrapped[@]}")
    fi
    [ "$k" = verbatim ] && env=(env VBT_PROGRESS="${BENCH_CG_PROGRESS:-spin}")
    t0=$SECONDS
    timeout "$run_timeout" "${env[@]}" "${launcher[@]}" "${l0[@]}" : "${l1[@]}" >"logs/$name.csv" \
        2>"logs/$name.err"
    rc=$?
    record "$name" $rc $((SECONDS - t0))
    # Keep the counted process's profile (logs/NAME.callgrind), drop those of its children.
    mv -f "logs/$name.out.$(cat "$pidf" 2>/dev/null)" "logs/$name.callgrind" 2>/dev/null
    rm -f logs/"$name".out.* "$pidf"
    ir=$(awk '/^summary:/ { print $2; exit }' "logs/$name.callgrind" 2>/dev/null)
    if [ $rc -ne 0 ] || [ -z "$ir" ]; then
        say "${rival_label[$k]}: callgrind run $name failed (exit $rc; logs/$name.err)"
        return 1
    fi
    echo "$ir"
}

# cg_polls FILE [REGEX]: the calls of the library's progress function in a callgrind profile
# (by default, for shm: Verbatim's shared-memory transport poll, vbt_shm_progress, which every
# poll calls once through the transport's ops table and so is never inlined; Open MPI's
# opal_progress; MPICH over UCX:
# ucp_worker_progress; REGEX, an awk regex of whole names, chooses others): how often the
# counted rank polled. Function names are compressed in the file ("fn=(id) name" the first
# time, "fn=(id)" afterwards; fn and cfn share the ids); "calls=" follows its "cfn=".
cg_polls() {
    awk -v re="${2:-^(vbt_shm_progress|opal_progress|ucp_worker_progress)\$}" '/^c?fn=\(/ {
            id = $1; sub(/^c?fn=/, "", id); sub(/\).*/, ")", id)
            nm = $0; sub(/^c?fn=\([0-9]+\) ?/, "", nm)
            if (nm != "") name[id] = nm
            if ($0 ~ /^cfn=/) cur = id
            next
        }
        /^calls=/ { c = $1; sub(/^calls=/, "", c); calls[cur] += c }
        END {
            for (id in calls)
                if (name[id] ~ re) n += calls[id]
            print n + 0
        }' "$1"
}

# cg_top FILE_N FILE_2N: per function (self cost), (I(2N) - I(N)) / N, the largest first.
cg_top() {
    {
        callgrind_annotate --auto=no --inclusive=no --threshold=100 "$1" 2>/dev/null | sed 's/^/A /'
        callgrind_annotate --auto=no --inclusive=no --threshold=100 "$2" 2>/dev/null | sed 's/^/B /'
    } | awk -v n="$cg_n" '
        $2 ~ /^[0-9,]+$/ && $3 ~ /^\(/ && $0 !~ /PROGRAM TOTALS/ {
            v = $2; gsub(",", "", v)
            f = $0; sub(/^[AB] +[0-9,]+ +\([^)]*\) +/, "", f)
            sub(/ \[.*\//, " [", f) # only the base name of the library
            if ($1 == "A") a[f] += v; else b[f] += v
        }
        END { for (f in b) { d = (b[f] - a[f]) / n; if (d >= 1) printf "%10.1f  %s\n", d, f } }' |
        sort -rn
}

# cg_fit: a least-squares line y = a + b x through the points "x y" on stdin (x: empty polls per
# iteration, y: Ir per iteration, one point per pair of runs at N and 2N); prints "a b
# largest-residual points". When the x are all within 0.5 of each other b cannot be told: if
# they are all near 0 (the reply was there at the first poll) a is the mean y and b "-",
# otherwise it fails, as it does with no point.
cg_fit() {
    awk 'NF >= 2 { n++; x[n] = $1; y[n] = $2; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2
                   if (n == 1 || $1 < lo) lo = $1; if (n == 1 || $1 > hi) hi = $1 }
        END {
            if (n < 1) exit 1
            if (hi - lo < 0.5) {
                if (lo < -0.1 || hi > 0.1) exit 1
                a = sy / n
                for (i = 1; i <= n; i++) { r = y[i] - a; if (r < 0) r = -r; if (r > m) m = r }
                printf "%.1f - %.1f %d\n", a, m, n
                exit 0
            }
            d = n * sxx - sx * sx
            b = (n * sxy - sx * sy) / d; a = (sy - b * sx) / n
            for (i = 1; i <= n; i++) { r = y[i] - a - b * x[i]; if (r < 0) r = -r; if (r > m) m = r }
            printf "%.1f %.1f %.1f %d\n", a, b, m, n
        }'
}
