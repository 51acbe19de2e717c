#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_test_summary.sh - scripts/test-summary.sh, the line every check
# ends with, on TAP logs made here: the counts (a SKIP is no pass, a
# nested line is not counted), the exit status, and each failure listed
# with the diagnostics its test printed (a kselftest's before its result
# line, the VM runner's after it) but none of the harness's own lines,
# none of a passing test's, and no more than SUMMARY_DIAG of them.  TAP.
#
# usage: test_test_summary.sh [TEST_SUMMARY]   (default: this tree's)
set -u
sum=${1:-$(dirname "$0")/../../../scripts/test-summary.sh}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 rc=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n $1"; rc=1; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

cat > "$work/self.tap" <<'TAP'
TAP version 13
# running x_test
# Starting 3 tests from 1 test cases.
#  RUN           x.passes ...
# passes: a line of a passing test
#            OK  x.passes
ok 1 x.passes
#  RUN           x.fails ...
# x.c:12:fails:Expected 0 (0) == th_wait() (-110)
# fails: heft round 2
#            FAIL  x.fails
not ok 2 x.fails
#  RUN           x.skips ...
#      SKIP      no rxe here
ok 3 x.skips # SKIP no rxe here
    ok 1 a nested line is not counted
# FAILED: 1 / 3 tests passed.
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
# x_test took 3 s
TAP
cat > "$work/vm.tap" <<'TAP'
TAP version 13
ok 1 vm booted and payload finished
not ok 2 payload exited 0
# /payload/run.sh /th_nic.ko exited with status 1
ok 3 kernel log clean
TAP
out=$(bash "$sum" "$work/self.tap" "$work/vm.tap" 2>&1); st=$?
last=$(tail -n 1 <<<"$out")
check "counts: 3 passed, 2 failed, 1 skipped" \
	'[ "$last" = "3 passed, 2 failed, 1 skipped" ]'
check "exit status 1 with a failure" '[ $st = 1 ]'
check "the failed test is listed" 'grep -q "^  not ok 2 x.fails$" <<<"$out"'
check "with the line that failed" \
	'grep -q "^      # x.c:12:fails:Expected 0 (0) == th_wait() (-110)$" <<<"$out"'
check "and its own log line" 'grep -q "^      # fails: heft round 2$" <<<"$out"'
check "the VM runner's reason, printed after its result, too" \
	'grep -q "^      # /payload/run.sh /th_nic.ko exited with status 1$" <<<"$out"'
check "no harness lines" '! grep -qE "FAIL  x.fails|Totals|took 3 s|RUN" <<<"$out"'
check "no line of a passing test" '! grep -q "a line of a passing test" <<<"$out"'

{ echo "TAP version 13"; echo "#  RUN x.long ..."
  for i in $(seq 1 30); do echo "# line $i"; done; echo "not ok 1 x.long"; } \
	> "$work/long.tap"
out=$(SUMMARY_DIAG=5 bash "$sum" "$work/long.tap" 2>&1)
check "SUMMARY_DIAG=5: the last five lines" \
	'[ "$(grep -c "^      # line" <<<"$out")" = 5 ] && grep -q "# line 30$" <<<"$out" && grep -q "25 lines before" <<<"$out"'

printf 'TAP version 13\nok 1 a\nok 2 b\n' > "$work/pass.tap"
out=$(bash "$sum" "$work/pass.tap" "$work/missing.tap" 2>&1); st=$?
check "all passed: exit 0, no FAILED, a missing log ignored" \
	'[ $st = 0 ] && [ "$out" = "2 passed, 0 failed, 0 skipped" ]'
out=$(bash "$sum" "$work/missing.tap" 2>&1); st=$?
check "nothing ran: exit 1" '[ $st = 1 ] && [ "$out" = "0 passed, 0 failed, 0 skipped" ]'
echo "1..$n"
exit $rc
