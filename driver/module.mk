# module.mk - th_nic.ko through Kbuild (KDIR overridable), and the kernel
# code's mechanical checks: checkpatch --strict and sparse, as TAP.
KDIR	?= $(shell $(TOP)/scripts/kdir.sh 2>/dev/null)
KERNEL_SRCS := $(shell find driver include/uapi -name '*.[ch]')

.PHONY: module module-clean lint lint-checkpatch lint-sparse
ALL_TARGETS += module

module: $(TOP)/th_nic.ko
$(TOP)/th_nic.ko: $(KERNEL_SRCS) Kbuild VERSION
	@test -n "$(KDIR)" || { echo "module: no kernel build tree; run scripts/deps.sh vm or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) modules

# Kbuild's own clean when there is a kernel build tree; then whatever any
# kernel's Kbuild left (objects of another KDIR, or none to ask).
module-clean:
	@if [ -n "$(KDIR)" ] && [ -d "$(KDIR)" ]; then \
		$(MAKE) -C $(KDIR) M=$(TOP) clean; fi
	find $(TOP)/driver $(TOP)/include \( -name '*.o' -o -name '.*.cmd' \
		-o -name '*.mod' -o -name '*.mod.c' -o -name '*.o.d' \) -delete
	rm -f $(TOP)/th_nic.ko $(TOP)/th_nic.o $(TOP)/th_nic.mod \
		$(TOP)/th_nic.mod.c $(TOP)/th_nic.mod.o $(TOP)/.module-common.o \
		$(TOP)/modules.order $(TOP)/Module.symvers $(TOP)/.*.cmd
	rm -rf $(TOP)/.tmp_versions

lint: ksrc
	@mkdir -p $(LOGS)
	@$(TOP)/scripts/lint.sh "$(KDIR)" $(KERNEL_SRCS) | tee $(LOGS)/lint.tap; \
		! grep -q '^not ok' $(LOGS)/lint.tap
