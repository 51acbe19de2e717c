# module.mk - th_nic.ko through Kbuild (KDIR overridable), and the kernel
# code's mechanical checks: checkpatch --strict and sparse, as TAP.
KDIR	?= $(shell $(TOP)/scripts/kdir.sh 2>/dev/null)
KERNEL_SRCS := $(shell find driver include/uapi -name '*.[ch]')

.PHONY: module lint lint-checkpatch lint-sparse
ALL_TARGETS += module

module: $(TOP)/th_nic.ko
$(TOP)/th_nic.ko: $(KERNEL_SRCS) Kbuild VERSION
	@test -n "$(KDIR)" || { echo "module: no kernel build tree; run scripts/deps.sh vm or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) modules

lint: ksrc
	@mkdir -p $(LOGS)
	@$(TOP)/scripts/lint.sh "$(KDIR)" $(KERNEL_SRCS) | tee $(LOGS)/lint.tap; \
		! grep -q '^not ok' $(LOGS)/lint.tap
