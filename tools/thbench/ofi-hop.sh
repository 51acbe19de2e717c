#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# ofi-hop.sh - the ofi provider's hop against raw libfabric, side by side
# in one run: fi_pingpong -p tcp -e rdm (libfabric-bin) and
# 'thbench post' under 'thrun -n 2 --provider ofi' (a triggered 8-byte PUT
# hop), both between two "hosts": two network namespaces joined by a veth
# pair that this script creates and removes (192.0.2.1 and 192.0.2.2,
# documentation addresses, only inside the namespaces), rank r in
# namespace r % 2 as selftests/host/ofi/test_netns.sh runs them.  RUNS
# times, alternating them; then the median and p10/p90 over the runs of
# each, and the ratio th_nic / fi_pingpong of the medians.  Needs root
# and iproute2.
#
# usage: ofi-hop.sh [--runs N] [--iters N] [--samples N] [--bin DIR]... [--csv FILE]
#   --runs     runs of each (default 5, at least 3)
#   --iters    fi_pingpong round trips per run (default 10000)
#   --samples  thbench post hop samples per run (default 5; each 200 round
#              trips); a run's figure is their median
#   --bin      where thrun and thbench are (default: build/bin of this tree);
#              given again, each build is a th_nic column of the same runs
#              (an older commit built in a clone, say), named by its path
#   --csv      also write one line per run and tool: tool,run,us_per_hop
# The environment reaches the ranks (TH_WAIT_POLICY, TH_OFI_TRIGGER, ...).
# Exit status: 0 done, 1 a run failed, 2 usage or no namespaces.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=5 iters=10000 samples=5 bins=() csv=
usage() {
	sed -n '/^# usage:/,/^# Exit/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--iters) iters=$2; shift 2 ;;
	--samples) samples=$2; shift 2 ;;
	--bin) bins+=("$2"); shift 2 ;;
	--csv) csv=$2; shift 2 ;;
	-h|--help) sed -n '/^# usage:/,/^# Exit/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) usage ;;
	esac
done
case $runs$iters$samples in *[!0-9]*|'') usage ;; esac
[ "$runs" -ge 3 ] || { echo "ofi-hop.sh: --runs must be at least 3" >&2; exit 2; }
[ ${#bins[@]} -gt 0 ] || bins=("$top/build/bin")
for b in "${bins[@]}"; do
	for t in "$b/thrun" "$b/thbench"; do
		[ -x "$t" ] || { echo "ofi-hop.sh: $t missing: make -j2 first" >&2; exit 2; }
	done
done
if [ "$(id -u)" != 0 ] || ! command -v ip > /dev/null ||
   ! command -v fi_pingpong > /dev/null; then
	echo "ofi-hop.sh: needs root, iproute2 (ip) and fi_pingpong (libfabric-bin)" >&2
	exit 2
fi

tag=$$
ns0=thhop0.$tag ns1=thhop1.$tag
v0=thh0.$tag v1=thh1.$tag
v0=${v0:0:15} v1=${v1:0:15}	# interface names: 15 bytes at most
work=$(mktemp -d)
# the two "hosts": two_hosts_up, two_hosts_down
. "$(dirname "$0")/../../scripts/two-hosts.sh"
cleanup() {
	two_hosts_down "$ns0" "$ns1"
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
if ! two_hosts_up "$ns0" "$ns1" "$v0" "$v1"; then
	echo "ofi-hop.sh: cannot set up the namespaces and the veth pair" >&2
	exit 2
fi

# One fi_pingpong run, server in namespace 1, client in namespace 0: its
# 8-byte line's usec/xfer (one way, as fi_pingpong counts).
pingpong() {
	local port=$((20000 + RANDOM % 20000)) out srv
	ip netns exec "$ns1" timeout 60 fi_pingpong -p tcp -e rdm -S 8 \
		-I "$iters" -B "$port" > "$work/srv" 2>&1 &
	srv=$!
	sleep 0.3
	out=$(ip netns exec "$ns0" timeout 60 fi_pingpong -p tcp -e rdm -S 8 \
		-I "$iters" -P "$port" 192.0.2.2 2>&1)
	wait "$srv"
	echo "$out" | awk '$1 == "8" && NF >= 6 { print $(NF - 1); found = 1 }
			   END { exit !found }'
}

# One thbench run of build $1: rank r in namespace r % 2; the hop's median.
thhop() {
	local bin=$1 out
	out=$("$bin/thrun" -n 2 --provider ofi --timeout 120 -- sh -c \
		'exec ip netns exec "thhop$((TH_RANK % 2)).$0" "$@"' "$tag" \
		"$bin/thbench" post --provider ofi --iters 100 \
		--samples "$samples" 2>&1)
	echo "$out" | awk '/triggered PUT hop/ {
		for (i = 1; i < NF; i++) if ($i == "median") print $(i + 1)
		found = 1 }
			   END { exit !found }' || { echo "$out" >&2; return 1; }
}

# median p10 p90 of the numbers on stdin
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		printf "%.2f %.2f %.2f", v[int(NR / 2) + 1],
		       v[int(NR / 10) + 1], v[int(NR * 9 / 10) + 1] }'
}

echo "# one 8-byte hop between two network namespaces over a veth pair, us"
echo "# fi_pingpong -p tcp -e rdm -S 8 -I $iters: usec/xfer; th_nic: thrun -n 2 --provider ofi thbench post, median of $samples samples"
echo "# TH_WAIT_POLICY=${TH_WAIT_POLICY:-auto (default)} TH_OFI_TRIGGER=${TH_OFI_TRIGGER:-auto (default)}"
[ -n "$csv" ] && echo "tool,run,us_per_hop" > "$csv"
for i in "${!bins[@]}"; do
	echo "# th_nic[$i]: ${bins[$i]}"
	: > "$work/th$i"
done
: > "$work/pp"
for r in $(seq "$runs"); do
	pp=$(pingpong) || { echo "ofi-hop.sh: fi_pingpong run $r failed" >&2; exit 1; }
	echo "$pp" >> "$work/pp"
	line=$(printf "run %2d  fi_pingpong %8.2f" "$r" "$pp")
	[ -n "$csv" ] && echo "fi_pingpong,$r,$pp" >> "$csv"
	for i in "${!bins[@]}"; do
		th=$(thhop "${bins[$i]}") ||
			{ echo "ofi-hop.sh: thbench (${bins[$i]}) run $r failed" >&2; exit 1; }
		echo "$th" >> "$work/th$i"
		line+=$(printf "  th_nic[%d] %8.2f" "$i" "$th")
		[ -n "$csv" ] && echo "th_nic[$i],$r,$th" >> "$csv"
	done
	echo "$line"
done
read -r ppm ppl pph < <(stats < "$work/pp")
printf "fi_pingpong  median %8.2f  p10 %8.2f  p90 %8.2f  (runs=%d)\n" "$ppm" "$ppl" "$pph" "$runs"
for i in "${!bins[@]}"; do
	read -r thm thl thh < <(stats < "$work/th$i")
	printf "th_nic[%d]    median %8.2f  p10 %8.2f  p90 %8.2f  (runs=%d)  ratio to fi_pingpong %.2f\n" \
		"$i" "$thm" "$thl" "$thh" "$runs" \
		"$(awk -v a="$thm" -v b="$ppm" 'BEGIN { print a / b }')"
done
