#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# test_verify.sh - runs 'thctl verify' on the corpus of broken chain files
# in selftests/host/thctl/verify/ (each names, in a '# expect:' line, the
# class, chain and counter it must be found with, and may give '# args:'),
# on its clean files and the shipped examples (exit 0), on malformed files
# (exit 2), checks -j's JSON, and that 'thctl post' runs a re-arming chain
# file; prints TAP.
#
# Environment: THCTL (default build/bin/thctl), TH_PROVIDER (inproc here).
set -u
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
THCTL=${THCTL:-$TOP/build/bin/thctl}
VDIR=$TOP/selftests/host/thctl/verify
EX=$TOP/tools/thctl/examples
export TH_PROVIDER=${TH_PROVIDER:-inproc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"
	shift
	for l in "$@"; do echo "#   $l"; done
}
# every run is bounded: a verifier that loops fails instead of hanging
TO=$(command -v timeout > /dev/null && echo "timeout ${THCTL_TEST_TIMEOUT:-60}")
run() {
	$TO "$THCTL" "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
}

echo "TAP version 13"
if [ ! -x "$THCTL" ]; then
	echo "1..0 # SKIP $THCTL not built"
	exit 4
fi

# ---- the broken corpus: the right class, chain and counter, exit 1 --------
nbroken=0
for f in "$VDIR"/*.chain; do
	b=$(basename "$f" .chain)
	want=$(sed -n 's/^# expect: //p' "$f")
	[ -n "$want" ] || continue
	nbroken=$((nbroken + 1))
	read -r cls _ chain _ counter <<< "$want"
	args=$(sed -n 's/^# args: //p' "$f")
	# shellcheck disable=SC2086
	run verify $args "$f"
	re="^$f:[0-9]+: $cls: chain $chain counter $counter: ."
	if [ "$rc" -eq 1 ] && grep -qE "$re" "$TMP/out"; then
		ok "verify $b: $cls on chain $chain, counter $counter, exit 1"
	else
		not_ok "verify $b: $cls on chain $chain, counter $counter, exit 1" \
			"exit $rc, want a line /$re/:" "$(cat "$TMP/out" "$TMP/err")"
	fi
done
if [ "$nbroken" -ge 35 ]; then
	ok "the corpus has $nbroken broken files"
else
	not_ok "the corpus has $nbroken broken files" "want at least 5 per class, 7 classes"
fi
for cls in unreachable cycle fit self-rearm wait ahead memory; do
	c=$(grep -l "^# expect: $cls " "$VDIR"/*.chain | wc -l)
	if [ "$c" -ge 5 ]; then
		ok "the corpus has $c files of class $cls"
	else
		not_ok "the corpus has $c files of class $cls" "want at least 5"
	fi
done

# ---- clean files: the corpus's and the shipped examples, exit 0 ------------
for f in "$VDIR"/clean_*.chain "$EX"/*.chain; do
	run verify "$f"
	if [ "$rc" -eq 0 ] && grep -q "0 finding(s)" "$TMP/out"; then
		ok "verify $(basename "$f"): clean, exit 0"
	else
		not_ok "verify $(basename "$f"): clean, exit 0" "exit $rc" \
			"$(cat "$TMP/out" "$TMP/err")"
	fi
done

# ---- a re-arming chain file runs too -----------------------------------------
run post "$VDIR/clean_rearm.chain"
if [ "$rc" -eq 0 ] && grep -q "ct1 success 3 failure 0" "$TMP/out"; then
	ok "post clean_rearm.chain: three rounds counted"
else
	not_ok "post clean_rearm.chain: three rounds counted" "exit $rc" \
		"$(cat "$TMP/out" "$TMP/err")"
fi

# ---- a memory finding is real: posted anyway, the put is refused ------------
# (the target's MR lacks remote write: nothing arrives, the expect times out)
run post "$VDIR/memory_put_target_lacks_remote_write.chain"
if [ "$rc" -eq 1 ] && grep -q "timed out (success 0" "$TMP/err"; then
	ok "post memory_put_target_lacks_remote_write.chain unverified: the put never lands"
else
	not_ok "post memory_put_target_lacks_remote_write.chain unverified: the put never lands" \
		"exit $rc" "$(cat "$TMP/out" "$TMP/err")"
fi
# post --verify FILE must refuse it: the finding /RE/ on stdout, nothing
# posted (no completion listed), exit 1
post_verify_refuses() {
	local f=$1 re=$2 what
	what="post --verify $(basename "$f"): the finding, nothing posted, exit 1"
	run post --verify "$f"
	if [ "$rc" -eq 1 ] && grep -q "does not verify: nothing posted" "$TMP/err" &&
	   grep -qE "$re" "$TMP/out" && ! grep -q "completion" "$TMP/out"; then
		ok "$what"
	else
		not_ok "$what" "exit $rc" "$(cat "$TMP/out" "$TMP/err")"
	fi
}
post_verify_refuses "$VDIR/memory_put_target_lacks_remote_write.chain" \
	": memory: chain send counter -: .*lacks the remote access"

# ---- thctl post --verify: a finding stops the post, a clean file runs -------
post_verify_refuses "$VDIR/unreachable_host_short.chain" \
	": unreachable: chain go counter n0.v0.ct0: "
run post --verify "$VDIR/clean_rearm.chain"
if [ "$rc" -eq 0 ] && grep -q "0 finding(s)" "$TMP/out" &&
   grep -q "ct1 success 3 failure 0" "$TMP/out"; then
	ok "post --verify clean_rearm.chain: verified, then posted and run"
else
	not_ok "post --verify clean_rearm.chain: verified, then posted and run" \
		"exit $rc" "$(cat "$TMP/out" "$TMP/err")"
fi

# ---- malformed files and bad arguments: exit 2, one line -----------------
bad() {
	local name=$1 re=$2 text=$3
	printf '%s\n' "$text" > "$TMP/bad.chain"
	run verify "$TMP/bad.chain"
	if [ "$rc" -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] &&
	   grep -qE "$re" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		ok "verify refuses $name, exit 2"
	else
		not_ok "verify refuses $name, exit 2" "exit $rc" "$(cat "$TMP/err")"
	fi
}
bad "an operation after rearm" "after 'rearm'" \
	"$(printf 'chain c node=0 trigger=ct0>=1\n  rearm stride=1\n  nop')"
bad "a rearm of stride 0" "stride of at least 1" \
	"$(printf 'chain c node=0 trigger=ct0>=1\n  rearm stride=0')"
bad "an unknown operation" ":3:3: " \
	"$(printf 'chain c node=0\n  nop\n  jump to=1')"
run verify --cq-entries 0 "$EX/first_chain.chain"
if [ "$rc" -eq 2 ]; then ok "verify --cq-entries 0: exit 2"
else not_ok "verify --cq-entries 0: exit 2" "exit $rc"; fi
run verify
if [ "$rc" -eq 2 ] && grep -q "^usage: thctl verify" "$TMP/err"; then
	ok "verify without a file: usage, exit 2"
else
	not_ok "verify without a file: usage, exit 2" "exit $rc"
fi
run verify --help
if [ "$rc" -eq 0 ] && grep -q "^usage: thctl verify" "$TMP/out" &&
   grep -q "Exit status" "$TMP/out"; then
	ok "verify --help: usage and exit codes"
else
	not_ok "verify --help: usage and exit codes" "exit $rc"
fi

# ---- -j: one JSON document with the findings --------------------------------
run verify -j "$VDIR/cycle_two_nodes.chain"
if [ "$rc" -eq 1 ] && python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = d["findings"]
assert d["ok"] is False and len(f) == 1, d
assert f[0]["class"] == "cycle" and f[0]["chain"] == "a", f[0]
assert f[0]["counter"] == "n0.v0.ct1" and f[0]["line"] == 8, f[0]
assert [s["chain"] for s in f[0]["path"]] == ["a", "b"], f[0]["path"]
PY
then
	ok "verify -j: the cycle's class, chain, counter, line and path"
else
	not_ok "verify -j: the cycle's class, chain, counter, line and path" \
		"exit $rc" "$(cat "$TMP/out")"
fi
run verify -j "$EX/int_ops.chain"
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is True
assert all(f["warning"] for f in d["findings"]) and d["findings"]
' "$TMP/out"; then
	ok "verify -j int_ops.chain: ok, warnings only"
else
	not_ok "verify -j int_ops.chain: ok, warnings only" "exit $rc" "$(cat "$TMP/out")"
fi

# ---- --plan: the library's own plans ----------------------------------------
for kind in allreduce reduce bcast; do
	run verify --plan $kind --nodes 100 --radix 3 --bytes 300000
	if [ "$rc" -eq 0 ] && grep -qE "^$kind --nodes 100 --radix 3 --bytes 300000: [0-9]+ chain\(s\), 0 finding\(s\), 0 warning\(s\); verified in [0-9.]+ s" "$TMP/out"; then
		ok "verify --plan $kind: 100 ranks, radix 3, clean, exit 0"
	else
		not_ok "verify --plan $kind: 100 ranks, radix 3, clean, exit 0" \
			"exit $rc" "$(cat "$TMP/out" "$TMP/err")"
	fi
done
run verify --plan allreduce --nodes 1024 --radix 2 -j
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is True and d["findings"] == [], d
assert d["plan"] == "allreduce" and d["nodes"] == 1024 and d["radix"] == 2
assert d["chains"] >= 1024 and d["verify_s"] > 0, d
' "$TMP/out"; then
	ok "verify --plan -j: 1024 ranks clean, chains and verify_s"
else
	not_ok "verify --plan -j: 1024 ranks clean, chains and verify_s" "exit $rc" \
		"$(cat "$TMP/out" "$TMP/err")"
fi
# a CQ too small for a rank's chains: fit, exit 1
run verify --plan bcast --nodes 8 --radix 2 --cq-entries 2
if [ "$rc" -eq 1 ] && grep -qE "^fit: chain r[0-9]+#[0-9]+ \(.*\) counter -: " "$TMP/out"; then
	ok "verify --plan --cq-entries 2: fit, exit 1"
else
	not_ok "verify --plan --cq-entries 2: fit, exit 1" "exit $rc" "$(cat "$TMP/out")"
fi
for bad in "--plan gather --nodes 4 --radix 2" "--plan allreduce --nodes 4" \
	   "--plan allreduce --nodes 1 --radix 2" "--plan allreduce --nodes 4 --radix 1" \
	   "--nodes 4 --radix 2 $EX/int_ops.chain" \
	   "--plan reduce --nodes 4 --radix 2 $EX/int_ops.chain" \
	   "--plan bcast --nodes 4 --radix 2 --bytes 0"; do
	# shellcheck disable=SC2086
	run verify $bad
	if [ "$rc" -eq 2 ] && [ -s "$TMP/err" ]; then
		ok "verify $bad: refused, exit 2"
	else
		not_ok "verify $bad: refused, exit 2" "exit $rc" "$(cat "$TMP/out" "$TMP/err")"
	fi
done

echo "1..$n"
[ "$failed" -eq 0 ]
