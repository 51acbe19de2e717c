#!/bin/bash
# n2-before-after.sh - the measurements behind issue 28 item 2 ("NIC work
# nobody pays for"), on the tree before it and on this one, side by side,
# with th_nic.ko in the VM (scripts/measure/n2_probe.c):
#   - as uid 65534: 16 vports on node 0, each with the self-re-arming chain
#     [CT_INC ct0; REARM stride 1], one doorbell each, then `sleep 5`:
#     rounds run, the machine's busy share (/proc/stat) and the CPU time
#     charged to the process;
#   - the offloaded Allreduce plan (16 ranks, one process): rounds per
#     second, which must not drop: in each side's boot, then both modules
#     alternately in one boot (boots on a shared machine differ more).
#
# Usage: scripts/measure/n2-before-after.sh [OLD_COMMIT]
#   OLD_COMMIT   the tree before item 2 (default b03055b), checked out in
#                a temporary worktree (N2_OLD_TREE, default /tmp/old-n2)
# Environment: N2_SECONDS (default 5), N2_VPORTS (default 16), N2_NODES
#   (default 16), N2_AR_SECONDS (default 10), N2_AR_REPEAT (Allreduce
#   runs per boot, default 3: the VM is TCG on a shared machine),
#   N2_AB_ONLY=1 (only the boot that alternates the two modules).  Results go to
#   build/measure/n2-*.txt; one VM at a time.
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$here/../.." && pwd)
OLD=${1:-b03055b}
old=${N2_OLD_TREE:-/tmp/old-n2}
OUT=$TOP/build/measure
SECS=${N2_SECONDS:-5}
NVP=${N2_VPORTS:-16}
NODES=${N2_NODES:-16}
AR_SECS=${N2_AR_SECONDS:-10}
AR_REPEAT=${N2_AR_REPEAT:-3}

die() {
	echo "n2-before-after: $*" >&2
	exit 1
}

mkdir -p "$OUT"
if [ ! -e "$old/.git" ]; then
	git -C "$TOP" worktree add -f "$old" "$OLD" >/dev/null ||
		die "cannot check out $OLD"
fi
git -C "$old" checkout -q --detach "$OLD" || die "cannot check out $OLD"

echo "== building the old tree ($OLD) and this one"
make -C "$old" -s "$old/build/lib/libthverbs.a" module >"$OUT/n2-old-build.log" 2>&1 ||
	die "old build failed: $OUT/n2-old-build.log"
make -C "$TOP" -s "$TOP/build/lib/libthverbs.a" module >"$OUT/n2-new-build.log" 2>&1 ||
	die "build failed: $OUT/n2-new-build.log"

for side in old new; do
	tree=$TOP
	[ $side = old ] && tree=$old
	rm -rf "${OUT:?}/n2-$side"
	mkdir -p "$OUT/n2-$side/payload"
	cc -static -O2 -Wall -Wextra -Werror -D_GNU_SOURCE \
		-I "$tree/include/uapi" -I "$tree/lib/libthverbs/include" \
		"$here/n2_probe.c" "$tree/build/lib/libthverbs.a" -lm -pthread \
		-o "$OUT/n2-$side/payload/n2_probe" || die "probe against the $side tree"
	cat >"$OUT/n2-$side/payload/run.sh" <<EOF
#!/bin/sh
mod=\$1
p=\$(dirname "\$0")/n2_probe
insmod "\$mod" nodes=$NODES || { echo "N2 insmod failed"; exit 1; }
echo "ok 1 n2_probe payload"
chmod 0755 "\$(dirname "\$0")" "\$p"
su -s /bin/sh nobody -c "\$p rearm $SECS $NVP"
# the machine once the prober is gone: does the NIC stop?
sleep 1
set -- \$(head -1 /proc/stat); t0=0; for v in \$2 \$3 \$4 \$5 \$6 \$7 \$8 \$9; do t0=\$((t0 + v)); done; i0=\$((\$5 + \$6))
sleep 2
set -- \$(head -1 /proc/stat); t1=0; for v in \$2 \$3 \$4 \$5 \$6 \$7 \$8 \$9; do t1=\$((t1 + v)); done; i1=\$((\$5 + \$6))
echo "N2 after_exit_busy_pct \$(( 100 * ((t1 - t0) - (i1 - i0)) / (t1 - t0) ))"
for k in $(seq -s " " $AR_REPEAT); do
	\$p allreduce $NODES $AR_SECS | sed "s/^N2 allreduce_\\([a-z_]*\\)/N2 allreduce_\\1_\$k/"
done
if rmmod th_nic 2>/dev/null; then echo "N2 rmmod ok"; else echo "N2 rmmod refused"; fi
exit 0
EOF
	chmod +x "$OUT/n2-$side/payload/run.sh"
	[ -n "${N2_AB_ONLY:-}" ] && continue
	echo "== $side: the module in the VM"
	TOP=$TOP B=$TOP/build LOGS=$OUT/n2-$side VM_DIR=$OUT/n2-$side/vm \
		VM_MODULE=$tree/th_nic.ko VM_PAYLOAD=$OUT/n2-$side/payload \
		"$TOP/scripts/vm/run-vm.sh" >"$OUT/n2-$side/vm.log" 2>&1
	tr -d '\r' <"$OUT/n2-$side/vm-console.log" | grep '^N2 ' >"$OUT/n2-$side.txt"
done

# The Allreduce rate again, both modules in one boot, alternately: boots
# on a shared machine differ more than the modules do.
rm -rf "${OUT:?}/n2-ab"
mkdir -p "$OUT/n2-ab/payload"
cp "$old/th_nic.ko" "$OUT/n2-ab/payload/old.ko"
cp "$OUT/n2-old/payload/n2_probe" "$OUT/n2-ab/payload/old_probe"
cp "$OUT/n2-new/payload/n2_probe" "$OUT/n2-ab/payload/new_probe"
cat >"$OUT/n2-ab/payload/run.sh" <<EOF
#!/bin/sh
new=\$1
here=\$(dirname "\$0")
echo "ok 1 n2 interleaved payload"
for k in $(seq -s " " $AR_REPEAT); do
	for side in old new; do
		mod=\$here/old.ko
		[ \$side = new ] && mod=\$new
		insmod "\$mod" nodes=$NODES || { echo "N2 insmod \$side failed"; exit 1; }
		"\$here/\${side}_probe" allreduce $NODES $AR_SECS |
			sed -n "s/^N2 allreduce_rounds_per_s /N2AB \$side \$k /p"
		rmmod th_nic || { echo "N2 rmmod \$side failed"; exit 1; }
	done
done
exit 0
EOF
chmod +x "$OUT/n2-ab/payload/run.sh"
echo "== both modules in one VM, alternately"
TOP=$TOP B=$TOP/build LOGS=$OUT/n2-ab VM_DIR=$OUT/n2-ab/vm \
	VM_MODULE=$TOP/th_nic.ko VM_PAYLOAD=$OUT/n2-ab/payload \
	"$TOP/scripts/vm/run-vm.sh" >"$OUT/n2-ab/vm.log" 2>&1
tr -d '\r' <"$OUT/n2-ab/vm-console.log" | grep '^N2AB ' >"$OUT/n2-ab.txt"

if [ -z "${N2_AB_ONLY:-}" ]; then
echo
printf '%-28s %-20s %s\n' "measure" "before ($OLD)" "after"
join -a1 -a2 -e - -o 0,1.2,2.2 \
	<(sed 's/^N2 //; s/ /\t/' "$OUT/n2-old.txt" | sort -t "$(printf '\t')" -k1,1) \
	<(sed 's/^N2 //; s/ /\t/' "$OUT/n2-new.txt" | sort -t "$(printf '\t')" -k1,1) \
	-t "$(printf '\t')" | awk -F '\t' '{ printf "%-28s %-20s %s\n", $1, $2, $3 }'
fi

echo
echo "Allreduce rounds/s, both modules in one boot, alternately (before after):"
for k in $(seq -s " " "$AR_REPEAT"); do
	echo "  run $k: $(awk -v k="$k" '$3 == k && $2 == "old" { print $4 }' "$OUT/n2-ab.txt")" \
		"$(awk -v k="$k" '$3 == k && $2 == "new" { print $4 }' "$OUT/n2-ab.txt")"
done
