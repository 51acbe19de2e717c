#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# check-man.sh - check that every function of the public headers has a
# manual page, and that every page parses.
#
# Usage: check-man.sh [HEADER_DIR [MAN_DIR [UAPI_DIR]]]
#   HEADER_DIR  the directory that holds thverbs/*.h
#               (default lib/libthverbs/include)
#   MAN_DIR     the directory that holds man1/, man3/ ...
#               (default Documentation/man)
#   UAPI_DIR    the directory that holds linux/th_nic.h
#               (default include/uapi)
#
# Prints TAP (https://testanything.org/) on standard output:
#   - one line per function declared in HEADER_DIR/thverbs/*.h: ok when
#     MAN_DIR/man3/<function>.3 exists and, if it is a ".so" stub, the
#     page it names exists too, and (with lexgrog) the page's NAME
#     section names the function;
#   - one line per page in MAN_DIR/man*/ that lexgrog(1) parses (a NAME
#     section of "name, ... \- description"); skipped when lexgrog is not
#     installed (man-db).
# Exits 1 when any test failed, else 0.
#
# How the functions are listed: the headers are run through the C
# preprocessor ("${CC:-cc} -E -I HEADER_DIR -I UAPI_DIR"), which removes
# comments and macros; only the lines that come from HEADER_DIR/thverbs/
# (by the preprocessor's line markers) are kept, joined, split into
# declarations at ';', with brace-enclosed bodies (struct and enum
# definitions) removed; a declaration that is not a typedef and contains
# "identifier (" declares that function.  Without a working compiler the
# same is done on the header text with comments and preprocessor lines
# stripped by awk (good enough for these headers, which declare no
# function through a macro).

hdr=${1:-lib/libthverbs/include}
man=${2:-Documentation/man}
uapi=${3:-include/uapi}
CC=${CC:-cc}

tmp=${TMPDIR:-/tmp}/check-man.$$
trap 'rm -f "$tmp".c "$tmp".i' EXIT INT TERM

if ! ls "$hdr"/thverbs/*.h >/dev/null 2>&1; then
	echo "Bail out! no headers in $hdr/thverbs"
	exit 1
fi

# The preprocessed declarations, as "# N "file"" markers and text.
for h in "$hdr"/thverbs/*.h; do
	echo "#include <thverbs/${h##*/}>"
done >"$tmp".c
if "$CC" -E -I "$hdr" -I "$uapi" "$tmp".c >"$tmp".i 2>/dev/null; then
	:
else
	# No compiler: strip comments and preprocessor lines by hand, and
	# mark the text as coming from thverbs/.
	for h in "$hdr"/thverbs/*.h; do
		echo "# 1 \"thverbs/${h##*/}\""
		awk '
		{
			line = $0; out = ""
			while (line != "") {
				if (incom) {
					i = index(line, "*/")
					if (!i) { line = ""; break }
					line = substr(line, i + 2); incom = 0
				} else {
					i = index(line, "/*")
					if (!i) { out = out line; line = ""; break }
					out = out substr(line, 1, i - 1) " "
					line = substr(line, i + 2); incom = 1
				}
			}
			if (cont) { cont = (out ~ /\\$/); next }
			if (out ~ /^[ \t]*#/) { cont = (out ~ /\\$/); next }
			sub(/\/\/.*/, "", out)
			print out
		}' "$h"
	done >"$tmp".i
fi

fns=$(awk '
/^# [0-9]+ "/ {
	keep = (index($3, "thverbs/") > 0 && index($3, "linux/") == 0)
	next
}
/^[ \t]*#/ { next }		# #pragma and other directives
keep { buf = buf " " $0 }
END {
	n = split(buf, st, ";")
	for (i = 1; i <= n; i++) {
		s = st[i]
		while (match(s, /\{[^{}]*\}/))
			s = substr(s, 1, RSTART - 1) substr(s, RSTART + RLENGTH)
		sub(/.*[{}]/, "", s)
		if (s ~ /(^|[^A-Za-z0-9_])typedef[^A-Za-z0-9_]/)
			continue
		if (match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			f = substr(s, RSTART, RLENGTH)
			sub(/[ \t]*\($/, "", f)
			print f
		}
	}
}' "$tmp".i | sort -u)

pages=
for p in "$man"/man[0-9]*/*.[0-9]*; do
	[ -f "$p" ] && pages="$pages $p"
done

nfn=$(printf '%s\n' "$fns" | grep -c .)
# shellcheck disable=SC2086	# split into one page a line
npg=$(printf '%s\n' $pages | grep -c .)
echo "1..$((nfn + npg))"

have_lexgrog=0
command -v lexgrog >/dev/null 2>&1 && have_lexgrog=1

n=0
fail=0
for f in $fns; do
	n=$((n + 1))
	p=$man/man3/$f.3
	if [ ! -f "$p" ]; then
		echo "not ok $n - $f: no man3/$f.3"
		fail=1
		continue
	fi
	so=$(sed -n 's/^\.so[ \t]\{1,\}\([^ \t]*\).*/\1/p' "$p" | head -n 1)
	if [ -n "$so" ] && [ ! -f "$man/$so" ]; then
		echo "not ok $n - $f: man3/$f.3 is .so $so, which does not exist"
		fail=1
		continue
	fi
	if [ $have_lexgrog = 1 ] &&
	   ! lexgrog "$p" 2>/dev/null | grep -q "\"$f - "; then
		echo "not ok $n - $f: man3/$f.3 does not name $f in NAME"
		fail=1
		continue
	fi
	echo "ok $n - $f: man3/$f.3${so:+ (.so $so)}"
done

for p in $pages; do
	n=$((n + 1))
	rel=${p#"$man"/}
	if [ $have_lexgrog = 0 ]; then
		echo "ok $n - $rel # SKIP lexgrog not installed"
	elif lexgrog "$p" >/dev/null 2>&1; then
		echo "ok $n - $rel: lexgrog parses it"
	else
		echo "not ok $n - $rel: lexgrog cannot parse its NAME section"
		fail=1
	fi
done

exit $fail
