#!/bin/bash
# host-tests.sh - runs the host test binaries, at most JOBS at a time (the
# sanitized binaries are independent: each builds its own fabric, temporary
# files and network namespaces under unique names), each into its own
# LOGS/host-NAME.tap.  A line per binary as it ends (exit status, seconds);
# then, in the order given, each binary's result lines, so the output reads
# as if they had run one after another.  A binary that exits non-zero
# (4 is kselftest's skip) with no "not ok" line gets one.  The seconds go to
# LOGS/host-times.txt and LOGS/../host-times.txt; a later run in the same
# build tree starts the slowest first, so the last to end is a short one.
# Exit status: 0 when every binary exited 0 (or 4).
# Usage: [HOST_TESTS_SLOW="NAME..."] scripts/host-tests.sh LOGS JOBS BINARY...
set -u
logs=$1
jobs=$2
shift 2
mkdir -p "$logs"
hist=$logs/../host-times.txt	# kept across runs: build/, not build/logs/

# one binary: its TAP, then "rc seconds" for the report below
run_one() {
	local t=$1 logs=$2 n s rc
	n=$(basename "$t")
	s=$(date +%s)
	"$t" > "$logs/host-$n.tap" 2>&1
	rc=$?
	echo "$rc $(( $(date +%s) - s ))" > "$logs/host-$n.rc"
	printf '== %s: exit %d, %d s\n' "$n" "$rc" "$(( $(date +%s) - s ))"
}
export -f run_one

# slowest first: by an earlier run's times, else those named in
# HOST_TESTS_SLOW (the Makefile's, in that order), then the rest as given
order() {
	local t d n i
	for t in "$@"; do
		n=$(basename "$t")
		d=$(awk -v n="$n" '$1 == n { print $2 }' "$hist" 2>/dev/null)
		if [ -z "$d" ]; then
			d=0 i=0
			for s in ${HOST_TESTS_SLOW:-}; do
				i=$((i + 1))
				[ "$s" = "$n" ] && d=$((100000 - i))
			done
		fi
		echo "$d $t"
	done | sort -s -k1,1nr | cut -d' ' -f2-
}

start=$(date +%s)
order "$@" | xargs -P "$jobs" -I{} bash -c 'run_one "$1" "$2"' _ {} "$logs"

rc=0
: > "$logs/host-times.txt"
for t in "$@"; do
	n=$(basename "$t")
	echo "== $n"
	grep -E '^(ok|not ok) |^# (PASSED|FAILED)' "$logs/host-$n.tap" | tail -n 400
	read -r st secs < "$logs/host-$n.rc" 2>/dev/null || { st=1 secs=0; }
	[ "$st" -eq 0 ] || [ "$st" -eq 4 ] || rc=1
	# a binary that failed without a failing result (killed, crashed
	# outside a test, no TAP at all) counts as one in the summary
	if [ "$st" -ne 0 ] && [ "$st" -ne 4 ] &&
	   ! grep -q '^not ok ' "$logs/host-$n.tap"; then
		echo "not ok 1 $n: exit status $st without a failing result" \
			"(see $logs/host-$n.tap)" | tee -a "$logs/host-$n.tap"
	fi
	echo "$n $secs" >> "$logs/host-times.txt"
	rm -f "$logs/host-$n.rc"
done
cp "$logs/host-times.txt" "$hist" 2>/dev/null
echo "# host tests: $# binaries, $jobs at a time, $(( $(date +%s) - start )) s"
exit $rc
