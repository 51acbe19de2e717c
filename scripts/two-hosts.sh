# SPDX-License-Identifier: GPL-2.0 OR MIT
# shellcheck shell=bash
#
# two-hosts.sh - two "hosts" for the tests and benchmarks that need them:
# network namespaces joined by a veth pair, with 192.0.2.1 and 192.0.2.2
# (documentation addresses, only inside the namespaces: traffic goes
# nowhere else).  Sourced by bash scripts (test_netns.sh, test_thmpi.sh,
# ofi-hop.sh); needs root and iproute2.
#
#   two_hosts_up NS0 NS1 V0 V1    make namespaces NS0 (192.0.2.1 on V0)
#                                 and NS1 (192.0.2.2 on V1), loopback up
#                                 in each, V0 and V1 a veth pair (names of
#                                 15 bytes at most); non-zero if a step
#                                 failed (what was made is left for
#                                 two_hosts_down)
#   two_hosts_down NS0 NS1        remove both (the veth pair goes with them)

two_hosts_up() {
	local ns0=$1 ns1=$2 v0=$3 v1=$4

	ip netns add "$ns0" && ip netns add "$ns1" &&
	ip link add "$v0" type veth peer name "$v1" &&
	ip link set "$v0" netns "$ns0" && ip link set "$v1" netns "$ns1" &&
	ip -n "$ns0" addr add 192.0.2.1/24 dev "$v0" &&
	ip -n "$ns1" addr add 192.0.2.2/24 dev "$v1" &&
	ip -n "$ns0" link set lo up && ip -n "$ns1" link set lo up &&
	ip -n "$ns0" link set "$v0" up && ip -n "$ns1" link set "$v1" up
}

two_hosts_down() {
	ip netns del "$1" 2> /dev/null
	ip netns del "$2" 2> /dev/null
	return 0
}
