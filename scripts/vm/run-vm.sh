#!/bin/bash
# run-vm.sh - boot Debian's kernel in QEMU with th_nic.ko and the selftest
# payload, run /payload/run.sh inside, and turn the serial console into TAP:
# the payload's results plus "vm booted and payload finished", "payload
# exited 0" and "kernel log clean".  With --shell, boot the same image
# interactively instead.
#
# Usage: run-vm.sh [--shell]
# Knobs (environment; the defaults suit `make vmtest`, see
# Documentation/vm-testing.rst):
#   VM_MODULE    module to load            (default: $TOP/th_nic.ko)
#   VM_PAYLOAD   payload directory         (default: $TOP/build/vm/payload)
#   VM_DIR       where the initramfs goes  (default: $TOP/build/vm)
#   LOGS         where logs and TAP go     (default: $TOP/build/logs)
#   KDIR, VM_KERNEL   kernel tree / image  (scripts/kdir.sh)
#   VM_TIMEOUT   seconds before a run counts as hung (default: 900)
#   VM_MEM (2G: the 1024-node dump holds 65,536 vports), VM_SMP (2), VM_ACCEL (tcg), VM_CPU (max), VM_QEMU,
#   VM_QEMU_OPTS (extra qemu arguments), VM_APPEND (extra kernel arguments),
#   VM_LOGLEVEL (console loglevel, default 5: warnings and worse),
#   VM_HUNG_TASK_SECS (hung-task timeout in the guest, default 120),
#   VM_VERBOSE=1 (echo the whole console, not just progress),
#   VM_SLUB_DEBUG (slub_debug flags, default FZPU; - for none)
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=${TOP:-$(cd "$here/../.." && pwd)}
B=${B:-$TOP/build}

VM_MODULE=${VM_MODULE:-$TOP/th_nic.ko}
VM_PAYLOAD=${VM_PAYLOAD:-$B/vm/payload}
VM_DIR=${VM_DIR:-$B/vm}
LOGS=${LOGS:-$B/logs}
VM_TIMEOUT=${VM_TIMEOUT:-900}
VM_MEM=${VM_MEM:-2G}
VM_SMP=${VM_SMP:-2}
VM_ACCEL=${VM_ACCEL:-tcg}
VM_CPU=${VM_CPU:-max}
VM_QEMU=${VM_QEMU:-qemu-system-x86_64}
VM_QEMU_OPTS=${VM_QEMU_OPTS:-}
VM_APPEND=${VM_APPEND:-}
VM_LOGLEVEL=${VM_LOGLEVEL:-5}
VM_HUNG_TASK_SECS=${VM_HUNG_TASK_SECS:-120}
VM_VERBOSE=${VM_VERBOSE:-0}
VM_SLUB_DEBUG=${VM_SLUB_DEBUG:-FZPU}

mode='test'
case "${1:-}" in
"") ;;
--shell) mode=shell ;;
-h | --help)
	sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//p}' "$0"
	exit 0
	;;
*)
	echo "usage: $0 [--shell]" >&2
	exit 2
	;;
esac

SECONDS=0
say() {
	printf 'vm: [%4ds] %s\n' "$SECONDS" "$*"
}
die() {
	say "error: $*" >&2
	exit 1
}

command -v "$VM_QEMU" >/dev/null ||
	die "$VM_QEMU missing: install qemu-system-x86 (scripts/deps.sh vm)"
[[ $VM_TIMEOUT =~ ^[0-9]+$ ]] || die "VM_TIMEOUT=$VM_TIMEOUT is not a number of seconds"

kver=$("$TOP/scripts/kdir.sh" --version) || exit 1
kernel=$("$TOP/scripts/kdir.sh" --vmlinuz) || exit 1

[ -f "$VM_MODULE" ] || die "module $VM_MODULE missing (make module)"
# A module built for another kernel fails insmod with "Invalid module
# format" deep in the run; say so up front.
if command -v modinfo >/dev/null; then
	magic=$(modinfo -F vermagic "$VM_MODULE" 2>/dev/null | cut -d ' ' -f 1)
	if [ -n "$magic" ] && [ "$magic" != "$kver" ]; then
		die "$VM_MODULE is built for $magic but the VM boots $kver" \
			"($kernel); rebuild it against $("$TOP/scripts/kdir.sh")"
	fi
fi

initramfs=$VM_DIR/initramfs.cpio.gz
say "building initramfs (module $VM_MODULE, payload $VM_PAYLOAD)"
"$here/mkinitramfs.sh" "$VM_MODULE" "$VM_PAYLOAD" "$initramfs" ||
	die "building the initramfs failed"

append="console=ttyS0 loglevel=$VM_LOGLEVEL panic=-1"
# Memory debugging built into Debian's kernel (VM_SLUB_DEBUG=- turns it
# off, for measurements of memory that debugging would inflate).
if [ "$VM_SLUB_DEBUG" = - ]; then
	append+=" slub_debug=-"
else
	append+=" slub_debug=$VM_SLUB_DEBUG page_poison=1"
fi
# Make lockups end the VM at once (panic=-1 + -no-reboot) rather than at
# VM_TIMEOUT; the messages stay in the console log.
append+=" softlockup_panic=1 hung_task_panic=1 th_vm.hung=$VM_HUNG_TASK_SECS"
append+=" log_buf_len=4M th_vm.mode=$mode"
[ "$mode" = test ] && append+=" th_vm.timeout=$VM_TIMEOUT"
[ -n "$VM_APPEND" ] && append+=" $VM_APPEND"

qemu=("$VM_QEMU" -accel "$VM_ACCEL" -cpu "$VM_CPU" -m "$VM_MEM"
	-smp "$VM_SMP" -no-reboot -kernel "$kernel" -initrd "$initramfs"
	-append "$append")
# shellcheck disable=SC2206 # VM_QEMU_OPTS is a list of words on purpose
[ -n "$VM_QEMU_OPTS" ] && qemu+=($VM_QEMU_OPTS)

if [ "$mode" = shell ]; then
	say "booting $kernel interactively (${VM_MEM} RAM, $VM_SMP CPUs);" \
		"Ctrl-A X quits QEMU, 'exit' powers off"
	exec "${qemu[@]}" -nographic
fi

mkdir -p "$LOGS"
console=$LOGS/vm-console.log
tap=$LOGS/vm.tap
rm -f "$console" "$tap"

# Progress on the terminal while the full console goes to the log: the
# guest's markers, the payload's TAP results and kernel problem reports.
progress() {
	local line
	while IFS= read -r line; do
		line=${line%$'\r'}
		if [ "$VM_VERBOSE" = 1 ]; then
			printf '%s\n' "$line"
			continue
		fi
		case "$line" in
		"TH_VM: dmesg begin") quiet_dump=1 ;;
		"TH_VM: dmesg end") quiet_dump=0 ;;
		esac
		case "$line" in
		TH_VM:*) say "guest: ${line#TH_VM: }" ;;
		"ok "[0-9]* | "not ok "[0-9]*) say "  $line" ;;
		*"WARNING:"* | *"BUG"* | *Oops* | *"Kernel panic"* | *"general protection"* | \
			*"soft lockup"* | *"blocked for more than"* | *"detected stall"*)
			[ "${quiet_dump:-0}" = 1 ] || say "  kernel: $line"
			;;
		esac
	done
}

say "booting $kernel under $VM_ACCEL (${VM_MEM} RAM, $VM_SMP CPUs," \
	"timeout ${VM_TIMEOUT}s); console: $console"
timeout -k 10 "$VM_TIMEOUT" "${qemu[@]}" -display none -monitor none \
	-serial stdio </dev/null 2>&1 | tee "$console" | progress
qemu_rc=${PIPESTATUS[0]}
boot_secs=$SECONDS
say "VM ended (qemu status $qemu_rc)"

# ---- turn the console into TAP -------------------------------------------
clean=$(mktemp)
trap 'rm -f "$clean"' EXIT
tr -d '\r' <"$console" >"$clean"
has() { grep -qxF "$1" "$clean"; }

# User stacks the guest dumped for a test that passed its bound (run.sh's
# dump_tasks: the return addresses on the stack of a static binary), named
# here with addr2line; also in $LOGS/vm-ustacks.txt.
ustacks=$LOGS/vm-ustacks.txt
rm -f "$ustacks"
# (repeat mode prefixes the dump with '# ')
if grep -qE '^(# )?TH_VM: ustack ' "$clean" && command -v addr2line >/dev/null; then
	grep -E '^(# )?TH_VM: ustack ' "$clean" | sed 's/^# //' | while read -r _ _ bin addrs; do
		f=$(find "$VM_PAYLOAD" -type f -name "$bin" | head -n 1)
		[ -n "$f" ] || continue
		echo "user stack of $bin (innermost first):"
		# shellcheck disable=SC2086 # a list of addresses
		addr2line -f -i -p -e "$f" $addrs | sed 's/^/    /'
	done >"$ustacks"
	while IFS= read -r line; do say "$line"; done <"$ustacks"
fi

# The payload's TAP: results, diagnostics and indented (nested) TAP printed
# between the payload markers (to the end of the log when it never
# finished), as printed; its own version and top-level plan lines are
# replaced by ours.
payload_tap=$(awk '
	/^TH_VM: payload begin$/ { on = 1; next }
	/^TH_VM: payload end / { on = 0 }
	on && (/^(not )?ok [0-9]+/ || /^#/ ||
	       /^[ \t]+((not )?ok [0-9]+|#|[0-9]+\.\.[0-9]+)/)' "$clean")
n=0
[ -n "$payload_tap" ] && n=$(grep -cE '^(not )?ok [0-9]+' <<<"$payload_tap")

{
	echo "TAP version 13"
	[ -n "$payload_tap" ] && printf '%s\n' "$payload_tap"
} >"$tap"

# result NAME OK DIAGNOSTICS...: append one result of our own.
result() {
	local name=$1 ok=$2
	shift 2
	n=$((n + 1))
	if [ "$ok" = 1 ]; then
		echo "ok $n $name" >>"$tap"
		say "ok $n $name"
	else
		echo "not ok $n $name" >>"$tap"
		say "not ok $n $name"
	fi
	local d
	for d in "$@"; do
		printf '%s\n' "$d" | sed 's/^/# /' >>"$tap"
		printf '%s\n' "$d" | sed 's/^/vm:        # /'
	done
}

# 1. The VM booted, the payload ran to its end and dmesg was dumped.
why=""
if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
	why="timed out after ${VM_TIMEOUT}s (VM_TIMEOUT): killed QEMU"
elif ! grep -q '^TH_VM: init started' "$clean"; then
	why="the guest never reached /init (qemu status $qemu_rc)"
elif ! has "TH_VM: payload begin" && ! grep -q '^TH_VM: payload end' "$clean"; then
	why="the payload never started"
elif panic=$(grep -m 1 -E '^\[ *[0-9.]+\] Kernel panic' "$clean"); then
	why="the guest panicked: ${panic#*] }"
elif ! grep -q '^TH_VM: payload end rc=' "$clean"; then
	why="the payload never finished: the guest crashed or rebooted (qemu status $qemu_rc)"
elif ! has "TH_VM: dmesg end"; then
	why="the dmesg dump is incomplete (qemu status $qemu_rc)"
elif [ "$qemu_rc" != 0 ]; then
	why="qemu exited with status $qemu_rc"
fi
if [ -z "$why" ]; then
	result "vm booted and payload finished" 1
else
	if grep -q '^TH_VM: watchdog' "$clean"; then
		why+=$'\n'"the guest's task dump (ps, sysrq w and l) follows the"
		why+=" 'TH_VM: watchdog' line in $console"
	fi
	result "vm booted and payload finished" 0 "$why" "last console lines:" \
		"$(sed '/^TH_VM: watchdog/,$d' "$clean" | grep -v '^$' |
			tail -n 8 | sed 's/^/  /')"
fi

# 2. run.sh exit status.
payload_rc=$(sed -n 's/^TH_VM: payload end rc=\([0-9]*\)$/\1/p' "$clean" | tail -n 1)
if [ "$payload_rc" = 0 ]; then
	result "payload exited 0" 1
elif [ -n "$payload_rc" ]; then
	result "payload exited 0" 0 "/payload/run.sh /th_nic.ko exited with status $payload_rc"
else
	result "payload exited 0" 0 "no exit status: the payload did not finish"
fi

# 3. Nothing bad in the kernel log (dmesg dump and live console lines).
if hits=$("$here/scan-kernel-log.sh" "$console"); then
	result "kernel log clean" 1
else
	count=$(grep -c '' <<<"$hits")
	shown=$(head -n 40 <<<"$hits")
	[ "$count" -gt 40 ] && shown+=$'\n'"... $((count - 40)) more lines matched, see $console"
	result "kernel log clean" 0 "$count kernel log lines report a problem" \
		"(full log: $console):" "$shown"
fi
# 4. The JSON thctl printed in the guest parses, with its documented keys.
if grep -q '^TH_VM: json ' "$clean"; then
	while read -r line; do
		case $line in
		ok\ *) result "vm thctl JSON: ${line#ok } parses, documented keys" 1 ;;
		*) result "vm thctl JSON: ${line#not ok }" 0 ;;
		esac
	done < <(python3 "$here/check-vm-json.py" "$clean")
fi
echo "1..$n" >>"$tap"

passed=$(grep -cE '^ok [0-9]+' "$tap")
failed=$(grep -cE '^not ok [0-9]+' "$tap")
say "TAP: $tap ($passed ok, $failed not ok; boot+run ${boot_secs}s," \
	"total ${SECONDS}s)"
if [ "$failed" -gt 0 ]; then
	say "FAILED:"
	grep -E '^not ok [0-9]+' "$tap" | sed 's/^/vm:   /'
	exit 1
fi
say "PASSED"
exit 0
