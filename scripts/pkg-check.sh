#!/bin/bash
# pkg-check.sh - build the Debian packages from a clean copy of the tree,
# check them with lintian, install them, use them as a user would (an
# out-of-tree program built with pkg-config, the tools, the manual pages,
# DKMS building th_nic.ko), then purge them.  Prints TAP.
#
# Usage (as root): scripts/pkg-check.sh [TAP-FILE]   (default build/logs/pkg.tap)
#
# The tree packaged is the committed HEAD plus the uncommitted changes to
# tracked files (git stash create); untracked files are left out, as they
# would be from a release.  The build, its .debs and lintian's report stay
# in build/pkg/ (build.log, lintian.txt, *.deb, *.changes).
#
# The machine is left as it was found: the th-nic packages, any package
# apt installed only for them, DKMS's tree and the module are removed again;
# the build tools of `scripts/deps.sh pkg` and `demo` stay installed, as
# they do after any deps.sh run; DKMS's signing key goes too when this run
# made it.  Refuses to run when a th-nic package is already installed (it
# would purge someone's installation).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
tap=${1:-$top/build/logs/pkg.tap}
out=$top/build/pkg
pkgs_user="libthverbs1 libthmpi1 libthverbs-dev th-nic-tools"
pkgs_all="th-nic-dkms $pkgs_user"

mkdir -p "$(dirname "$tap")" || exit 1
: > "$tap"
n=0
failed=0
say() { printf '%s\n' "$*" | tee -a "$tap"; }
# note FILE: a file's lines as TAP comments
note() { sed 's/^/# /' "$1" | tee -a "$tap"; }
# check RC DESCRIPTION
check() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		say "ok $n - $2"
	else
		say "not ok $n - $2"
		failed=1
	fi
}
bail() {
	say "Bail out! $*"
	exit 1
}

[ "$(id -u)" = 0 ] || bail "run as root (installs and purges packages)"
for p in $pkgs_all; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed\|config-files'; then
		bail "$p is already installed; purge it first (apt-get purge $pkgs_all)"
	fi
done

work=$(mktemp -d /tmp/th-nic-pkg.XXXXXX) || bail "mktemp"
installed_by_us=0
# what apt installs only because our packages need it, purged with them
pulled_in=""

# The machine may be shared: wait for another apt or dpkg to finish.
apt() {
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 -y -q "$@"
}

cleanup() {
	if [ "$installed_by_us" = 1 ]; then
		# shellcheck disable=SC2086
		apt purge $pkgs_all > "$work/purge-on-exit.log" 2>&1 || true
		remove_pulled_in
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Only what apt itself listed as installed for our packages (apt-get -s
# before installing them): never a package someone else installed
# meanwhile on a shared machine.
remove_pulled_in() {
	[ -n "$pulled_in" ] || return 0
	still=""
	for p in $pulled_in; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' && still="$still $p"
	done
	[ -n "$still" ] || return 0
	echo "# purging what came with them:$still" | tee -a "$tap"
	# shellcheck disable=SC2086
	apt purge $still > "$work/purge-deps.log" 2>&1
}

# install_debs DEB...: apt-get install, remembering what it pulled in
install_debs() {
	pulled_in="$pulled_in $(apt-get -s install "$@" 2>/dev/null |
		awk '$1 == "Inst" { print $2 }' |
		grep -v -x -e th-nic-dkms -e libthverbs1 -e libthverbs-dev -e th-nic-tools |
		tr '\n' ' ')"
	installed_by_us=1
	apt install "$@"
}

# DKMS makes itself a module-signing key (MOK) at its first build; when
# this run is its first, the key goes again with the packages.
mok_before=0
[ -e /var/lib/dkms/mok.key ] && mok_before=1

# ---- 1. build dependencies ------------------------------------------------
"$top/scripts/deps.sh" pkg > "$work/deps.log" 2>&1 &&
	"$top/scripts/deps.sh" demo >> "$work/deps.log" 2>&1
rc=$?
[ $rc = 0 ] || note "$work/deps.log"
check $rc "build tools installed (scripts/deps.sh pkg, demo)"
[ $rc = 0 ] || bail "cannot install the build tools"

# ---- 2. build from a clean copy -------------------------------------------
ver=$(cat "$top/VERSION")
rev=$(git -C "$top" stash create 2>/dev/null)
rev=${rev:-HEAD}
src=$work/th-nic-$ver
git -C "$top" archive --format=tar --prefix="th-nic-$ver/" "$rev" |
	xz -T0 -c > "$work/th-nic_$ver.orig.tar.xz" &&
	tar -x -C "$work" -f "$work/th-nic_$ver.orig.tar.xz"
rc=$?
check $rc "clean copy of the tree ($(git -C "$top" rev-parse --short HEAD)$([ "$rev" = HEAD ] || echo ' + uncommitted changes')) and th-nic_$ver.orig.tar.xz"
rm -rf "$out"
mkdir -p "$out"
# source and binary packages: lintian then checks the source package too
(cd "$src" && dpkg-buildpackage -us -uc) > "$out/build.log" 2>&1
rc=$?
if [ $rc != 0 ]; then
	tail -n 40 "$out/build.log" | sed 's/^/# /' | tee -a "$tap"
fi
check $rc "dpkg-buildpackage -us -uc (log: build/pkg/build.log)"
cp "$work"/*.deb "$work"/*.changes "$work"/*.dsc "$work"/*.tar.* \
	"$work"/*.buildinfo "$out/" 2>/dev/null
changes=$(ls "$work"/th-nic_"$ver"-*_"$(dpkg --print-architecture)".changes 2>/dev/null | head -n 1)
[ $rc = 0 ] && [ -n "$changes" ] || bail "no packages to check"

# ---- 3. what the packages hold --------------------------------------------
rc=0
for p in $pkgs_all; do
	deb=$(ls "$work/${p}_"*.deb 2>/dev/null | head -n 1)
	if [ -z "$deb" ]; then
		say "# $p: no .deb"
		rc=1
		continue
	fi
	say "# $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB):"
	dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { p = $6; if ($7 == "->") p = p " -> " $8; print "#   " p }' |
		grep -v '/usr/share/doc/.*/\(changelog\|copyright\)' | tee -a "$tap"
done
for d in "$work"/*-dbgsym_*.deb; do
	[ -e "$d" ] && say "# $(basename "$d") (debug symbols)"
done
check $rc "the four binary packages were built (th-nic-dkms libthverbs1 libthverbs-dev th-nic-tools)"

# ---- 4. lintian --------------------------------------------------------------
# As root lintian warns that it should not run as root; that line is dropped.
lintian --info --display-info --pedantic --tag-display-limit 0 "$changes" 2>&1 |
	grep -v 'running with root privileges' > "$out/lintian.txt"
say "# lintian $(lintian --version | awk '{print $2}') --pedantic on $(basename "$changes"):"
grep -E '^[EWIPXO]: ' "$out/lintian.txt" | sed 's/^/# /' | tee -a "$tap"
errors=$(grep -c '^E: ' "$out/lintian.txt")
warnings=$(grep -c '^W: ' "$out/lintian.txt")
others=$(grep -c '^[IPX]: ' "$out/lintian.txt")
say "# lintian: $errors errors, $warnings warnings, $others info/pedantic/experimental"
check "$errors" "lintian: no errors"
check "$warnings" "lintian: no warnings"

# ---- 5. install the library, headers and tools -----------------------------
debs=""
for p in $pkgs_user; do
	debs="$debs $(ls "$work/${p}_"*.deb | head -n 1)"
done
# shellcheck disable=SC2086
install_debs $debs > "$work/install.log" 2>&1
rc=$?
[ $rc = 0 ] || note "$work/install.log"
check $rc "apt-get install libthverbs1 libthverbs-dev th-nic-tools"

# ---- 6. use them --------------------------------------------------------------
ex=$work/example
mkdir -p "$ex"
cp /usr/share/doc/libthverbs-dev/examples/first_chain.c /usr/share/doc/libthverbs-dev/examples/Makefile "$ex/" 2>/dev/null
rc=$?
check $rc "the example is installed in /usr/share/doc/libthverbs-dev/examples/"
say "# pkg-config --cflags --libs libthverbs: $(pkg-config --cflags --libs libthverbs 2>&1)"
# shellcheck disable=SC2046
(cd "$ex" && cc -Wall -Wextra -Werror -o first_chain first_chain.c $(pkg-config --cflags --libs libthverbs)) > "$work/cc.log" 2>&1
rc=$?
[ $rc = 0 ] || note "$work/cc.log"
check $rc "cc first_chain.c \$(pkg-config --cflags --libs libthverbs), outside the tree"
(cd "$ex" && TH_PROVIDER=inproc ./first_chain) > "$work/run.log" 2>&1 &&
	grep -q 'node 1 received: 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5' "$work/run.log"
rc=$?
note "$work/run.log"
check $rc "TH_PROVIDER=inproc ./first_chain: node 1 received what node 0's triggered put sent"
ldd "$ex/first_chain" | grep -q -E "libthverbs.so.1 => (/usr)?/lib/"
check $? "first_chain runs on the installed /usr/lib/.../libthverbs.so.1"
(cd "$ex" && make -s static && TH_PROVIDER=inproc ./first_chain-static) > "$work/static.log" 2>&1 &&
	grep -q 'node 1 received: 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5' "$work/static.log"
rc=$?
note "$work/static.log"
check $rc "static link against libthverbs.a (pkg-config --static) runs too"
v=$(thctl --version 2>&1)
say "# thctl --version: $v"
echo "$v" | grep -q "$ver"
check $? "thctl --version reports $ver"
# thrun, the launcher, uses no library call
rc=0
for t in thctl thbench; do
	ldd "/usr/bin/$t" | grep -q -E 'libthverbs.so.1 => (/usr)?/lib/' || { say "# $t is not linked against libthverbs.so.1"; rc=1; }
done
check $rc "thctl and thbench are linked against the shared libthverbs.so.1"
rc=0
for page in th_vport_create th_post_chain thctl thrun; do
	p=$(man -w "$page" 2>&1) || rc=1
	say "# man -w $page: $p"
done
check $rc "man -w resolves th_vport_create(3), th_post_chain(3), thctl(1), thrun(1)"

# libthmpi under MPICH's mpiexec: an unchanged MPI program, the installed
# library preloaded, its Allreduce offloaded (the statistics say so) and
# right
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
cat > "$work/allreduce.c" <<'MPI'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int rank, size, x, y;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	x = rank + 1;
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (!rank)
		printf("sum %d want %d\n", y, size * (size + 1) / 2);
	MPI_Finalize();
	return y != size * (size + 1) / 2;
}
MPI
(mpicc -o "$work/allreduce" "$work/allreduce.c" &&
	timeout 120 mpiexec -n 2 env LD_PRELOAD="/usr/lib/$multiarch/libthmpi.so.1" \
		THMPI_STATS=1 "$work/allreduce") > "$work/thmpi.log" 2>&1 &&
	grep -q 'sum 3 want 3' "$work/thmpi.log" &&
	grep -q '^thmpi: job[^:]*: 2 calls offloaded' "$work/thmpi.log"
rc=$?
note "$work/thmpi.log"
check $rc "an MPI program with the installed libthmpi.so.1 preloaded: its MPI_Allreduce offloaded and right"

# the autopkgtests of the library and the tools (debian/tests), as run
# against the installed packages
for t in pkgconfig-example tools-inproc; do
	mkdir -p "$work/adt-$t"
	AUTOPKGTEST_TMP=$work/adt-$t "$src/debian/tests/$t" > "$work/adt-$t.log" 2>&1
	rc=$?
	[ $rc = 0 ] || note "$work/adt-$t.log"
	check $rc "autopkgtest debian/tests/$t"
done

# ---- 7. DKMS -------------------------------------------------------------------
# The kernels to build for: those with headers (/lib/modules/<v>/build)
# that dkms.conf's BUILD_EXCLUSIVE_KERNEL accepts (the others DKMS skips).
accept=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$src/dkms.conf")
kvers=""
others=""
for b in /lib/modules/*/build; do
	[ -d "$b" ] || continue
	k=$(basename "$(dirname "$b")")
	if [ -z "$accept" ] || [[ $k =~ $accept ]]; then
		kvers="$kvers $k"
	else
		others="$others $k"
	fi
done
dkms_deb=$(ls "$work"/th-nic-dkms_*.deb | head -n 1)
install_debs "$dkms_deb" > "$work/dkms-install.log" 2>&1
rc=$?
sed -n '/Setting up th-nic-dkms/,$p' "$work/dkms-install.log" | grep -v '^Processing triggers\|^setpriv' | note /dev/stdin
check $rc "apt-get install th-nic-dkms succeeds (running kernel $(uname -r); headers for:${kvers:- none}${others:+; not supported by dkms.conf:$others})"
test -f /usr/lib/udev/rules.d/60-th_nic.rules
check $? "the udev rule is in /usr/lib/udev/rules.d/60-th_nic.rules"
if [ -z "$kvers" ]; then
	n=$((n + 1))
	say "ok $n # SKIP no headers of a kernel dkms.conf supports (apt-get install linux-headers-amd64)"
fi
for kver in $kvers; do
	# the package's postinst built it already: --force builds it again
	dkms build --force "th_nic/$ver" -k "$kver" > "$work/dkms-build.log" 2>&1
	rc=$?
	grep -v '^$' "$work/dkms-build.log" | note /dev/stdin
	[ $rc = 0 ] || tail -n 30 "/var/lib/dkms/th_nic/$ver/build/make.log" 2>/dev/null | sed 's/^/# /' | tee -a "$tap"
	check $rc "dkms build --force th_nic/$ver -k $kver"
	ko=$(find "/var/lib/dkms/th_nic/$ver/$kver" -name 'th_nic.ko*' 2>/dev/null | head -n 1)
	mv=$(modinfo -F version "$ko" 2>/dev/null)
	say "# ${ko:-no th_nic.ko}: version '$mv', vermagic '$(modinfo -F vermagic "$ko" 2>/dev/null)'"
	[ -n "$ko" ] && [ "$mv" = "$ver" ]
	check $? "modinfo -F version of th_nic.ko built for $kver is $ver"
done
say "# dkms status: $(dkms status th_nic 2>&1 | tr '\n' ';')"

# ---- 8. purge ------------------------------------------------------------------
# shellcheck disable=SC2086
apt purge $pkgs_all > "$work/purge.log" 2>&1
rc=$?
[ $rc = 0 ] || note "$work/purge.log"
remove_pulled_in
installed_by_us=0
if [ "$mok_before" = 0 ] && [ -z "$(find /var/lib/dkms -mindepth 1 -maxdepth 1 ! -name 'mok.*' 2>/dev/null)" ]; then
	rm -f /var/lib/dkms/mok.key /var/lib/dkms/mok.pub
fi
left=""
for p in $pkgs_all; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^[ic]' && left="$left $p"
done
[ -e "/usr/src/th_nic-$ver" ] && left="$left /usr/src/th_nic-$ver"
[ -e /var/lib/dkms/th_nic ] && left="$left /var/lib/dkms/th_nic"
[ -e /usr/lib/udev/rules.d/60-th_nic.rules ] && left="$left 60-th_nic.rules"
ko=$(find /lib/modules -name 'th_nic.ko*' 2>/dev/null | tr '\n' ' ')
[ -n "$ko" ] && left="$left $ko"
[ -n "$left" ] && say "# left behind:$left"
[ $rc = 0 ] && [ -z "$left" ]
check $? "apt-get purge removes every package, DKMS's tree and the module"

say "1..$n"
exit $failed
