# shellcheck shell=sh
# thmpi.sh - libthmpi on th_nic.ko, in the test VM: MPICH's own mpiexec
# (Hydra) starts thmpi_check (selftests/host/mpi/thmpi_check.c) with
# libthmpi preloaded; the job's ranks share a domain of their own that
# rank 0 allocated and handed over (th_boot_init_allgather, "kernel"), and
# every offloaded call runs on the module's fabric.  Results are compared
# byte for byte with MPICH's alone; then auto's choice, 16 ranks on the 16
# nodes, the whole check as nobody, and a killed rank, after which nothing
# of the job is left in the module.
#
# Sourced by run.sh (its ok/not_ok/check and counter) with the module
# loaded (nodes=16); $1 is the directory the payload's mpi/ part is in:
# bin/mpiexec and bin/hydra_pmi_proxy (Debian's MPICH), thmpi_check, and
# lib/ with libthmpi.so.1 and the libthverbs.so.1 it finds there.
mpi=$1
lib=$mpi/lib/libthmpi.so.1
prog=$mpi/thmpi_check
work=/tmp/thmpi
T=600	# no job may hang: TCG is slow, a hang is much slower

export PATH="$mpi/bin:$PATH"
# Hydra resolves this host's name; UCX keeps its traffic in /dev/shm
hostname thvm
printf '127.0.0.1 localhost thvm\n' > /etc/hosts
echo 'hosts: files' > /etc/nsswitch.conf
rm -rf "$work" && mkdir -p "$work" && chmod 1777 "$work"
# UCX's default shared memory includes System V's, which the debug
# kernel (scripts/vm/debug.config) is built without: POSIX's then
if [ ! -d /proc/sysvipc ]; then
	export UCX_TLS=self,posix
	echo "# no System V IPC in this kernel: MPICH on UCX_TLS=$UCX_TLS"
fi
# the debug kernel's run (TH_VM_QUICK) takes each call form once: its
# checkers, not the matrix, are what it adds
light=
[ -n "${TH_VM_QUICK:-}" ] && light=--light

# mpi_job NAME NP [ENV=VALUE...] -- ARGS: thmpi_check under mpiexec, its
# output in $work/NAME.log and exit status in $work/NAME.rc
mpi_job() {
	name=$1 np=$2
	shift 2
	envs=
	while [ "$1" != -- ]; do envs="$envs $1"; shift; done
	shift
	start=$(date +%s)
	# shellcheck disable=SC2086 # the settings are words
	timeout -k 5 $T mpiexec -n "$np" env $envs "$prog" "$@" \
		> "$work/$name.log" 2>&1
	echo $? > "$work/$name.rc"
	echo "# $name: $np ranks, $(( $(date +%s) - start )) s"
}
mpi_right() {	# ended 0, its check found nothing wrong
	[ "$(cat "$work/$1.rc")" = 0 ] && grep -q ", 0 wrong" "$work/$1.log" ||
		{ echo "# $1: exit $(cat "$work/$1.rc")"; tail -n 20 "$work/$1.log" | sed 's/^/#   /'; return 1; }
}
mpi_offloaded() {	# the job's total of offloaded calls
	sed -n 's/^thmpi: job[^:]*: \([0-9]*\) calls offloaded.*/\1/p' "$work/$1.log"
}
mpi_same() {	# mpi_same A B NP: every rank's digests equal
	r=0
	while [ $r -lt "$3" ]; do
		cmp -s "$work/$1.$r" "$work/$2.$r" ||
			{ echo "# rank $r: $1 and $2 differ"; return 1; }
		r=$((r + 1))
	done
}
mpi_nothing_left() {	# no vport of any job, no rendezvous directory
	vports=$("$here/bin/thctl" vports) ||
		{ echo "# thctl vports failed"; return 1; }
	left=$(echo "$vports" | tail -n +2 | grep -c .)
	dirs=$(ls -d /tmp/th_boot.* 2> /dev/null | wc -l)
	echo "# after the jobs: $left vports, $dirs rendezvous directories"
	[ "$left" -eq 0 ] && [ "$dirs" -eq 0 ]
}

mpi_job base 4 -- $light --out "$work/base.%d"
check "thmpi: MPICH alone in the VM, 4 ranks: every case right" mpi_right base

mpi_job kern 4 LD_PRELOAD="$lib" THMPI_PROVIDER=kernel THMPI_STATS=1 \
	THMPI_VERBOSE=1 -- ${light:---any} --out "$work/kern.%d"
t_kern() {
	mpi_right kern && mpi_same base kern 4 || return 1
	off=$(mpi_offloaded kern)
	echo "# $off calls offloaded"
	grep -q "^thmpi: offload on: 4 ranks over kernel" "$work/kern.log" &&
		[ "${off:-0}" -ge "$([ -n "$light" ] && echo 100 || echo 4000)" ] ||
		{ tail -n 20 "$work/kern.log" | sed 's/^/#   /'; return 1; }
	for c in MPI_Allreduce MPI_Reduce MPI_Bcast MPI_Iallreduce MPI_Ireduce \
		 MPI_Ibcast MPI_Allreduce_init MPI_Reduce_init MPI_Bcast_init; do
		grep -qE "^thmpi: job[^:]*: +$c +[1-9][0-9]* offloaded" "$work/kern.log" ||
			{ echo "# $c: never offloaded"; return 1; }
	done
}
check "thmpi: THMPI_PROVIDER=kernel, 4 ranks: every call form offloaded onto th_nic.ko, every result byte for byte MPICH's" t_kern

mpi_job auto 2 LD_PRELOAD="$lib" THMPI_VERBOSE=1 THMPI_STATS=1 -- --light
t_auto() {
	mpi_right auto && grep -q "^thmpi: offload on: 2 ranks over kernel" "$work/auto.log" &&
		[ "$(mpi_offloaded auto)" -gt 0 ] ||
		{ tail -n 10 "$work/auto.log" | sed 's/^/#   /'; return 1; }
}
check "thmpi: auto takes the module when every rank is on its host" t_auto

if [ -z "${TH_VM_QUICK:-}" ]; then
	mpi_job wide 16 LD_PRELOAD="$lib" THMPI_STATS=1 -- --light
	check "thmpi: 16 ranks on the 16 nodes, each call form: results right, calls offloaded" \
		sh -c "grep -q ', 0 wrong' $work/wide.log && [ \$(cat $work/wide.rc) = 0 ] &&
			[ \"\$(sed -n 's/^thmpi: job[^:]*: \([0-9]*\) calls offloaded.*/\1/p' $work/wide.log)\" -gt 0 ]"
fi

start=$(date +%s)
su -s /bin/sh nobody -c "timeout -k 5 $T mpiexec -n 4 env LD_PRELOAD=$lib \
	THMPI_PROVIDER=kernel THMPI_STATS=1 $prog $light --out $work/nobody.%d" \
	> "$work/nobody.log" 2>&1
echo $? > "$work/nobody.rc"
echo "# nobody: 4 ranks, $(( $(date +%s) - start )) s"
t_nobody() {
	mpi_right nobody && mpi_same base nobody 4 && [ "$(mpi_offloaded nobody)" -ge 100 ]
}
check "thmpi: as nobody, 4 ranks: results MPICH's, calls offloaded" t_nobody

start=$(date +%s)
mpi_job kill 4 LD_PRELOAD="$lib" THMPI_PROVIDER=kernel -- --kill-rank 2
t_kill() {
	st=$(cat "$work/kill.rc")
	# 124/137 from timeout would be a hang
	[ "$st" != 0 ] && [ "$st" != 124 ] && [ "$st" != 137 ] &&
		grep -q "killing myself" "$work/kill.log" ||
		{ echo "# exit $st"; tail -n 10 "$work/kill.log" | sed 's/^/#   /'; return 1; }
}
check "thmpi: rank 2 killed mid-job: the job ends with an error, not a hang" t_kill
check "thmpi: the jobs left no vport in the module and no rendezvous directory" \
	mpi_nothing_left
