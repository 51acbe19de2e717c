#!/bin/sh
# test-summary.sh - count TAP results in the given logs and print the
# project's summary line: "N passed, N failed, N skipped".
# Top-level TAP lines only ("ok", "not ok", "... # SKIP"); nested lines of
# subtests start with "#" or white space and are not counted twice.
# Exit status: 0 when nothing failed and at least one test ran.
set -eu
pass=0 fail=0 skip=0
for log in "$@"; do
	[ -f "$log" ] || continue
	p=$(grep -cE '^ok [0-9]+' "$log" || true)
	s=$(grep -cE '^ok [0-9]+.*# *SKIP' "$log" || true)
	f=$(grep -cE '^not ok [0-9]+' "$log" || true)
	pass=$((pass + p - s)); skip=$((skip + s)); fail=$((fail + f))
	if [ "$f" -gt 0 ]; then
		echo "FAILED in $log:"
		grep -E '^not ok [0-9]+' "$log" | sed 's/^/  /'
	fi
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
