#!/bin/sh
# Set up a fresh Debian 12 machine for Verbatim and build it: install the Debian packages
# (build dependencies, valgrind for test/integration/sanitizers.sh, clang and its libFuzzer
# runtime for test/integration/fuzz.sh, the Soft-RoCE VM's, Slurm
# and munge for the Slurm test), then autogen, configure, make and make install into ./build and
# ./install. Run as root (it calls apt-get).
# Safe to run again.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)

packages="build-essential autoconf automake libtool pkg-config
  libibverbs-dev rdma-core ibverbs-providers ibverbs-utils perftest
  libhwloc-dev libpmix-dev check valgrind clang libclang-rt-dev
  qemu-system-x86 linux-image-amd64 busybox-static iproute2 kmod cpio
  slurm-wlm slurm-wlm-basic-plugins munge"

missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "bootstrap: the Debian packages are installed"
elif [ "$(id -u)" -eq 0 ]; then
    echo "bootstrap: installing Debian packages:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # No daemon starts at installation (munged, slurmctld, slurmd): the Slurm test brings up
    # private ones (test/slurm/slurm-up). policy-rc.d is how Debian says so to invoke-rc.d and
    # deb-systemd-invoke; one already there is left alone.
    policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy"
    fi
    # The kernel is for the Soft-RoCE VM, which boots it with an initramfs of its own
    # (test/rxevm): on a machine with no kernel in /boot (nothing boots from it, as on a CI
    # machine or in a container) Debian's initrd for it would only cost a minute to generate,
    # twice. INITRD=No is how the kernel's hook (/etc/kernel/postinst.d/initramfs-tools) is
    # told; without an initrd the later trigger finds nothing to update.
    case " $missing " in
    *" linux-image-amd64 "*)
        if ! ls /boot/vmlinuz-* >/dev/null 2>&1; then
            INITRD=No
            export INITRD
        fi
        ;;
    esac
    # shellcheck disable=SC2086 # a word list on purpose
    apt-get install -y -q --no-install-recommends $missing || {
        [ -z "$policy" ] || rm -f "$policy"
        exit 1
    }
    [ -z "$policy" ] || rm -f "$policy"
else
    echo "bootstrap: missing Debian packages:$missing; run this as root to install them" >&2
    exit 1
fi

werror=""
[ "${CI:-}" = true ] && werror="--enable-werror"
[ -x configure ] || ./autogen.sh
mkdir -p build
cd build
# shellcheck disable=SC2086
[ -f Makefile ] || ../configure --prefix="$top/install" $werror
make -j"$(nproc)"
make install >/dev/null
echo "bootstrap: built in $top/build, installed in $top/install"
