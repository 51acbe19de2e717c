#!/bin/sh
# run.sh - the kselftest wrapper for th_nic inside the test VM: loads
# th_nic.ko, runs every test binary next to this script (each prints its
# own TAP), checks that unload is clean, and exits non-zero on any failure.
# Usage: run.sh /path/to/th_nic.ko
#
# Every test binary runs under a bound (bounded(): TH_VM_TEST_SECS, 600 s,
# 1500 s on the debug kernel; 300 s for the kill storm): past it, the
# stacks of its processes are dumped (dump_tasks: the kernel stack, the
# syscall and the user return addresses, which run-vm.sh names with
# addr2line) and they are killed, so a hang fails that binary in its own
# time, never at the VM's timeout.
#
# Repeat mode (make vmtest-repeat, Documentation/vm-testing.rst):
# TH_VM_REPEAT=N runs the binaries named in TH_VM_TESTS (default: every
# *_test) N times in this one boot, one TAP line per run, and a summary.
mod=${1:-/th_nic.ko}
here=$(dirname "$0")
n=0
rc=0

ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n $*"; rc=1; }
check() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

# The pids of @1's descendants, @1 first (from /proc/*/stat's ppid field).
tree() {
	local s p pp
	echo "$1"
	for s in /proc/[0-9]*/stat; do
		read -r p _ _ pp _ < "$s" 2>/dev/null || continue
		[ "$pp" = "$1" ] && tree "$p"
	done
}

# Where each task of @@ sleeps: state, kernel stack, syscall, and the words
# on its user stack that point into its program's text (a static binary:
# run-vm.sh names them with addr2line).  Threads too; zombies and exiting
# tasks (no cmdline) are shown, not skipped.
dump_tasks() {
	for p in "$@"; do
		for t in /proc/"$p"/task/[0-9]*; do
			[ -d "$t" ] || continue
			tid=${t##*/}
			exe=$(readlink /proc/"$p"/exe 2>/dev/null)
			echo "TH_VM: task $p/$tid ${exe##*/}: $(grep -m 1 '^State' "$t/status" 2>/dev/null | tr -s '\t ' ' ')"
			echo "  wchan $(cat "$t/wchan" 2>/dev/null), syscall $(cat "$t/syscall" 2>/dev/null)"
			sed 's/^/  kernel: /' "$t/stack" 2>/dev/null
			# shellcheck disable=SC2046 # the words of one line
			set -- $(cat "$t/syscall" 2>/dev/null)
			[ $# -ge 9 ] || continue
			sp=$8
			pc=$9
			text=$(grep -m 1 ' r-xp ' /proc/"$p"/maps 2>/dev/null)
			lo=$((0x${text%%-*}))
			hi=${text#*-}
			hi=$((0x${hi%% *}))
			ret=$(dd if=/proc/"$p"/mem bs=8 skip=$((sp / 8)) count=512 2>/dev/null |
				od -An -tx8 -v | tr -s ' ' '\n' |
				while read -r w; do
					[ -n "$w" ] || continue
					a=$((0x$w))
					[ "$a" -ge "$lo" ] && [ "$a" -lt "$hi" ] && printf '0x%x ' "$a"
				done)
			echo "TH_VM: ustack ${exe##*/} $pc $ret"
		done
	done
}

# bounded SECS NAME CMD...: run CMD; past SECS, dump its tasks, kill them
# all (its children too: a test's ranks) and fail.  Returns CMD's status,
# 124 when it was stopped.
bounded() {
	secs=$1
	name=$2
	shift 2
	"$@" &
	cmd=$!
	(
		sleep "$secs"
		echo "# $name: still running after ${secs} s: its tasks, then SIGKILL"
		pids=$(tree "$cmd")
		# shellcheck disable=SC2086 # a list of pids
		dump_tasks $pids
		# shellcheck disable=SC2086
		kill -STOP $pids 2>/dev/null
		# shellcheck disable=SC2086
		kill -KILL $pids 2>/dev/null
		touch /tmp/bounded.$cmd
	) &
	dog=$!
	wait "$cmd"
	st=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	if [ -e /tmp/bounded.$cmd ]; then
		rm -f /tmp/bounded.$cmd
		echo "# $name: stopped at its bound of ${secs} s"
		return 124
	fi
	return "$st"
}

test_secs() {
	case "$1" in
	kill_storm_test) echo "${TH_VM_STORM_SECS:-300}" ;;
	*) if [ -n "${TH_VM_QUICK:-}" ]; then echo "${TH_VM_TEST_SECS:-1500}"
	   else echo "${TH_VM_TEST_SECS:-600}"; fi ;;
	esac
}

echo "TAP version 13"
echo "# th_nic selftests on $(uname -r)"

if [ -n "${TH_VM_REPEAT:-}" ]; then
	# a list on the kernel command line has no spaces: commas
	tests=$(echo "${TH_VM_TESTS:-$(cd "$here" && ls -- *_test)}" | tr ',' ' ')
	check "insmod nodes=16" insmod "$mod" nodes=16
	passed=0
	failed=0
	i=1
	while [ "$i" -le "$TH_VM_REPEAT" ]; do
		for t in $tests; do
			start=$(date +%s)
			bounded "$(test_secs "$t")" "$t" "$here/$t" > /tmp/repeat.out 2>&1
			st=$?
			secs=$(( $(date +%s) - start ))
			if [ $st -eq 0 ]; then
				passed=$((passed + 1))
				ok "repeat $i/$TH_VM_REPEAT: $t ($secs s)"
			else
				failed=$((failed + 1))
				not_ok "repeat $i/$TH_VM_REPEAT: $t: status $st ($secs s)"
				# what failed, and the dump of a stopped binary
				grep -E '^(not ok|#.*(Expected|FAIL|timeout|still running|stopped|rep )|# [^ ]*\.c:[0-9]+:|TH_VM: |  )' \
					/tmp/repeat.out | head -n 200 | sed 's/^/# /'
			fi
			grep '^# order:\|^# kill storm: [0-9]\|^# kill storm: hangs' /tmp/repeat.out
		done
		i=$((i + 1))
	done
	check "rmmod after the repeats" rmmod th_nic
	echo "# repeat: $passed passed, $failed failed ($TH_VM_REPEAT runs of: $(echo "$tests" | tr '\n' ' '))"
	exit $rc
fi

# A bad limit is refused at load time, and leaves nothing behind.
check "insmod refuses nodes=0" sh -c "! insmod $mod nodes=0 2>/dev/null"
check "nothing loaded after a refused insmod" sh -c "! grep -q '^th_nic ' /proc/modules"

check "insmod nodes=16" insmod "$mod" nodes=16
check "module parameters visible in sysfs" \
	grep -qx 16 /sys/module/th_nic/parameters/nodes

for t in "$here"/*_test; do
	[ -x "$t" ] || continue
	echo "# running $(basename "$t")"
	start=$(date +%s)
	bounded "$(test_secs "$(basename "$t")")" "$(basename "$t")" "$t" || rc=1
	echo "# $(basename "$t") took $(( $(date +%s) - start )) s"
done

# The library suite once more as an unprivileged user: everything a user
# does through libthverbs works without privileges (the nodes are 0666).
if [ -x "$here/verbs_test" ]; then
	echo "# running verbs_test as nobody"
	su -s /bin/sh nobody -c "$here/verbs_test" || rc=1
fi

# The tools, end to end on the kernel provider.
if [ -x "$here/bin/thctl" ]; then
	check "thctl demo: 16-node offloaded allreduce (radix 4)" \
		"$here/bin/thctl" demo --provider kernel -q -n 16 -k 4 -c 1000
	check "thctl demo: 16-node offloaded allreduce (radix 2)" \
		"$here/bin/thctl" demo --provider kernel -q -n 16 -k 2 -c 7
fi

# Management over generic netlink: thctl on libnl.  Its JSON documents go
# to the console between markers; the host checks that they parse, with
# their documented keys (scripts/vm/check-vm-json.py).
json() {
	name=$1
	shift
	echo "TH_VM: json $name begin"
	"$@"
	st=$?
	echo "TH_VM: json $name end"
	return $st
}
if [ -x "$here/bin/thctl" ] && [ -x "$here/bin/vport_hold" ]; then
	T="$here/bin/thctl"
	fifo=/tmp/hold.in
	rm -f "$fifo" && mkfifo "$fifo"
	"$here/bin/vport_hold" 0 0 2 < "$fifo" > /tmp/hold.out &
	hold=$!
	exec 3> "$fifo"
	i=0
	while ! grep -q '^ready\|^failed' /tmp/hold.out 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check "vport_hold: two vports held on node 0" grep -q '^ready 2' /tmp/hold.out
	check "thctl stat -j: every node" json stat "$T" stat -j
	check "thctl stat 0 -j: node 0" json stat-node "$T" stat 0 -j -p
	check "thctl stat 0 0 -j: the owner's vport in detail" json stat-vport "$T" stat 0 0 -j
	check "thctl vports -j: the vports" json vports "$T" vports -j
	check "thctl vports -j as nobody: owner and state only" \
		json vports-other su -s /bin/sh nobody -c "$T vports -j"
	check "thctl counters 0 0: counter 1 is 42" \
		sh -c "$T counters 0 0 | grep -qE '^ +1 +42 +0$'"
	check "thctl counters 0 0 -j" json counters "$T" counters 0 0 -j
	check "thctl counters as nobody: refused, exit 1" \
		sh -c "! su -s /bin/sh nobody -c '$T counters 0 0' 2>/tmp/err && grep -q 'not permitted' /tmp/err"
	check "thctl fault set as nobody: refused, exit 1" \
		sh -c "! su -s /bin/sh nobody -c '$T fault set 3 --drop 1%' 2>/tmp/err && grep -q 'not permitted' /tmp/err"
	check "thctl fault set 3 --drop 1%" "$T" fault set 3 --drop 1% --seed 5
	check "thctl fault show -j: node 3's" json fault "$T" fault show -j
	check "thctl fault clear 3" "$T" fault clear 3
	check "thctl fault show: none left" sh -c "$T fault show | grep -q 'no fault injection'"
	# events: a vport created and destroyed by thctl post, seen by monitor
	"$T" monitor -j --timeout 5 > /tmp/mon.json &
	mon=$!
	sleep 1
	"$T" post --provider kernel "$here/thctl/tools/thctl/examples/first_chain.chain" > /dev/null
	wait $mon
	check "thctl monitor -j: the events of thctl post" json monitor cat /tmp/mon.json
	echo "# thctl stat 0 0 (sample)"
	"$T" stat 0 0 | sed 's/^/# /'
	exec 3>&-
	wait $hold
	rm -f "$fifo"

	# Trace events: one offloaded Allreduce through tracefs
	# (Documentation/tracing.rst walks through the same).
	tr=/sys/kernel/tracing
	[ -d "$tr/events" ] || mount -t tracefs nodev "$tr" 2>/dev/null
	if [ -d "$tr/events/th_nic" ]; then
		echo > "$tr/trace"
		echo 1 > "$tr/events/th_nic/enable"
		"$T" demo --provider kernel -q -n 4 -k 2 -c 4 > /dev/null
		echo 0 > "$tr/events/th_nic/enable"
		check "trace events: an Allreduce's chains posted, fired, delivered, completed" \
			sh -c "grep -q 'th_nic_chain_post:' $tr/trace &&
				grep -q 'th_nic_chain_fire:' $tr/trace &&
				grep -q 'th_nic_deliver:.*put' $tr/trace &&
				grep -q 'th_nic_chain_complete:' $tr/trace"
		echo "# trace of thctl demo -n 4 -k 2 -c 4 (the first 60 events)"
		grep 'th_nic_' "$tr/trace" | head -n 60 | sed 's/^/# /'
	else
		not_ok "trace events: no events/th_nic in tracefs"
	fi
fi

# One process per node through thrun: an allreduce job, then the same job
# with rank 5 killed in round 1, which thrun must report (not hang).
if [ -x "$here/bin/thrun" ] && [ -x "$here/bin/coll_rank" ]; then
	check "thrun -n 16: offloaded allreduce, 4-nomial, 3 rounds" \
		"$here/bin/thrun" -n 16 --timeout 120 "$here/bin/coll_rank" 3 4
	check "thrun -n 8: offloaded allreduce, binomial, 3 rounds" \
		"$here/bin/thrun" -n 8 --timeout 120 "$here/bin/coll_rank" 3 2
	out=$(COLL_KILL_RANK=5 "$here/bin/thrun" -n 16 --timeout 120 \
		"$here/bin/coll_rank" 3 4 2>&1)
	st=$?
	echo "$out" | sed 's/^/# /'
	# the others see the failure through the NIC (often before thrun sees
	# the death); none may time out.  thrun exits as the first rank to
	# fail did: 137 (SIGKILL) if that was rank 5, 2 (coll_rank: the
	# collective failed) if a survivor was seen first; 3 would be a hang.
	check "thrun: a rank killed mid-job makes the others fail, not hang" \
		sh -c "{ [ $st -eq 137 ] || [ $st -eq 2 ]; } && echo \"\$1\" | grep -q 'reported a failure' &&
			! echo \"\$1\" | grep -q 'timed out'" _ "$out"
fi

# MPI programs on the module through libthmpi (thmpi.sh), where the build
# had MPICH and libfabric
if [ -f "$here/mpi/thmpi.sh" ]; then
	. "$here/mpi/thmpi.sh" "$here/mpi"
fi

# Chain files give bit-identical buffers on both providers: the digests
# were made with the in-process provider.
if [ -x "$here/thctl/selftests/host/thctl/test_thctl.sh" ]; then
	TH_PROVIDER=kernel THCTL="$here/bin/thctl" THCTL_TEST_MODE=digest \
		sh "$here/thctl/selftests/host/thctl/test_thctl.sh" || rc=1
fi

# Benchmarks report, never judge: their output is TAP comments.  The debug
# kernel's run (TH_VM_QUICK) leaves them out: its timings mean nothing.
if [ -x "$here/bench/thbench" ] && [ -z "${TH_VM_QUICK:-}" ]; then
	echo "# thbench post --provider kernel"
	"$here/bench/thbench" post --provider kernel --iters 2000 2>&1 | sed 's/^/# /'
	echo "# thbench faults --provider kernel (1000 Allreduces per loss rate)"
	"$here/bench/thbench" faults --provider kernel 2>&1 | sed 's/^/# /'
	echo "# thbench allreduce --provider kernel (N = 16)"
	"$here/bench/thbench" allreduce --provider kernel --nodes 16 \
		--sizes 8,65536 --radix 2,4 --reps 100 --no-mpi --no-plot \
		--out /tmp/bench 2>&1 | sed 's/^/# /'
	if [ -x "$here/bin/thrun" ]; then
		echo "# thrun -n 16 thbench allreduce-mp (one process per node)"
		"$here/bin/thrun" -n 16 --timeout 300 "$here/bench/thbench" \
			allreduce-mp --sizes 8,65536 --radix 2,4 --reps 30 2>&1 |
			sed 's/^/# /'
	fi
fi

check "rmmod when no node is open" rmmod th_nic
check "module gone after rmmod" sh -c "! grep -q '^th_nic ' /proc/modules"

# A large fabric: 1024 nodes, each a device udev and sysfs can see, and
# management dumps that span many messages.
check "insmod nodes=1024" insmod "$mod" nodes=1024 max_user_vports=65536 \
	max_counters=8 max_mrs=1
check "1024 device nodes and sysfs entries" sh -c \
	"[ \$(ls /dev/th_nic* | wc -l) -eq 1024 ] && [ -e /sys/class/th_nic/th_nic1023/dev ]"
if [ -x "$here/bin/thctl" ] && [ -x "$here/bin/vport_hold" ]; then
	T="$here/bin/thctl"
	check "thctl stat -j: all 1024 nodes" json stat1024 "$T" stat -j
	# 64 vports on each node; 8 on the debug kernel, whose KASAN shadow
	# and quarantine would not leave room for 65,536
	per=${TH_VM_DUMP_VPORTS:-64}
	[ -n "${TH_VM_QUICK:-}" ] && per=8
	fifo=/tmp/hold.in
	rm -f "$fifo" && mkfifo "$fifo"
	echo "# memory before $((1024 * per)) vports: $(grep MemAvailable /proc/meminfo)"
	"$here/bin/vport_hold" 0 1023 "$per" < "$fifo" > /tmp/hold.out &
	hold=$!
	exec 3> "$fifo"
	i=0
	while ! grep -q '^ready\|^failed' /tmp/hold.out 2>/dev/null && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	echo "# vport_hold: $(cat /tmp/hold.out); $(grep MemAvailable /proc/meminfo)"
	check "vport_hold: $per vports on each of 1024 nodes" \
		grep -q "^ready $((1024 * per))" /tmp/hold.out
	check "thctl vports: a dump of $((1024 * per)) vports, complete" \
		sh -c "[ \$($T vports | tail -n +2 | wc -l) -eq $((1024 * per)) ]"
	check "thctl vports -j: $((1024 * per)) entries" \
		sh -c "[ \$($T vports -j | grep -o '\"vport\":' | wc -l) -eq $((1024 * per)) ]"
	exec 3>&-
	wait $hold
	rm -f "$fifo"
fi
check "rmmod of the 1024-node fabric" rmmod th_nic

echo "# th_nic selftests: $([ $rc -eq 0 ] && echo PASS || echo FAIL)"
exit $rc
