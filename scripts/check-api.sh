#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# check-api.sh - the public line of libthverbs, as TAP: the functions the
# shared library exports, the functions its public headers declare and the
# names its version script lists must be one list, each under a symbol
# version, and the Debian symbols file must list them at those versions.
# That each has a manual page is Documentation/man/check-man.sh's.
#
# Usage: scripts/check-api.sh LIBRARY.so HEADER_DIR MAP
#
# The declared functions come from the compiler itself (gcc -aux-info over a
# file including every public header), not from a pattern over the text.
set -u
lib=$1 hdrdir=$2 map=$3
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
tap() {	# tap OK DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

for h in "$hdrdir"/thverbs/*.h; do
	echo "#include <thverbs/$(basename "$h")>"
done > "$tmp/all.c"
${CC:-gcc} -I"$hdrdir" -I"$top/include/uapi" -fsyntax-only \
	-aux-info "$tmp/aux" "$tmp/all.c" 2>"$tmp/cc.err"
tap $? "the public headers compile on their own"
if command -v "${CXX:-g++}" > /dev/null; then
	# C++ programs get C linkage (TH_API_BEGIN in thverbs/api.h)
	{ cat "$tmp/all.c"; echo 'const char *f(); const char *f() { return th_strerror(0); }'; } > "$tmp/all.cc"
	${CXX:-g++} -I"$hdrdir" -I"$top/include/uapi" -Wall -Wextra -c \
		-o "$tmp/all.o" "$tmp/all.cc" 2>"$tmp/cxx.err" &&
		nm "$tmp/all.o" | grep -qw 'U th_strerror'
	tap $? "the public headers compile as C++ with C linkage"
fi
grep "$hdrdir/thverbs/" "$tmp/aux" | grep -oE '\bth_[a-z0-9_]+ \(' |
	tr -d ' (' | sort -u > "$tmp/declared"
nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' |
	sed 's/@.*//' | sort -u > "$tmp/exported"
nm -D --defined-only "$lib" | awk '$2 != "A" && $2 != "T" { print $3 }' > "$tmp/other"
sed -n 's/^[[:space:]]*\(th_[a-z0-9_]*\);$/\1/p' "$map" | sort -u > "$tmp/listed"

echo "# $(wc -l < "$tmp/declared") declared, $(wc -l < "$tmp/exported") exported, $(wc -l < "$tmp/listed") listed"
comm -3 "$tmp/declared" "$tmp/exported" > "$tmp/d"
sed 's/^/#   /' "$tmp/d"
tap "$(test -s "$tmp/d"; echo $((!$?)))" "exported functions = declared functions"
comm -3 "$tmp/declared" "$tmp/listed" > "$tmp/d"
sed 's/^/#   /' "$tmp/d"
tap "$(test -s "$tmp/d"; echo $((!$?)))" "the version script lists exactly the declared functions"
sed 's/^/#   /' "$tmp/other"
tap "$(test -s "$tmp/other"; echo $((!$?)))" "no exported data or other symbols"
nm -D --defined-only --with-symbol-versions "$lib" 2>/dev/null |
	awk '$2 == "T" && $3 !~ /@@THVERBS_/' > "$tmp/d"
sed 's/^/#   /' "$tmp/d"
tap "$(test -s "$tmp/d"; echo $((!$?)))" "every exported function carries a THVERBS_ version"
# the Debian package's symbols file (dpkg-gensymbols, lintian): each export
# at its version, beside the library, before the package build finds it
symbols=$top/debian/libthverbs1.symbols
if [ -f "$symbols" ]; then
	nm -D --defined-only --with-symbol-versions "$lib" 2>/dev/null |
		awk '$2 == "T" { sub(/@@/, "@", $3); print $3 }' | sort -u > "$tmp/versioned"
	sed -n 's/^ \(th_[a-z0-9_]*@THVERBS_[0-9.]*\) .*/\1/p' "$symbols" | sort -u > "$tmp/packaged"
	comm -3 "$tmp/versioned" "$tmp/packaged" > "$tmp/d"
	sed 's/^/#   /' "$tmp/d"
	tap "$(test -s "$tmp/d"; echo $((!$?)))" "debian/libthverbs1.symbols lists exactly the exports, at their versions"
fi
echo "1..$n"
exit $fail
