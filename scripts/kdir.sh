#!/bin/sh
# kdir.sh - print the kernel build directory (and matching kernel) that the
# module is built against and booted in: $KDIR when set, else the newest
# <ver> present in both /boot/vmlinuz-<ver> and /lib/modules/<ver>/build.
#
# Usage: scripts/kdir.sh             the build directory
#        scripts/kdir.sh --version   just <ver>
#        scripts/kdir.sh --vmlinuz   the kernel image to boot for that <ver>
#
# Never uses `uname -r`: the host may run a kernel of its own, without
# modules or headers; the module only ever runs inside QEMU.
# Overrides: KDIR (build directory), VM_KERNEL (kernel image).
set -eu

die() {
	echo "kdir: $*" >&2
	exit 1
}

# newest <ver> with both an image and a build directory; version sort
# (sort -V) so that 6.1.0-10 sorts after 6.1.0-9.
newest_version() {
	for img in /boot/vmlinuz-*; do
		[ -e "$img" ] || continue
		ver=${img#/boot/vmlinuz-}
		[ -d "/lib/modules/$ver/build" ] && echo "$ver"
	done | sort -V | tail -n 1
}

# <ver> of a build directory: the release compiled into modules built there
# (include/generated/utsrelease.h; Debian's include/config/kernel.release
# holds the upstream version instead), else the name of
# /lib/modules/<ver>/build.
version_of_kdir() {
	uts=$1/include/generated/utsrelease.h
	if [ -r "$uts" ]; then
		sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$uts"
		return
	fi
	case "$1" in
	/lib/modules/*/build | /lib/modules/*/build/)
		ver=${1#/lib/modules/}
		echo "${ver%%/*}"
		;;
	*)
		die "cannot tell the kernel version of KDIR=$1" \
			"(no include/generated/utsrelease.h: build the tree first)"
		;;
	esac
}

mode=${1:-}
case "$mode" in
"" | --version | --vmlinuz) ;;
-h | --help)
	sed -n '2,13s/^# \{0,1\}//p' "$0"
	exit 0
	;;
*)
	echo "usage: $0 [--version|--vmlinuz]" >&2
	exit 2
	;;
esac

if [ -n "${KDIR:-}" ]; then
	[ -d "$KDIR" ] || die "KDIR=$KDIR is not a directory"
	kdir=$KDIR
	ver=$(version_of_kdir "$KDIR")
else
	ver=$(newest_version)
	[ -n "$ver" ] || die "no kernel with both /boot/vmlinuz-<ver> and" \
		"/lib/modules/<ver>/build; install linux-image-amd64 and" \
		"linux-headers-amd64 (scripts/deps.sh vm) or set KDIR"
	kdir=/lib/modules/$ver/build
fi

case "$mode" in
"")
	echo "$kdir"
	;;
--version)
	echo "$ver"
	;;
--vmlinuz)
	# A self-built tree (KDIR=~/linux) boots its own bzImage.
	if [ -n "${VM_KERNEL:-}" ]; then
		img=$VM_KERNEL
	elif [ -n "${KDIR:-}" ] && [ -f "$KDIR/arch/x86/boot/bzImage" ]; then
		img=$KDIR/arch/x86/boot/bzImage
	else
		img=/boot/vmlinuz-$ver
	fi
	[ -r "$img" ] || die "kernel image $img missing or unreadable"
	echo "$img"
	;;
esac
