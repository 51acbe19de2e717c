#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# thmpi-bench.sh - osu_allreduce with libthmpi vs plain MPICH: CSV, tables, PNG
#
# Runs osu_allreduce (tools/thbench/mpi/osu_allreduce.c) under
# `mpiexec -n N` for each N, both modes (latency: MPI_Allreduce, overlap:
# MPI_Iallreduce + compute), in three variants one after the other:
#
#   thmpi    libthmpi preloaded (LD_PRELOAD, THMPI_STATS=1): the calls run
#            as th_nic collectives over the ofi provider (libfabric
#            tcp;ofi_rxm on loopback); its stderr must say they were
#            offloaded, else the run is marked NOT-OFFLOADED
#   ucx-shm  plain MPICH, its default transport (UCX shared memory)
#   ucx-tcp  plain MPICH with UCX_TLS=tcp,self (kernel TCP, the transport
#            the ofi provider uses)
#
# Usage: thmpi-bench.sh [-b OSU_BINARY] [-l LIBTHMPI_SO] [-o OUTDIR]
#        [-n "2 4 8 16"] [-m "latency overlap"] [-V "thmpi ucx-shm ucx-tcp"]
#        [-s MIN_BYTES] [-S MAX_BYTES] [-f 2|4] [-t MS_PER_SIZE]
#        [-T TIMEOUT_S] [-g GRACE_S] [-x "MORE osu_allreduce OPTIONS"] [-r]
#
# -r runs nothing: results.md and the plots again from OUTDIR's CSV files.
# -x passes options to osu_allreduce (e.g. "-m 10 -i 500": at least 10, at
# most 500 iterations per size; see its header).
#
# Each run is bounded: TIMEOUT_S (default 60 + 30 * N seconds) in all,
# and GRACE_S (default 15) after the last size's line was printed (MPICH
# over UCX tcp often hangs in MPI_Finalize at N >= 4 after its results):
# the process group is then killed, what was printed is kept and the run
# marked results-then-hang.
# A run that fails or times out is recorded as such, never retried.
#
# Writes to OUTDIR: latency.csv and overlap.csv (N,variant,mode,size,...
# the program's columns,status), results.md (a table per N and mode, the
# variants side by side with ratios), latency-N<n>.png, overlap-N<n>.png
# and latency.png (all N, multiplot) when gnuplot is there, bench.log
# (every command, its exit code, duration and the load average before and
# after), runs.csv (a line per run: exit code, seconds, sizes printed,
# status, load), raw/ (each run's stdout and stderr).  Exit status 0
# unless the arguments are wrong: a benchmark only reports.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
OSU=$TOP/build/bin/osu_allreduce
LIB=$TOP/build/lib/libthmpi.so
OUT=$TOP/build/bench/thmpi
NS="2 4 8 16"
MODES="latency overlap"
VARIANTS="thmpi ucx-shm ucx-tcp"
MIN=8
MAX=1048576
FACTOR=4
BUDGET=300
TIMEOUT=
GRACE=15
EXTRA=
REPORT=

usage() {
	sed -n '/^# Usage:/,/^#        \[-T/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while getopts "b:l:o:n:m:V:s:S:f:t:T:g:x:rh" opt; do
	case $opt in
	b) OSU=$OPTARG ;;
	l) LIB=$OPTARG ;;
	o) OUT=$OPTARG ;;
	n) NS=$OPTARG ;;
	m) MODES=$OPTARG ;;
	V) VARIANTS=$OPTARG ;;
	s) MIN=$OPTARG ;;
	S) MAX=$OPTARG ;;
	f) FACTOR=$OPTARG ;;
	t) BUDGET=$OPTARG ;;
	T) TIMEOUT=$OPTARG ;;
	g) GRACE=$OPTARG ;;
	x) EXTRA=$OPTARG ;;
	r) REPORT=1 ;;
	*) usage ;;
	esac
done
[ $OPTIND -gt $# ] || usage

mkdir -p "$OUT/raw" || exit 2
LOG=$OUT/bench.log
[ -n "$REPORT" ] || : >"$LOG"

log() { echo "$*" | tee -a "$LOG"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# The sizes osu_allreduce prints (it ends with MAX when the steps miss it).
sizes() {
	local b=$(( (MIN + 7) / 8 * 8 ))

	while :; do
		echo $b
		[ $b -ge "$MAX" ] && break
		b=$(( b * FACTOR > MAX ? MAX : b * FACTOR ))
	done
}
SIZES=$(sizes)
NSIZES=$(echo "$SIZES" | wc -l)

run_all() {
	log "# thmpi-bench $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) CPUs"
	log "# MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH \(Version\|Device\):[[:space:]]*//p' | tr '\n' ' ')"
	log "# osu=$OSU lib=$LIB N='$NS' modes='$MODES' variants='$VARIANTS' sizes $MIN..$MAX x$FACTOR budget ${BUDGET}ms/size grace ${GRACE}s extra '$EXTRA'"
	log "# tree $(git -C "$TOP" describe --always --dirty 2>/dev/null); $(ls -lL --time-style=+%FT%T "$LIB" 2>/dev/null | awk '{print $NF, $(NF-1)}') sha256 $(sha256sum "$LIB" 2>/dev/null | cut -c1-16)"
	log "# load average at start: $(loadavg)"

	missing=
	[ -x "$OSU" ] || missing="$OSU"
	command -v mpiexec >/dev/null || missing="$missing mpiexec"
	if [ -n "$missing" ]; then
		log "# missing: $missing; nothing run"
		exit 0
	fi
	case " $VARIANTS " in *" thmpi "*)
		if [ ! -e "$LIB" ]; then
			log "# no $LIB (built when libmpich-dev and libfabric are there): the thmpi variant is left out"
			VARIANTS=$(echo " $VARIANTS " | sed 's/ thmpi / /; s/^ *//; s/ *$//')
		fi ;;
	esac

	# The environment each variant's ranks get (mpiexec passes it through env,
	# so mpiexec itself never loads libthmpi).
	variant_env() {
		case $1 in
		thmpi) echo "LD_PRELOAD=$LIB THMPI_STATS=1" ;;
		ucx-shm) echo "" ;;
		ucx-tcp) echo "UCX_TLS=tcp,self" ;;
		esac
}

data_lines() { grep -c '^[0-9]' "$1" 2>/dev/null; }

# Run @cmd... bounded; sets RC and STATUS.  The run is its own process
# group (timeout's), so everything mpiexec started goes with it.
bounded() {
	local out=$1 err=$2 limit=$3 start now done_at=
	shift 3

	start=$(date +%s)
	timeout -k 5 "$limit" "$@" >"$out" 2>"$err" &
	local pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 1
		now=$(date +%s)
		if [ -z "$done_at" ] && [ "$(data_lines "$out")" -ge "$NSIZES" ]; then
			done_at=$now
		fi
		if [ -n "$done_at" ] && [ $((now - done_at)) -ge "$GRACE" ]; then
			log "#   all sizes printed ${GRACE}s ago and still running: killing process group $pid"
			kill -TERM -- -$pid 2>/dev/null
			sleep 3
			kill -KILL -- -$pid 2>/dev/null
			break
		fi
	done
	wait $pid
	RC=$?
	ELAPSED=$(( $(date +%s) - start ))
	# anything left of the group (a rank timeout's signal missed)
	local left
	left=$(ps -eo pid=,pgid= | awk -v g=$pid '$2 == g { printf "%s ", $1 }')
	if [ -n "$left" ]; then
		log "#   left over after the run: pids $left; killing them"
		kill -KILL $left 2>/dev/null
	fi
	local n
	n=$(data_lines "$out")
	if [ "$RC" = 0 ] && [ "$n" -ge "$NSIZES" ]; then
		STATUS=ok
	elif [ "$n" -ge "$NSIZES" ]; then
		STATUS="results-then-hang(rc=$RC)"
	elif [ "$RC" = 124 ] || [ "$RC" = 137 ] || [ "$RC" = 143 ]; then
		STATUS="timeout($n/$NSIZES sizes)"
	else
		STATUS="failed(rc=$RC $n/$NSIZES sizes)"
	fi
	if grep -q '^osu_allreduce: ' "$err"; then
		STATUS="WRONG-RESULT;$STATUS"
	fi
}

# Did libthmpi offload this run's calls?  Appends to STATUS when not.
check_offload() {
	local err=$1 mode=$2 call off fell
	[ "$mode" = overlap ] && call=MPI_Iallreduce || call=MPI_Allreduce
	off=$(sed -n "s/^thmpi: job.*  $call *\([0-9]*\) offloaded.*/\1/p" "$err" | head -1)
	fell=$(sed -n 's/^thmpi: job[^:]*: [0-9]* calls offloaded, \([0-9]*\) to MPICH/\1/p' "$err" | head -1)
	log "#   libthmpi stats: $(grep '^thmpi: job' "$err" | sed 's/^thmpi: job (every rank.s calls): *//' | tr -s ' ' | paste -sd';')"
	if [ -z "$off" ] || [ "$off" = 0 ]; then
		STATUS="NOT-OFFLOADED;$STATUS"
	elif [ -n "$fell" ] && [ "$fell" != 0 ]; then
		STATUS="$STATUS;$fell-calls-to-MPICH"
	fi
	if grep -q 'offload is off\|could not start\|offloaded .* failed' "$err"; then
		STATUS="OFFLOAD-ERROR;$STATUS"
	fi
}

LAT_HDR="N,variant,mode,size,iters,avg_us,median_us,min_us,max_us,osu_avg_us,status"
OVL_HDR="N,variant,mode,size,iters,overall_us,compute_us,pure_us,overlap_pct,overall_med_us,compute_med_us,pure_med_us,overlap_med_pct,status"
echo "$LAT_HDR" >"$OUT/latency.csv"
echo "$OVL_HDR" >"$OUT/overlap.csv"
echo "N,variant,mode,exit,seconds,sizes,status,load1_before,load1_after" >"$OUT/runs.csv"

for n in $NS; do
	limit=${TIMEOUT:-$((60 + 30 * n))}
	for mode in $MODES; do
		for v in $VARIANTS; do
			tag=N$n-$v-$mode
			venv=$(variant_env "$v")
			# venv and EXTRA split into words on purpose
			# shellcheck disable=SC2206
			cmd=(mpiexec -n "$n" env $venv "$OSU" "$mode" "$MIN" "$MAX" -f "$FACTOR" -t "$BUDGET" $EXTRA)
			load0=$(loadavg)
			log "## $tag: load $load0 $(date -u +%H:%M:%S)"
			log "\$ timeout -k 5 $limit ${cmd[*]}"
			bounded "$OUT/raw/$tag.out" "$OUT/raw/$tag.err" "$limit" "${cmd[@]}"
			[ "$v" = thmpi ] && check_offload "$OUT/raw/$tag.err" "$mode"
			log "#   exit $RC after ${ELAPSED}s, $(data_lines "$OUT/raw/$tag.out")/$NSIZES sizes, status $STATUS, load $(loadavg)"
			grep -v '^thmpi: job' "$OUT/raw/$tag.err" | head -5 | sed 's/^/#   stderr: /' | tee -a "$LOG"
			grep '^[0-9]' "$OUT/raw/$tag.out" |
				sed "s|^|$n,$v,$mode,|; s|\$|,$STATUS|" >>"$OUT/$mode.csv"
			echo "$n,$v,$mode,$RC,$ELAPSED,$(data_lines "$OUT/raw/$tag.out")/$NSIZES,$STATUS,${load0%% *},$(loadavg | cut -d' ' -f1)" >>"$OUT/runs.csv"
		done
	done
done
log "# load average at end: $(loadavg) $(date -u +%H:%M:%S)"
}

if [ -n "$REPORT" ]; then
	log "# -r: report again from $OUT's CSV files $(date -u +%H:%M:%S)"
else
	run_all
fi

# results.md: per N and mode, the variants side by side.
python3 - "$OUT" "$NS" "$VARIANTS" <<'EOF' || log "# results.md: python3 failed"
import csv, sys, os
out, ns, variants = sys.argv[1], sorted(sys.argv[2].split(), key=int), sys.argv[3].split()
def load(mode):
    p = os.path.join(out, mode + ".csv")
    d = {}
    if os.path.exists(p):
        for r in csv.DictReader(open(p)):
            d[(r["N"], r["variant"], int(r["size"]))] = r
    return d
def size(b):
    return "%d MiB" % (b >> 20) if b >= 1 << 20 and not b & ((1 << 20) - 1) else \
           "%d KiB" % (b >> 10) if b >= 1024 and not b & 1023 else "%d B" % b
def ratio(a, b):
    try:
        return "%.2f" % (float(a) / float(b))
    except (TypeError, ValueError, ZeroDivisionError):
        return "-"
lat, ovl = load("latency"), load("overlap")
w = open(os.path.join(out, "results.md"), "w")
w.write("# libthmpi vs MPICH: osu_allreduce\n\n")
w.write("Times in microseconds: per iteration the slowest rank's time, "
        "averaged (avg) or median (med) over iterations.  Ratios are "
        "thmpi / the other (below 1: libthmpi faster).  Status per run in "
        "latency.csv / overlap.csv; bench.log has the commands.\n")
for n in ns:
    sizes = sorted({k[2] for k in lat if k[0] == n} | {k[2] for k in ovl if k[0] == n})
    if not sizes:
        continue
    w.write("\n## N = %s: MPI_Allreduce latency (us)\n\n" % n)
    cols = ["size"] + ["%s avg" % v for v in variants] + ["%s med" % v for v in variants]
    rat = [v for v in variants if v != "thmpi"] if "thmpi" in variants else []
    cols += ["thmpi/%s (avg)" % v for v in rat]
    w.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
    for s in sizes:
        g = lambda v, c: lat.get((n, v, s), {}).get(c, "-")
        row = [size(s)] + [g(v, "avg_us") for v in variants] + [g(v, "median_us") for v in variants]
        row += [ratio(g("thmpi", "avg_us"), g(v, "avg_us")) for v in rat]
        w.write("| " + " | ".join(row) + " |\n")
    w.write("\n## N = %s: MPI_Iallreduce overlap\n\n" % n)
    w.write("pure = Iallreduce+Wait, overall = Iallreduce+compute+Wait (us, avg); "
            "overlap % = max(0, 100 (1 - (overall - compute) / pure)) from averages "
            "(med: from medians).\n\n")
    cols = ["size"] + ["%s pure" % v for v in variants] + ["%s overall" % v for v in variants] + \
           ["%s ovl %%" % v for v in variants] + ["%s ovl %% med" % v for v in variants]
    cols += ["thmpi/%s (pure)" % v for v in rat]
    w.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
    for s in sizes:
        g = lambda v, c: ovl.get((n, v, s), {}).get(c, "-")
        row = [size(s)] + [g(v, "pure_us") for v in variants] + [g(v, "overall_us") for v in variants] + \
              [g(v, "overlap_pct") for v in variants] + [g(v, "overlap_med_pct") for v in variants]
        row += [ratio(g("thmpi", "pure_us"), g(v, "pure_us")) for v in rat]
        w.write("| " + " | ".join(row) + " |\n")
cols = ["N", "variant", "mode", "exit", "seconds", "sizes", "status", "load1_before", "load1_after"]
w.write("\n## Runs\n\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
for r in csv.DictReader(open(os.path.join(out, "runs.csv"))):
    w.write("| " + " | ".join(r[c] for c in cols) + " |\n")
EOF

# Plots: latency (avg) vs size, log-log, per N and all N in one multiplot;
# overlap % vs size per N.
if command -v gnuplot >/dev/null; then
	xt=
	for b in $SIZES; do
		if [ $((b % 1048576)) = 0 ]; then l=$((b / 1048576))M
		elif [ $((b % 1024)) = 0 ]; then l=$((b / 1024))K
		else l=$b; fi
		xt="$xt${xt:+, }\"$l\" $b"
	done
	plot_n() {	# n mode column ylabel logy
		local n=$1 mode=$2 col=$3 ylabel=$4 logy=$5 v s=""
		for v in $VARIANTS; do
			s="$s${s:+, }'< grep \"^$n,$v,$mode,\" $OUT/$mode.csv' using 4:$col with linespoints title '$v'"
		done
		echo "set title 'osu_allreduce $mode, N=$n'; set xlabel 'bytes'; set ylabel '$ylabel'; set logscale x 2; set xtics ($xt); ${logy:+set logscale y;} set key top left; set grid; plot $s"
	}
	for n in $NS; do
		grep -q "^$n," "$OUT/latency.csv" &&
			gnuplot -e "set terminal png noenhanced size 800,600; set output '$OUT/latency-N$n.png'; set datafile separator ','; $(plot_n "$n" latency 6 'avg latency (us)' 1)" 2>>"$LOG"
		grep -q "^$n," "$OUT/overlap.csv" &&
			gnuplot -e "set terminal png noenhanced size 800,600; set output '$OUT/overlap-N$n.png'; set datafile separator ','; set yrange [0:*]; $(plot_n "$n" overlap 9 'overlap % (avg)' '')" 2>>"$LOG"
	done
	nn=$(echo $NS | wc -w)
	mp="set terminal png noenhanced size 1200,$(( 450 * ((nn + 1) / 2) )); set output '$OUT/latency.png'; set datafile separator ','; set multiplot layout $(( (nn + 1) / 2 )),2"
	for n in $NS; do
		mp="$mp; $(plot_n "$n" latency 6 'avg latency (us)' 1); unset logscale"
	done
	gnuplot -e "$mp; unset multiplot" 2>>"$LOG"
	log "# plots: $(cd "$OUT" && ls *.png 2>/dev/null | tr '\n' ' ')"
else
	log "# gnuplot not found: no plots (apt-get install -y gnuplot-nox)"
fi
log "# done $(date -u +%H:%M:%S): $OUT/results.md"
exit 0
