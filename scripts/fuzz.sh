#!/bin/sh
# fuzz.sh - runs the libFuzzer targets as TAP: for each, every regression
# input (fuzz/regress/TARGET) must pass, then SECONDS of fuzzing from the
# seed corpus (fuzz/corpus/TARGET, read-only; new inputs go to a scratch
# copy) must find nothing.  Prints executions, their rate and coverage.
# Usage: scripts/fuzz.sh DIR SECONDS TARGET...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
secs=$2
shift 2
n=0
rc=0
echo "TAP version 13"
mkdir -p "$dir/crashes"
for t in "$@"; do
	bin="$dir/${t}_fuzz"
	n=$((n + 1))
	reg="$top/fuzz/regress/$t"
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
		if "$bin" -runs=0 "$reg"/* > "$dir/$t.regress.log" 2>&1; then
			echo "ok $n fuzz $t: $(ls "$reg" | wc -l) regression inputs pass"
		else
			echo "not ok $n fuzz $t: a regression input fails ($dir/$t.regress.log)"
			tail -n 20 "$dir/$t.regress.log" | sed 's/^/# /'
			rc=1
		fi
		n=$((n + 1))
	fi
	work="$dir/corpus-$t"
	rm -rf "$work" && mkdir -p "$work"
	[ -d "$top/fuzz/corpus/$t" ] && cp "$top/fuzz/corpus/$t"/* "$work"/ 2>/dev/null
	"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$dir/crashes/$t-" \
		"$work" > "$dir/$t.log" 2>&1
	st=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$t.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/$t.log")
	cov=$(grep -o 'cov: [0-9]*' "$dir/$t.log" | tail -n 1 | cut -d' ' -f2)
	if [ "$st" -eq 0 ]; then
		echo "ok $n fuzz $t: ${execs:-?} executions in ${secs} s (${rate:-?}/s), coverage ${cov:-?} edges, $(ls "$work" | wc -l) corpus inputs"
	else
		echo "not ok $n fuzz $t: found a failure (exit $st); input in $dir/crashes"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$dir/$t.log" | head -n 10 | sed 's/^/# /'
		rc=1
	fi
done
echo "1..$n"
exit $rc
