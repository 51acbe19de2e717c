#!/bin/bash
# j-fuzz-old-engine.sh - issue J's check that the engine fuzzer finds what
# issue F fixed: this tree with F's fix of the self-targeted reference
# (commit e8bde96: a remote WRITE_INLINE aimed at its own vport kept a
# reference, so destroying the vport never finished) undone, in a
# temporary worktree, fuzzed within the CI budget (60 s) from the
# committed seed corpus and from an empty one, several runs each.  Prints
# the time and executions to the first failure per run, and libFuzzer's
# report of it.  The engine before F cannot be fuzzed as it was: the
# harness drives re-arming chains and the user's books, which came later;
# undoing the one fix on today's engine isolates the bug instead.
#
# Usage: scripts/measure/j-fuzz-old-engine.sh [RUNS] [SECONDS]
#   RUNS      runs per corpus (default 3), each with its own seed
#   SECONDS   budget per run (default 60, as in CI)
# Results: build/measure/j-fuzz-old-engine.txt
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$here/../.." && pwd)
FIX=e8bde96
RUNS=${1:-3}
SECS=${2:-60}
OUT=$TOP/build/measure
old=$OUT/j-old-engine
res=$OUT/j-fuzz-old-engine.txt

die() {
	echo "j-fuzz-old-engine: $*" >&2
	exit 1
}

mkdir -p "$OUT"
git -C "$TOP" worktree remove -f "$old" >/dev/null 2>&1
rm -rf "$old"
git -C "$TOP" worktree add -f --detach "$old" HEAD >/dev/null ||
	die "cannot make a worktree at $old"
git -C "$TOP" show "$FIX" -- driver/trigger/th_exec.c | patch -s -R -p1 -d "$old" ||
	die "cannot undo $FIX in $old"
echo "== $old: HEAD with $FIX's engine fix undone:"
git -C "$old" diff --stat
make -C "$old" -s "$old/build/fuzz/engine_fuzz" >"$OUT/j-old-engine-build.log" 2>&1 ||
	die "build failed: $OUT/j-old-engine-build.log"

bin=$old/build/fuzz/engine_fuzz
: >"$res"
found=0
total=0
for corpus in seed empty; do
	for run in $(seq 1 "$RUNS"); do
		work=$old/build/fuzz/old-corpus-$corpus-$run
		rm -rf "$work" "$old/build/fuzz/old-crash-$corpus-$run-"*
		mkdir -p "$work"
		[ "$corpus" = seed ] && cp "$TOP"/fuzz/corpus/engine/* "$work"/
		start=$(date +%s.%N)
		"$bin" -seed="$run" -max_total_time="$SECS" -timeout=10 \
			-rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$old/build/fuzz/old-crash-$corpus-$run-" \
			"$work" >"$OUT/j-old-$corpus-$run.log" 2>&1
		st=$?
		took=$(echo "$(date +%s.%N) - $start" | bc)
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
			"$OUT/j-old-$corpus-$run.log")
		what=$(grep -m1 -oE 'ERROR: libFuzzer: [a-z-]+|ERROR: [A-Za-z]+Sanitizer: [a-z-]+|ALARM: working on the last Unit for [0-9]+ seconds' \
			"$OUT/j-old-$corpus-$run.log")
		total=$((total + 1))
		if [ "$st" -ne 0 ]; then
			found=$((found + 1))
			printf '%-5s corpus, run %s: found in %5.1f s after %s executions: %s\n' \
				"$corpus" "$run" "$took" "${execs:-?}" "${what:-exit $st}" | tee -a "$res"
		else
			printf '%-5s corpus, run %s: nothing in %s s (%s executions)\n' \
				"$corpus" "$run" "$SECS" "${execs:-?}" | tee -a "$res"
		fi
	done
done
echo "found in $found of $total runs of at most $SECS s" | tee -a "$res"
# the stack of one finding: where the vport's destruction waits
log=$(grep -l 'ERROR: libFuzzer' "$OUT"/j-old-*.log 2>/dev/null | head -n 1)
[ -n "$log" ] && grep -m 12 -E '^ +#[0-9]+ ' "$log" | sed 's/^/  /' | tee -a "$res"
git -C "$TOP" worktree remove -f "$old" >/dev/null 2>&1
exit 0
