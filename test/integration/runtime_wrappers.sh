#!/bin/sh
# The build-tree compiler wrappers: flags users expect, pass-through, and the issue's promise:
# `mpicc hello.c -o hello && mpirun -n 4 ./hello` prints four distinct ranks of four.
set -u
bin="$abs_top_builddir/build-bin"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vbt-wrappers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
failed() { echo "FAIL: $1"; printf '%s\n' "$2"; fail=1; }

out=$("$bin/mpicc" -show -O2 -o hello hello.c 2>&1)
case $out in
*"-I$abs_top_srcdir/include"*"-O2 -o hello hello.c"*"-lverbatim"*) ;;
*) failed "mpicc -show" "$out" ;;
esac
out=$("$bin/mpicc" -showme -c x.c 2>&1)
case $out in *-lverbatim*) failed "mpicc -showme -c must not link" "$out" ;; esac
out=$(VBT_CC=my-cc "$bin/mpicc" -show x.c 2>&1)
case $out in "my-cc "*) ;; *) failed "VBT_CC" "$out" ;; esac
out=$(MPICH_CC=mpich-cc "$bin/mpicc" -show x.c 2>&1)
case $out in "mpich-cc "*) ;; *) failed "MPICH_CC" "$out" ;; esac
out=$("$bin/mpicc" -link_info 2>&1)
case $out in *-lverbatim*) ;; *) failed "mpicc -link_info" "$out" ;; esac
out=$("$bin/mpicc" -showme:compile 2>&1)
[ "$out" = "-I$abs_top_srcdir/include" ] || failed "mpicc -showme:compile" "$out"
out=$("$bin/mpicc" --version 2>&1)
case $out in *"Verbatim"*) ;; *) failed "mpicc --version" "$out" ;; esac
out=$("$bin/mpicc" 2>&1) && failed "mpicc without input must fail" "$out"
# Arguments with spaces and quotes reach the compiler untouched.
out=$("$bin/mpicc" -show '-DMSG="a b"' x.c 2>&1)
case $out in *"'-DMSG=\"a b\"'"*) ;; *) failed "quoting in -show" "$out" ;; esac

cp "$abs_top_srcdir/examples/hello.c" "$tmp/hello.c"
cat > "$tmp/quote.c" <<'SRC'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); puts(MSG); MPI_Finalize(); return 0; }
SRC
(cd "$tmp" && "$bin/mpicc" -O2 -Wall -Werror hello.c -o hello) || failed "mpicc hello.c" ""
(cd "$tmp" && "$bin/mpicc" '-DMSG="two words"' quote.c -o quote) || failed "mpicc -D with spaces" ""
out=$("$tmp/quote" 2>&1)
[ "$out" = "two words" ] || failed "quoted define" "$out"
out=$(cd "$tmp" && timeout 60 "$bin/mpirun" -n 4 ./hello 2>&1)
n=$(printf '%s\n' "$out" | grep -E '^Hello from rank [0-3] of 4 on ' | sort -u | wc -l)
[ "$n" -eq 4 ] || failed "mpirun -n 4 ./hello built by mpicc" "$out"

cat > "$tmp/hello.cc" <<'SRC'
#include <mpi.h>
#include <iostream>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::cout << "C++ rank " << rank << std::endl;
    MPI_Finalize();
}
SRC
(cd "$tmp" && "$bin/mpicxx" -Wall -Werror hello.cc -o hellocc) || failed "mpicxx hello.cc" ""
out=$(cd "$tmp" && timeout 60 "$bin/mpirun" -n 2 ./hellocc 2>&1)
[ "$(printf '%s\n' "$out" | grep -c '^C++ rank [01]$')" -eq 2 ] || failed "mpicxx program" "$out"

# The standard ABI's library name: a program linked with plain cc and -lmpi_abi runs on Verbatim.
(cd "$tmp" && ${CC:-cc} -I"$abs_top_srcdir/include" hello.c -o hello_abi \
    -L"$abs_top_builddir/.libs" -Wl,-rpath,"$abs_top_builddir/.libs" -lmpi_abi) ||
    failed "cc -lmpi_abi" ""
readelf -d "$tmp/hello_abi" 2>/dev/null | grep -q 'NEEDED.*libmpi_abi.so.1' ||
    failed "hello_abi does not need libmpi_abi.so.1" "$(readelf -d "$tmp/hello_abi" 2>&1)"
out=$(cd "$tmp" && timeout 60 "$bin/mpirun" -n 2 ./hello_abi 2>&1)
[ "$(printf '%s\n' "$out" | grep -c '^Hello from rank [01] of 2 on ')" -eq 2 ] ||
    failed "mpirun -n 2 ./hello_abi" "$out"

out=$("$bin/verbatim-info" 2>&1)
case $out in *"Verbatim "*VBT_LOG*) ;; *) failed "verbatim-info" "$out" ;; esac

[ $fail -eq 0 ] && echo "runtime_wrappers: all passed"
exit $fail
