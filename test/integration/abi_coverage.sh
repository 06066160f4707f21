#!/bin/sh
# ABI coverage: every C procedure of MPI-4.1 (test/integration/abi_procedures.txt, made from the
# MPI Forum's apis.json by tools/mpi_procedures.py: the C-expressible, non-callback procedures
# and their _c large-count forms) must be exported by the library as MPI_name and PMPI_name
# (nm -D of the built libmpi_abi.so and libverbatim.so, or of $VBT_ABI_LIB), unless the
# allow-list below names it with the reason. Fails listing each missing procedure, and each
# allow-listed one the library now exports (so the list cannot go stale).
set -u
list="$abs_top_srcdir/test/integration/abi_procedures.txt"
libs=${VBT_ABI_LIB:-"$abs_top_builddir/.libs/libmpi_abi.so $abs_top_builddir/.libs/libverbatim.so"}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Not exported, on purpose or not yet; one pattern a line (grep -x), then why.
cat > "$tmp/allowed" <<'ALLOW'
MPI_File_.*                  I/O (MPI-4.1 chapter 14) is not built yet
MPI_Register_datarep         I/O (Sec. 14.5.3, data representations for MPI_File_set_view)
MPI_Register_datarep_c       I/O (Sec. 14.5.3), large-count form
MPI_[A-Za-z]*_c2f            excluded from the C ABI that mpi.h follows (MPI-5.0 Sec. 21.4): Fortran INTEGER handles; MPI_*_toint replaces them
MPI_[A-Za-z]*_f2c            excluded from the C ABI (MPI-5.0 Sec. 21.4); MPI_*_fromint replaces them
MPI_Status_c2f08             excluded from the C ABI (MPI-5.0 Sec. 21.4): Fortran 2008 status conversion
MPI_Status_f082c             excluded from the C ABI (MPI-5.0 Sec. 21.4): Fortran 2008 status conversion
MPI_Status_f082f             excluded from the C ABI (MPI-5.0 Sec. 21.4): Fortran status conversion
MPI_Status_f2f08             excluded from the C ABI (MPI-5.0 Sec. 21.4): Fortran status conversion
MPI_Comm_spawn               dynamic process management (Sec. 11.8) is not built yet
MPI_Comm_spawn_multiple      dynamic process management (Sec. 11.8) is not built yet
MPI_Comm_get_parent          dynamic process management (Sec. 11.8) is not built yet
MPI_Comm_accept              client/server connections (Sec. 11.9) are not built yet
MPI_Comm_connect             client/server connections (Sec. 11.9) are not built yet
MPI_Comm_disconnect          client/server connections (Sec. 11.9) are not built yet
MPI_Comm_join                client/server connections (Sec. 11.9.5) are not built yet
MPI_Open_port                client/server connections (Sec. 11.9) are not built yet
MPI_Close_port               client/server connections (Sec. 11.9) are not built yet
MPI_Publish_name             name publishing (Sec. 11.9.3) is not built yet
MPI_Unpublish_name           name publishing (Sec. 11.9.3) is not built yet
MPI_Lookup_name              name publishing (Sec. 11.9.3) is not built yet
ALLOW
awk '{ print $1 }' "$tmp/allowed" > "$tmp/patterns"

fail=0
[ -s "$list" ] || { echo "FAIL: no procedure list at $list"; exit 1; }
for lib in $libs; do
    if [ ! -e "$lib" ]; then
        echo "FAIL: $lib is not there (build first)"
        fail=1
        continue
    fi
    nm -D --defined-only "$lib" | awk '{ print $NF }' | sort -u > "$tmp/exported"
    n=0 missing=0 stale=0
    while read -r name; do
        n=$((n + 1))
        have=1
        grep -qx "$name" "$tmp/exported" || have=0
        grep -qx "P$name" "$tmp/exported" || have=0
        if printf '%s\n' "$name" | grep -qxf "$tmp/patterns"; then
            if [ $have = 1 ]; then
                echo "FAIL: $lib exports $name and P$name, but the allow-list still excuses it"
                stale=$((stale + 1))
            fi
        elif [ $have = 0 ]; then
            echo "FAIL: $lib lacks $name or P$name"
            missing=$((missing + 1))
        fi
    done < "$list"
    echo "abi_coverage: $lib: $n procedures of MPI-4.1, $missing missing, $stale allowed but present"
    [ $missing = 0 ] && [ $stale = 0 ] || fail=1
    # A list this short means it was not read right: the test must not pass on nothing.
    [ $n -ge 600 ] || { echo "FAIL: only $n procedures in $list"; fail=1; }
done
exit $fail
