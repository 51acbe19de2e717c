#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# thmpi-vm-bench.sh - the run.sh of `make vmbench-thmpi`: osu_coll with
# its default collective (latency: MPI_Allreduce; overlap: MPI_Iallreduce
# + compute) under Debian's MPICH mpiexec in the test VM, at N = 2 and
# 16 ranks, with libthmpi on th_nic.ko (THMPI_PROVIDER=kernel) and with
# MPICH alone (its UCX shared memory), one run after the other in one
# boot.  Each result
# line goes to the console as
#   TH_BENCH: N VARIANT MODE <osu_coll's CSV line>
# and tools/thbench/mpi/thmpi-vm-table.sh turns them into CSV and a table.
# A benchmark reports: a run that fails or times out is said, not judged;
# a libthmpi run whose statistics do not say "0 to MPICH" is marked.
# Environment (kernel command line NAME=VALUE): TH_BENCH_NS ("2,16"),
# TH_BENCH_MS (osu_coll -t, default 100), TH_BENCH_MAX (1048576).
here=$(dirname "$0")
mod=${1:-/th_nic.ko}
ns=$(echo "${TH_BENCH_NS:-2,16}" | tr , " ")
ms=${TH_BENCH_MS:-100}
max=${TH_BENCH_MAX:-1048576}
lib=$here/mpi/lib/libthmpi.so.1

export PATH="$here/mpi/bin:$PATH"
hostname thvm
printf '127.0.0.1 localhost thvm\n' > /etc/hosts
echo 'hosts: files' > /etc/nsswitch.conf
insmod "$mod" nodes=16 || { echo "TH_BENCH: insmod failed"; exit 1; }
echo "TH_BENCH: # $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs, th_nic nodes=16; osu_coll -f 4 -t $ms, 8 .. $max bytes"

for n in $ns; do
	for mode in latency overlap; do
		for v in kernel shm; do
			envs=
			[ $v = kernel ] && envs="LD_PRELOAD=$lib THMPI_PROVIDER=kernel THMPI_STATS=1"
			start=$(date +%s)
			# shellcheck disable=SC2086 # the settings are words
			timeout -k 5 $((120 + 30 * n)) mpiexec -n "$n" env $envs \
				"$here/bin/osu_coll" "$mode" 8 "$max" -f 4 \
				-t "$ms" > /tmp/out 2> /tmp/err
			st=$?
			grep -E '^[0-9]+,' /tmp/out | sed "s/^/TH_BENCH: $n $v $mode /"
			note="exit $st, $(( $(date +%s) - start )) s"
			if [ $v = kernel ] && ! grep -qE "^thmpi: job[^:]*: [1-9][0-9]* calls offloaded, 0 to MPICH" /tmp/err; then
				note="$note, NOT-OFFLOADED"
			fi
			echo "TH_BENCH: # N=$n $v $mode: $note"
			[ $st = 0 ] || tail -n 5 /tmp/err | sed 's/^/TH_BENCH: #   /'
		done
	done
done
rmmod th_nic
exit 0
