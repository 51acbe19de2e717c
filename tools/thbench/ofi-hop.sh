#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# ofi-hop.sh - the ofi provider's hop against raw libfabric, side by side
# in one run: fi_pingpong -e rdm (libfabric-bin) and 'thbench post' under
# 'thrun -n 2 --provider ofi' (a triggered 8-byte PUT hop), in one or both
# of two settings (modes):
#
#   tcp  (default) two "hosts": two network namespaces joined by a veth
#        pair that this script creates and removes (192.0.2.1 and
#        192.0.2.2, documentation addresses, only inside the namespaces);
#        fi_pingpong -p tcp, server in namespace 1, client in namespace 0;
#        rank r of the hop in namespace r % 2, as
#        selftests/host/ofi/test_netns.sh runs them, so the provider takes
#        libfabric's tcp;ofi_rxm
#   shm  (--one-host) one host: both processes in namespace 0 (the whole
#        thrun job under one 'ip netns exec', so the ranks share network,
#        mount and PID namespaces and the provider takes libfabric's shm,
#        as it does for any job on one host); fi_pingpong -p shm, server
#        and client in namespace 0 (their address exchange over its
#        loopback)
#
# The hop's runs set TH_OFI_VERBOSE=1 and check the provider the ranks
# say they took; another than the mode's fails the run (unless
# TH_OFI_PROVIDER names one).  RUNS times, the tools alternating (and the
# modes, with --both); then per mode the median and p10/p90 over the runs
# of each tool (nearest rank: with fewer than 10 runs they are the lowest
# and the highest), and the ratio th_nic / fi_pingpong of the medians.
# Needs root and iproute2.
#
# usage: ofi-hop.sh [--runs N] [--iters N] [--samples N] [--one-host|--both]
#                   [--bin DIR]... [--csv FILE] [--out DIR]
#   --runs     runs of each (default 5, at least 3)
#   --iters    fi_pingpong round trips per run (default 10000)
#   --samples  thbench post hop samples per run (default 5, from 5 to 1000
#              as thbench post takes; each 200 round trips); a run's
#              figure is their median
#   --one-host the shm mode instead of tcp
#   --both     both modes in the same runs, tcp then shm in each
#   --bin      where thrun and thbench are (default: build/bin of this tree);
#              given again, each build is a th_nic column of the same runs
#              (an older commit built in a clone, say), named by its path
#   --csv      also write one line per run, tool and mode:
#              tool,mode,run,us_per_hop
#   --out      write DIR/hop.csv (as --csv), DIR/results.md (the settings
#              and the summary table) and, with gnuplot, DIR/hop.png (per
#              mode and tool the median over runs, p10/p90 error bars)
# The environment reaches the ranks (TH_WAIT_POLICY, TH_OFI_TRIGGER, ...).
# Exit status: 0 done, 1 a run failed, 2 usage or no namespaces.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=5 iters=10000 samples=5 bins=() csv='' out='' modes=(tcp)
args="$*"
usage() {
	sed -n '/^# usage:/,/^# Exit/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--iters) iters=$2; shift 2 ;;
	--samples) samples=$2; shift 2 ;;
	--one-host) modes=(shm); shift ;;
	--both) modes=(tcp shm); shift ;;
	--bin) bins+=("$2"); shift 2 ;;
	--csv) csv=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '/^# usage:/,/^# Exit/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) usage ;;
	esac
done
case $runs$iters$samples in *[!0-9]*|'') usage ;; esac
[ "$runs" -ge 3 ] || { echo "ofi-hop.sh: --runs must be at least 3" >&2; exit 2; }
# thbench post's own bounds: refused here, before any namespace is made
if [ "$samples" -lt 5 ] || [ "$samples" -gt 1000 ]; then
	echo "ofi-hop.sh: --samples must be from 5 to 1000 (thbench post's bounds)" >&2
	exit 2
fi
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
if [ -n "$out" ]; then
	mkdir -p "$out" || exit 2
	# --out's CSV is --csv's; a --csv elsewhere gets a copy at the end
	[ -n "$csv" ] && csv_copy=$csv
	csv=$out/hop.csv
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

# One fi_pingpong run in mode $1: its 8-byte line's usec/xfer (one way,
# as fi_pingpong counts).  tcp: server in namespace 1, client in 0; shm:
# both in namespace 0, the client finding the server on its loopback.
pingpong() {
	local mode=$1 port=$((20000 + RANDOM % 20000)) res srv
	local srv_ns=$ns1 addr=192.0.2.2

	[ "$mode" = shm ] && srv_ns=$ns0 addr=127.0.0.1
	ip netns exec "$srv_ns" timeout 60 fi_pingpong -p "$mode" -e rdm -S 8 \
		-I "$iters" -B "$port" > "$work/srv" 2>&1 &
	srv=$!
	sleep 0.3
	res=$(ip netns exec "$ns0" timeout 60 fi_pingpong -p "$mode" -e rdm \
		-S 8 -I "$iters" -P "$port" "$addr" 2>&1)
	wait "$srv"
	echo "$res" | awk '$1 == "8" && NF >= 6 { print $(NF - 1); found = 1 }
			   END { exit !found }' ||
		{ echo "$res" >&2; cat "$work/srv" >&2; return 1; }
}

# The libfabric provider the ofi provider takes in mode $1.
expected_prov() {
	[ "$1" = shm ] && echo shm || echo "tcp;ofi_rxm"
}

# One thbench run of build $1 in mode $2: the hop's median.  tcp: rank r
# in namespace r % 2; shm: the whole job in namespace 0.
thhop() {
	local bin=$1 mode=$2 res prov want
	local post=("$bin/thbench" post --provider ofi --iters 100 --samples "$samples")

	if [ "$mode" = shm ]; then
		res=$(TH_OFI_VERBOSE=1 ip netns exec "$ns0" "$bin/thrun" -n 2 \
			--provider ofi --timeout 120 -- "${post[@]}" 2>&1)
	else
		res=$(TH_OFI_VERBOSE=1 "$bin/thrun" -n 2 --provider ofi \
			--timeout 120 -- sh -c \
			'exec ip netns exec "thhop$((TH_RANK % 2)).$0" "$@"' \
			"$tag" "${post[@]}" 2>&1)
	fi
	prov=$(echo "$res" | sed -n 's/^libthverbs: ofi rank 0: libfabric provider \(.*\) (.*/\1/p')
	want=$(expected_prov "$mode")
	if [ -z "${TH_OFI_PROVIDER:-}" ] && [ "$prov" != "$want" ]; then
		echo "ofi-hop.sh: $mode mode: the ranks took provider '$prov', not '$want'" >&2
		echo "$res" >&2
		return 1
	fi
	echo "$res" | awk '/triggered PUT hop/ {
		for (i = 1; i < NF; i++) if ($i == "median") print $(i + 1)
		found = 1 }
			   END { exit !found }' || { echo "$res" >&2; return 1; }
}

# median p10 p90 of the numbers on stdin
stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		printf "%.2f %.2f %.2f", v[int(NR / 2) + 1],
		       v[int(NR / 10) + 1], v[int(NR * 9 / 10) + 1] }'
}

# What is printed is also the text of results.md.
say() {
	echo "$@"
	echo "$@" >> "$work/said"
}

say "# one 8-byte hop, us; modes: ${modes[*]} (tcp: two network namespaces joined by a veth pair; shm: both processes in one namespace)"
say "# fi_pingpong -p <mode> -e rdm -S 8 -I $iters: usec/xfer; th_nic: thrun -n 2 --provider ofi thbench post, median of $samples samples"
say "# TH_WAIT_POLICY=${TH_WAIT_POLICY:-auto (default)} TH_OFI_TRIGGER=${TH_OFI_TRIGGER:-auto (default)} TH_OFI_PROVIDER=${TH_OFI_PROVIDER:-(by where the ranks are)}"
say "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(hostname), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $(fi_info --version | sed -n 's/^libfabric: /libfabric /p'); tree $(git -C "$top" describe --always --dirty 2>/dev/null)"
[ -n "$csv" ] && echo "tool,mode,run,us_per_hop" > "$csv"
for i in "${!bins[@]}"; do
	say "# th_nic[$i]: ${bins[$i]}"
done
tools=(fi_pingpong)
for i in "${!bins[@]}"; do
	tools+=("th_nic[$i]")
done
for r in $(seq "$runs"); do
	for m in "${modes[@]}"; do
		pp=$(pingpong "$m") ||
			{ echo "ofi-hop.sh: fi_pingpong ($m) run $r failed" >&2; exit 1; }
		echo "$pp" >> "$work/$m-fi_pingpong"
		line=$(printf "run %2d  %-3s  fi_pingpong %8.2f" "$r" "$m" "$pp")
		[ -n "$csv" ] && echo "fi_pingpong,$m,$r,$pp" >> "$csv"
		for i in "${!bins[@]}"; do
			th=$(thhop "${bins[$i]}" "$m") ||
				{ echo "ofi-hop.sh: thbench (${bins[$i]}, $m) run $r failed" >&2; exit 1; }
			echo "$th" >> "$work/$m-th_nic[$i]"
			line+=$(printf "  th_nic[%d] %8.2f" "$i" "$th")
			[ -n "$csv" ] && echo "th_nic[$i],$m,$r,$th" >> "$csv"
		done
		say "$line"
	done
done
# per mode and tool: median, p10, p90 (the plot's data too)
: > "$work/plot"
for m in "${modes[@]}"; do
	read -r ppm ppl pph < <(stats < "$work/$m-fi_pingpong")
	say "$(printf "%-3s  fi_pingpong  median %8.2f  p10 %8.2f  p90 %8.2f  (runs=%d)" \
		"$m" "$ppm" "$ppl" "$pph" "$runs")"
	row="$m $ppm $ppl $pph"
	for i in "${!bins[@]}"; do
		read -r thm thl thh < <(stats < "$work/$m-th_nic[$i]")
		say "$(printf "%-3s  th_nic[%d]    median %8.2f  p10 %8.2f  p90 %8.2f  (runs=%d)  ratio to fi_pingpong %.2f" \
			"$m" "$i" "$thm" "$thl" "$thh" "$runs" \
			"$(awk -v a="$thm" -v b="$ppm" 'BEGIN { print a / b }')")"
		row+=" $thm $thl $thh"
	done
	echo "$row" >> "$work/plot"
done
[ -n "${csv_copy:-}" ] && cp "$csv" "$csv_copy"
[ -n "$out" ] || exit 0

{
	echo "# ofi hop: th_nic's ofi provider vs fi_pingpong"
	echo
	echo "Command: \`$0 $args\`"
	echo
	echo "One 8-byte hop in microseconds; per mode and tool the median over"
	echo "$runs runs and p10/p90 (nearest rank: below 10 runs the lowest and"
	echo "the highest).  A run's figure: fi_pingpong's usec/xfer, th_nic's"
	echo "median of $samples hop samples.  Runs in hop.csv."
	echo
	echo '```'
	cat "$work/said"
	echo '```'
	echo
	echo "| mode | tool | median | p10 | p90 | runs | ratio to fi_pingpong |"
	echo "|---|---|---|---|---|---|---|"
	while read -r m rest; do
		# shellcheck disable=SC2086 # the numbers, as words
		set -- $rest
		base=$1	# fi_pingpong's median: the first tool
		for t in "${tools[@]}"; do
			echo "| $m | $t | $1 | $2 | $3 | $runs | $(awk -v a="$1" -v b="$base" 'BEGIN { printf "%.2f", a / b }') |"
			shift 3
		done
	done < "$work/plot"
} > "$out/results.md"
if command -v gnuplot > /dev/null; then
	pl=
	for k in "${!tools[@]}"; do
		c=$((2 + 3 * k))
		pl+="${pl:+, }'$work/plot' using $c:$((c + 1)):$((c + 2))$([ "$k" = 0 ] && echo ":xtic(1)") title '${tools[$k]}'"
	done
	gnuplot -e "set terminal png noenhanced size 800,600; set output '$out/hop.png'; set title 'one 8-byte hop: median over $runs runs, bars p10..p90'; set ylabel 'us (log scale)'; set logscale y; set style data histograms; set style histogram errorbars gap 2 lw 1; set style fill solid 0.6 border -1; set key top right; set grid y; plot $pl" ||
		echo "ofi-hop.sh: gnuplot failed: no hop.png" >&2
else
	echo "ofi-hop.sh: gnuplot not found: no hop.png (apt-get install -y gnuplot-nox)" >&2
fi
echo "# written: $(cd "$out" && ls hop.csv results.md hop.png 2> /dev/null | tr '\n' ' ')in $out"
