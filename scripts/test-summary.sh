#!/bin/sh
# test-summary.sh - count TAP results in the given logs and print the
# project's summary line: "N passed, N failed, N skipped".
# Top-level TAP lines only ("ok", "not ok", "... # SKIP"); nested lines of
# subtests start with "#" or white space and are not counted twice.
# Each failure is listed with the diagnostic ("# ") lines its test printed
# (at most SUMMARY_DIAG of them, default 12): CI keeps only the tail of a
# run's output, and a failure seen once must be readable there.
# Exit status: 0 when nothing failed and at least one test ran.
set -eu
pass=0 fail=0 skip=0
diag=${SUMMARY_DIAG:-12}
for log in "$@"; do
	[ -f "$log" ] || continue
	p=$(grep -cE '^ok [0-9]+' "$log" || true)
	s=$(grep -cE '^ok [0-9]+.*# *SKIP' "$log" || true)
	f=$(grep -cE '^not ok [0-9]+' "$log" || true)
	pass=$((pass + p - s)); skip=$((skip + s)); fail=$((fail + f))
	[ "$f" -gt 0 ] || continue
	echo "FAILED in $log:"
	# a kselftest prints its diagnostics before its result line, the
	# VM runner after it: both are shown, the harness lines are not
	awk -v max="$diag" '
		function flush(   i, from) {
			from = n > max ? n - max + 1 : 1
			if (n > max)
				print "      # ... " n - max " lines before"
			for (i = from; i <= n; i++)
				print "      " buf[i]
		}
		/^# +(OK|FAIL|XFAIL|SKIP) / { next }
		/^# (running |Starting |PASSED:|FAILED:|Totals:)/ { next }
		/^# [^ ]+ took [0-9]+ s$/ { next }
		/^#  RUN / { n = 0; after = 0; next }
		/^not ok [0-9]+/ {
			print "  " $0; flush(); n = 0; after = max; next
		}
		/^ok [0-9]+/ { n = 0; after = 0; next }
		/^#/ {
			if (after-- > 0)
				print "      " $0
			else
				buf[++n] = $0
		}
	' "$log"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
