#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# test_bench_tools.sh - the benchmark tools' own logic, not their speed:
# osu_coll (tools/thbench/mpi/osu_coll.c) runs each collective in each
# mode under mpiexec, MPICH alone and with libthmpi (every size printed,
# its result checked by the program, libthmpi's statistics naming the
# measured call offloaded and nothing sent to MPICH); thmpi-bench.sh's
# report (-r) from CSV files of known numbers (medians, min/max, p10/p90,
# ratios, old files without coll and run, a failed run marked); and the
# refusals of osu_coll, thmpi-bench.sh and ofi-hop.sh.  TAP on stdout.
# No timing is compared with anything.
#
# usage: test_bench_tools.sh OSU_COLL LIBTHMPI_SO
set -u
osu=$1 lib=$2
top=$(cd "$(dirname "$0")/../../.." && pwd)
bench=$top/tools/thbench/mpi/thmpi-bench.sh
hop=$top/tools/thbench/ofi-hop.sh
n=0 rc=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
# no test may hang: every job is bounded
T=120

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n $1"; rc=1; }
check() {
	local name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}
# say what went wrong, from a command's output
show() { sed 's/^/#   /' "$1" | tail -n "${2:-15}"; }

echo "TAP version 13"
if ! command -v mpiexec > /dev/null || ! command -v python3 > /dev/null; then
	echo "1..0 # SKIP needs MPICH's mpiexec and python3"
	exit 0
fi

# --- osu_coll -------------------------------------------------------------

# refused: exit 2 and the message on stderr; $1 the message, then the command
refused() {
	local msg=$1 st
	shift
	timeout -k 5 $T "$@" > "$work/refused.out" 2> "$work/refused.err"
	st=$?
	if [ $st = 2 ] && grep -qF -- "$msg" "$work/refused.err"; then
		return 0
	fi
	echo "#   exit $st, wanted 2 and '$msg'"
	show "$work/refused.err"
	return 1
}

check "osu_coll refuses an unknown collective" \
	refused "osu_coll: unknown collective 'scan'" \
	mpiexec -n 2 "$osu" latency 8 64 -c scan

# call COLL MODE: the call osu_coll measures
call() {
	case $1/$2 in
	allreduce/latency) echo MPI_Allreduce ;;
	allreduce/overlap) echo MPI_Iallreduce ;;
	reduce/latency) echo MPI_Reduce ;;
	reduce/overlap) echo MPI_Ireduce ;;
	bcast/latency) echo MPI_Bcast ;;
	bcast/overlap) echo MPI_Ibcast ;;
	esac
}

# osu_run COLL MODE [ENV...]: 2 ranks, 8 .. 64 bytes (8, 32, 64), a few
# iterations; exit 0, three sizes, the header naming the call
osu_run() {
	local coll=$1 mode=$2 st lines
	shift 2
	timeout -k 5 $T mpiexec -n 2 env "$@" "$osu" "$mode" 8 64 -c "$coll" \
		-t 5 -m 5 -i 20 -w 2 > "$work/osu.out" 2> "$work/osu.err"
	st=$?
	lines=$(grep -c '^[0-9]' "$work/osu.out")
	if [ $st = 0 ] && [ "$lines" = 3 ] &&
	   grep -q "^# collective $coll ($(call "$coll" "$mode"))" "$work/osu.out"; then
		return 0
	fi
	echo "#   exit $st, $lines sizes printed"
	show "$work/osu.out" 5
	show "$work/osu.err"
	return 1
}

# the same with libthmpi: and its statistics say the call was offloaded,
# nothing went to MPICH (osu_coll's own reductions call PMPI_)
osu_thmpi() {
	local coll=$1 mode=$2
	osu_run "$coll" "$mode" LD_PRELOAD="$lib" THMPI_STATS=1 || return 1
	if grep -q "^thmpi: job[^:]*: [1-9][0-9]* calls offloaded, 0 to MPICH" "$work/osu.err" &&
	   grep -q "^thmpi: job[^:]*:   $(call "$coll" "$mode") *[1-9][0-9]* offloaded" "$work/osu.err"; then
		return 0
	fi
	show "$work/osu.err"
	return 1
}

for coll in allreduce reduce bcast; do
	for mode in latency overlap; do
		check "osu_coll -c $coll $mode: MPICH alone, every size printed, results right" \
			osu_run "$coll" "$mode"
		if [ -e "$lib" ]; then
			check "osu_coll -c $coll $mode: libthmpi offloads $(call "$coll" "$mode"), results right" \
				osu_thmpi "$coll" "$mode"
		else
			n=$((n + 1))
			echo "ok $n osu_coll -c $coll $mode with libthmpi # SKIP no $lib"
		fi
	done
done

# --- thmpi-bench.sh -------------------------------------------------------

check "thmpi-bench.sh refuses an unknown collective" \
	refused "unknown collective 'scan'" "$bench" -r -o "$work/x" -c "reduce scan"
check "thmpi-bench.sh refuses -R 0" \
	refused "-R wants a count >= 1, not '0'" "$bench" -r -o "$work/x" -R 0
check "thmpi-bench.sh refuses -R two" \
	refused "-R wants a count >= 1, not 'two'" "$bench" -r -o "$work/x" -R two
check "thmpi-bench.sh refuses -f 16 (osu_coll takes 2 or 4)" \
	refused "-f wants 2 or 4, not '16'" "$bench" -r -o "$work/x" -f 16
check "thmpi-bench.sh refuses an unknown mode" \
	refused "unknown mode 'bandwidth'" "$bench" -r -o "$work/x" -m "latency bandwidth"
check "thmpi-bench.sh refuses an unknown variant" \
	refused "unknown variant 'ucx-ib'" "$bench" -r -o "$work/x" -V "thmpi ucx-ib"
check "thmpi-bench.sh refuses -S 1M" \
	refused "-s and -S want a byte count >= 1, not '1M'" "$bench" -r -o "$work/x" -S 1M
check "thmpi-bench.sh refuses -s above -S" \
	refused "-s 4096 is above -S 8" "$bench" -r -o "$work/x" -s 4096 -S 8

LAT_HDR="N,variant,mode,size,iters,avg_us,median_us,min_us,max_us,osu_avg_us,status,coll,run"
OVL_HDR="N,variant,mode,size,iters,overall_us,compute_us,pure_us,overlap_pct,overall_med_us,compute_med_us,pure_med_us,overlap_med_pct,status,coll,run"

# report DIR: thmpi-bench.sh -r on DIR's files, thmpi beside ucx-shm
report() {
	"$bench" -r -n 2 -V "thmpi ucx-shm" -o "$1" > "$1/report.log" 2>&1 &&
		[ -s "$1/summary.csv" ] && [ -s "$1/results.md" ] ||
		{ show "$1/report.log"; return 1; }
}

# has FILE LINE: FILE holds LINE exactly
has() {
	grep -qxF -- "$2" "$1" && return 0
	echo "#   $1 lacks: $2"
	show "$1" 30
	return 1
}

# Three runs: thmpi's 8 B Reduce averages 1, 9, 2 (median 2, min 1, max
# 9), ucx-shm's 4 each time (ratio 0.50); run 2 of thmpi at 32 B failed.
three_runs() {
	local d=$work/three
	mkdir -p "$d"
	{
		echo "$LAT_HDR"
		echo "2,thmpi,latency,8,10,1.00,0.90,0.5,3,1,ok,reduce,1"
		echo "2,ucx-shm,latency,8,10,4.00,3.00,1,5,4,ok,reduce,1"
		echo "2,thmpi,latency,32,10,5.00,5.00,1,9,5,ok,reduce,1"
		echo "2,thmpi,latency,8,10,9.00,8.00,0.5,30,9,ok,reduce,2"
		echo "2,ucx-shm,latency,8,10,4.00,3.50,1,5,4,ok,reduce,2"
		echo "2,thmpi,latency,32,10,7.00,6.00,1,9,7,WRONG-RESULT;ok,reduce,2"
		echo "2,thmpi,latency,8,10,2.00,1.50,0.5,3,2,ok,reduce,3"
		echo "2,ucx-shm,latency,8,10,4.00,3.25,1,5,4,ok,reduce,3"
	} > "$d/latency.csv"
	echo "$OVL_HDR" > "$d/overlap.csv"
	report "$d" &&
	has "$d/summary.csv" "2,reduce,latency,thmpi,8,3,avg_us,2.00,1.00,9.00,minmax,0" &&
	has "$d/summary.csv" "2,reduce,latency,thmpi,8,3,median_us,1.50,0.90,8.00,minmax,0" &&
	has "$d/summary.csv" "2,reduce,latency,ucx-shm,8,3,avg_us,4.00,4.00,4.00,minmax,0" &&
	has "$d/summary.csv" "2,reduce,latency,thmpi,32,2,avg_us,6.00,5.00,7.00,minmax,1" &&
	has "$d/results.md" "| 8 B | 2.00 [1.00, 9.00] | 4.00 [4.00, 4.00] | 1.50 | 3.25 | 0.50 |" &&
	has "$d/results.md" "| 32 B | 6.00 [5.00, 7.00] (2 runs) * | - | 5.50 (2 runs) * | - | - |" &&
	grep -q "^## N = 2: MPI_Reduce (root 0) latency" "$d/results.md" &&
	grep -q "min and max over runs" "$d/results.md"
}
check "thmpi-bench.sh -r: median, min/max over 3 runs, ratio, a failed run marked" \
	three_runs

# Five runs of an Ibcast: pure 1 2 3 4 100 -> median 3, p10 1.4, p90 61.6
# (linear between neighbours), as 5 runs or more give.
five_runs() {
	local d=$work/five r v
	mkdir -p "$d"
	echo "$LAT_HDR" > "$d/latency.csv"
	echo "$OVL_HDR" > "$d/overlap.csv"
	r=0
	for v in 4 2 100 1 3; do
		r=$((r + 1))
		echo "2,thmpi,overlap,8,10,9,5,$v,50,9,5,$v,50,ok,bcast,$r" >> "$d/overlap.csv"
	done
	report "$d" &&
	has "$d/summary.csv" "2,bcast,overlap,thmpi,8,5,pure_us,3.00,1.40,61.60,p10p90,0" &&
	has "$d/summary.csv" "2,bcast,overlap,thmpi,8,5,overlap_pct,50.00,50.00,50.00,p10p90,0" &&
	grep -q "^## N = 2: MPI_Ibcast (root 0) overlap" "$d/results.md" &&
	grep -q "p10 and p90 over runs" "$d/results.md"
}
check "thmpi-bench.sh -r: p10/p90 over 5 runs, overlap" five_runs

# Files from before -c and -R: no coll, no run columns: Allreduce, run 1.
old_files() {
	local d=$work/old
	mkdir -p "$d"
	{
		echo "N,variant,mode,size,iters,avg_us,median_us,min_us,max_us,osu_avg_us,status"
		echo "2,thmpi,latency,8,10,3.00,2.00,1,5,3,ok"
		echo "2,ucx-shm,latency,8,10,6.00,5.00,1,9,6,ok"
	} > "$d/latency.csv"
	report "$d" &&
	has "$d/summary.csv" "2,allreduce,latency,thmpi,8,1,avg_us,3.00,3.00,3.00,minmax,0" &&
	has "$d/results.md" "| 8 B | 3.00 | 6.00 | 2.00 | 5.00 | 0.50 |"
}
check "thmpi-bench.sh -r: CSV files without coll and run read as allreduce, run 1" \
	old_files

# --- ofi-hop.sh -------------------------------------------------------------

check "ofi-hop.sh refuses --samples below thbench post's 5" \
	refused "--samples must be from 5 to 1000" "$hop" --samples 3
check "ofi-hop.sh refuses fewer than 3 runs" \
	refused "--runs must be at least 3" "$hop" --runs 2

echo "1..$n"
exit $rc
