# sched.mk - the DAG scheduler (lib/libthverbs/sched), part of libthverbs,
# and its host tests (selftests/host/sched/test_*.c), sanitized.
SCHED_SRCS	:= $(sort $(wildcard lib/libthverbs/sched/*.c))
SCHED_OBJS	:= $(SCHED_SRCS:%.c=$(O)/%.o)
SCHED_SAN_OBJS	:= $(SCHED_SRCS:%.c=$(S)/%.o)

SCHED_TEST_SRCS	:= $(sort $(wildcard selftests/host/sched/test_*.c))
SCHED_TESTS	:= $(patsubst selftests/host/sched/%.c,$(BIN)/host/sched/%,$(SCHED_TEST_SRCS))
HOST_TESTS	+= $(SCHED_TESTS)

# The tests that read the real STG set find it through TH_STG_DIR or, by
# default, TH_SHARED/data/stg when that checkout is beside the tree; they
# SKIP with the reason when it is not (nothing the tools need lives there).
TH_SHARED	?= $(abspath $(TOP)/../shared)
$(S)/selftests/host/sched/%.o: TH_CPPFLAGS += -I$(TOP)/lib/libthverbs/sched \
	-DTH_SHARED_DEFAULT='"$(TH_SHARED)"' \
	-DTH_SCHED_TESTDATA='"$(TOP)/selftests/host/sched/data"'

# test_place runs the placer (lib/libthverbs/place/), which is part of the
# library's generic objects (VERBS_SAN_OBJS: it builds k-nomial trees and
# runs placements through the verbs).  libthverbs.mk, read after this
# file, defines those: expanded when the rule is used ($$).
.SECONDEXPANSION:
$(SCHED_TESTS): $(BIN)/host/sched/%: $(S)/selftests/host/sched/%.o $(SCHED_SAN_OBJS) \
		$$(VERBS_SAN_OBJS) $$(IPF_SAN_OBJS) $(ENGINE_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS)
