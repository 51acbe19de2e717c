#!/bin/bash
# repeat.sh - run each command N times in a row and say how each run went:
# the tool for an intermittent failure (make host-repeat; the VM's
# counterpart is run.sh's repeat mode, make vmtest-repeat).  A failed
# run's output is kept in $REPEAT_LOGS (default build/logs/repeat) and
# its last lines shown.  Exits 1 if any run failed.
#
# Usage: repeat.sh N COMMAND...   (each COMMAND is one program, no args)
set -u -o pipefail
n=${1:?usage: repeat.sh N COMMAND...}
shift
[[ $n =~ ^[0-9]+$ ]] || { echo "repeat.sh: N=$n is not a number" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: repeat.sh N COMMAND..." >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
logs=${REPEAT_LOGS:-$here/../../build/logs/repeat}
mkdir -p "$logs"
passed=0
failed=0
echo "TAP version 13"
k=0
for ((i = 1; i <= n; i++)); do
	for cmd in "$@"; do
		k=$((k + 1))
		name=$(basename "$cmd")
		log=$logs/$name.$i.log
		start=$SECONDS
		if "$cmd" >"$log" 2>&1; then
			passed=$((passed + 1))
			echo "ok $k repeat $i/$n: $name ($((SECONDS - start)) s)"
			rm -f "$log"
		else
			st=$?
			failed=$((failed + 1))
			echo "not ok $k repeat $i/$n: $name: status $st ($((SECONDS - start)) s), log $log"
			grep -E '^(not ok|# .*(Expected|FAIL|timeout))' "$log" | head -n 20 | sed 's/^/# /'
		fi
	done
done
echo "1..$k"
echo "# repeat: $passed passed, $failed failed ($n runs of: $*)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
