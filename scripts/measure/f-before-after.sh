#!/bin/bash
# f-before-after.sh - the measurements behind issue F's closing note, on the
# tree before F and on this one, side by side: remote-key guesses per
# second and the expected time to find a key (in-process on the host, and
# the module in the VM), the kernel memory one unprivileged process makes
# the module hold, the longest doorbell posting 256 MiB COPY chains, and
# the findings probed one by one (scripts/measure/f_probe.c).
#
# Usage: scripts/measure/f-before-after.sh [OLD_COMMIT]
#   OLD_COMMIT   the tree before issue F (default 45cba05)
# Environment: VM_MEM (default 6G: the old module holds gigabytes),
#   GUESS_SECONDS (default 5).  Results go to build/measure/f-*.txt.
# The VM runs without slub_debug: its red zones and allocation traces
# triple what a 4 KiB object costs, and this measures memory.
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$here/../.." && pwd)
OLD=${1:-45cba05}
OUT=$TOP/build/measure
GUESS_SECONDS=${GUESS_SECONDS:-5}
export VM_MEM=${VM_MEM:-6G}
export VM_SLUB_DEBUG=-

die() {
	echo "f-before-after: $*" >&2
	exit 1
}

mkdir -p "$OUT"
old=$OUT/f-old-tree
if [ ! -d "$old/.git" ] && [ ! -f "$old/.git" ]; then
	git -C "$TOP" worktree add -f "$old" "$OLD" >/dev/null ||
		die "cannot check out $OLD"
fi
git -C "$old" checkout -q --detach "$OLD" || die "cannot check out $OLD"

echo "== building the old tree ($OLD) and this one"
make -C "$old" -s "$old/build/lib/libthverbs.a" module >"$OUT/f-old-build.log" 2>&1 ||
	die "old build failed: $OUT/f-old-build.log"
make -C "$TOP" -s "$TOP/build/lib/libthverbs.a" module >"$OUT/f-new-build.log" 2>&1 ||
	die "build failed: $OUT/f-new-build.log"

# probe TREE NAME: f_probe built against TREE's headers and library
probe() {
	cc -static -O2 -Wall -Wextra -Werror -D_GNU_SOURCE \
		-I "$1/include/uapi" -I "$1/lib/libthverbs/include" \
		"$here/f_probe.c" "$1/build/lib/libthverbs.a" -lm -pthread \
		-o "$OUT/$2/f_probe"
}

for side in old new; do
	tree=$TOP
	[ $side = old ] && tree=$old
	rm -rf "${OUT:?}/$side"
	mkdir -p "$OUT/$side/payload"
	probe "$tree" "$side/payload" || die "probe against the $side tree"

	echo "== $side: in-process guesses ($GUESS_SECONDS s)"
	{
		TH_PROVIDER=inproc "$OUT/$side/payload/f_probe" guess \
			"$GUESS_SECONDS" | sed 's/^F guess_/F inproc_guess_/'
		TH_PROVIDER=inproc "$OUT/$side/payload/f_probe" fpmode
		TH_PROVIDER=inproc "$OUT/$side/payload/f_probe" badmemory
	} >"$OUT/$side/host.txt"

	# The VM's payload: load, probe as unprivileged users, unload.
	cat >"$OUT/$side/payload/run.sh" <<EOF
#!/bin/sh
mod=\$1
here=\$(dirname "\$0")
p=\$here/f_probe
as_nobody() { su -s /bin/sh nobody -c "\$*"; }
insmod "\$mod" nodes=16 || { echo "F insmod failed"; exit 1; }
echo "ok 1 f_probe payload"
as_nobody "\$p guess $GUESS_SECONDS"
as_nobody "\$p vports"
as_nobody "\$p private"
as_nobody "\$p bigsize"
\$p crossuser 65534
\$p poison 65534
\$p memlock
\$p doorbell
as_nobody "\$p memory"
\$p fpmode
\$p badmemory
\$p selftarget
if rmmod th_nic 2>/dev/null; then echo "F rmmod ok"; else echo "F rmmod refused"; fi
exit 0
EOF
	chmod +x "$OUT/$side/payload/run.sh"
	module=$TOP/th_nic.ko
	[ $side = old ] && module=$old/th_nic.ko
	echo "== $side: the module in the VM (VM_MEM=$VM_MEM)"
	TOP=$TOP B=$TOP/build LOGS=$OUT/$side VM_DIR=$OUT/$side/vm \
		VM_MODULE=$module VM_PAYLOAD=$OUT/$side/payload \
		"$TOP/scripts/vm/run-vm.sh" >"$OUT/$side/vm.log" 2>&1
	tr -d '\r' <"$OUT/$side/vm-console.log" | grep '^F ' >"$OUT/$side/vm.txt"
	cat "$OUT/$side/host.txt" "$OUT/$side/vm.txt" >"$OUT/f-$side.txt"
done

echo
printf '%-34s %-34s %s\n' "measure" "before ($OLD)" "after"
join -a1 -a2 -e - -o 0,1.2,2.2 \
	<(sed 's/^F //; s/ /\t/' "$OUT/f-old.txt" | sort -t "$(printf '\t')" -k1,1) \
	<(sed 's/^F //; s/ /\t/' "$OUT/f-new.txt" | sort -t "$(printf '\t')" -k1,1) \
	-t "$(printf '\t')" | awk -F '\t' '{ printf "%-34s %-34s %s\n", $1, $2, $3 }'
