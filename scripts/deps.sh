#!/bin/sh
# deps.sh - install the Debian packages the project needs, when missing.
# Usage: scripts/deps.sh [demo|host|vm|bench|debug|pkg|all]   (default: all)
#   demo   what `make run` needs: a compiler, make, libnl (thctl's netlink)
#   host   the host tests and lint: adds sparse, clang (fuzzing), the kernel
#          source (kselftest harness, checkpatch), docutils, libfabric (the
#          ofi provider) and iproute2 (its two-namespace test)
#   vm     the module and its tests in QEMU: kernel headers and image, QEMU,
#          and for the ofi provider on soft-RoCE (make vmtest-rxe) rdma-core's
#          verbs providers and libfabric's fi_info
#   bench  MPICH (the MPI baseline) and gnuplot
#   debug  what building the debug kernel needs
#   pkg    building and checking the Debian packages
# Runs apt-get update once per machine, and only when something is missing.
set -eu

demo_pkgs="gcc make libc6-dev pkg-config libnl-3-dev libnl-genl-3-dev"
host_pkgs="build-essential make gcc libc6-dev linux-libc-dev linux-source-6.1 sparse perl python3 python3-docutils man-db clang libclang-rt-14-dev"
vm_pkgs="linux-headers-amd64 linux-image-amd64 qemu-system-x86 busybox-static cpio kmod xz-utils ibverbs-providers libfabric-bin iproute2"
bench_pkgs="mpich libmpich-dev gnuplot-nox"
lib_pkgs="libnl-3-dev libnl-genl-3-dev libfabric-dev iproute2"
# the debug kernel (scripts/debug-kernel.sh) builds from linux-source-6.1
debug_pkgs="flex bison bc libelf-dev libssl-dev"

pkg_pkgs="dpkg-dev debhelper dh-dkms dkms lintian fakeroot pkg-config gcc make libc6-dev libnl-3-dev libnl-genl-3-dev libfabric-dev libmpich-dev mpich"

case "${1:-all}" in
demo)	want="$demo_pkgs" ;;
pkg)	want="$pkg_pkgs" ;;
host)	want="$host_pkgs $lib_pkgs" ;;
vm)	want="$vm_pkgs" ;;
debug)	want="$debug_pkgs" ;;
bench)	want="$bench_pkgs" ;;
all)	want="$demo_pkgs $host_pkgs $lib_pkgs $vm_pkgs $bench_pkgs $debug_pkgs $pkg_pkgs" ;;
*)	echo "usage: $0 [demo|host|vm|bench|debug|pkg|all]" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing" >&2
	echo "deps: run as root: apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing"
# dpkg refuses to install anything while a stat override names a user or
# group that no longer exists (an image bug: /etc/ssl/private and the
# removed group ssl-cert); drop such overrides, as dpkg's message advises
dpkg-statoverride --list 2>/dev/null | while read -r user group mode path; do
	if ! getent passwd "$user" > /dev/null || ! getent group "$group" > /dev/null; then
		echo "deps: removing the stale stat override of $path ($user:$group $mode)"
		dpkg-statoverride --remove "$path" || true
	fi
done
stamp=/var/lib/apt/periodic/th_nic-update-stamp
if [ ! -f "$stamp" ]; then
	apt-get update -q
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
