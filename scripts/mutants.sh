#!/bin/bash
# mutants.sh - the project's own mutation check (make mutants).  Each line
# of the list (scripts/mutants.list) names a small plausible bug: a file,
# a text in it, its replacement, and the host tests that should notice.
# The script copies the tree to a scratch directory (the worktree is never
# touched), builds and runs the named tests once unmutated (they must
# pass), then for each mutation: puts it in, rebuilds those tests, runs
# them under a timeout, takes it out again.  A mutation is "killed" when a
# named test fails (or times out), "SURVIVED" when they all pass: then a
# test is missing, or the mutation changes nothing observable.
#
#   scripts/mutants.sh [LIST]      default scripts/mutants.list
#   scripts/mutants.sh --list-check [LIST]
#                                  only the list's check below, on the
#                                  worktree (make refcheck): no build
#
# Environment: MUTANTS_DIR (scratch copy, default /tmp/th_nic-mutants.$UID,
# reused between runs), MUTANTS_TIMEOUT (seconds per test run, 120),
# MUTANTS_ONLY (a regular expression: only the mutations whose line
# matches it), MUTANTS_JOBS (make -j, 2).
#
# Every original text must occur exactly once in its file: the script
# checks all of them first and stops (exit 2) naming any line that does
# not, since a text found twice or nowhere mutates the wrong code or none.
# Exit status: 0 when every mutation was killed, 1 when one survived or
# did not build, 2 for a bad list or a failing baseline.
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
LIST_CHECK=
if [ "${1:-}" = --list-check ]; then
	LIST_CHECK=1
	shift
fi
LIST=${1:-$TOP/scripts/mutants.list}
SCRATCH=${MUTANTS_DIR:-/tmp/th_nic-mutants.$(id -u)}
TIMEOUT=${MUTANTS_TIMEOUT:-120}
ONLY=${MUTANTS_ONLY:-}
JOBS=${MUTANTS_JOBS:-2}
LOG=$SCRATCH.log

die() { echo "mutants: $*" >&2; exit 2; }

[ -f "$LIST" ] || die "no list: $LIST"
case "$LIST" in /*) ;; *) LIST=$PWD/$LIST ;; esac
command -v python3 >/dev/null || die "python3 is needed (exact text replacement)"

# ---- the list: "file :: original :: replacement :: tests" ------------------
# Parsed once into parallel arrays; '#' lines and blank lines are skipped.
files=() origs=() repls=() tests=() lines=()
n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	case "$line" in ''|'#'*) continue ;; esac
	if [ -n "$ONLY" ] && ! grep -qE -- "$ONLY" <<<"$line"; then
		continue
	fi
	rest=$line
	f=${rest%% :: *}; rest=${rest#* :: }
	o=${rest%% :: *}; rest=${rest#* :: }
	r=${rest%% :: *}; t=${rest#* :: }
	if [ "$f" = "$line" ] || [ "$o" = "$rest" ] || [ -z "$t" ] ||
	   [ "$t" = "$r" ] || [ -z "$o" ]; then
		die "$LIST:$n: expected 'file :: original :: replacement :: tests'"
	fi
	files+=("$f") origs+=("$o") repls+=("$r") tests+=("$t") lines+=("$n")
done <"$LIST"
[ ${#files[@]} -gt 0 ] || die "no mutations selected from $LIST"

# Occurrences of literal text $2 in file $1 (python: no regex, no quoting).
count() {
	python3 -c 'import sys; print(open(sys.argv[1]).read().count(sys.argv[2]))' "$1" "$2"
}

# --list-check: every entry's text once in the worktree's file, or exit 2.
if [ -n "$LIST_CHECK" ]; then
	bad=0
	for i in "${!files[@]}"; do
		c=0
		[ -f "$TOP/${files[$i]}" ] && c=$(count "$TOP/${files[$i]}" "${origs[$i]}")
		if [ "$c" != 1 ]; then
			echo "$LIST:${lines[$i]}: '${origs[$i]}' occurs $c times in ${files[$i]} (must be exactly once)"
			bad=1
		fi
	done
	[ $bad = 0 ] || exit 2
	exit 0
fi

# Replace the one occurrence of $2 in $1 by $3.
replace() {
	python3 - "$1" "$2" "$3" <<'EOF'
import sys
p, a, b = sys.argv[1:4]
s = open(p).read()
assert s.count(a) == 1, "%s: %r occurs %d times" % (p, a, s.count(a))
open(p, "w").write(s.replace(a, b))
EOF
}

# ---- the scratch copy -------------------------------------------------------
# The worktree's files as they are now (tracked and new, not ignored), so
# uncommitted work is checked too.  The build tree is kept between runs:
# only files whose content differs are copied, and they get a new mtime,
# so make rebuilds exactly what changed (a copy keeping the worktree's
# older mtime could leave a stale object, a mutant's even, in place).
# A file an earlier run copied that the worktree no longer has goes from
# the copy too (the list of copied files is kept in build/): the Makefile
# builds every source it finds, and a source moved away since then broke
# the unmutated build.  What the builds made beside the sources stays.
mkdir -p "$SCRATCH/build" || die "cannot create $SCRATCH"
(cd "$TOP" && git ls-files -co --exclude-standard -z) | python3 -c '
import os, shutil, sys
src, dst = sys.argv[1:3]
# a tracked file deleted from the worktree (not yet staged) is listed too
files = [f for f in sys.stdin.buffer.read().decode().split("\0")
         if f and os.path.isfile(os.path.join(src, f))]
listed = os.path.join(dst, "build", ".mutants-copied")
keep = set(files)
try:
    with open(listed) as x:
        before = x.read().split("\0")
except OSError:
    # a copy from before the list was kept: every file outside build/
    before = []
    for root, dirs, names in os.walk(dst):
        if root == dst:
            dirs[:] = [d for d in dirs if d not in ("build", ".git")]
        before += [os.path.relpath(os.path.join(root, n), dst) for n in names]
    before = [f for f in before if f.endswith((".c", ".h", ".S"))]
for f in before:
    if f and f not in keep and os.path.isfile(os.path.join(dst, f)):
        os.remove(os.path.join(dst, f))
with open(listed, "w") as x:
    x.write("\0".join(files))
for f in files:
    a, b = os.path.join(src, f), os.path.join(dst, f)
    with open(a, "rb") as x:
        data = x.read()
    try:
        with open(b, "rb") as y:
            if y.read() == data:
                continue
    except OSError:
        pass
    os.makedirs(os.path.dirname(b), exist_ok=True)
    with open(b, "wb") as y:
        y.write(data)
    shutil.copymode(a, b)
' "$TOP" "$SCRATCH" || die "cannot copy the tree to $SCRATCH"
if [ -d "$TOP/build/ksrc" ] && [ ! -e "$SCRATCH/build/ksrc/.extracted" ]; then
	mkdir -p "$SCRATCH/build"
	cp -a "$TOP/build/ksrc" "$SCRATCH/build/"
fi

bad=0
for i in "${!files[@]}"; do
	f=$SCRATCH/${files[$i]}
	if [ ! -f "$f" ]; then
		echo "mutants: $LIST:${lines[$i]}: no file ${files[$i]}" >&2
		bad=1
		continue
	fi
	c=$(count "$f" "${origs[$i]}")
	if [ "$c" != 1 ]; then
		echo "mutants: $LIST:${lines[$i]}: '${origs[$i]}' occurs $c times in ${files[$i]} (must be exactly once)" >&2
		bad=1
	fi
done
[ $bad = 0 ] || die "fix the list (the texts above must each match once)"

# Test names are binaries under build/bin; make builds them by full path.
all_tests=$(printf '%s\n' "${tests[@]}" | tr ' ' '\n' | sed '/^$/d' | sort -u)
targets() { for t in $1; do echo "$SCRATCH/build/bin/$t"; done; }

build() {	# $1: test names
	# shellcheck disable=SC2046 # one word per target
	make -C "$SCRATCH" -j"$JOBS" --no-print-directory $(targets "$1") >>"$LOG" 2>&1
}

# Run each named test; print the first that fails, return 1 then.
run_tests() {	# $1: test names
	local t rc
	for t in $1; do
		# in the scratch copy: whatever a crashing test leaves is left there
		(cd "$SCRATCH" && timeout -k 5 "$TIMEOUT" "build/bin/$t") \
			>"$SCRATCH/last.tap" 2>&1
		rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			echo "$t (timeout ${TIMEOUT}s)"
			return 1
		elif [ $rc != 0 ]; then
			echo "$t: $(grep -m1 -E '^not ok' "$SCRATCH/last.tap" || echo "exit $rc")"
			return 1
		fi
	done
	return 0
}

: >"$LOG"
echo "mutants: ${#files[@]} mutations from $LIST, scratch copy $SCRATCH (build log $LOG)"
build "$all_tests" || die "the unmutated tree does not build (see $LOG)"
if ! why=$(run_tests "$all_tests"); then
	die "a named test fails without any mutation: $why"
fi

killed=0 survived=0 broken=0
survivors=()
for i in "${!files[@]}"; do
	f=$SCRATCH/${files[$i]}
	id="${files[$i]}:${lines[$i]}"
	cp -p "$f" "$f.orig"
	replace "$f" "${origs[$i]}" "${repls[$i]}" || die "cannot mutate $f"
	echo "=== mutation $id: '${origs[$i]}' -> '${repls[$i]}'" >>"$LOG"
	if ! build "${tests[$i]}"; then
		result="BUILD FAILED (see $LOG)"
		broken=$((broken + 1))
	elif why=$(run_tests "${tests[$i]}"); then
		result="SURVIVED (${tests[$i]} all pass)"
		survived=$((survived + 1))
		survivors+=("$id")
	else
		result="killed by $why"
		killed=$((killed + 1))
	fi
	# the original back, newer than any object built from the mutant
	mv -f "$f.orig" "$f"
	touch "$f"
	printf '%-4s %-40s %s\n' "$((i + 1))" "$id" "$result"
done
# leave the scratch build matching the tree for the next run
build "$all_tests" || true

total=${#files[@]}
echo "mutants: $killed killed, $survived survived, $broken did not build, of $total"
for s in "${survivors[@]}"; do
	echo "  survived: $s"
done
[ $survived = 0 ] && [ $broken = 0 ]
