#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
# thmpi-bench.sh - osu_coll with libthmpi vs plain MPICH: CSV, tables, PNG
#
# Runs osu_coll (tools/thbench/mpi/osu_coll.c) under `mpiexec -n N` for
# each N, each collective (-c: allreduce, reduce, bcast; default allreduce
# alone), both modes (latency: the blocking call, e.g. MPI_Allreduce;
# overlap: its non-blocking form, e.g. MPI_Iallreduce, + compute), RUNS
# times (-R, default 1), in three variants one after the other:
#
#   thmpi    libthmpi preloaded (LD_PRELOAD, THMPI_STATS=1): the calls run
#            as th_nic collectives over the ofi provider (libfabric
#            shm, every rank being on this host; TH_OFI_PROVIDER in the
#            environment chooses another); its stderr must say they were
#            offloaded, else the run is marked NOT-OFFLOADED
#   ucx-shm  plain MPICH, its default transport (UCX shared memory: the
#            like of the ofi provider's shm)
#   ucx-tcp  plain MPICH with UCX_TLS=tcp,self (kernel TCP, the transport
#            of the ofi provider's tcp;ofi_rxm)
#
# Usage: thmpi-bench.sh [-b OSU_BINARY] [-l LIBTHMPI_SO] [-o OUTDIR]
#        [-n "2 4 8 16"] [-c "allreduce reduce bcast"] [-m "latency overlap"]
#        [-V "thmpi ucx-shm ucx-tcp"] [-R RUNS] [-s MIN_BYTES] [-S MAX_BYTES]
#        [-f 2|4] [-t MS_PER_SIZE] [-T TIMEOUT_S] [-g GRACE_S]
#        [-x "MORE osu_coll OPTIONS"] [-r]
#
# -R repeats each (N, collective, mode) RUNS times, the variants
# interleaved: thmpi, ucx-shm, ucx-tcp, then again thmpi, ucx-shm ...,
# so a drift of the machine's load falls on every variant alike.
# -r runs nothing: results.md, summary.csv and the plots again from
# OUTDIR's CSV files (CSV files without the coll and run columns, from
# before -c and -R, read as allreduce, run 1).
# -x passes options to osu_coll (e.g. "-m 10 -i 500": at least 10, at
# most 500 iterations per size; see its header).
#
# Each run is bounded: TIMEOUT_S (default 60 + 30 * N seconds) in all,
# and GRACE_S (default 15) after the last size's line was printed (MPICH
# over UCX tcp often hangs in MPI_Finalize at N >= 4 after its results):
# the process group is then killed, what was printed is kept and the run
# marked results-then-hang.
# A run that fails or times out is recorded as such, never retried.
#
# Writes to OUTDIR:
#   latency.csv, overlap.csv  a line per run and size: N,variant,mode,size,
#	the program's columns,status, then coll,run (added after status, so
#	the earlier columns keep their places)
#   runs.csv   a line per run: N,variant,mode,exit,seconds,sizes,status,
#	load1_before,load1_after, then coll,run
#   summary.csv  per N, collective, mode, variant, size and metric (latency:
#	avg_us, median_us; overlap: pure_us, overall_us, overlap_pct) over
#	the runs: N,coll,mode,variant,size,runs,metric,median,lo,hi,spread,
#	not_ok; lo/hi are p10/p90 (linear interpolation) with 5 runs or
#	more, else min/max, as spread says; not_ok counts runs whose status
#	is not ok
#   results.md  a table per N, collective and mode: per size each
#	variant's median over runs with its spread, side by side, and the
#	ratio thmpi / each other variant of the medians
#   latency-<coll>-N<n>.png, overlap-<coll>-N<n>.png, latency-<coll>.png
#	(all N, multiplot): the medians with lo/hi error bars, when
#	gnuplot is there
#   bench.log  every command, its exit code, duration and the load
#	average before and after
#   raw/       each run's stdout and stderr
# Exit status 0 unless the arguments are wrong: a benchmark only reports.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
OSU=$TOP/build/bin/osu_coll
LIB=$TOP/build/lib/libthmpi.so
OUT=$TOP/build/bench/thmpi
NS="2 4 8 16"
COLLS=allreduce
RUNS=1
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
	sed -n '/^# Usage:/,/^#        \[-x/p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

while getopts "b:l:o:n:c:m:V:R:s:S:f:t:T:g:x:rh" opt; do
	case $opt in
	b) OSU=$OPTARG ;;
	l) LIB=$OPTARG ;;
	o) OUT=$OPTARG ;;
	n) NS=$OPTARG ;;
	c) COLLS=$OPTARG ;;
	R) RUNS=$OPTARG ;;
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
case $RUNS in ''|*[!0-9]*|0) echo "thmpi-bench.sh: -R wants a count >= 1, not '$RUNS'" >&2; usage ;; esac
for c in $COLLS; do
	case $c in allreduce|reduce|bcast) ;;
	*) echo "thmpi-bench.sh: unknown collective '$c' (allreduce, reduce, bcast)" >&2; usage ;;
	esac
done
# osu_coll refuses what these would pass it, in every run: refused here once
for m in $MODES; do
	case $m in latency|overlap) ;;
	*) echo "thmpi-bench.sh: unknown mode '$m' (latency, overlap)" >&2; usage ;;
	esac
done
for v in $VARIANTS; do
	case $v in thmpi|ucx-shm|ucx-tcp) ;;
	*) echo "thmpi-bench.sh: unknown variant '$v' (thmpi, ucx-shm, ucx-tcp)" >&2; usage ;;
	esac
done
case $FACTOR in 2|4) ;; *) echo "thmpi-bench.sh: -f wants 2 or 4, not '$FACTOR'" >&2; usage ;; esac
for b in "$MIN" "$MAX"; do
	case $b in ''|*[!0-9]*|0) echo "thmpi-bench.sh: -s and -S want a byte count >= 1, not '$b'" >&2; usage ;; esac
done
[ "$MIN" -le "$MAX" ] || { echo "thmpi-bench.sh: -s $MIN is above -S $MAX" >&2; usage; }

mkdir -p "$OUT/raw" || exit 2
LOG=$OUT/bench.log
[ -n "$REPORT" ] || : >"$LOG"

log() { echo "$*" | tee -a "$LOG"; }
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# The sizes osu_coll prints (it ends with MAX when the steps miss it).
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

# The call osu_coll measures for collective @1 in mode @2.
mpi_call() {
	case $1/$2 in
	allreduce/latency) echo MPI_Allreduce ;;
	allreduce/overlap) echo MPI_Iallreduce ;;
	reduce/latency) echo MPI_Reduce ;;
	reduce/overlap) echo MPI_Ireduce ;;
	bcast/latency) echo MPI_Bcast ;;
	bcast/overlap) echo MPI_Ibcast ;;
	esac
}

run_all() {
	log "# thmpi-bench $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) CPUs"
	log "# MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH \(Version\|Device\):[[:space:]]*//p' | tr '\n' ' ')"
	log "# osu=$OSU lib=$LIB N='$NS' colls='$COLLS' modes='$MODES' variants='$VARIANTS' runs=$RUNS (variants interleaved) sizes $MIN..$MAX x$FACTOR budget ${BUDGET}ms/size grace ${GRACE}s extra '$EXTRA'"
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
	if grep -q '^osu_coll: ' "$err"; then
		STATUS="WRONG-RESULT;$STATUS"
	fi
}

# Did libthmpi offload this run's calls?  Appends to STATUS when not.
# (osu_coll's own reductions call PMPI_, so any call to MPICH is one of
# the measured ones.)
check_offload() {
	local err=$1 call=$2 off fell
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

LAT_HDR="N,variant,mode,size,iters,avg_us,median_us,min_us,max_us,osu_avg_us,status,coll,run"
OVL_HDR="N,variant,mode,size,iters,overall_us,compute_us,pure_us,overlap_pct,overall_med_us,compute_med_us,pure_med_us,overlap_med_pct,status,coll,run"
echo "$LAT_HDR" >"$OUT/latency.csv"
echo "$OVL_HDR" >"$OUT/overlap.csv"
echo "N,variant,mode,exit,seconds,sizes,status,load1_before,load1_after,coll,run" >"$OUT/runs.csv"

for n in $NS; do
	limit=${TIMEOUT:-$((60 + 30 * n))}
	for coll in $COLLS; do
	for mode in $MODES; do
	for run in $(seq 1 "$RUNS"); do
		for v in $VARIANTS; do
			tag=N$n-$coll-$mode-$v-r$run
			venv=$(variant_env "$v")
			# venv and EXTRA split into words on purpose
			# shellcheck disable=SC2206
			cmd=(mpiexec -n "$n" env $venv "$OSU" "$mode" "$MIN" "$MAX" -c "$coll" -f "$FACTOR" -t "$BUDGET" $EXTRA)
			load0=$(loadavg)
			log "## $tag: load $load0 $(date -u +%H:%M:%S)"
			log "\$ timeout -k 5 $limit ${cmd[*]}"
			bounded "$OUT/raw/$tag.out" "$OUT/raw/$tag.err" "$limit" "${cmd[@]}"
			[ "$v" = thmpi ] && check_offload "$OUT/raw/$tag.err" "$(mpi_call "$coll" "$mode")"
			log "#   exit $RC after ${ELAPSED}s, $(data_lines "$OUT/raw/$tag.out")/$NSIZES sizes, status $STATUS, load $(loadavg)"
			grep -v '^thmpi: job' "$OUT/raw/$tag.err" | head -5 | sed 's/^/#   stderr: /' | tee -a "$LOG"
			grep '^[0-9]' "$OUT/raw/$tag.out" |
				sed "s|^|$n,$v,$mode,|; s|\$|,$STATUS,$coll,$run|" >>"$OUT/$mode.csv"
			echo "$n,$v,$mode,$RC,$ELAPSED,$(data_lines "$OUT/raw/$tag.out")/$NSIZES,$STATUS,${load0%% *},$(loadavg | cut -d' ' -f1),$coll,$run" >>"$OUT/runs.csv"
		done
	done
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

# summary.csv and results.md: per N, collective and mode, each variant's
# median over runs and its spread, side by side.
python3 - "$OUT" "$NS" "$VARIANTS" <<'EOF' || log "# results.md: python3 failed"
import csv, sys, os
out, ns, variants = sys.argv[1], sorted(sys.argv[2].split(), key=int), sys.argv[3].split()
COLLS = ["allreduce", "reduce", "bcast"]
CALLS = {("allreduce", "latency"): "MPI_Allreduce", ("allreduce", "overlap"): "MPI_Iallreduce",
         ("reduce", "latency"): "MPI_Reduce (root 0)", ("reduce", "overlap"): "MPI_Ireduce (root 0)",
         ("bcast", "latency"): "MPI_Bcast (root 0)", ("bcast", "overlap"): "MPI_Ibcast (root 0)"}
METRICS = {"latency": ["avg_us", "median_us"],
           "overlap": ["pure_us", "overall_us", "overlap_pct"]}

def rows(name):
    """A file's rows; those from before -c/-R (no coll, run) as allreduce, run 1."""
    p = os.path.join(out, name)
    if not os.path.exists(p):
        return []
    rs = list(csv.DictReader(open(p)))
    for r in rs:
        r["coll"] = r.get("coll") or "allreduce"
        r["run"] = r.get("run") or "1"
    return rs

def pct(xs, q):
    """The q-quantile of sorted xs, linear between neighbours."""
    k = (len(xs) - 1) * q
    i = int(k)
    return xs[i] if i + 1 >= len(xs) else xs[i] + (xs[i + 1] - xs[i]) * (k - i)

# groups[(N, coll, mode, variant, size, metric)] = [(value, status ok?)]
groups = {}
runs = rows("runs.csv")
maxrun = max([int(r["run"]) for r in runs] or [1])
for mode in METRICS:
    for r in rows(mode + ".csv"):
        maxrun = max(maxrun, int(r["run"]))
        for m in METRICS[mode]:
            try:
                v = float(r[m])
            except (KeyError, TypeError, ValueError):
                continue
            groups.setdefault((r["N"], r["coll"], mode, r["variant"], int(r["size"]), m),
                              []).append((v, r["status"] == "ok"))
spread = "p10p90" if maxrun >= 5 else "minmax"
summ = {}
with open(os.path.join(out, "summary.csv"), "w") as f:
    f.write("N,coll,mode,variant,size,runs,metric,median,lo,hi,spread,not_ok\n")
    for k in sorted(groups, key=lambda k: (int(k[0]), COLLS.index(k[1]) if k[1] in COLLS else 9,
                                           k[2], k[3], k[4], k[5])):
        xs = sorted(v for v, _ in groups[k])
        bad = sum(1 for _, ok in groups[k] if not ok)
        med = pct(xs, 0.5)
        lo, hi = (pct(xs, 0.1), pct(xs, 0.9)) if spread == "p10p90" else (xs[0], xs[-1])
        summ[k] = (len(xs), med, lo, hi, bad)
        f.write("%s,%s,%s,%s,%d,%d,%s,%.2f,%.2f,%.2f,%s,%d\n" %
                (k[0], k[1], k[2], k[3], k[4], len(xs), k[5], med, lo, hi, spread, bad))

def size(b):
    return "%d MiB" % (b >> 20) if b >= 1 << 20 and not b & ((1 << 20) - 1) else \
           "%d KiB" % (b >> 10) if b >= 1024 and not b & 1023 else "%d B" % b
def cell(k, with_spread=True):
    s = summ.get(k)
    if not s:
        return "-"
    n, med, lo, hi, bad = s
    c = "%.2f" % med
    if with_spread and n > 1:
        c += " [%.2f, %.2f]" % (lo, hi)
    if n < maxrun:
        c += " (%d run%s)" % (n, "s" if n > 1 else "")
    if bad:
        c += " *"
    return c
def ratio(a, b):
    if not a or not b or not b[1]:
        return "-"
    r = a[1] / b[1]
    return "%.2f" % r if r >= 0.01 else "%.2g" % r

spread_words = ("p10 and p90 over runs" if spread == "p10p90" else
                "min and max over runs (fewer than 5 runs: no p10/p90)")
w = open(os.path.join(out, "results.md"), "w")
w.write("# libthmpi vs MPICH: osu_coll\n\n")
w.write("Times in microseconds: per iteration the slowest rank's time, "
        "averaged (avg) or median (med) over iterations, in each run.  "
        "A cell is the median over runs (%d at most) of that run's number, "
        "with [lo, hi] = %s; \"(k runs)\" when fewer runs gave the size; "
        "\"*\" when a run behind the cell did not end ok (status in "
        "runs.csv, latency.csv, overlap.csv).  Ratios are thmpi / the other "
        "variant of the medians (below 1: libthmpi faster).  summary.csv "
        "holds the same numbers; bench.log has the commands.\n" % (maxrun, spread_words))
rat = [v for v in variants if v != "thmpi"] if "thmpi" in variants else []
present = {(k[0], k[1], k[2]) for k in summ}
for n in ns:
    for coll in COLLS:
        for mode in ("latency", "overlap"):
            if (n, coll, mode) not in present:
                continue
            sizes = sorted({k[4] for k in summ if k[:3] == (n, coll, mode)})
            g = lambda v, s, m: (n, coll, mode, v, s, m)
            if mode == "latency":
                w.write("\n## N = %s: %s latency (us)\n\n" % (n, CALLS[(coll, mode)]))
                cols = ["size"] + ["%s avg" % v for v in variants] + \
                       ["%s med" % v for v in variants] + ["thmpi/%s (avg)" % v for v in rat]
                w.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
                for s in sizes:
                    row = [size(s)] + [cell(g(v, s, "avg_us")) for v in variants] + \
                          [cell(g(v, s, "median_us"), False) for v in variants] + \
                          [ratio(summ.get(g("thmpi", s, "avg_us")), summ.get(g(v, s, "avg_us")))
                           for v in rat]
                    w.write("| " + " | ".join(row) + " |\n")
            else:
                w.write("\n## N = %s: %s overlap\n\n" % (n, CALLS[(coll, mode)]))
                w.write("pure = the call + Wait, overall = the call + compute + Wait "
                        "(us, avg over iterations); overlap % = max(0, 100 (1 - "
                        "(overall - compute) / pure)) from those averages.\n\n")
                cols = ["size"] + ["%s pure" % v for v in variants] + \
                       ["%s overall" % v for v in variants] + \
                       ["%s ovl %%" % v for v in variants] + ["thmpi/%s (pure)" % v for v in rat]
                w.write("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
                for s in sizes:
                    row = [size(s)] + [cell(g(v, s, "pure_us")) for v in variants] + \
                          [cell(g(v, s, "overall_us"), False) for v in variants] + \
                          [cell(g(v, s, "overlap_pct")) for v in variants] + \
                          [ratio(summ.get(g("thmpi", s, "pure_us")), summ.get(g(v, s, "pure_us")))
                           for v in rat]
                    w.write("| " + " | ".join(row) + " |\n")
cols = ["N", "coll", "variant", "mode", "run", "exit", "seconds", "sizes", "status",
        "load1_before", "load1_after"]
w.write("\n## Runs\n\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
for r in runs:
    w.write("| " + " | ".join(r.get(c, "-") for c in cols) + " |\n")
EOF

# Plots from summary.csv, per collective: latency (median over runs of the
# avg, lo/hi error bars) vs size, log-log, per N and all N in one
# multiplot; overlap % vs size per N.
if command -v gnuplot >/dev/null && [ -s "$OUT/summary.csv" ]; then
	xt=
	for b in $SIZES; do
		if [ $((b % 1048576)) = 0 ]; then l=$((b / 1048576))M
		elif [ $((b % 1024)) = 0 ]; then l=$((b / 1024))K
		else l=$b; fi
		xt="$xt${xt:+, }\"$l\" $b"
	done
	spread=$(sed -n '2s/.*,\([a-z0-9]*\),[0-9]*$/\1/p' "$OUT/summary.csv")
	[ "$spread" = p10p90 ] && bars="p10..p90" || bars="min..max"
	plot_n() {	# n coll mode metric ylabel logy
		local n=$1 coll=$2 mode=$3 metric=$4 ylabel=$5 logy=$6 v s=""
		for v in $VARIANTS; do
			s="$s${s:+, }'< grep \"^$n,$coll,$mode,$v,[0-9]*,[0-9]*,$metric,\" $OUT/summary.csv' using 5:8:9:10 with yerrorlines title '$v'"
		done
		echo "set title '$(mpi_call "$coll" "$mode"), N=$n: median over runs, bars $bars'; set xlabel 'bytes'; set ylabel '$ylabel'; set logscale x 2; set xtics ($xt); ${logy:+set logscale y;} set key top left; set grid; plot $s"
	}
	# the collectives in the data (-r reads what an earlier run wrote)
	for coll in allreduce reduce bcast; do
		grep -q "^[0-9]*,$coll," "$OUT/summary.csv" || continue
		pn=
		for n in $NS; do
			grep -q "^$n,$coll,latency," "$OUT/summary.csv" && pn="$pn $n" &&
				gnuplot -e "set terminal png noenhanced size 800,600; set output '$OUT/latency-$coll-N$n.png'; set datafile separator ','; $(plot_n "$n" "$coll" latency avg_us 'avg latency (us)' 1)" 2>>"$LOG"
			grep -q "^$n,$coll,overlap," "$OUT/summary.csv" &&
				gnuplot -e "set terminal png noenhanced size 800,600; set output '$OUT/overlap-$coll-N$n.png'; set datafile separator ','; set yrange [0:*]; $(plot_n "$n" "$coll" overlap overlap_pct 'overlap % (avg)' '')" 2>>"$LOG"
		done
		[ -n "$pn" ] || continue
		nn=$(wc -w <<< "$pn")
		mp="set terminal png noenhanced size 1200,$(( 450 * ((nn + 1) / 2) )); set output '$OUT/latency-$coll.png'; set datafile separator ','; set multiplot layout $(( (nn + 1) / 2 )),2"
		for n in $pn; do
			mp="$mp; $(plot_n "$n" "$coll" latency avg_us 'avg latency (us)' 1); unset logscale"
		done
		gnuplot -e "$mp; unset multiplot" 2>>"$LOG"
	done
	log "# plots: $(cd "$OUT" && ls *.png 2>/dev/null | tr '\n' ' ')"
elif ! command -v gnuplot >/dev/null; then
	log "# gnuplot not found: no plots (apt-get install -y gnuplot-nox)"
fi
log "# done $(date -u +%H:%M:%S): $OUT/results.md"
exit 0
