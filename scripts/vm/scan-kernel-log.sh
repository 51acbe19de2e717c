#!/bin/sh
# scan-kernel-log.sh - print the kernel log lines of a VM console log that
# report a kernel problem (WARNING, BUG, Oops, slab corruption, lockups...);
# exit 1 when there is any, 0 when the log is clean.
#
# Usage: scan-kernel-log.sh CONSOLE_LOG
# Only kernel lines are scanned: those with a printk timestamp ("[   1.234]"),
# both as printed live on the console and in the dmesg dump (duplicates
# dropped), so the payload's own output (test names...) cannot match.
# The kernel command line is skipped (it may name options like
# softlockup_panic), and so is everything after the guest watchdog's
# "TH_VM: watchdog" line: its task dump is a diagnosis of a hung payload
# (reported as such by run-vm.sh), not a kernel problem.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 CONSOLE_LOG" >&2; exit 2; }
[ -r "$1" ] || { echo "scan-kernel-log: $1 unreadable" >&2; exit 2; }

# Extended regular expressions, one per line; keep in step with
# Documentation/vm-testing.rst.
patterns='WARNING:
WARNING at
BUG:
BUG [^ ]+ \(
kernel BUG
Oops
general protection fault
Kernel panic
Poison overwritten
Redzone
Object padding
Padding overwritten
Freepointer corrupt
list_add corruption
list_del corruption
hung task
blocked for more than
soft lockup
hard LOCKUP
RCU stall
rcu: INFO:
detected stalls? on CPU
UBSAN
KASAN
refcount_t:
Call Trace
unreferenced object
suspected memory leak'

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
tr -d '\r' <"$1" |
	sed '/^TH_VM: watchdog/,$d' |
	grep -E '^\[ *[0-9]+\.[0-9]+\] ' |
	grep -vE '^\[ *[0-9]+\.[0-9]+\] (Kernel )?[Cc]ommand line:' |
	awk '!seen[$0]++' >"$tmp"
hits=$(printf '%s\n' "$patterns" | grep -E -f /dev/stdin "$tmp" || true)
[ -z "$hits" ] && exit 0
printf '%s\n' "$hits"
exit 1
