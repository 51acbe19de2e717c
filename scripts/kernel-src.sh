#!/bin/sh
# kernel-src.sh - extract the few files the project borrows from Debian's
# linux-source-6.1 (kselftest harness, checkpatch, kernel-doc) into
# build/ksrc; never
# committed, extracted once per build tree.
set -eu
out=${1:-build/ksrc}
tarball=$(ls /usr/src/linux-source-6.1*.tar.xz 2>/dev/null | head -n 1)
if [ -z "$tarball" ]; then
	echo "kernel-src: /usr/src/linux-source-6.1.tar.xz missing; run scripts/deps.sh" >&2
	exit 1
fi
stamp="$out/.extracted"
# re-extract when this script (its file list) or the tarball changed
[ -f "$stamp" ] && [ "$stamp" -nt "$tarball" ] && [ "$stamp" -nt "$0" ] && exit 0
top=$(basename "$tarball" .tar.xz)
mkdir -p "$out"
tar -C "$out" --strip-components=1 -xJf "$tarball" \
	"$top/tools/testing/selftests/kselftest_harness.h" \
	"$top/tools/testing/selftests/kselftest.h" \
	"$top/scripts/checkpatch.pl" \
	"$top/scripts/spelling.txt" \
	"$top/scripts/const_structs.checkpatch" \
	"$top/scripts/kernel-doc"
touch "$stamp"
