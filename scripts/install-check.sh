#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# install-check.sh - make install and make uninstall into a staging DESTDIR,
# as TAP: what lands where (Documentation/install.rst), that the installed
# tools carry no build-tree RUNPATH, that libthverbs.pc is valid, and that
# uninstall takes back everything install put there.
#
# Usage: scripts/install-check.sh STAGING_DIR   (from the top of the tree)
set -u
stage=$1
n=0 fail=0
tap() {	# tap STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
vars="PREFIX=/usr LIBDIR=/usr/lib/th-test INCLUDEDIR=/usr/include BINDIR=/usr/bin MANDIR=/usr/share/man"
rm -rf "$stage"
# shellcheck disable=SC2086
make -s install $vars DESTDIR="$stage" > "$stage.log" 2>&1
tap $? "make install DESTDIR=... $vars"
missing=""
for f in usr/lib/th-test/libthverbs.so.1 usr/lib/th-test/libthverbs.so \
	 usr/lib/th-test/libthverbs.a usr/lib/th-test/pkgconfig/libthverbs.pc \
	 usr/include/thverbs/verbs.h usr/include/thverbs/api.h \
	 usr/include/thverbs/uapi/linux/th_nic.h usr/bin/thctl usr/bin/thbench \
	 usr/bin/thrun usr/share/man/man3/th_vport_create.3 \
	 usr/share/man/man4/th_nic.4 usr/share/man/man7/thverbs.7; do
	[ -e "$stage/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] || echo "# missing:$missing"
tap "$([ -z "$missing" ]; echo $?)" "the library, headers, ABI headers, .pc, tools and man pages are installed"
pages=$(find Documentation/man -name '*.[1-9]' | wc -l)
inst=$(find "$stage/usr/share/man" -type f | wc -l)
echo "# $pages pages in Documentation/man, $inst installed"
tap "$([ "$pages" = "$inst" ]; echo $?)" "every manual page is installed"
readelf -d "$stage/usr/bin/thctl" | grep -q -E 'RUNPATH|RPATH'
tap "$((!$?))" "the installed thctl has no RUNPATH into the build tree"
if [ -e build/lib/libthmpi.so ]; then
	[ -e "$stage/usr/lib/th-test/libthmpi.so.1" ] &&
		! readelf -d "$stage/usr/lib/th-test/libthmpi.so.1" | grep -q -E 'RUNPATH|RPATH'
	tap $? "libthmpi is installed, without a RUNPATH into the build tree"
fi
PKG_CONFIG_PATH=$stage/usr/lib/th-test/pkgconfig pkg-config --validate libthverbs
tap $? "pkg-config --validate libthverbs"
v=$(PKG_CONFIG_PATH=$stage/usr/lib/th-test/pkgconfig pkg-config --modversion libthverbs)
tap "$([ "$v" = "$(cat VERSION)" ]; echo $?)" "pkg-config --modversion is VERSION ($v)"
# shellcheck disable=SC2086
make -s uninstall $vars DESTDIR="$stage" >> "$stage.log" 2>&1
left=$(find "$stage" -type f -o -type l)
[ -z "$left" ] || echo "$left" | sed 's/^/# left: /'
tap "$([ -z "$left" ]; echo $?)" "make uninstall removes every file install put there"
rm -rf "$stage" "$stage.log"
echo "1..$n"
exit $fail
