#!/bin/sh
# run.sh - the ofi provider over rdma-core's verbs on soft-RoCE, in the
# test VM (make vmtest-rxe; scripts/vm/rxe-payload.sh assembled this
# payload).  rdma_rxe runs on a dummy interface at 192.0.2.1, libfabric's
# verbs;ofi_rxm on top of it, and the ofi provider's rank programs on top
# of that, one process per rank: ofi_rank's cases (as test_ofi runs them
# over tcp) and the collectives' job, every result checked.  The rxe
# device's packet counters must show that the deliveries crossed it.
here=$(dirname "$0")
n=0
rc=0

ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n $*"; rc=1; }
check() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

echo "TAP version 13"
echo "# the ofi provider over verbs on rdma_rxe, $(uname -r)"

load_modules() {
	for m in $(cat "$here/modules.order"); do
		insmod "$here/mod/$m.ko" || return 1
	done
}
check "rdma_rxe and its modules load" load_modules

# libibverbs finds its rxe provider through its driver file
mkdir -p /etc/libibverbs.d "$(cat "$here/rxe/provider-dir")"
cp "$here/rxe/rxe.driver" /etc/libibverbs.d/
cp "$here"/rxe/lib*.so "$(cat "$here/rxe/provider-dir")/"
# rdma_getaddrinfo() resolves this host's name: give it one
hostname thvm
printf '127.0.0.1 localhost\n192.0.2.1 thvm\n' >/etc/hosts
echo 'hosts: files' >/etc/nsswitch.conf

link() {
	# loading dummy made dummy0 already (numdummies=1)
	{ ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy; } &&
		ip addr add 192.0.2.1/24 dev dummy0 &&
		ip link set dummy0 up &&
		"$here/bin/rdma" link add rxe0 type rxe netdev dummy0
}
check "rxe0 on dummy0 (192.0.2.1)" link
check "libfabric offers verbs;ofi_rxm with RMA on rxe0" sh -c \
	"'$here/bin/fi_info' -p 'verbs;ofi_rxm' -c FI_RMA -t FI_EP_RDM | grep -q 'domain: rxe0'"

counter=/sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts
sent() { cat "$counter" 2>/dev/null || echo 0; }
before=$(sent)

export TH_OFI_PROVIDER='verbs;ofi_rxm'
# a rank that dies is found within the delivery deadline
export TH_OFI_TIMEOUT=5
for c in put put_rma get get_rma inline_remote target_exits_at_once \
	bad_key bad_range no_vport foreign_domain peer_dies; do
	check "ofi_rank $c over verbs" "$here/bin/thrun" -n 2 --provider ofi \
		--timeout 120 "$here/bin/ofi_rank" "$c"
done
unset TH_OFI_TIMEOUT
check "allreduce over verbs, 2 processes" "$here/bin/thrun" -n 2 \
	--provider ofi --timeout 300 "$here/bin/coll_rank" 3 2
check "allreduce over verbs, 4 processes" "$here/bin/thrun" -n 4 \
	--provider ofi --timeout 300 "$here/bin/coll_rank" 3 2

after=$(sent)
echo "# rxe0 sent_pkts: $before before the jobs, $after after"
check "the deliveries crossed rxe0 (its sent_pkts grew)" [ "$after" -gt "$before" ]
exit $rc
