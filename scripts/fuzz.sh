#!/bin/bash
# fuzz.sh - runs the libFuzzer targets as TAP: for each, every regression
# input (fuzz/regress/TARGET) must pass, then SECONDS of fuzzing from the
# seed corpus (fuzz/corpus/TARGET, read-only; new inputs go to a scratch
# copy) must find nothing.  Prints executions, their rate and coverage.
# Each target is one single-threaded process: FUZZ_JOBS (1) of them run at
# once, each with its full SECONDS, and their results are printed in the
# order given once all have ended.
# Usage: [FUZZ_JOBS=N] scripts/fuzz.sh DIR SECONDS TARGET...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
secs=$2
shift 2
jobs=${FUZZ_JOBS:-1}
mkdir -p "$dir/crashes"

# one target's results into $dir/$t.results: "R ok|not ok TEXT" lines
# (numbered below) and "C TEXT" comment lines
run_target() {
	local t=$1 bin="$dir/${1}_fuzz" out="$dir/$1.results" reg work st execs rate cov
	: > "$out"
	reg="$top/fuzz/regress/$t"
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
		if "$bin" -runs=0 "$reg"/* > "$dir/$t.regress.log" 2>&1; then
			echo "R ok fuzz $t: $(ls "$reg" | wc -l) regression inputs pass" >> "$out"
		else
			echo "R not ok fuzz $t: a regression input fails ($dir/$t.regress.log)" >> "$out"
			tail -n 20 "$dir/$t.regress.log" | sed 's/^/C /' >> "$out"
		fi
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
		echo "R ok fuzz $t: ${execs:-?} executions in ${secs} s (${rate:-?}/s), coverage ${cov:-?} edges, $(ls "$work" | wc -l) corpus inputs" >> "$out"
	else
		echo "R not ok fuzz $t: found a failure (exit $st); input in $dir/crashes" >> "$out"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$dir/$t.log" |
			head -n 10 | sed 's/^/C /' >> "$out"
	fi
}

for t in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	echo "fuzz: $t, $secs s" >&2
	run_target "$t" &
done
wait

echo "TAP version 13"
n=0
rc=0
for t in "$@"; do
	# a target whose results went missing failed
	[ -s "$dir/$t.results" ] || echo "R not ok fuzz $t: no results" > "$dir/$t.results"
	while IFS= read -r line; do
		case $line in
		"R not ok "*) n=$((n + 1)); echo "not ok $n ${line#R not ok }"; rc=1 ;;
		"R ok "*) n=$((n + 1)); echo "ok $n ${line#R ok }" ;;
		"C "*) echo "# ${line#C }" ;;
		esac
	done < "$dir/$t.results"
done
echo "1..$n"
exit $rc
