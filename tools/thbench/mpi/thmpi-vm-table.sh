#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# thmpi-vm-table.sh - from the console log of `make vmbench-thmpi`
# (thmpi-vm-bench.sh's TH_BENCH: lines) to latency.csv, overlap.csv and
# results.md in OUTDIR: per N and mode the two variants side by side,
# with the ratio MPICH alone / libthmpi on th_nic.ko (above 1: the
# offload is faster).  Prints results.md.
#
# Usage: thmpi-vm-table.sh CONSOLE_LOG OUTDIR
set -eu
[ $# -eq 2 ] || { echo "usage: $0 CONSOLE_LOG OUTDIR" >&2; exit 2; }
log=$1 out=$2
mkdir -p "$out"
tr -d '\r' < "$log" | sed -n 's/^TH_BENCH: //p' > "$out/lines"
echo "N,variant,size_bytes,iters,avg_us,median_us,min_us,max_us,osu_avg_us" > "$out/latency.csv"
echo "N,variant,size_bytes,iters,overall_us,compute_us,pure_us,overlap_pct,overall_med_us,compute_med_us,pure_med_us,overlap_med_pct" > "$out/overlap.csv"
awk '$3 == "latency" { print $1 "," $2 "," $4 }' "$out/lines" >> "$out/latency.csv"
awk '$3 == "overlap" { print $1 "," $2 "," $4 }' "$out/lines" >> "$out/overlap.csv"
{
	echo "# osu_coll in the test VM: libthmpi on th_nic.ko vs MPICH alone"
	echo
	grep '^#' "$out/lines" | sed 's/^# */    /'
	echo
	awk -F, '
	FNR == 1 { next }
	FILENAME ~ /latency/ { lat[$1 "," $3 "," $2] = $6; ns[$1] = 1; sz[$3] = 1 }
	FILENAME ~ /overlap/ { pure[$1 "," $3 "," $2] = $7; ov[$1 "," $3 "," $2] = $8; ns[$1] = 1; sz[$3] = 1 }
	END {
		nn = 0; for (n in ns) nl[++nn] = n + 0
		for (i = 1; i <= nn; i++) for (j = i + 1; j <= nn; j++) if (nl[j] < nl[i]) { t = nl[i]; nl[i] = nl[j]; nl[j] = t }
		ss = 0; for (s in sz) sl[++ss] = s + 0
		for (i = 1; i <= ss; i++) for (j = i + 1; j <= ss; j++) if (sl[j] < sl[i]) { t = sl[i]; sl[i] = sl[j]; sl[j] = t }
		for (i = 1; i <= nn; i++) {
			n = nl[i]
			printf "## N = %d\n\n", n
			printf "| size (B) | MPI_Allreduce median, thmpi kernel (us) | MPICH alone (us) | MPICH / thmpi | MPI_Iallreduce overlap, thmpi (%%) | MPICH (%%) | pure Iallreduce, thmpi (us) | MPICH (us) |\n"
			printf "|---:|---:|---:|---:|---:|---:|---:|---:|\n"
			for (j = 1; j <= ss; j++) {
				k = n "," sl[j]
				a = lat[k ",kernel"]; b = lat[k ",shm"]
				printf "| %d | %s | %s | %s | %s | %s | %s | %s |\n", sl[j],
				       a == "" ? "-" : a, b == "" ? "-" : b,
				       (a > 0 && b != "") ? sprintf("%.2f", b / a) : "-",
				       ov[k ",kernel"] == "" ? "-" : ov[k ",kernel"],
				       ov[k ",shm"] == "" ? "-" : ov[k ",shm"],
				       pure[k ",kernel"] == "" ? "-" : pure[k ",kernel"],
				       pure[k ",shm"] == "" ? "-" : pure[k ",shm"]
			}
			printf "\n"
		}
	}' "$out/latency.csv" "$out/overlap.csv"
} > "$out/results.md"
rm -f "$out/lines"
cat "$out/results.md"
