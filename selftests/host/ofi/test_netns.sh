#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_netns.sh - the ofi provider between two "hosts": two network
# namespaces joined by a veth pair (192.0.2.1 and 192.0.2.2, documentation
# addresses, only inside the namespaces), ranks alternating between them,
# so that every delivery between neighbouring ranks crosses the veth (the
# veth's byte counters are checked), and the job picks tcp;ofi_rxm by
# itself (not shm, which is for ranks all on one host).  Then thrun itself in namespace 0,
# listening on 192.0.2.1, starts the ranks with --hosts and --launcher
# 'ip netns exec', so that the TCP rendezvous crosses the veth too
# (namespace 1's ranks reach 192.0.2.1 only through it); the link cut
# comes last.  Before it, a job mixing both: two ranks on each "host",
# started with nsenter (which keeps their mount namespace, so that the
# two on one host count as one host), runs shm between the two and
# tcp;ofi_rxm across, and only the latter crosses the veth.  TAP on
# stdout.  Needs root and
# iproute2; skips otherwise, saying why.  The namespaces, and the veth
# pair with them, are removed on every exit.
#
# usage: test_netns.sh THRUN COLL_RANK OFI_RANK
set -u
thrun=$1 coll=$2 ofi=$3
tag=$$
ns0=thofi0.$tag ns1=thofi1.$tag
v0=thv0.$tag v1=thv1.$tag
v0=${v0:0:15} v1=${v1:0:15}	# interface names: 15 bytes at most
n=0 rc=0
# a peer taken for dead, or a retried connection, says why
export TH_OFI_VERBOSE=1
# the job picks its libfabric provider itself (checked below)
unset TH_OFI_PROVIDER

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n $1"; rc=1; }
check() {
	local name=$1
	shift
	local t0=$SECONDS
	if "$@"; then ok "$name"; else not_ok "$name"; fi
	echo "# $((SECONDS - t0)) s"
}

echo "TAP version 13"
if [ "$(id -u)" != 0 ] || ! command -v ip > /dev/null; then
	echo "1..0 # SKIP needs root and iproute2 (ip) for network namespaces"
	exit 0
fi
work=$(mktemp -d)
# the two "hosts": two_hosts_up, two_hosts_down
. "$(dirname "$0")/../../../scripts/two-hosts.sh"
cleanup() {
	two_hosts_down "$ns0" "$ns1"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if ! two_hosts_up "$ns0" "$ns1" "$v0" "$v1"; then
	echo "1..0 # SKIP cannot set up the namespaces and the veth pair"
	exit 0
fi
echo "1..21"

# bytes the veth carried so far, both ways
veth_bytes() {
	ip netns exec "$ns0" cat /proc/net/dev |
		awk -v d="$v0:" '$1 == d { print $2 + $10 }'
}

# thrun -n NP with rank r in namespace r % 2; thrun's rendezvous is a UNIX
# socket, which a path reaches from any network namespace
run() {
	local np=$1
	shift
	"$thrun" -n "$np" --provider ofi --timeout 120 -- sh -c \
		'exec ip netns exec "thofi$((TH_RANK % 2)).$0" "$@"' "$tag" "$@"
}

# the job's bytes crossed the veth: at least MIN more than before
crossed() {
	local before=$1 min=$2 after
	after=$(veth_bytes)
	echo "# veth carried $((after - before)) bytes"
	[ $((after - before)) -ge "$min" ]
}

b=$(veth_bytes)
check "allreduce, 2 processes on two hosts, 5 rounds checked" run 2 "$coll" 5 2
# 5 rounds of 2048 doubles each way, at the least
check "the allreduce crossed the veth" crossed "$b" $((5 * 2048 * 8))
check "allreduce, 8 processes on two hosts, 4-nomial" run 8 "$coll" 5 4
# ranks on two hosts, two of them on each (rank r in namespace r % 2),
# each in its own mount namespace (ip netns exec makes one), so no two
# count as one host: every rank runs on tcp;ofi_rxm by itself, none on
# shm, and the allreduce's results are checked
picks_tcp() {
	local out
	out=$(run 4 "$coll" 2 2 2>&1) || { echo "$out" | sed 's/^/# /'; return 1; }
	echo "$out" | grep 'libfabric provider' | sed 's/^/# /'
	[ "$(echo "$out" | grep -c 'libfabric provider tcp;ofi_rxm (ranks on more than one host)$')" = 4 ] &&
		! echo "$out" | grep -q 'provider shm'
}
check "a job on two hosts, two ranks on each, runs on tcp;ofi_rxm by itself" picks_tcp
# The mixed job: thrun -n 4 with ranks 0 and 1 in namespace 0, 2 and 3 in
# namespace 1, entered with nsenter, which (unlike ip netns exec) keeps
# the mount namespace: the two ranks of a namespace are on one host.
have_nsenter() {
	command -v nsenter > /dev/null ||
		{ echo "# nsenter (util-linux) is missing"; return 1; }
}
mixed_run() {
	"$thrun" -n 4 --provider ofi --timeout 120 --grace 30 -- sh -c \
		'exec nsenter --net="/run/netns/thofi$((TH_RANK / 2)).$0" "$@"' \
		"$tag" "$@"
}
# each rank says which peers go over which rail: shm to its neighbour on
# its host, tcp;ofi_rxm to the two on the other; the allreduce's results
# are checked (coll_rank), and its bytes crossed the veth
mixed_rails() {
	local out r b far
	have_nsenter || return 1
	b=$(veth_bytes)
	out=$(mixed_run "$coll" 5 2 2>&1) || { echo "$out" | sed 's/^/# /'; return 1; }
	echo "$out" | grep 'libfabric provider' | sed 's/^/# /'
	crossed "$b" $((5 * 2048 * 8)) || return 1
	[ "$(echo "$out" | grep -c 'libfabric provider')" = 8 ] || return 1
	for r in 0 1 2 3; do
		far=0,1
		[ "$r" -lt 2 ] && far=2,3
		if ! echo "$out" | grep -qx "libthverbs: ofi rank $r: libfabric provider shm to ranks $((r ^ 1)) (on this host)" ||
		   ! echo "$out" | grep -qx "libthverbs: ofi rank $r: libfabric provider tcp;ofi_rxm to ranks $far (on other hosts)"; then
			echo "# rank $r's rails are not as expected"
			return 1
		fi
	done
}
check "a job on two hosts, two ranks on each sharing it: shm to the rank on its host, tcp;ofi_rxm across; allreduce checked" \
	mixed_rails
# 1 MiB PUT and GET by RMA in pairs at once (ofi_rank, OFI_PEER_XOR):
# between the two ranks of each host (0-1, 2-3), which stays off the
# network, the veth and each namespace's loopback (TCP between two ranks
# of one namespace would take its loopback; what crosses the veth is the
# connections the boot makes across: a few KiB), then between the hosts
# (0-2, 1-3), which crosses the veth
mixed_pairs() {
	local xor=$1 c
	have_nsenter || return 1
	for c in put_rma get_rma; do
		OFI_PEER_XOR=$xor mixed_run "$ofi" "$c" || return 1
	done
}
# bytes the veth and both namespaces' loopback interfaces carried so far
net_bytes() {
	local lo0 lo1
	lo0=$(ip netns exec "$ns0" cat /proc/net/dev | awk '$1 == "lo:" { print $2 + $10 }')
	lo1=$(ip netns exec "$ns1" cat /proc/net/dev | awk '$1 == "lo:" { print $2 + $10 }')
	echo $(($(veth_bytes) + lo0 + lo1))
}
kept_off() {
	local before=$1 max=$2 after
	after=$(net_bytes)
	echo "# the veth and the loopbacks carried $((after - before)) bytes"
	[ $((after - before)) -lt "$max" ]
}
b=$(net_bytes)
check "mixed job: 1 MiB PUT and GET by RMA between the ranks of each host" \
	mixed_pairs 1
# 4 MiB moved; far less than 1 MiB may cross
check "mixed job: the same-host pairs' RMA stayed off the veth and the loopbacks" \
	kept_off "$b" 262144
b=$(veth_bytes)
check "mixed job: 1 MiB PUT and GET by RMA between the hosts" mixed_pairs 2
check "mixed job: the pairs across the hosts crossed the veth" crossed "$b" $((4 * 1048576))
# the shm rail's regions lose their names once the job has joined
mixed_shm_private() {
	have_nsenter || return 1
	OFI_PEER_XOR=1 mixed_run "$ofi" shm_private
}
check "mixed job: the shm rail's regions have no name in /dev/shm once joined" \
	mixed_shm_private
# rank 3 alone names shm (TH_OFI_PROVIDER): it has no tcp;ofi_rxm
# endpoint, by which ranks 0 and 1 would reach it, so the join fails
# (EPROTO) on the ranks that see it, and on the others by the boot's
# rounds: the job fails, nothing hangs
mixed_refused() {
	local out st
	have_nsenter || return 1
	out=$(OFI_PEER_XOR=1 "$thrun" -n 4 --provider ofi --timeout 60 -- sh -c \
		'[ "$TH_RANK" = 3 ] && export TH_OFI_PROVIDER=shm
		exec nsenter --net="/run/netns/thofi$((TH_RANK / 2)).$0" "$@"' \
		"$tag" "$ofi" put 2>&1)
	st=$?
	echo "$out" | grep -E 'thrun:|boot:' | sed 's/^/# /'
	[ "$st" = 1 ] && echo "$out" | grep -q '^ofi_rank: boot: Protocol error$' &&
		! echo "$out" | grep -q 'timed out'
}
check "mixed job: a rank whose provider its peers cannot reach fails the join (EPROTO), no hang" \
	mixed_refused
# rank KILLED of the mixed job is killed in round 1 (coll_rank): every
# other rank's wait fails, none hangs; the rank on its host sees it on
# its process (shm), one on the other host at its deadline (tcp)
mixed_killed() {
	local killed=$1 seen=$2 why=$3 out st
	have_nsenter || return 1
	out=$(COLL_KILL_RANK=$killed COLL_IGNORE_TERM=1 TH_OFI_TIMEOUT=2 \
		mixed_run "$coll" 3 2 2>&1)
	st=$?
	echo "$out" | grep -E 'thrun:|coll_rank |taken for dead' | sed 's/^/# /'
	[ "$st" = 137 ] || [ "$st" = 2 ] || return 1
	[ "$(echo "$out" | grep -c '^coll_rank [0-9]*: round 1: ')" = 3 ] &&
		! echo "$out" | grep -q 'timed out' &&
		echo "$out" | grep -Eq "^libthverbs: ofi rank $seen: rank $killed taken for dead: ($why)"
}
check "mixed job: a killed rank fails the others, its host's neighbour sees its process end" \
	mixed_killed 1 0 "its process ended"
# rank 0 or 1 (whichever waited on rank 2 first): a send or an answer
# past TH_OFI_TIMEOUT, or a refused connection
check "mixed job: a killed rank fails the others, the other host's ranks at their deadline" \
	mixed_killed 2 "[01]" "unreachable for TH_OFI_TIMEOUT|no answer within TH_OFI_TIMEOUT|Connection refused"
b=$(veth_bytes)
check "1 MiB PUT by RMA from one host to the other" run 2 "$ofi" put_rma
check "1 MiB GET by RMA from the other host" run 2 "$ofi" get_rma
check "the RMA crossed the veth" crossed "$b" $((2 * 1048576))
TH_OFI_TIMEOUT=2 check "a rank dying on the other host fails the counters its chains fed" \
	run 2 "$ofi" peer_dies
# thrun in namespace 0, the ranks in both through --hosts: the rendezvous
# is TCP to 192.0.2.1, so namespace 1's ranks reach it over the veth
hosts_run() {
	local np=$1
	shift
	ip netns exec "$ns0" "$thrun" -n "$np" --provider ofi --timeout 120 \
		--hosts "$ns0,$ns1" --launcher 'ip netns exec' \
		--listen 192.0.2.1 -- "$@"
}
# rank 1, in namespace 1, joined at 192.0.2.1, which from there is only
# reachable over the veth, and the job succeeded
rendezvous_peer() {
	local out
	out=$(hosts_run 2 sh -c \
		'[ "$TH_RANK" = 1 ] && echo "boot=$TH_BOOT"; exec "$0" "$@"' \
		"$coll" 2 2) || return 1
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -Eq '^boot=tcp:192\.0\.2\.1:[0-9]+$'
}
b=$(veth_bytes)
check "thrun --hosts in namespace 0: allreduce, 4 processes, rendezvous on 192.0.2.1" \
	hosts_run 4 "$coll" 5 2
check "the --hosts job crossed the veth" crossed "$b" $((5 * 2048 * 8))
check "rank 1 in namespace 1 joined thrun's rendezvous at tcp:192.0.2.1" \
	rendezvous_peer

# the link goes down under a live job: the delivery ends at its deadline
link_cut() {
	local pid st i
	OFI_CUT_READY=$work/ready OFI_CUT_DONE=$work/done TH_OFI_TIMEOUT=2 \
		run 2 "$ofi" link_cut &
	pid=$!
	for i in $(seq 200); do
		[ -e "$work/ready" ] && break
		sleep 0.1
	done
	ip -n "$ns0" link set "$v0" down
	touch "$work/done"
	wait "$pid"
	st=$?
	ip -n "$ns0" link set "$v0" up
	return $st
}
check "a cut link ends the delivery at its deadline (-ECONNREFUSED), no hang" link_cut
exit $rc
