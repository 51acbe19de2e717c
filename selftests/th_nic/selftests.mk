# selftests.mk - the kselftests of th_nic.ko (selftests/th_nic/*_test.c),
# built static into the VM payload with run.sh, the wrapper that loads the
# module.  `make vmtest` boots them (scripts/vm/vm.mk).
VM_TEST_SRCS	:= $(sort $(wildcard selftests/th_nic/*_test.c))
VM_TEST_BINS	:= $(patsubst selftests/th_nic/%.c,$(B)/vm/payload/%,$(VM_TEST_SRCS))
VM_TEST_CFLAGS	:= -O2 -g -std=gnu11 -D_GNU_SOURCE $(WARNFLAGS) -pthread -static \
		   -isystem $(KSFT) -I$(TOP)/include/uapi -I$(TOP)/selftests/th_nic \
		   -I$(TOP)/selftests/common

.PHONY: vm-payload
vm-payload: ksrc $(VM_TEST_BINS)
	@mkdir -p $(B)/vm/payload
	@cp $(TOP)/selftests/th_nic/run.sh $(TOP)/selftests/th_nic/config $(B)/vm/payload/

$(B)/vm/payload/%: $(TOP)/selftests/th_nic/%.c $(wildcard selftests/th_nic/*.h selftests/common/*.h) | ksrc
	@mkdir -p $(dir $@)
	$(CC) $(VM_TEST_CFLAGS) -o $@ $< -lm
