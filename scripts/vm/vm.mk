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

.PHONY: vmtest vmshell

vmtest: $(VM_DEPS)
	@$(VM_ENV) $(TOP)/scripts/vm/run-vm.sh

vmshell: $(VM_DEPS)
	@$(VM_ENV) $(TOP)/scripts/vm/run-vm.sh --shell
