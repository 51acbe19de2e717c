# host.mk - host tests of the engine and ALU (selftests/host/test_*.c), one
# binary each, built with AddressSanitizer and UndefinedBehaviorSanitizer
# against kselftest_harness.h.  Shared test helpers live in
# selftests/host/lib/.
HOST_LIB_SRCS	:= $(sort $(wildcard selftests/host/lib/*.c))
HOST_LIB_OBJS	:= $(HOST_LIB_SRCS:%.c=$(S)/%.o)
HOST_TEST_SRCS	:= $(sort $(wildcard selftests/host/test_*.c))
HOST_ENGINE_TESTS := $(patsubst selftests/host/%.c,$(BIN)/host/%,$(HOST_TEST_SRCS))
HOST_TESTS	+= $(HOST_ENGINE_TESTS)

$(HOST_ENGINE_TESTS): $(BIN)/host/%: $(S)/selftests/host/%.o $(HOST_LIB_OBJS) \
		$(IPF_SAN_OBJS) $(ENGINE_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS)

# the chain verifier's test links the verifier's objects too
$(BIN)/host/test_verify: $(VERIFY_SAN_OBJS)

# The summary line's script (scripts/test-summary.sh) on TAP logs made by
# its test: the counts, and each failure listed with its diagnostics.
SUMMARY_TEST	:= $(BIN)/host/scripts/test_test_summary
HOST_TESTS	+= $(SUMMARY_TEST)

$(SUMMARY_TEST): $(TOP)/selftests/host/scripts/test_test_summary.sh $(TOP)/scripts/test-summary.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s %s\n' $< $(TOP)/scripts/test-summary.sh > $@
	chmod +x $@
