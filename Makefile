# Makefile - top-level build of th_nic: the module, libthverbs, the tools,
# the host tests, the lint checks and the VM tests.
#
#   make            build userspace (library, tools, host tests) and the module
#   make userspace  the library and the tools only (no kernel, no tests)
#   make run        build those, then show a chain firing on the trigger engine
#   make install    library, headers, libthverbs.pc, tools, man pages
#                   (PREFIX, DESTDIR, LIBDIR; install-dkms: the module source)
#   make check      before every commit (about 9 minutes on 2 cores): install
#                   missing packages, build, host tests, thctl/API/install
#                   checks, lint, FUZZ_SMOKE_SECONDS (10) of fuzzing per
#                   target, the VM's quick run; summarise
#   make check-full CI's: everything check runs at full length (FUZZ_SECONDS,
#                   the whole VM run) plus the packages, the debug kernel and
#                   soft-RoCE (under an hour on 2 cores, debug kernel built)
#   make hostcheck  host tests only (sanitizers on; CHECK_JOBS at a time)
#   make lint       checkpatch --strict and sparse over the kernel-side code
#   make refcheck   every :doc:, include and file reference of the pages,
#                   README, man pages and comments resolves, every
#                   file's first line names it, and every text of
#                   scripts/mutants.list is still in its file (check's)
#   make docs       Documentation/ rendered to HTML in build/docs
#   make fuzz       libFuzzer targets, FUZZ_SECONDS (60) each, under ASan/UBSan
#   make vmtest     boot Debian's kernel in QEMU and run the selftests there
#   make vmtest-quick  the same without benchmarks, with shorter storms and
#                   dumps (th_vm.quick=1; make check's)
#   make vmtest-debug  the same on a debug kernel (KASAN, lockdep, kmemleak,
#                   fault injection), built once and cached
#   make vmtest-rxe the ofi provider over verbs on soft-RoCE (rdma_rxe) in QEMU
#   make bench      benchmarks (never pass/fail)
#   make vmbench-thmpi  libthmpi on th_nic.ko vs MPICH alone, in QEMU
#   make mutants    the mutation check: scripts/mutants.list, one at a time
#   make verify-mutants  the chain verifier against 1000 broken plans run on
#                   inproc: the confusion matrix (MUTANTS=N)
#   make verify-sweep-full  every plan of N = 2 ... 1024 verified clean
#   make verify-full  both, as TAP against the goal (part of check-full)
#   make clean
#   make help       this list
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
	    -I$(TOP)/lib/libthverbs/include \
	    -D_GNU_SOURCE -DTH_VERSION='"$(VERSION)"'
# WERROR= keeps the warnings but not the failure (a newer compiler's new
# warning should not break a distribution build); CI keeps -Werror.
WERROR	?= -Werror
WARNFLAGS := -Wall -Wextra $(WERROR)
TH_CFLAGS := -std=gnu11 $(WARNFLAGS) -fPIC -pthread
TH_LDLIBS := -lm -pthread
# The sanitized tree is the project's debug build: TH_DEBUG_BUILD turns on
# what costs time in a release build (the plans' verification before
# posting, coll/plan_verify.c).
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer -DTH_DEBUG_BUILD
# Host tests include kselftest_harness.h, extracted from linux-source-6.1;
# as a system header, so its own warnings do not fail -Werror builds.
TESTCPPFLAGS := -isystem $(KSFT) -I$(TOP)/selftests/host/lib -I$(TOP)/selftests/common

.DEFAULT_GOAL := all
.PHONY: all run check check-full hostcheck lint refcheck vmtest bench docs clean deps ksrc tests help

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
include selftests/host/sim/sim-tests.mk
include selftests/host/verify/verify-tests.mk
include tools/tools.mk
include fuzz/fuzz.mk
include driver/module.mk
include selftests/th_nic/selftests.mk
include selftests/lib/lib-tests.mk
include selftests/host/boot/boot-tests.mk
include selftests/host/layering/layering-tests.mk
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
# The host binaries are independent: CHECK_JOBS of them run at once
# (scripts/host-tests.sh), each into its own host-NAME.tap.
# The slowest start first (seconds one after another on a 2-core machine
# under load: test_thmpi 90, test_boot 35, test_ofi 28, test_netns 34 with
# its mixed job (14 before); the others 10 or less), so that the last to
# end is a short one; a later
# run in the same build tree orders them by their last times instead.
CHECK_JOBS	?= $(shell nproc 2>/dev/null || echo 2)
HOST_TESTS_SLOW	:= test_thmpi test_boot test_ofi test_netns
hostcheck: ksrc $(HOST_TESTS)
	@HOST_TESTS_SLOW='$(HOST_TESTS_SLOW)' TH_VERIFY_PLANS=1 \
		$(TOP)/scripts/host-tests.sh $(LOGS) $(CHECK_JOBS) $(HOST_TESTS)

# make check and make check-full: one parallel build of everything the
# parts run (so no part builds on one core, nor twice), then the parts in
# turn, each allowed to fail so that the others still run, each timed
# into $(LOGS)/times.txt (wall seconds, and the CPU seconds of its
# processes, which depend less on the machine's other load).  A part
# listed in CHECK_TAPS that wrote no TAP failed before it could say so:
# it counts as a failure.  The summary
# (scripts/test-summary.sh) is the last line.  check-full runs every part
# of check at its full length (the whole VM run and FUZZ_SECONDS of
# fuzzing include check's quick run and smoke budget), and the slow ones.
CHECK_BUILD	:= all tests fuzz-build vm-payload
CHECK_PARTS	:= hostcheck thctl-check apicheck refcheck installcheck lint \
		   fuzz-smoke vmtest-quick
CHECK_TAPS	:= host-thctl api man refs install lint fuzz vm
CHECK_FULL_PARTS := hostcheck thctl-check apicheck refcheck installcheck pkgcheck \
		   lint fuzz verify-full vmtest vmtest-debug vmtest-rxe
CHECK_FULL_TAPS	:= host-thctl api man refs install pkg lint fuzz verify-full vm \
		   vm-debug vm-rxe

# $(call run-check,PARTS,TAPS)
define run-check
	@rm -rf $(LOGS); mkdir -p $(LOGS)
	@echo "# $@: $$(nproc) cpus, load $$(cut -d' ' -f1-3 /proc/loadavg)" | tee $(LOGS)/times.txt
	@cpu() { times > $(LOGS)/.cpu; cpu=$$(tail -n 1 $(LOGS)/.cpu | awk '{ split($$1, u, /[ms]/); \
		split($$2, v, /[ms]/); printf "%d", u[1] * 60 + u[2] + v[1] * 60 + v[2] }'); }; \
	all=$$(date +%s); s=$$all; \
	if ! $(MAKE) --no-print-directory -j$(CHECK_JOBS) $(CHECK_BUILD); then \
		echo "not ok 1 build: make $(CHECK_BUILD) failed (see the output above)" \
			> $(LOGS)/build.tap; \
		$(TOP)/scripts/test-summary.sh $(LOGS)/build.tap | tee $(LOGS)/summary.txt; \
		exit 1; \
	fi; \
	echo "ok 1 build: make -j$(CHECK_JOBS) $(CHECK_BUILD)" > $(LOGS)/build.tap; \
	cpu; \
	echo "# build: $$(( $$(date +%s) - s )) s, $$cpu cpu-s, load $$(cut -d' ' -f1-3 /proc/loadavg)" | \
		tee -a $(LOGS)/times.txt; \
	for p in $(1); do \
		s=$$(date +%s); c0=$$cpu; \
		$(MAKE) --no-print-directory $$p; rc=$$?; cpu; \
		echo "# $$p: $$(( $$(date +%s) - s )) s, $$(( cpu - c0 )) cpu-s, exit $$rc, load $$(cut -d' ' -f1-3 /proc/loadavg)" | \
			tee -a $(LOGS)/times.txt; \
	done; \
	echo "# $@: $$(( $$(date +%s) - all )) s, $$cpu cpu-s in all" | tee -a $(LOGS)/times.txt
	@# a part that wrote no TAP at all failed before it could say so
	@for l in $(2); do \
		[ -s $(LOGS)/$$l.tap ] || \
			echo "not ok 1 $$l: produced no results (see the output above)" > $(LOGS)/$$l.tap; \
	done
	@$(TOP)/scripts/test-summary.sh $(LOGS)/*.tap | tee $(LOGS)/summary.txt; \
		exit $${PIPESTATUS[0]}
endef

check: deps
	$(call run-check,$(CHECK_PARTS),$(CHECK_TAPS))

check-full: deps
	$(call run-check,$(CHECK_FULL_PARTS),$(CHECK_FULL_TAPS))

help:
	@sed -n '/^#   make /,/^#$$/p' $(TOP)/Makefile | sed '$$d; s/^#//'

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
