#!/bin/sh
# Bad input ends at once with a clear message and the documented code: 127 for a program not
# found, 126 for one not executable, 2 for a usage error; nothing is left running.
. "$(dirname "$0")/lib.sh"

# check WHAT CODE REGEX mpirun-args...
check() {
    _what=$1 _code=$2 _re=$3
    shift 3
    run "$@"
    expect_rc "$_what" "$_code"
    expect_line "$_what" "$_re"
    [ "$elapsed" -lt 10 ] || failed "$_what: took $elapsed s"
}

help="; see 'mpirun --help'\$"
check "missing ./program" 127 "^mpirun: cannot run './no-such-program-$$': no such file\$" \
    -n 2 ./no-such-program-$$
check "missing command" 127 "^mpirun: cannot run 'no-such-command-$$': command not found in PATH\$" \
    -n 2 no-such-command-$$
printf 'data\n' >"$WORK/notexec"
check "not executable" 126 "^mpirun: cannot run '$WORK/notexec': not executable" -n 1 "$WORK/notexec"
check "a directory" 126 "^mpirun: cannot run '$WORK': it is a directory\$" -n 1 "$WORK"
check "MPMD, second program missing" 127 "^mpirun: cannot run 'no-such-command-$$'" \
    -n 1 true : -n 1 no-such-command-$$
check "-n 0" 2 "^mpirun: -n '0': the number of ranks must be a positive integer$help" -n 0 true
check "-n abc" 2 "^mpirun: -np 'abc': the number of ranks must be a positive integer$help" -np abc true
check "-n without value" 2 "^mpirun: option '-n' needs a value$help" -n
check "no program" 2 "^mpirun: no program to run given$help" -n 2
check "nothing at all" 2 "^mpirun: no program to run given$help"
check "empty MPMD part" 2 "^mpirun: no program given after ':'$help" -n 1 true :
check "unknown option" 2 "^mpirun: unknown option '--frobnicate'$help" --frobnicate -n 1 true
check "misspelt option" 2 "^mpirun: unknown option '--tag_output' \\(did you mean '--tag-output'\\?\\)$help" \
    --tag_output true
check "bad --bind-to" 2 "^mpirun: --bind-to 'banana': expected core, hwthread, socket, numa, none or package$help" --bind-to banana true
check "bad --timeout" 2 "^mpirun: --timeout '-5': expected a positive number of seconds$help" \
    --timeout -5 true
check "--env without =" 2 "^mpirun: --env 'FOO': expected VAR=value" --env FOO true
check "missing --wdir" 2 "^mpirun: --wdir $WORK/none: No such file or directory\$" --wdir "$WORK/none" true

# Options after the program belong to it.
run -n 1 echo -n 5 --frobnicate
[ $rc -eq 0 ] && [ "$out" = "-n 5 --frobnicate" ] || [ "$out" = "5 --frobnicate" ] ||
    failed "options after the program (exit $rc)" "$out"

run --version
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -Eq '^mpirun \(Verbatim\) [0-9]' ||
    failed "--version (exit $rc)" "$out"
for h in -h --help; do
    run $h
    [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^Usage: mpirun ' &&
        printf '%s\n' "$out" | grep -q -- '--oversubscribe' || failed "$h (exit $rc)" "$out"
done

finish
