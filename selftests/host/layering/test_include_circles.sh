#!/bin/bash
# test_include_circles.sh - scripts/include-circles on two small trees:
# cycle/ (alpha/one.c calls beta_two(), beta/two.c calls alpha_one(), both
# declared in include/alpha.h: a circle between the files and between the
# folders) and acyclic/ (the same calls one way only; beta/two.c includes
# alpha.h but names nothing alpha/ defines), as TAP.
# Usage: test_include_circles.sh [SCRIPT] (default: ../../../scripts/)
set -u
here=$(cd "$(dirname "$0")" && pwd)
script=${1:-$here/../../../scripts/include-circles}
n=0 fail=0
check() {	# DESCRIPTION EXPECTED ACTUAL
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		printf '# expected:\n%s\n# got:\n%s\n' "$2" "$3" | sed 's/^/# /'
		fail=1
	fi
}
echo "TAP version 13"
echo "1..4"
out=$("$script" -C "$here/cycle" alpha beta); rc=$?
check "cycle: exit 0" 0 "$rc"
check "cycle: the file circle and the folder circle" "files: 1 circles
  alpha/one.c <-> beta/two.c
folders: 1 circles
  alpha <-> beta" "$out"
out=$("$script" -C "$here/acyclic" alpha beta); rc=$?
check "acyclic: exit 0" 0 "$rc"
check "acyclic: no circle" "files: 0 circles
folders: 0 circles" "$out"
exit $fail
