#!/bin/bash
# test_include_paths.sh - each folder of libthverbs compiles with the
# include paths it is allowed (libthverbs.mk): a file of one folder that
# includes another's private header fails to build, with the header named
# as not found; the headers a folder may use are found.  The flags are the
# build's own (`make -n -B` for an object of the folder); the file is
# compiled from stdin in an empty directory, so only the -I paths count.
# And the public headers' compatibility: thverbs/verbs.h alone still
# declares the collectives and the bootstrap, as before thverbs/coll.h.
# TAP.  Usage: test_include_paths.sh [TOP] (default: ../../../)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "${1:-$here/../../..}" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

# the compile command of one object of FOLDER, its output and source cut
flags_of() {
	local f=$1 src obj line
	for src in "$top"/lib/libthverbs/"$f"/*.c; do break; done
	src=${src#"$top"/}
	obj=$top/build/obj/${src%.c}.o
	line=$(make -s -C "$top" -n -B "$obj" 2>/dev/null | grep -F -- " -o $obj ")
	[ -n "$line" ] || { echo "# no build command for $obj" >&2; return 1; }
	line=${line/ -MMD -MP -c -o $obj $top\/$src/}
	echo "$line"
}

# FOLDER HEADER yes|no: does a file of FOLDER find HEADER?
check() {
	local f=$1 h=$2 want=$3 cmd out rc
	n=$((n + 1))
	cmd=$(flags_of "$f") || { echo "not ok $n $f: no flags"; fail=1; return; }
	out=$(cd "$tmp" && printf '#include "%s"\nint th_x;\n' "$h" |
	      eval "$cmd -fsyntax-only -x c -" 2>&1)
	rc=$?
	if [ "$want" = yes ] && [ $rc -eq 0 ]; then
		echo "ok $n $f/ may include $h"
	elif [ "$want" = no ] && [ $rc -ne 0 ] &&
	     grep -q "$h: No such file or directory" <<< "$out"; then
		echo "ok $n $f/ cannot include $h"
	else
		echo "not ok $n $f/ $h: wanted $want, exit $rc"
		sed 's/^/# /' <<< "$out" | head -n 5
		fail=1
	fi
}

# DESCRIPTION yes|no CPPFLAGS...: does a program that includes only
# thverbs/verbs.h (as programs did before thverbs/coll.h) still build with
# the collectives, the trees and the bootstrap?
compat() {
	local what=$1 want=$2 out rc
	shift 2
	n=$((n + 1))
	out=$(cd "$tmp" && printf '%s\n' '#include <thverbs/verbs.h>' \
		'void *f(void) { (void)th_tree_depth(4, 2); (void)th_boot_init;' \
		'return (void *)th_coll_create; }' |
	      ${CC:-cc} -I"$top/include/uapi" -I"$top/lib/libthverbs/include" \
		-Wall -Werror "$@" -fsyntax-only -x c - 2>&1)
	rc=$?
	if { [ "$want" = yes ] && [ $rc -eq 0 ]; } ||
	   { [ "$want" = no ] && [ $rc -ne 0 ] &&
	     grep -q "th_tree_depth" <<< "$out"; }; then
		echo "ok $n $what"
	else
		echo "not ok $n $what: wanted $want, exit $rc"
		sed 's/^/# /' <<< "$out" | head -n 5
		fail=1
	fi
}

echo "TAP version 13"
echo "1..27"
check coll thverbs_priv.h yes
check coll inproc.h no
check coll providers/inproc/inproc.h no
check coll ofi.h no
check coll boot_priv.h no
check coll sched_priv.h no
check boot thverbs_priv.h yes
check boot inproc.h no
check boot ofi.h no
check verbs inproc.h no
check coll place_priv.h no
check sched place_priv.h no
check place inproc.h no
check place plan.h yes
check sched thverbs_priv.h no
check sched inproc.h no
check verify thverbs_priv.h no
check verify inproc.h no
check verify plan.h no
check providers/kernel thverbs_priv.h yes
check providers/kernel inproc.h no
check providers/inproc ofi.h no
check providers/ofi inproc.h yes
check providers/ofi boot_priv.h yes
compat "thverbs/verbs.h alone declares the collectives and the bootstrap" yes
compat "THVERBS_VERBS_ONLY: thverbs/verbs.h without them" no -DTHVERBS_VERBS_ONLY
n=$((n + 1))
if printf '#include <thverbs/thverbs.h>\nvoid *g(void) { return (void *)th_place_run; }\n' |
   ${CC:-cc} -I"$top/include/uapi" -I"$top/lib/libthverbs/include" -Wall -Werror \
	-DTHVERBS_VERBS_ONLY -fsyntax-only -x c - 2>/dev/null; then
	echo "ok $n thverbs/thverbs.h declares everything"
else
	echo "not ok $n thverbs/thverbs.h declares everything"
	fail=1
fi
exit $fail
