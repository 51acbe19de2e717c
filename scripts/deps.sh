#!/bin/sh
# deps.sh - install the Debian packages the project needs, when missing.
# Usage: scripts/deps.sh [host|vm|bench|all]   (default: all)
# Runs apt-get update once per machine, and only when something is missing.
set -eu

host_pkgs="build-essential make gcc libc6-dev linux-libc-dev linux-source-6.1 sparse perl python3 python3-docutils clang libclang-rt-14-dev"
vm_pkgs="linux-headers-amd64 linux-image-amd64 qemu-system-x86 busybox-static cpio kmod xz-utils"
bench_pkgs="mpich libmpich-dev gnuplot-nox"
lib_pkgs="libnl-3-dev libnl-genl-3-dev"

case "${1:-all}" in
host)	want="$host_pkgs $lib_pkgs" ;;
vm)	want="$vm_pkgs" ;;
bench)	want="$bench_pkgs" ;;
all)	want="$host_pkgs $lib_pkgs $vm_pkgs $bench_pkgs" ;;
*)	echo "usage: $0 [host|vm|bench|all]" >&2; exit 2 ;;
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
stamp=/var/lib/apt/periodic/th_nic-update-stamp
if [ ! -f "$stamp" ]; then
	apt-get update -q
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
