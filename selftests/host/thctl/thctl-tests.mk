# thctl-tests.mk - host tests of thctl: the chain file parser (a kselftest
# binary, sanitized, appended to HOST_TESTS) and test_thctl.sh, which runs
# build/bin/thctl on the example files and the bad-input cases and prints
# TAP, and test_verify.sh, 'thctl verify' on the corpus of broken chain
# files in verify/ (both run by the thctl-check target below).
THCTL_TEST_SRCS	:= $(sort $(wildcard selftests/host/thctl/test_*.c))
THCTL_TESTS	:= $(patsubst selftests/host/thctl/%.c,$(BIN)/host/thctl/%,$(THCTL_TEST_SRCS))
HOST_TESTS	+= $(THCTL_TESTS)

$(S)/selftests/host/thctl/%.o: TH_CPPFLAGS += -I$(TOP)/tools/thctl \
	-DTHCTL_EXAMPLES='"$(TOP)/tools/thctl/examples"'

$(THCTL_TESTS): $(BIN)/host/thctl/%: $(S)/selftests/host/thctl/%.o \
		$(S)/tools/thctl/chainfile.o
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS)

# The shell test: TAP into $(LOGS)/host-thctl.tap.  TH_PROVIDER picks the
# provider (inproc on the host; kernel in the VM with the module loaded).
.PHONY: thctl-check
thctl-check: $(BIN)/thctl
	@mkdir -p $(LOGS)
	@THCTL=$(BIN)/thctl TH_PROVIDER=$${TH_PROVIDER:-inproc} \
		$(TOP)/selftests/host/thctl/test_thctl.sh > $(LOGS)/host-thctl.tap 2>&1; \
		rc=$$?; grep -E '^(ok|not ok) |^# (PASSED|FAILED)' $(LOGS)/host-thctl.tap; \
	THCTL=$(BIN)/thctl TH_PROVIDER=$${TH_PROVIDER:-inproc} \
		$(TOP)/selftests/host/thctl/test_verify.sh > $(LOGS)/host-thctl-verify.tap 2>&1; \
		vrc=$$?; grep -E '^(ok|not ok) ' $(LOGS)/host-thctl-verify.tap; \
		[ $$rc -eq 0 ] && [ $$vrc -eq 0 ]
