#!/bin/sh
# rxe-payload.sh - assemble the payload of `make vmtest-rxe`: the ofi
# provider over rdma-core's verbs on soft-RoCE (rdma_rxe) in the test VM.
# Into OUT: run.sh (selftests/host/ofi/rxe/run.sh), the rank programs and
# thrun, the kernel modules rdma_rxe needs from Debian's kernel KVER (the
# one the VM boots) with their load order, iproute2's rdma and
# libfabric's fi_info, and libibverbs' rxe provider with its driver file,
# which libibverbs loads by name (mkinitramfs.sh copies what the ELF files
# link against, not what they open).
#
# Usage: rxe-payload.sh OUT KVER THRUN OFI_RANK COLL_RANK
set -eu

die() {
	echo "rxe-payload: $*" >&2
	exit 1
}

[ $# -eq 5 ] || die "usage: $0 OUT KVER THRUN OFI_RANK COLL_RANK"
out=$1
kver=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
mods=/lib/modules/$kver
[ -f "$mods/modules.dep" ] || die "$mods/modules.dep missing (linux-image-$kver)"

rm -rf "$out"
mkdir -p "$out/bin" "$out/mod" "$out/rxe"
cp "$top/selftests/host/ofi/rxe/run.sh" "$out/run.sh"
cp "$3" "$4" "$5" "$out/bin/"
for tool in rdma fi_info; do
	path=$(command -v "$tool") || die "$tool missing (scripts/deps.sh vm)"
	cp "$path" "$out/bin/"
done

# libibverbs' rxe provider, and where it goes in the VM
driver=/etc/libibverbs.d/rxe.driver
[ -f "$driver" ] || die "$driver missing (ibverbs-providers)"
provider=$(ls /usr/lib/*/libibverbs/librxe-rdmav*.so 2>/dev/null | head -n 1)
[ -n "$provider" ] || die "libibverbs' rxe provider missing (ibverbs-providers)"
cp "$driver" "$provider" "$out/rxe/"
dirname "$provider" >"$out/rxe/provider-dir"

# A module and what it needs first, depth first, each once (modules.dep:
# "path: dependency paths"; a dependency's own dependencies follow it on
# its line, so loading them in reverse works).
order=$out/modules.order
: >"$order"
add_module() {
	line=$(grep -E "/$1\.ko(\.xz)?:" "$mods/modules.dep" | head -n 1)
	[ -n "$line" ] || die "module $1 not in $mods/modules.dep"
	for dep in $(echo "${line#*:}" | tr ' ' '\n' | tac); do
		add_path "$dep"
	done
	add_path "${line%%:*}"
}
add_path() {
	name=$(basename "$1")
	name=${name%.xz}
	name=${name%.ko}
	grep -qx "$name" "$order" && return 0
	case "$1" in
	*.xz) xz -dc "$mods/$1" >"$out/mod/$name.ko" ;;
	*) cp "$mods/$1" "$out/mod/$name.ko" ;;
	esac
	echo "$name" >>"$order"
}
# rdma_rxe asks the crypto API for crc32 by name: no dependency says so
for m in dummy crc32_generic rdma_rxe rdma_ucm; do
	add_module "$m"
done
echo "rxe-payload: $out ($(wc -l <"$order") modules from $kver)"
