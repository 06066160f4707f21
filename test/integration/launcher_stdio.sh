#!/bin/sh
# Standard I/O: mpirun's stdin goes to rank 0 byte for byte (others read end of file); output
# is forwarded a whole line at a time, never mixed inside a line, with --tag-output and -l
# prefixes; a last line without a newline is not lost.
. "$(dirname "$0")/lib.sh"

# stdin: 300 kB to rank 0, nothing to rank 1; rank 0 must see end of file.
awk 'BEGIN { for (i = 0; i < 6000; i++) printf "line %d of the payload %s\n", i, "abcdefghijklmnopqrstuvwxyz" }' \
    >"$WORK/payload"
out=$(timeout 60 "$MPIRUN" -n 2 sh -c 'cat >"$0/got.$PMIX_RANK"' "$WORK" <"$WORK/payload" 2>&1)
rc=$?
[ $rc -eq 0 ] && cmp -s "$WORK/payload" "$WORK/got.0" && [ ! -s "$WORK/got.1" ] ||
    failed "stdin to rank 0 (exit $rc, $(wc -c <"$WORK/got.0" 2>/dev/null) bytes)" "$out"

# A rank 0 that does not read stdin: mpirun must not wait for an endless stdin.
_start=$(date +%s)
out=$(yes | timeout 60 "$MPIRUN" -n 2 true 2>&1)
rc=$?
[ $rc -eq 0 ] && [ $(($(date +%s) - _start)) -lt 20 ] || failed "endless stdin (exit $rc)" "$out"

# Two ranks writing long lines in small pieces at the same time, stdout and stderr.
# check_flood FILE STREAM PREFIX-STYLE LINES: every line is whole, prefixed, in order.
check_flood() {
    awk -v stream="$2" -v style="$3" -v lines="$4" -v len=3000 -v nranks=2 '
    {
        if (style == "tag") {
            if (!match($0, /^\[1,[0-9]+\]<std(out|err)>: /)) { bad++; next }
            prefix = substr($0, 1, RLENGTH)
            r = substr(prefix, 4, index(prefix, "]") - 4)
            if (index(prefix, "<" stream ">") == 0) { bad++; next }
        } else if (style == "rank") {
            if (!match($0, /^\[[0-9]+\] /)) { bad++; next }
            prefix = substr($0, 1, RLENGTH)
            r = substr(prefix, 2, RLENGTH - 3)
        } else {
            RLENGTH = 0
            r = -1
        }
        body = substr($0, RLENGTH + 1)
        split(body, f, ":")
        if (r == -1) r = f[1]
        if (f[1] != r || f[2] != seen[r] + 0 || length(body) != len) { bad++; next }
        seen[r]++
    }
    END {
        for (r = 0; r < nranks; r++) if (seen[r] != lines) bad++
        print bad + 0
    }' "$1"
}

for style in tag rank none; do
    case $style in
    tag) opt=--tag-output ;;
    rank) opt=-l ;;
    none) opt=--bind-to=none ;;
    esac
    timeout 120 "$MPIRUN" -n 2 $opt "$PROG_MPI" flood 2000 3000 >"$WORK/out" 2>"$WORK/err"
    rc=$?
    bad_out=$(check_flood "$WORK/out" stdout $style 2000)
    bad_err=$(check_flood "$WORK/err" stderr $style 500)
    [ $rc -eq 0 ] && [ "$bad_out" = 0 ] && [ "$bad_err" = 0 ] ||
        failed "flood $opt: exit $rc, $bad_out bad stdout lines, $bad_err bad stderr lines" \
            "$(head -c 600 "$WORK/err")"
done

# Exact prefixes, stdout and stderr apart.
out=$(timeout 60 "$MPIRUN" -n 2 --tag-output sh -c 'echo "out $PMIX_RANK"; echo "err $PMIX_RANK" >&2' \
    2>"$WORK/err")
rc=$?
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "[1,0]<stdout>: out 0
[1,1]<stdout>: out 1" ] && [ "$(sort "$WORK/err")" = "[1,0]<stderr>: err 0
[1,1]<stderr>: err 1" ] || failed "--tag-output prefixes (exit $rc)" "$out
$(cat "$WORK/err")"

run -n 2 -l sh -c 'echo "hi $PMIX_RANK"'
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "[0] hi 0
[1] hi 1" ] || failed "-l prefixes (exit $rc)" "$out"

# A last line without a newline: kept byte for byte untagged, ended when tagged.
timeout 60 "$MPIRUN" -n 1 printf 'no newline' >"$WORK/out" 2>&1
[ "$(od -c <"$WORK/out")" = "$(printf 'no newline' | od -c)" ] ||
    failed "partial line, one rank" "$(cat "$WORK/out")"
run -n 2 --tag-output sh -c 'printf "part $PMIX_RANK"'
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "[1,0]<stdout>: part 0
[1,1]<stdout>: part 1" ] || failed "partial line, tagged (exit $rc)" "$out"
timeout 60 "$MPIRUN" -n 2 sh -c 'printf "%s" "$PMIX_RANK"; sleep 1; echo' >"$WORK/out" 2>&1
[ "$(sort "$WORK/out")" = "0
1" ] || failed "lines split across writes, untagged" "$(cat "$WORK/out")"

finish
