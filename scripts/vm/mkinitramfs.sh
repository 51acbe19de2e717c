#!/bin/sh
# mkinitramfs.sh - build the VM-test initramfs: busybox-static, /init
# (scripts/vm/init), the module as /th_nic.ko and the payload directory as
# /payload, plus the shared libraries of every dynamically linked ELF in it.
#
# Usage: mkinitramfs.sh MODULE PAYLOAD_DIR OUT.cpio.gz
# Environment: BUSYBOX (default /bin/busybox, from busybox-static).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
busybox=${BUSYBOX:-/bin/busybox}

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

[ $# -eq 3 ] || die "usage: $0 MODULE PAYLOAD_DIR OUT.cpio.gz"
module=$1
payload=$2
out=$3

[ -f "$module" ] || die "module $module missing (make module)"
[ -d "$payload" ] || die "payload directory $payload missing (make vm-payload)"
[ -f "$payload/run.sh" ] || die "$payload/run.sh missing"
[ -x "$busybox" ] || die "$busybox missing: install busybox-static (scripts/deps.sh vm)"
if ! "$busybox" 2>&1 | head -n 1 | grep -q BusyBox; then
	die "$busybox is not busybox"
fi
# A dynamically linked busybox would need libraries the image lacks.
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked; install busybox-static"
fi
for tool in cpio gzip ldd; do
	command -v "$tool" >/dev/null || die "$tool missing (scripts/deps.sh vm)"
done

root=${out%.cpio.gz}.root
rm -rf "$root"
mkdir -p "$root/bin" "$root/sbin" "$root/dev" "$root/proc" "$root/sys" \
	"$root/tmp" "$root/root" "$root/etc" "$root/usr/bin" "$root/usr/sbin"

cp "$busybox" "$root/bin/busybox"
cp "$here/init" "$root/init"
chmod 755 "$root/init" "$root/bin/busybox"
cp "$module" "$root/th_nic.ko"
cp -a "$payload" "$root/payload"
chmod +x "$root/payload/run.sh"
# root, and the unprivileged users the tests run as (selftests/th_nic)
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
thtest:x:65533:65533:th_nic tests:/tmp:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
thtest:x:65533:
nogroup:x:65534:
EOF

# is_elf FILE: true when FILE starts with the ELF magic.
is_elf() {
	[ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' \n')" = '177ELF' ]
}

# Copy the shared libraries (and the dynamic loader) of each dynamically
# linked ELF into the image at the same absolute path, so binaries run
# unchanged.  ldd fails on static binaries: nothing to copy then.
nlibs=0
ndyn=0
libs=$root.libs
find "$root/payload" -type f | while read -r f; do
	is_elf "$f" || continue
	ldd "$f" 2>/dev/null | sed -n \
		-e 's/^[[:space:]]*[^[:space:]]* => \(\/[^[:space:]]*\) (0x[0-9a-f]*)$/\1/p' \
		-e 's/^[[:space:]]*\(\/[^[:space:]]*\) (0x[0-9a-f]*)$/\1/p' |
		sed "s|^|$f	|"
	if ldd "$f" 2>&1 | grep -q ' => not found'; then
		echo "mkinitramfs: warning: ${f#"$root"/}: library not found:" >&2
		ldd "$f" 2>&1 | grep ' => not found' >&2
	fi
done >"$libs"
if [ -s "$libs" ]; then
	ndyn=$(cut -f 1 "$libs" | sort -u | wc -l)
	nlibs=$(cut -f 2 "$libs" | sort -u | wc -l)
	cut -f 2 "$libs" | sort -u | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
fi
rm -f "$libs"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) |
	gzip -6 >"$out.tmp"
mv "$out.tmp" "$out"
size=$(du -k "$out" | cut -f 1)
echo "vm: initramfs $out (${size} KiB; payload $(find "$root/payload" -type f | wc -l) files," \
	"$ndyn dynamic ELF, $nlibs shared libraries copied)"
