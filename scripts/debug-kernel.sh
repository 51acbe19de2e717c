#!/bin/sh
# debug-kernel.sh - build (once) the debug kernel of `make vmtest-debug`:
# Debian's linux-source-6.1, x86_64 tinyconfig plus scripts/vm/debug.config
# (KASAN, lockdep, atomic-sleep checks, kmemleak, UBSAN, fault injection).
# The build is cached under $TH_CACHE (default /var/cache/th_nic), keyed by
# its inputs: the source tarball, the config fragment and this script; a
# changed input builds a new one.  Prints the build directory (KDIR; its
# arch/x86/boot/bzImage is the image), or fails.
# Usage: scripts/debug-kernel.sh [--print-only]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
frag="$top/scripts/vm/debug.config"
tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "debug-kernel: linux-source-6.1 missing (scripts/deps.sh)" >&2; exit 1; }
key=$( { ls -l --time-style=+%s "$tarball"; cat "$frag" "$0"; } | sha256sum | cut -c1-16)
cache=${TH_CACHE:-/var/cache/th_nic}
dir="$cache/debug-kernel-$key"
if [ -f "$dir/.built" ]; then
	echo "$dir"
	exit 0
fi
[ "${1:-}" = --print-only ] && { echo "$dir"; exit 1; }
mkdir -p "$cache"
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
log="$cache/debug-kernel-$key.log"
start=$(date +%s)
echo "debug-kernel: building $dir (log $log)" >&2
{
	tar -C "$dir.tmp" --strip-components=1 -xJf "$tarball"
	cd "$dir.tmp"
	make -s ARCH=x86_64 tinyconfig
	scripts/kconfig/merge_config.sh -m .config "$frag"
	make -s ARCH=x86_64 olddefconfig
	# every option of the fragment must have taken: a silent drop (a
	# dependency missing) would leave a checker out
	missing=""
	while IFS= read -r line; do
		case $line in CONFIG_*=y) grep -qx "$line" .config || missing="$missing ${line%=y}" ;; esac
	done < "$frag"
	if [ -n "$missing" ]; then
		echo "debug-kernel: options not set:$missing" >&2
		exit 1
	fi
	make -s -j"$(nproc)" ARCH=x86_64 bzImage modules_prepare
} > "$log" 2>&1 || { echo "debug-kernel: build failed; see $log" >&2; tail -n 20 "$log" >&2; exit 1; }
rm -rf "$dir"
mv "$dir.tmp" "$dir"
echo "$(( $(date +%s) - start ))" > "$dir/.build-seconds"
touch "$dir/.built"
echo "debug-kernel: built in $(cat "$dir/.build-seconds") s" >&2
echo "$dir"
