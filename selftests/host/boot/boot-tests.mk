# boot-tests.mk - host tests of thrun and the bootstrap rendezvous
# (selftests/host/boot/test_*.c), sanitized.  They run $(BIN)/thrun on
# boot_rank, the rank program, whose paths they get at compile time.
BOOT_SAN_OBJS	:= $(S)/lib/libthverbs/boot/boot.o
BOOT_RANK	:= $(BIN)/host/boot/boot_rank
BOOT_TEST_SRCS	:= $(sort $(wildcard selftests/host/boot/test_*.c))
BOOT_TESTS	:= $(patsubst selftests/host/boot/%.c,$(BIN)/host/boot/%,$(BOOT_TEST_SRCS))
HOST_TESTS	+= $(BOOT_TESTS)

$(S)/selftests/host/boot/%.o: CPPFLAGS += -DTH_THRUN='"$(BIN)/thrun"' \
	-DTH_BOOT_RANK='"$(BOOT_RANK)"'

$(BOOT_RANK): $(S)/selftests/host/boot/boot_rank.o $(BOOT_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(LDLIBS)

# thrun and boot_rank are run, not linked: order-only would not rebuild
# the test when they change, so they are plain prerequisites, filtered out
# of the link.
$(BOOT_TESTS): $(BIN)/host/boot/%: $(S)/selftests/host/boot/%.o $(BOOT_SAN_OBJS) \
		$(BIN)/thrun $(BOOT_RANK)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $(filter %.o,$^) $(LDLIBS)
