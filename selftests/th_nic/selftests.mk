# selftests.mk - the kselftests of th_nic.ko (selftests/th_nic/*_test.c),
# built static into the VM payload with run.sh, the wrapper that loads the
# module.  `make vmtest` boots them (scripts/vm/vm.mk).
VM_TEST_SRCS	:= $(sort $(wildcard selftests/th_nic/*_test.c))
VM_TEST_BINS	:= $(patsubst selftests/th_nic/%.c,$(B)/vm/payload/%,$(VM_TEST_SRCS))
VM_TEST_CFLAGS	:= -O2 -g -std=gnu11 -D_GNU_SOURCE $(WARNFLAGS) -pthread -static \
		   -isystem $(KSFT) -I$(TOP)/include/uapi -I$(TOP)/selftests/th_nic \
		   -I$(TOP)/selftests/common

.PHONY: vm-payload
vm-payload: ksrc $(VM_TEST_BINS) $(B)/vm/payload/bin/vport_hold
	@mkdir -p $(B)/vm/payload
	@cp $(TOP)/selftests/th_nic/run.sh $(TOP)/selftests/th_nic/config $(B)/vm/payload/

# the netlink test is a libnl client, as thctl is
VM_TEST_EXTRA_netlink_test := -I/usr/include/libnl3
VM_TEST_LIBS_netlink_test := -lnl-genl-3 -lnl-3
VM_TEST_EXTRA_fail_nth_test := $(VM_TEST_EXTRA_netlink_test)
VM_TEST_LIBS_fail_nth_test := $(VM_TEST_LIBS_netlink_test)
VM_TEST_EXTRA_syscall_fuzz_test := $(VM_TEST_EXTRA_netlink_test)
VM_TEST_LIBS_syscall_fuzz_test := $(VM_TEST_LIBS_netlink_test)

$(B)/vm/payload/%: $(TOP)/selftests/th_nic/%.c $(wildcard selftests/th_nic/*.h selftests/common/*.h) | ksrc
	@mkdir -p $(dir $@)
	$(CC) $(VM_TEST_CFLAGS) $(VM_TEST_EXTRA_$*) -o $@ $< $(VM_TEST_LIBS_$*) -lm

# run.sh's helper: vports held open for thctl to show
$(B)/vm/payload/bin/vport_hold: $(TOP)/selftests/th_nic/vport_hold.c $(wildcard selftests/th_nic/*.h) | ksrc
	@mkdir -p $(dir $@)
	$(CC) $(VM_TEST_CFLAGS) -o $@ $< -lm
