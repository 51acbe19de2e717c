#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_thmpi.sh - libthmpi under MPICH's mpiexec: thmpi_check (every
# offloaded call x datatype x op x size, a split communicator, the calls
# that must go to MPICH) run without the library and with it (LD_PRELOAD,
# and linked), results compared byte for byte; the settings, their
# refusals, a join that fails on one rank only, two "hosts" (network
# namespaces joined by a veth pair, 192.0.2.1 and .2 only inside them,
# removed at once; root only) and a killed rank.  TAP on stdout.
#
# usage: test_thmpi.sh LIBTHMPI_SO THMPI_CHECK THMPI_CHECK_LINKED
set -u
lib=$1 check=$2 linked=$3
n=0 rc=0
work=$(mktemp -d)
ns0=thmpi0.$$ ns1=thmpi1.$$	# the two "hosts", when made
# the two "hosts": two_hosts_up, two_hosts_down
. "$(dirname "$0")/../../../scripts/two-hosts.sh"
cleanup() {
	two_hosts_down "$ns0" "$ns1"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# no test may hang: every job is bounded
T=300

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n $1"; rc=1; }
check() {
	local name=$1
	shift
	local t0=$SECONDS
	if "$@"; then ok "$name"; else not_ok "$name"; fi
	echo "# $((SECONDS - t0)) s"
}
# say what went wrong, from a job's output
show() { sed 's/^/#   /' "$1" | tail -n "${2:-20}"; }

echo "TAP version 13"
if ! command -v mpiexec > /dev/null; then
	echo "1..0 # SKIP needs MPICH's mpiexec (Debian: mpich)"
	exit 0
fi
# mpiexec as root needs no flag with Hydra; UCX's shared memory works too

# run NAME NP [ENV...] -- PROGRAM ARGS: one job, output in $work/NAME.log,
# exit status in $work/NAME.rc
run() {
	local name=$1 np=$2
	shift 2
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	timeout -k 5 $T mpiexec -n "$np" env "${envs[@]}" "$@" \
		> "$work/$name.log" 2>&1
	echo $? > "$work/$name.rc"
}
rc_of() { cat "$work/$1.rc"; }
# every rank's digests equal to another run's
same_digests() {
	local a=$1 b=$2 np=$3 r
	for ((r = 0; r < np; r++)); do
		cmp -s "$work/$a.$r" "$work/$b.$r" || {
			echo "# rank $r: $a and $b differ:"
			diff "$work/$a.$r" "$work/$b.$r" | head -5 | sed 's/^/#   /'
			return 1
		}
	done
}
right() {	# the job ended 0 and its check found nothing wrong
	[ "$(rc_of "$1")" = 0 ] && grep -q ", 0 wrong" "$work/$1.log" ||
		{ echo "# $1: exit $(rc_of "$1")"; show "$work/$1.log"; return 1; }
}
offloaded() {	# the job's total of offloaded calls
	sed -n 's/^thmpi: job[^:]*: \([0-9]*\) calls offloaded.*/\1/p' "$work/$1.log"
}

# -- the reference: MPICH alone ---------------------------------------------
for np in 2 3 4; do
	run base$np $np -- "$check" --out "$work/base$np.%d"
done
t_base() { right base4 && right base3 && right base2; }
check "MPICH alone: every case right at 2, 3 and 4 ranks" t_base

# -- the offload, LD_PRELOAD -------------------------------------------------
run lib4 4 LD_PRELOAD="$lib" THMPI_STATS=1 -- "$check" --any --out "$work/lib4.%d"
t_lib4() {
	right lib4 && same_digests base4 lib4 4 || return 1
	local off
	off=$(offloaded lib4)
	echo "# $off calls offloaded"
	[ "${off:-0}" -ge 4000 ] || { show "$work/lib4.log"; return 1; }
}
check "LD_PRELOAD, 4 ranks: every result byte for byte MPICH's; offloaded persistent requests complete through Waitall, Waitany, Testsome, Testall (MPICH's own fail the last three)" t_lib4

t_every_call() {
	local c
	for c in MPI_Allreduce MPI_Reduce MPI_Bcast MPI_Iallreduce MPI_Ireduce \
		 MPI_Ibcast MPI_Allreduce_init MPI_Reduce_init MPI_Bcast_init; do
		grep -qE "^thmpi: job[^:]*: +$c +[1-9][0-9]* offloaded" "$work/lib4.log" ||
			{ echo "# $c: never offloaded"; show "$work/lib4.log"; return 1; }
	done
}
check "every call form was offloaded (statistics at MPI_Finalize)" t_every_call

t_fell() {
	local line why
	line=$(grep -E '^thmpi: job[^:]*: +MPI_Allreduce ' "$work/lib4.log")
	echo "# $line"
	for why in "inter-communicator" "one-process communicator" \
		   "[0-9]+ op" "[0-9]+ datatype" "[0-9]+ size"; do
		echo "$line" | grep -qE "$why" ||
			{ echo "# no fall-through for: $why"; return 1; }
	done
	grep -qE '^thmpi: job[^:]*: +MPI_Bcast .*[0-9]+ datatype' "$work/lib4.log" &&
		grep -qE '^thmpi: job[^:]*: +MPI_Allreduce_init .*[0-9]+ persistent slots full' "$work/lib4.log"
}
check "user ops, MPI_LAND, MAXLOC, long double, strided types, MPI_COMM_SELF, count 0, an inter-communicator, a 17th persistent request went to MPICH, and said why" t_fell

# -- linked instead of preloaded, 2 ranks ------------------------------------
run link2 2 THMPI_STATS=1 -- "$linked" --out "$work/link2.%d"
t_link() {
	right link2 && same_digests base2 link2 2 &&
		[ "$(offloaded link2)" -gt 0 ]
}
check "linked with -lthmpi, 2 ranks: results MPICH's, calls offloaded" t_link

# -- settings: radix 2, a cache of 2 (eviction), 4 KiB segments, 3 ranks ----
run small3 3 LD_PRELOAD="$lib" THMPI_STATS=1 THMPI_RADIX=2 THMPI_CACHE=2 \
	THMPI_SEGMENT=4K -- "$check" --out "$work/small3.%d"
t_small() {
	right small3 && same_digests base3 small3 3 &&
		[ "$(offloaded small3)" -gt 0 ]
}
check "3 ranks, radix 2, cache of 2, 4 KiB segments: results MPICH's" t_small

# -- bit-identical run to run, with sums that round --------------------------
run inexact_a 4 LD_PRELOAD="$lib" -- "$check" --inexact --out "$work/ia.%d"
run inexact_b 4 LD_PRELOAD="$lib" -- "$check" --inexact --out "$work/ib.%d"
run inexact_m 4 -- "$check" --inexact --out "$work/im.%d"
t_inexact() {
	right inexact_a && right inexact_b && right inexact_m &&
		same_digests ia ib 4 || return 1
	echo "# results differing from MPICH's own (rounding order): $(diff "$work/ia.0" "$work/im.0" | grep -c '^<') of $(wc -l < "$work/ia.0") on rank 0"
}
check "rounding sums: two runs agree bit for bit" t_inexact

# -- off, and refused settings -----------------------------------------------
run off 2 LD_PRELOAD="$lib" THMPI_STATS=1 THMPI_ENABLE=0 -- "$check"
t_off() { right off && [ "$(offloaded off)" = 0 ]; }
check "THMPI_ENABLE=0: everything to MPICH, results right" t_off

t_refused() {	# t_refused NAME SETTING MESSAGE
	local name=$1 setting=$2 msg=$3
	run "$name" 2 LD_PRELOAD="$lib" THMPI_STATS=1 "$setting" -- "$check"
	right "$name" && [ "$(offloaded "$name")" = 0 ] &&
		grep -qF "$msg" "$work/$name.log" ||
		{ echo "# wanted: $msg"; show "$work/$name.log" 5; return 1; }
}
check "THMPI_RADIX=1 is refused by name; the offload stays off" \
	t_refused radix THMPI_RADIX=1 "thmpi: THMPI_RADIX=1: expected a whole number from 2 to 64; the offload is off"
check "THMPI_CACHE=lots is refused by name" \
	t_refused cache THMPI_CACHE=lots "thmpi: THMPI_CACHE=lots: expected a whole number from 1 to 256"
check "THMPI_PROVIDER=verbs is refused by name" \
	t_refused prov THMPI_PROVIDER=verbs "thmpi: THMPI_PROVIDER=verbs: expected auto, kernel or ofi"
# the kernel provider's own cases run in the test VM (selftests/th_nic/mpi)
if [ -e /dev/th_nic0 ]; then
	ok "THMPI_PROVIDER=kernel without th_nic.ko # SKIP th_nic.ko is loaded here"
else
	check "THMPI_PROVIDER=kernel without th_nic.ko: the offload is off on every rank, said why; results right" \
		t_refused nokernel THMPI_PROVIDER=kernel "thmpi: the th_nic network could not start (No such device)"
fi

run multi 2 LD_PRELOAD="$lib" THMPI_STATS=1 THMPI_VERBOSE=1 -- "$check" --thread-multiple
t_multi() {
	right multi && [ "$(offloaded multi)" = 0 ] &&
		grep -q "MPI_THREAD_MULTIPLE: the offload is off" "$work/multi.log"
}
check "MPI_THREAD_MULTIPLE: the offload is off, said so, results right" t_multi

# -- a join that fails on one rank only: every rank falls back, none hangs --
timeout -k 5 $T mpiexec -n 1 env LD_PRELOAD="$lib" THMPI_STATS=1 \
	TH_OFI_PROVIDER=no-such-provider "$check" : \
	-n 2 env LD_PRELOAD="$lib" THMPI_STATS=1 "$check" > "$work/onefails.log" 2>&1
echo $? > "$work/onefails.rc"
t_onefails() {
	right onefails && [ "$(offloaded onefails)" = 0 ] &&
		grep -q "thmpi: the th_nic network could not start" "$work/onefails.log"
}
check "one rank cannot join the network: all run on MPICH, none hangs" t_onefails

# -- verbose: a line per offloaded call and per fall-through ----------------
run verbose 2 LD_PRELOAD="$lib" THMPI_VERBOSE=2 -- "$check"
t_verbose() {
	right verbose &&
		grep -qE '^thmpi: rank [01]: MPI_Iallreduce offloaded: 8296 bytes, root 0, 2 ranks, radix 4$' "$work/verbose.log" &&
		grep -qE '^thmpi: rank [01]: MPI_Allreduce to MPICH \(op\)$' "$work/verbose.log" &&
		grep -q '^thmpi: offload on: 2 ranks over ofi' "$work/verbose.log"
}
check "THMPI_VERBOSE=2: a line per call, offloaded or not; auto took ofi (no th_nic.ko here)" t_verbose

# -- two "hosts": network namespaces joined by a veth pair -------------------
# mpiexec runs in namespace 0 (192.0.2.1) and starts rank 1 in namespace 1
# (192.0.2.2) through a stand-in for ssh; MPICH's own traffic may stay in
# shared memory, the offload's must cross the veth.
t_two_hosts() {
	local v0=thmv0.$$ v1=thmv1.$$ tx0 tx1
	v0=${v0:0:15} v1=${v1:0:15}
	two_hosts_up "$ns0" "$ns1" "$v0" "$v1" || {
		echo "# cannot set up the namespaces"
		return 1
	}
	# hydra's ssh: [-x] HOST COMMAND, run in the namespace HOST lives in
	cat > "$work/fakessh" <<-SSH
	#!/bin/sh
	while [ "\${1#-}" != "\$1" ]; do shift; done
	case \$1 in 192.0.2.1) ns=$ns0 ;; 192.0.2.2) ns=$ns1 ;; *) exit 255 ;; esac
	shift
	exec ip netns exec \$ns sh -c "\$*"
	SSH
	chmod +x "$work/fakessh"
	tx0=$(ip netns exec "$ns0" cat /sys/class/net/"$v0"/statistics/tx_bytes)
	timeout -k 5 $T ip netns exec "$ns0" mpiexec -launcher ssh \
		-launcher-exec "$work/fakessh" -iface "$v0" \
		-hosts 192.0.2.1,192.0.2.2 -n 2 env LD_PRELOAD="$lib" \
		THMPI_STATS=1 "$check" --out "$work/hosts.%d" > "$work/hosts.log" 2>&1
	echo $? > "$work/hosts.rc"
	tx1=$(ip netns exec "$ns0" cat /sys/class/net/"$v0"/statistics/tx_bytes)
	ip netns del "$ns0"
	ip netns del "$ns1"
	echo "# $((tx1 - tx0)) bytes left namespace 0 over the veth"
	right hosts && same_digests base2 hosts 2 &&
		[ "$(offloaded hosts)" -gt 0 ] && [ $((tx1 - tx0)) -gt 4000000 ]
}
if [ "$(id -u)" = 0 ] && command -v ip > /dev/null; then
	check "two hosts (network namespaces, a veth): results MPICH's, the offload's bytes cross the veth" t_two_hosts
else
	n=$((n + 1)); echo "ok $n two hosts # SKIP needs root and iproute2 for network namespaces"
fi

# -- an unprivileged user: nothing of libthmpi needs root -------------------
t_nobody() {
	# no --out: the work directory is root's
	timeout -k 5 $T runuser -u nobody -- env HOME=/tmp mpiexec -n 2 \
		env LD_PRELOAD="$lib" THMPI_STATS=1 "$check" \
		> "$work/nobody.log" 2>&1
	echo $? > "$work/nobody.rc"
	right nobody && [ "$(offloaded nobody)" -gt 0 ]
}
if [ "$(id -u)" = 0 ] && command -v runuser > /dev/null &&
   runuser -u nobody -- test -x "$check" 2> /dev/null; then
	check "as user nobody: every result right, calls offloaded" t_nobody
else
	n=$((n + 1)); echo "ok $n as user nobody # SKIP needs root, runuser and a build user nobody can read"
fi

# -- a killed rank ends the job with an error, not a hang -------------------
t0=$SECONDS
run kill 4 LD_PRELOAD="$lib" -- "$check" --kill-rank 2
t_kill() {
	local r
	r=$(rc_of kill)
	echo "# exit $r after $((SECONDS - t0)) s"
	[ "$r" != 0 ] && [ "$r" != 124 ] && [ "$r" != 137 -o $((SECONDS - t0)) -lt $T ] &&
		grep -q "killing myself" "$work/kill.log"
}
check "rank 2 killed mid-job: the job ends with an error, not a hang" t_kill

echo "1..$n"
exit $rc
