# Makefile - top-level build of th_nic: the module, libthverbs, the tools,
# the host tests, the lint checks and the VM tests.
#
#   make            build userspace (library, tools, host tests) and the module
#   make userspace  the library and the tools only (no kernel, no tests)
#   make run        build those, then show a chain firing on the trigger engine
#   make install    library, headers, libthverbs.pc, tools, man pages
#                   (PREFIX, DESTDIR, LIBDIR; install-dkms: the module source)
#   make check      install missing packages, build, run every test, summarise
#   make hostcheck  host tests only (sanitizers on)
#   make lint       checkpatch --strict and sparse over the kernel-side code
#   make fuzz       libFuzzer targets, FUZZ_SECONDS (60) each, under ASan/UBSan
#   make vmtest     boot Debian's kernel in QEMU and run the selftests there
#   make vmtest-debug  the same on a debug kernel (KASAN, lockdep, kmemleak,
#                   fault injection), built once and cached
#   make vmtest-rxe the ofi provider over verbs on soft-RoCE (rdma_rxe) in QEMU
#   make bench      benchmarks (never pass/fail)
#   make vmbench-thmpi  libthmpi on th_nic.ko vs MPICH alone, in QEMU
#   make mutants    the mutation check: scripts/mutants.list, one at a time
#   make clean
#
# Each part adds its sources and targets in a fragment next to its code
# (*.mk); this file holds the shared flags and the pattern rules.

TOP	:= $(abspath .)
B	:= $(TOP)/build
O	:= $(B)/obj
S	:= $(B)/san
BIN	:= $(B)/bin
LOGS	:= $(B)/logs
KSRC	:= $(B)/ksrc
KSFT	:= $(KSRC)/tools/testing/selftests

SHELL	:= /bin/bash
# The release: the tools' --version, the module's MODULE_VERSION, the
# library's file name (libthverbs.so.$(VERSION)), libthverbs.pc, the packages.
VERSION	:= $(shell cat $(TOP)/VERSION)
CC	?= gcc
# CFLAGS, CPPFLAGS and LDFLAGS belong to whoever builds (a distribution passes
# its hardening and optimisation flags there); the project's own flags live
# in TH_* and every rule uses both, so `make CFLAGS=...` changes only what
# the builder meant to change.
CFLAGS	?= -O2 -g
TH_CPPFLAGS := -I$(TOP)/include/uapi -I$(TOP)/driver/trigger \
	    -I$(TOP)/lib/libthverbs/include -I$(TOP)/lib/libthverbs \
	    -D_GNU_SOURCE -DTH_VERSION='"$(VERSION)"'
# WERROR= keeps the warnings but not the failure (a newer compiler's new
# warning should not break a distribution build); CI keeps -Werror.
WERROR	?= -Werror
WARNFLAGS := -Wall -Wextra $(WERROR)
TH_CFLAGS := -std=gnu11 $(WARNFLAGS) -fPIC -pthread
TH_LDLIBS := -lm -pthread
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer
# Host tests include kselftest_harness.h, extracted from linux-source-6.1;
# as a system header, so its own warnings do not fail -Werror builds.
TESTCPPFLAGS := -isystem $(KSFT) -I$(TOP)/selftests/host/lib -I$(TOP)/selftests/common

.DEFAULT_GOAL := all
.PHONY: all run check hostcheck lint vmtest bench docs clean deps ksrc tests

# Fragments append to these.
ALL_TARGETS	:=
HOST_TESTS	:=
BENCH_TARGETS	:=

include driver/trigger/engine.mk
-include lib/libthverbs/sched/sched.mk
include lib/libthverbs/libthverbs.mk
include lib/libthmpi/libthmpi.mk
include selftests/host/host.mk
include selftests/host/thctl/thctl-tests.mk
include tools/tools.mk
include fuzz/fuzz.mk
include driver/module.mk
include selftests/th_nic/selftests.mk
include selftests/lib/lib-tests.mk
include selftests/host/boot/boot-tests.mk
include selftests/host/ofi/ofi-tests.mk
include selftests/host/mpi/mpi-tests.mk
include scripts/vm/vm.mk
include Documentation/docs.mk
include install.mk
include scripts/mutants.mk

all: $(ALL_TARGETS)

tests: $(HOST_TESTS)

deps:
	@$(TOP)/scripts/deps.sh all

ksrc: $(KSRC)/.extracted
$(KSRC)/.extracted:
	@$(TOP)/scripts/kernel-src.sh $(KSRC)

# Userspace objects: optimised ($(O)) and sanitized ($(S)) trees.
$(O)/%.o: $(TOP)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TH_CPPFLAGS) $(CPPFLAGS) $(TH_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(S)/%.o: $(TOP)/%.c | ksrc
	@mkdir -p $(dir $@)
	$(CC) $(TH_CPPFLAGS) $(TESTCPPFLAGS) $(TH_CFLAGS) $(SANFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(B) -name '*.d' 2>/dev/null)

# Every suite writes TAP into $(LOGS); the summary counts them all.
hostcheck: ksrc $(HOST_TESTS)
	@mkdir -p $(LOGS)
	@rc=0; for t in $(HOST_TESTS); do \
		n=$$(basename $$t); \
		echo "== $$n"; \
		$$t > $(LOGS)/host-$$n.tap 2>&1 || rc=1; \
		grep -E '^(ok|not ok) |^# (PASSED|FAILED)' $(LOGS)/host-$$n.tap | tail -n 400; \
	done; exit $$rc

check: deps
	@rm -rf $(LOGS); mkdir -p $(LOGS)
	@$(MAKE) --no-print-directory all tests
	-@$(MAKE) --no-print-directory hostcheck
	-@$(MAKE) --no-print-directory thctl-check
	-@$(MAKE) --no-print-directory apicheck
	-@$(MAKE) --no-print-directory installcheck
	-@$(MAKE) --no-print-directory pkgcheck
	-@$(MAKE) --no-print-directory lint
	-@$(MAKE) --no-print-directory fuzz
	-@$(MAKE) --no-print-directory vmtest
	-@$(MAKE) --no-print-directory vmtest-debug
	-@$(MAKE) --no-print-directory vmtest-rxe
	@# a part that wrote no TAP at all failed before it could say so
	@for l in api man install pkg lint fuzz vm vm-debug vm-rxe; do \
		[ -s $(LOGS)/$$l.tap ] || \
			echo "not ok 1 $$l: produced no results (see the output above)" > $(LOGS)/$$l.tap; \
	done
	@$(TOP)/scripts/test-summary.sh $(LOGS)/*.tap | tee $(LOGS)/summary.txt; \
		exit $${PIPESTATUS[0]}

# The demo runs on the in-process provider when no module is loaded: it needs
# the library and thctl only, not the kernel headers or the tests.
run: userspace
	$(BIN)/thctl demo

# Build the Debian packages, lint, install and use them, remove them again.
.PHONY: pkgcheck
pkgcheck:
	@mkdir -p $(LOGS)
	@$(TOP)/scripts/pkg-check.sh $(LOGS)/pkg.tap

bench: $(BENCH_TARGETS)

clean: module-clean
	rm -rf $(B)
	rm -f *.o *.ko *.mod *.mod.c modules.order Module.symvers .*.cmd
