#!/bin/bash
# j-fuzz-old-engine.sh - issue J's check that today's engine fuzzer
# (fuzz/engine_fuzz.c) finds, within CI's budget, the bug commit e8bde96
# fixed: on the engine before it, a remote WRITE_INLINE aimed at its own
# vport took a vport reference and never dropped it, so destroying that
# vport waited forever.
#
# The engine has been restructured since, so the fix is not undone on
# today's tree; the fuzzer is ported to the old one instead.  In a
# temporary worktree of e8bde96^ (build/measure/j-old-engine): today's
# fuzz/engine_fuzz.c, patched by j-old-engine-fuzz.patch (beside this
# script) to that tree's th_test helpers and in-process fabric, built with
# clang's libFuzzer, ASan and UBSan as fuzz/fuzz.mk builds it (that tree
# has no fuzz.mk: the same flags, and the engine and fabric sources and
# CPPFLAGS that tree's Makefile names).  Then, as scripts/fuzz.sh runs it
# in CI (-timeout=10 -rss_limit_mb=2048), RUNS runs of SECONDS each
# (-seed=1..RUNS) from the committed seed corpus (today's
# fuzz/corpus/engine, copied) and RUNS from an empty corpus.  Per run:
# found or not, the seconds and executions until the failing input
# started, the executions per second, the kind of failure (libFuzzer
# timeout, sanitizer report, abort from the harness's invariant checks)
# and the input.  Each input found is replayed on a trace build of the old
# tree (which names any chain with a remote WRITE_INLINE aimed at its own
# vport) and on the fixed engine.  One stack excerpt shows where the
# failing input waits.  Control: the same ported fuzzer on e8bde96 itself
# (worktree build/measure/j-fix-engine), once for SECONDS from the seed
# corpus, expected to find nothing.  Both worktrees are removed at the
# end; logs and found inputs stay in build/measure/j-fuzz-old-engine.logs.
# No input is hard-coded or seeded: the fuzzer starts from the committed
# seed corpus or from nothing.
#
# Usage: scripts/measure/j-fuzz-old-engine.sh [RUNS] [SECONDS]
#   RUNS      runs per corpus on the old engine (default 3), -seed=1..RUNS
#   SECONDS   budget per run (default 60, as in CI)
# Results: build/measure/j-fuzz-old-engine.txt (what is printed)
# Exit: 0 every run on the old engine found a failure and the control found
#       none; 3 otherwise (the table says which); 1 it could not set up.
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$here/../.." && pwd)
FIX=e8bde96
RUNS=${1:-3}
SECS=${2:-60}
TIMEOUT=10			# scripts/fuzz.sh's -timeout and -rss_limit_mb
RSS=2048
OUT=$TOP/build/measure
old=$OUT/j-old-engine
fixed=$OUT/j-fix-engine
logs=$OUT/j-fuzz-old-engine.logs
res=$OUT/j-fuzz-old-engine.txt
patchfile=$here/j-old-engine-fuzz.patch
seeds=$TOP/fuzz/corpus/engine
CC=${FUZZ_CC:-clang}

die() {
	echo "j-fuzz-old-engine: $*" >&2
	exit 1
}

say() {
	printf '%s\n' "$*" | tee -a "$res"
}

drop_tree() {
	git -C "$TOP" worktree remove -f "$1" >/dev/null 2>&1
	rm -rf "$1"
	git -C "$TOP" worktree prune
}

cleanup() {
	drop_tree "$old"
	drop_tree "$fixed"
}

case "$RUNS$SECS" in
*[!0-9]*) die "usage: $0 [RUNS] [SECONDS] (whole numbers)" ;;
esac
[ "$RUNS" -ge 1 ] && [ "$SECS" -ge 1 ] || die "RUNS and SECONDS must be at least 1"
[ -f "$patchfile" ] || die "no $patchfile"
[ -d "$seeds" ] || die "no seed corpus $seeds"
oldrev=$(git -C "$TOP" rev-parse --verify -q "$FIX^") || die "no commit $FIX^"
fixrev=$(git -C "$TOP" rev-parse --verify -q "$FIX") || die "no commit $FIX"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
	"$CC" -x c -fsanitize=fuzzer,address,undefined -o /dev/null - 2>/dev/null ||
	die "$CC cannot link libFuzzer (apt-get install -y libclang-rt-14-dev)"

trap cleanup EXIT
trap 'exit 130' INT TERM

# A worktree of @rev at @dir with today's fuzzer, ported, built as
# fuzz/fuzz.mk builds it: $dir/build/j-fuzz/engine_fuzz, and engine_fuzz_trace
# (-DJ_TRACE) beside it.
make_tree() {
	local rev=$1 dir=$2 blog=$3 vars engine ipf cpp flags s o objs=
	local bdir=$dir/build/j-fuzz

	drop_tree "$dir"
	git -C "$TOP" worktree add -f --detach "$dir" "$rev" >/dev/null 2>&1 ||
		die "cannot make a worktree of $rev at $dir"
	mkdir -p "$dir/fuzz" "$bdir/obj"
	cp "$TOP/fuzz/engine_fuzz.c" "$dir/fuzz/engine_fuzz.c"
	patch -s -p1 -d "$dir" <"$patchfile" >"$blog" 2>&1 ||
		die "$patchfile does not apply to $rev ($blog)"
	# that tree's own source lists and include paths, from its Makefile
	vars=$(make -s --no-print-directory -C "$dir" \
		--eval 'j-vars: ; @printf "%s\n" "$(ENGINE_SRCS)" "$(IPF_SRCS)" "$(CPPFLAGS)"' \
		j-vars 2>>"$blog") || die "cannot read $dir/Makefile's source lists ($blog)"
	engine=$(sed -n 1p <<<"$vars")
	ipf=$(sed -n 2p <<<"$vars")
	cpp=$(sed -n 3p <<<"$vars")
	[ -n "$engine" ] && [ -n "$ipf" ] || die "$rev: no ENGINE_SRCS or IPF_SRCS"
	# fuzz/fuzz.mk's FUZZ_FLAGS
	flags="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all
	       -fno-omit-frame-pointer -pthread $cpp
	       -I$dir/selftests/host/lib -I$dir/selftests/common -w"
	for s in $engine $ipf selftests/host/lib/th_test.c; do
		o=$bdir/obj/${s%.c}.o
		mkdir -p "$(dirname "$o")"
		echo "$CC ... -fsanitize=fuzzer-no-link -c $s" >>"$blog"
		# shellcheck disable=SC2086
		$CC $flags -fsanitize=fuzzer-no-link -c -o "$o" "$dir/$s" >>"$blog" 2>&1 ||
			die "$rev: $s does not build ($blog)"
		objs="$objs $o"
	done
	echo "$CC ... -fsanitize=fuzzer fuzz/engine_fuzz.c (and -DJ_TRACE)" >>"$blog"
	# shellcheck disable=SC2086
	$CC $flags -fsanitize=fuzzer -o "$bdir/engine_fuzz" "$dir/fuzz/engine_fuzz.c" \
		$objs -lm >>"$blog" 2>&1 &&
		$CC $flags -DJ_TRACE -fsanitize=fuzzer -o "$bdir/engine_fuzz_trace" \
			"$dir/fuzz/engine_fuzz.c" $objs -lm >>"$blog" 2>&1 ||
		die "$rev: the ported fuzzer does not build ($blog)"
}

# What a libFuzzer log says failed.
failure_kind() {
	local log=$1 st=$2 san

	san=$(grep -m1 -oE 'ERROR: (Address|Leak|UndefinedBehavior|Memory|Thread)Sanitizer: [A-Za-z-]+|runtime error: .*' "$log")
	if grep -q 'ERROR: libFuzzer: timeout' "$log"; then
		echo "libFuzzer timeout (one input ran $(grep -m1 -oE 'timeout after [0-9]+' "$log" | grep -oE '[0-9]+$') s)"
	elif [ -n "$san" ]; then
		echo "sanitizer report: $san"
	elif grep -q 'ERROR: libFuzzer: deadly signal' "$log"; then
		if grep -qE '#[0-9]+ .* in (abort|__GI_abort)' "$log"; then
			echo "abort (a harness invariant: $(grep -m1 -oE 'in fz_[a-z_]+' "$log" | cut -d' ' -f2))"
		else
			echo "deadly signal"
		fi
	elif grep -q 'ERROR: libFuzzer: out-of-memory' "$log"; then
		echo "out of memory (rss > $RSS MB)"
	else
		echo "exit $st"
	fi
}

nfound=0
nold=0
seen_found=
found_inputs=()

# One fuzzing run: @bin, named @name, from corpus @corpus (seed|empty), -seed=@seed.
fuzz_run() {
	local bin=$1 name=$2 corpus=$3 seed=$4 label=$5
	local work=$6/build/j-fuzz/corpus-$name log=$logs/$name.log
	local start end st wall execs hung at rate kind input art

	rm -rf "$work" "$logs/$name"-*
	mkdir -p "$work"
	[ "$corpus" = seed ] && cp "$seeds"/* "$work"/
	start=$(date +%s.%N)
	"$bin" -seed="$seed" -max_total_time="$SECS" -timeout="$TIMEOUT" \
		-rss_limit_mb="$RSS" -print_final_stats=1 \
		-artifact_prefix="$logs/$name-" "$work" >"$log" 2>&1
	st=$?
	end=$(date +%s.%N)
	wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	[ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')
	execs=${execs:-0}
	if [ "$st" -eq 0 ]; then
		rate=$(awk -v e="$execs" -v t="$wall" 'BEGIN { printf "%.0f", (t > 0 ? e / t : 0) }')
		printf '%-12s %-5s %4s  %-7s %7s %7s %9s %7s  %s\n' "$label" "$corpus" \
			"$seed" "nothing" "-" "$wall" "$execs" "$rate" "-" | tee -a "$res"
		return 1
	fi
	kind=$(failure_kind "$log" "$st")
	# a timeout is reported N seconds after its input started
	hung=$(grep -m1 -oE 'timeout after [0-9]+ seconds' "$log" | grep -oE '[0-9]+')
	at=$(awk -v w="$wall" -v h="${hung:-0}" 'BEGIN { printf "%.1f", w - h }')
	rate=$(awk -v e="$execs" -v t="$at" 'BEGIN { printf "%.0f", (t > 0 ? e / t : 0) }')
	art=$(sed -n 's/.*Test unit written to \([^ ]*\).*/\1/p' "$log" | head -n 1)
	input="-"
	[ -n "$art" ] && [ -f "$art" ] &&
		input="$(stat -c %s "$art") bytes: $(od -An -tx1 -v -N 48 "$art" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')$([ "$(stat -c %s "$art")" -gt 48 ] && echo ' ...')"
	printf '%-12s %-5s %4s  %-7s %7s %7s %9s %7s  %s\n' "$label" "$corpus" \
		"$seed" "FOUND" "$at" "$wall" "$execs" "$rate" "$kind" | tee -a "$res"
	say "      input $input"
	[ -n "$art" ] && found_inputs+=("$art")
	[ -n "$seen_found" ] || seen_found=$log
	return 0
}

header() {
	printf '%-12s %-5s %4s  %-7s %7s %7s %9s %7s  %s\n' "engine" "corpus" \
		"seed" "result" "at s" "wall s" "execs" "exec/s" "failure" | tee -a "$res"
}

rm -rf "$logs"
mkdir -p "$OUT" "$logs"
: >"$res"
say "== j-fuzz-old-engine: $(date -u '+%F %T UTC'), $RUNS run(s) x $SECS s per corpus"
say "   old engine: $FIX^ = $(git -C "$TOP" log -1 --format='%h %s' "$oldrev" | cut -c1-90)"
say "   control:    $FIX  = $(git -C "$TOP" log -1 --format='%h %s' "$fixrev" | cut -c1-90)"
say "   fuzzer: $(git -C "$TOP" log -1 --format=%h HEAD):fuzz/engine_fuzz.c + $(basename "$patchfile"); $($CC --version | head -n 1)"
say "   machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
say "   flags: -max_total_time=$SECS -timeout=$TIMEOUT -rss_limit_mb=$RSS -seed=N, as scripts/fuzz.sh"

say "== building the ported fuzzer on $FIX^ and on $FIX"
make_tree "$oldrev" "$old" "$logs/build-old.log"
make_tree "$fixrev" "$fixed" "$logs/build-fix.log"
say "   built: $old/build/j-fuzz/engine_fuzz, $fixed/build/j-fuzz/engine_fuzz"

say "== the old engine ($FIX^): 'at s' is when the failing input started (a"
say "   timeout is reported $TIMEOUT+ s later, at 'wall s'); exec/s is up to then"
header
for corpus in seed empty; do
	for run in $(seq 1 "$RUNS"); do
		nold=$((nold + 1))
		fuzz_run "$old/build/j-fuzz/engine_fuzz" "old-$corpus-$run" "$corpus" \
			"$run" "old $FIX^" "$old" && nfound=$((nfound + 1))
	done
done
say "found in $nfound of $nold runs of at most $SECS s"

if [ -n "$seen_found" ]; then
	say "== where it waits ($(basename "$seen_found")): the stack libFuzzer printed"
	grep -E '^ +#[0-9]+ ' "$seen_found" |
		grep -E 'pthread_cond|th_ipf|th_eng|fz_|LLVMFuzzerTestOneInput|abort' |
		sed -E 's/ \(BuildId: [0-9a-f]+\)//; s#'"$old"'/##; s/^ +/   /' | head -n 12 | tee -a "$res"
fi

ctl_ok=1
if [ "${#found_inputs[@]}" -gt 0 ]; then
	say "== each input found, replayed: on a trace build of $FIX^ (-timeout=5), then on $FIX"
	for art in "${found_inputs[@]}"; do
		say "   $(basename "$art"):"
		timeout 120 "$old/build/j-fuzz/engine_fuzz_trace" -runs=0 -timeout=5 \
			"$art" >"$art.trace.log" 2>&1
		st=$?
		grep -m 4 '^j-trace:' "$art.trace.log" | sed 's/^/     /' | tee -a "$res"
		grep -q '^j-trace:' "$art.trace.log" ||
			say "     (no chain with a remote WRITE_INLINE to its own vport)"
		say "     $FIX^: $([ "$st" -eq 0 ] && echo passes || failure_kind "$art.trace.log" "$st")"
		timeout 120 "$fixed/build/j-fuzz/engine_fuzz" -runs=0 -timeout="$TIMEOUT" \
			"$art" >"$art.fix.log" 2>&1
		st=$?
		say "     $FIX:  $([ "$st" -eq 0 ] && echo passes || failure_kind "$art.fix.log" "$st")"
		[ "$st" -eq 0 ] || ctl_ok=0
	done
fi

say "== control: the same ported fuzzer on $FIX (the fix), seed corpus, expecting nothing"
header
fuzz_run "$fixed/build/j-fuzz/engine_fuzz" "fix-seed-1" seed 1 "fix $FIX" "$fixed" &&
	ctl_ok=0
say "   control: $([ "$ctl_ok" -eq 1 ] && echo "nothing found, as expected" || echo "FOUND SOMETHING (see above and $logs)")"
say "   load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; logs and inputs: $logs"

[ "$nfound" -eq "$nold" ] && [ "$ctl_ok" -eq 1 ] && exit 0
exit 3
