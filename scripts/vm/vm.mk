# vm.mk - the VM tests: `make vmtest` boots Debian's kernel in QEMU with
# th_nic.ko and the payload in $(B)/vm/payload, runs its run.sh and writes
# $(LOGS)/vm-console.log and $(LOGS)/vm.tap; `make vmshell` boots the same
# image with an interactive shell.  See Documentation/vm-testing.rst.
#
# Knobs (make variables or environment): KDIR, VM_KERNEL, VM_TIMEOUT,
# VM_MEM, VM_SMP, VM_ACCEL, VM_CPU, VM_QEMU, VM_QEMU_OPTS, VM_APPEND,
# VM_LOGLEVEL, VM_HUNG_TASK_SECS, VM_VERBOSE, VM_SLUB_DEBUG; and, to boot something other
# than this tree's build, VM_MODULE, VM_PAYLOAD and VM_DEPS (the targets
# built first; empty to build nothing).

VM_DIR		?= $(B)/vm
VM_MODULE	?= $(TOP)/th_nic.ko
VM_PAYLOAD	?= $(VM_DIR)/payload
VM_DEPS		?= module vm-payload

# Every knob set in make (command line or makefile) reaches the script.
VM_KNOBS	:= KDIR VM_KERNEL VM_TIMEOUT VM_MEM VM_SMP VM_ACCEL VM_CPU \
		   VM_QEMU VM_QEMU_OPTS VM_APPEND VM_LOGLEVEL VM_HUNG_TASK_SECS \
		   VM_VERBOSE VM_SLUB_DEBUG
VM_ENV		= TOP='$(TOP)' B='$(B)' LOGS='$(LOGS)' VM_DIR='$(VM_DIR)' \
		  VM_MODULE='$(VM_MODULE)' VM_PAYLOAD='$(VM_PAYLOAD)' \
		  $(foreach k,$(VM_KNOBS),$(if $(value $(k)),$(k)='$($(k))'))

.PHONY: vmtest vmtest-quick vmshell

vmtest: $(VM_DEPS)
	@$(VM_ENV) $(TOP)/scripts/vm/run-vm.sh

# make check's VM run: the same suite with th_vm.quick=1 (TH_VM_QUICK: no
# benchmarks, a kill storm of 200 rounds instead of 1000, a 1024-node dump
# of 8 vports per node instead of 64, thmpi's call forms once); make
# check-full runs the whole of it (vmtest).  Its logs are vmtest's.
vmtest-quick:
	@$(MAKE) --no-print-directory vmtest VM_APPEND='th_vm.quick=1 $(VM_APPEND)'

vmshell: $(VM_DEPS)
	@$(VM_ENV) $(TOP)/scripts/vm/run-vm.sh --shell

# vmtest-debug: the whole suite on the debug kernel (scripts/debug-kernel.sh,
# built once and cached, keyed by its inputs), with the module built
# against that tree from a copy of its sources; KASAN, lockdep, UBSAN and
# kmemleak reports fail the run (scan-kernel-log.sh).  Its TAP is
# $(LOGS)/vm-debug.tap, its console $(LOGS)/debug/vm-console.log.
# It boots with tsc=reliable: under TCG the clocksource watchdog, timed by
# late timer ticks, finds the TSC "unstable" minutes into the run, and the
# debug kernel, built without HPET, then falls back to refined-jiffies:
# CLOCK_MONOTONIC in 4 ms steps, and tests that time a round read 0
# (QEMU's TCG TSC follows the host's clock, the same on every vCPU).
# VM_DEBUG_APPEND adds to its kernel command line: NAME=VALUE words reach
# the tests as environment variables (e.g. TH_VMFUZZ_CHAINS=1000000).
DEBUG_MODULE_DIR := $(B)/debug-module
# the structured fuzzer's full budget runs where the checkers are
VMFUZZ_DEBUG	:= TH_VMFUZZ_IOCTLS=100000 TH_VMFUZZ_CHAINS=1000000
.PHONY: vmtest-debug
# A failure before the VM boots is a failed test in the summary, not a run
# that silently produced no TAP.
vmtest-debug: vm-payload
	@mkdir -p $(LOGS); \
	fail() { echo "not ok 1 debug: $$1" > $(LOGS)/vm-debug.tap; exit 1; }; \
	kdir=$$($(TOP)/scripts/debug-kernel.sh) || fail "the debug kernel did not build"; \
	rm -rf $(DEBUG_MODULE_DIR) && mkdir -p $(DEBUG_MODULE_DIR) && \
	cp -r $(TOP)/Kbuild $(TOP)/VERSION $(TOP)/driver $(TOP)/include $(DEBUG_MODULE_DIR)/ && \
	find $(DEBUG_MODULE_DIR) \( -name '*.o' -o -name '.*.cmd' -o -name '*.ko' \) -delete && \
	$(MAKE) -s -C $$kdir M=$(DEBUG_MODULE_DIR) modules > $(DEBUG_MODULE_DIR)/build.log 2>&1 || \
		{ tail -n 20 $(DEBUG_MODULE_DIR)/build.log; \
		  fail "th_nic.ko did not build against the debug kernel"; }; \
	mkdir -p $(LOGS)/debug; \
	TOP='$(TOP)' B='$(B)' LOGS='$(LOGS)/debug' VM_DIR='$(B)/vm-debug' \
	VM_MODULE='$(DEBUG_MODULE_DIR)/th_nic.ko' VM_PAYLOAD='$(VM_PAYLOAD)' \
	KDIR=$$kdir VM_KERNEL=$$kdir/arch/x86/boot/bzImage VM_SLUB_DEBUG=- \
	VM_APPEND='th_vm.quick=1 tsc=reliable $(VMFUZZ_DEBUG) $(VM_DEBUG_APPEND)' \
	VM_TIMEOUT=$${VM_TIMEOUT:-1800} $(TOP)/scripts/vm/run-vm.sh; rc=$$?; \
	sed 's/^\(\(not \)\?ok [0-9]*\) /\1 debug: /' $(LOGS)/debug/vm.tap > $(LOGS)/vm-debug.tap; \
	exit $$rc

# vmtest-repeat: the intermittent-failure hunter.  One boot, the module
# loaded once, the payload's test binaries run N times in a row
# (run.sh's repeat mode): one TAP line per run, the dump of any binary
# that passed its bound, and "N passed, N failed".  One boot rather than
# N: a boot and its initramfs cost ~30 s each under TCG, and a failure
# that needs the state earlier runs left (a leak, a counter) shows up
# only in one boot.  VM_TESTS: the binaries (comma-separated; default
# all); VM_KERNEL_DEBUG=1 boots the debug kernel instead
# (vmtest-debug's build and checks).  The summary is $(LOGS)/vm-repeat.tap.
N		?= 20
VM_TESTS	?=
REPEAT_APPEND	= TH_VM_REPEAT=$(N)$(if $(VM_TESTS), TH_VM_TESTS=$(subst $(space),$(comma),$(strip $(VM_TESTS))))
comma		:= ,
space		:= $(subst ,, )
.PHONY: vmtest-repeat
vmtest-repeat: $(VM_DEPS)
	@$(if $(VM_KERNEL_DEBUG),$(MAKE) --no-print-directory vmtest-debug \
		VM_DEBUG_APPEND='$(REPEAT_APPEND) $(VM_DEBUG_APPEND)' \
		VM_TIMEOUT=$${VM_TIMEOUT:-$$((600 + $(N) * 600))}; rc=$$?; \
		cp $(LOGS)/vm-debug.tap $(LOGS)/vm-repeat.tap, \
	$(VM_ENV) VM_APPEND='$(REPEAT_APPEND) $(VM_APPEND)' \
		VM_TIMEOUT=$${VM_TIMEOUT:-$$((600 + $(N) * 400))} \
		$(TOP)/scripts/vm/run-vm.sh; rc=$$?; \
		cp $(LOGS)/vm.tap $(LOGS)/vm-repeat.tap); \
	grep -h '^# repeat: ' $(LOGS)/vm-repeat.tap || true; \
	echo "vmtest-repeat: $$(grep -c '^ok ' $(LOGS)/vm-repeat.tap) passed, $$(grep -c '^not ok ' $(LOGS)/vm-repeat.tap) failed"; \
	exit $$rc

# host-repeat: a host test binary (or several) N times in a row, e.g.
# `make host-repeat N=20 HOST_REPEAT="test_order test_trigger"`; names
# are build/bin/host/<name> or paths.  Per-run results, then the summary.
HOST_REPEAT	?=
.PHONY: host-repeat
host-repeat: $(if $(HOST_REPEAT),,$(HOST_TESTS))
	@$(TOP)/scripts/vm/repeat.sh $(N) $(foreach t,$(or $(HOST_REPEAT),$(notdir $(HOST_ENGINE_TESTS))),$(if $(findstring /,$(t)),$(t),$(BIN)/host/$(t)))
