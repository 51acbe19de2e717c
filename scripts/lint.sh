#!/bin/sh
# lint.sh - the kernel code's mechanical checks as TAP: checkpatch.pl
# --no-tree --strict on each file, kernel-doc on the interfaces, then
# sparse (C=2) over the module build.
# Usage: scripts/lint.sh KDIR FILE...
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1
shift
checkpatch="$top/build/ksrc/scripts/checkpatch.pl"
n=0
fail=0
echo "TAP version 13"
for f in "$@"; do
	n=$((n + 1))
	# Kernel version tests are allowed in one file only, the module's
	# compat header (an out-of-tree module builds on 6.1 to 6.12+).
	ignore=FILE_PATH_CHANGES
	case "$f" in
	*driver/th_compat_kernel.h) ignore=$ignore,LINUX_VERSION_CODE,CONSTANT_COMPARISON ;;
	# the opcode table's rows are one X-macro, which tools expand too:
	# its expansions are rows and cases, not expressions or statements
	*driver/trigger/th_opcode.h) ignore=$ignore,COMPLEX_MACRO,MACRO_ARG_REUSE,MULTISTATEMENT_MACRO_USE_DO_WHILE,TRAILING_SEMICOLON ;;
	*driver/trigger/th_opcode.c) ignore=$ignore,COMPLEX_MACRO ;;
	# its userspace half defines the kernel's attribute macros
	*driver/trigger/th_compat.h) ignore=$ignore,PREFER_DEFINED_ATTRIBUTE_MACRO ;;
	esac
	out=$(perl "$checkpatch" --no-tree --strict --no-summary --terse --show-types \
		--ignore "$ignore" -f "$f" 2>&1)
	if [ -z "$out" ]; then
		echo "ok $n checkpatch $f"
	else
		echo "not ok $n checkpatch $f"
		echo "$out" | sed 's/^/# /'
		fail=1
	fi
done
# kernel-doc must describe every struct, member and enum value of the ABI
# and the engine's interface (make docs renders the reference from it).
n=$((n + 1))
kdoc=$(perl "$top/build/ksrc/scripts/kernel-doc" -none -Werror \
	"$top/include/uapi/linux/th_nic.h" "$top/include/uapi/linux/th_nic_netlink.h" \
	"$top/driver/trigger/th_engine.h" 2>&1)
if [ -z "$kdoc" ]; then
	echo "ok $n kernel-doc complete for the uapi header and engine interface"
else
	echo "not ok $n kernel-doc complete for the uapi header and engine interface"
	echo "$kdoc" | sed 's/^/# /'
	fail=1
fi
n=$((n + 1))
if [ -z "$kdir" ] || [ ! -d "$kdir" ]; then
	echo "not ok $n sparse # no kernel build tree (scripts/deps.sh vm)"
	exit 1
fi
log=$(mktemp)
make -s -C "$kdir" M="$top" C=2 CHECK="sparse -Wno-unknown-attribute" modules >"$log" 2>&1
rc=$?
# Only our own files count; kernel headers are not ours to fix.
warn=$(grep -E "^($top/)?(driver|include)/.*(warning|error):" "$log")
if [ $rc -eq 0 ] && [ -z "$warn" ]; then
	echo "ok $n sparse and module build"
else
	echo "not ok $n sparse and module build"
	{ [ -n "$warn" ] && echo "$warn"; [ $rc -ne 0 ] && tail -n 30 "$log"; } | sed 's/^/# /'
	fail=1
fi
rm -f "$log"
exit $fail
