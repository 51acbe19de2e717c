# sched.mk - the DAG scheduler (lib/libthverbs/sched): linked into thctl and
# thbench, and its host tests (selftests/host/sched/test_*.c), sanitized.
# The top-level Makefile includes this before tools/tools.mk, so the tools'
# EXTRA_OBJS are appended here and expanded when their rules are read.
SCHED_SRCS	:= $(sort $(wildcard lib/libthverbs/sched/*.c))
SCHED_OBJS	:= $(SCHED_SRCS:%.c=$(O)/%.o)
SCHED_SAN_OBJS	:= $(SCHED_SRCS:%.c=$(S)/%.o)

THCTL_EXTRA_OBJS	+= $(SCHED_OBJS)
THBENCH_EXTRA_OBJS	+= $(SCHED_OBJS)

SCHED_TEST_SRCS	:= $(sort $(wildcard selftests/host/sched/test_*.c))
SCHED_TESTS	:= $(patsubst selftests/host/sched/%.c,$(BIN)/host/sched/%,$(SCHED_TEST_SRCS))
HOST_TESTS	+= $(SCHED_TESTS)

# The tests find the STG files through TH_SHARED, defaulting to this path.
TH_SHARED	?= $(abspath $(TOP)/../shared)
$(S)/selftests/host/sched/%.o: CPPFLAGS += -I$(TOP)/lib/libthverbs/sched \
	-DTH_SHARED_DEFAULT='"$(TH_SHARED)"' \
	-DTH_SCHED_TESTDATA='"$(TOP)/selftests/host/sched/data"'

# the placer builds k-nomial trees (lib/libthverbs/coll/tree.c)
$(SCHED_TESTS): $(BIN)/host/sched/%: $(S)/selftests/host/sched/%.o $(SCHED_SAN_OBJS) \
		$(S)/lib/libthverbs/coll/tree.o
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(LDLIBS)
