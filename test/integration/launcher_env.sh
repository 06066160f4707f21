#!/bin/sh
# Environment of the ranks: mpirun's own, -x VAR, -x VAR=value, --env VAR=value, -genv VAR
# value; PMIx variables of an enclosing job are not passed on (PMIX_MCA_* tuning is).
. "$(dirname "$0")/lib.sh"

out=$(FROMENV=inherited PLAIN=plain timeout 60 "$MPIRUN" -n 2 -x FROMENV -x SET=x=y \
    --env ALSO=also -genv TWO 'two words' -x SET=last \
    sh -c 'echo "$PMIX_RANK|$FROMENV|$SET|$ALSO|$TWO|$PLAIN"' 2>&1)
rc=$?
[ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | sort)" = "0|inherited|last|also|two words|plain
1|inherited|last|also|two words|plain" ] || failed "-x/--env/-genv (exit $rc)" "$out"

# -x of an unset variable: a warning, and the job runs.
out=$(env -u NOT_SET_ANYWHERE timeout 60 "$MPIRUN" -n 1 -x NOT_SET_ANYWHERE \
    sh -c 'echo "[${NOT_SET_ANYWHERE-unset}]"' 2>&1)
rc=$?
[ $rc -eq 0 ] && [ "$out" = "mpirun: warning: -x NOT_SET_ANYWHERE: NOT_SET_ANYWHERE is not set in mpirun's environment; not exported
[unset]" ] || failed "-x of an unset variable (exit $rc)" "$out"

# Stale PMIx variables from an enclosing job are dropped, PMIX_MCA_* kept.
out=$(PMIX_NAMESPACE=stale PMIX_SERVER_URI41=stale PMIX_MCA_vbt_test=kept \
    timeout 60 "$MPIRUN" -n 1 sh -c \
    'echo "$PMIX_MCA_vbt_test ${PMIX_SERVER_URI41:-none}"; [ "$PMIX_NAMESPACE" != stale ]' 2>&1)
rc=$?
[ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^kept ' &&
    ! printf '%s\n' "$out" | grep -q stale || failed "stale PMIX_* variables (exit $rc)" "$out"

# --wdir: the ranks run there, and a relative program is found there.
mkdir -p "$WORK/wd"
printf '#!/bin/sh\npwd\n' >"$WORK/wd/where"
chmod +x "$WORK/wd/where"
run --wdir "$WORK/wd" -n 1 ./where
{ [ $rc -eq 0 ] && { [ "$out" = "$(cd "$WORK/wd" && pwd -P)" ] || [ "$out" = "$WORK/wd" ]; }; } ||
    failed "--wdir (exit $rc)" "$out"

finish
