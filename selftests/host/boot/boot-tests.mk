# boot-tests.mk - host tests of thrun and the bootstrap rendezvous
# (selftests/host/boot/test_*.c), sanitized.  They run $(BIN)/thrun on
# boot_rank, the rank program, whose paths they get at compile time.
# the whole library: th_boot_init_allgather()'s kernel join opens devices
BOOT_SAN_OBJS	:= $(VERBS_SAN_OBJS) $(SCHED_SAN_OBJS) $(IPF_SAN_OBJS) \
		   $(OFI_SAN_OBJS) $(ENGINE_SAN_OBJS)
BOOT_RANK	:= $(BIN)/host/boot/boot_rank
BOOT_TEST_SRCS	:= $(sort $(wildcard selftests/host/boot/test_*.c))
BOOT_TESTS	:= $(patsubst selftests/host/boot/%.c,$(BIN)/host/boot/%,$(BOOT_TEST_SRCS))
HOST_TESTS	+= $(BOOT_TESTS)

COLL_RANK_HOST	:= $(BIN)/host/boot/coll_rank
$(S)/selftests/host/boot/%.o: TH_CPPFLAGS += -DTH_THRUN='"$(BIN)/thrun"' \
	-DTH_BOOT_RANK='"$(BOOT_RANK)"' -DTH_COLL_RANK='"$(COLL_RANK_HOST)"'

$(BOOT_RANK): $(S)/selftests/host/boot/boot_rank.o $(BOOT_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS) $(OFI_LIBS)

# The rank program of the collectives job (selftests/lib/coll_rank.c),
# whole library, for thrun --threads.
$(COLL_RANK_HOST): $(S)/selftests/lib/coll_rank.o $(VERBS_SAN_OBJS) $(SCHED_SAN_OBJS) \
		$(IPF_SAN_OBJS) $(OFI_SAN_OBJS) $(ENGINE_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS) $(OFI_LIBS)

# thrun and boot_rank are run, not linked: order-only would not rebuild
# the test when they change, so they are plain prerequisites, filtered out
# of the link.
$(BOOT_TESTS): $(BIN)/host/boot/%: $(S)/selftests/host/boot/%.o $(BOOT_SAN_OBJS) \
		$(BIN)/thrun $(BOOT_RANK) $(COLL_RANK_HOST)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $(filter %.o,$^) $(TH_LDLIBS) $(OFI_LIBS)

# test_wait_count asks the wait policy (verbs/wait.c) through its private
# entry, th_wait_spin_for()
$(S)/selftests/host/boot/test_wait_count.o: TH_CPPFLAGS += -I$(TOP)/lib/libthverbs/verbs
