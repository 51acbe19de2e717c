# verify-tests.mk - host tests of the verifier on the library's own plans
# (selftests/host/verify/): the sweep of every plan th_coll_describe()
# compiles, and the mutation tool (verify_mutants: the library's plans
# broken in small random ways, verified and run on the in-process
# provider, the confusion matrix of the two) with its smoke test.
VERIFY_TEST_SRCS := $(sort $(wildcard selftests/host/verify/test_*.c))
VERIFY_TESTS	:= $(patsubst selftests/host/verify/%.c,$(BIN)/host/verify/%,$(VERIFY_TEST_SRCS))
HOST_TESTS	+= $(VERIFY_TESTS)

$(VERIFY_TESTS): $(BIN)/host/verify/%: $(S)/selftests/host/verify/%.o $(VERBS_SAN_OBJS) \
		$(SCHED_SAN_OBJS) $(IPF_SAN_OBJS) $(OFI_SAN_OBJS) $(ENGINE_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS) $(OFI_LIBS)

# every N from 2 to 1024 (the host test sweeps 2 ... 64 and seven large N)
.PHONY: verify-sweep-full
verify-sweep-full: $(BIN)/host/verify/test_plan_sweep
	TH_VERIFY_SWEEP=full $(BIN)/host/verify/test_plan_sweep

# The mutation tool: built without sanitizers (a thousand children), from
# the library's own objects, which reach the collectives' plan (coll/plan.h)
$(O)/selftests/host/verify/%.o $(S)/selftests/host/verify/%.o: \
	TH_CPPFLAGS += -I$(TOP)/lib/libthverbs/coll -I$(TOP)/selftests/host/verify
VERIFY_MUTANTS	:= $(BIN)/host/verify/verify_mutants
ALL_TARGETS	+= $(VERIFY_MUTANTS)
$(VERIFY_MUTANTS): $(O)/selftests/host/verify/verify_mutants.o \
		$(O)/selftests/host/verify/mutants.o $(VERBS_OBJS) $(SCHED_OBJS) \
		$(IPF_OBJS) $(ENGINE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -pthread -o $@ $^ $(TH_LDLIBS)
# the smoke test links the sanitized mutation engine
$(BIN)/host/verify/test_mutants: $(S)/selftests/host/verify/mutants.o

MUTANTS		?= 1000
.PHONY: verify-mutants
verify-mutants: $(VERIFY_MUTANTS)
	$(VERIFY_MUTANTS) --mutants $(MUTANTS)

# check-full's part: every plan of N = 2 ... 1024 verified clean, and the
# thousand mutants against the goal (every mutant that hangs or fails is
# flagged; at most 2 % of the flagged ones run fine), as TAP.  The two run
# side by side: the sweep keeps every CPU busy (a worker per CPU), the
# mutants mostly wait for their children's deadlines (135 s on the wall,
# 12 CPU-s, on a 2-CPU machine).
.PHONY: verify-full
verify-full: $(VERIFY_MUTANTS) $(BIN)/host/verify/test_plan_sweep
	@mkdir -p $(LOGS)
	@{ echo "TAP version 13"; \
	  $(VERIFY_MUTANTS) --mutants $(MUTANTS) > $(LOGS)/verify-mutants.log 2>&1 & \
	  mpid=$$!; \
	  TH_VERIFY_SWEEP=full $(BIN)/host/verify/test_plan_sweep 2>&1 | \
		tee $(LOGS)/verify-sweep.log | \
		awk '/^ok [0-9]+ / { $$2 = ++n; print } \
		     /^not ok [0-9]+ / { $$3 = ++n; print } END { exit !n }' \
		> $(LOGS)/.sweep; n=$$(wc -l < $(LOGS)/.sweep); \
	  cat $(LOGS)/.sweep; \
	  wait $$mpid; \
	  rc=$$?; line=$$(grep '^mutants ' $(LOGS)/verify-mutants.log); \
	  if [ $$rc -eq 0 ] && echo "$$line" | \
		awk '{ p = $$NF; gsub(/[()%]/, "", p); exit !(p <= 2) }' && \
		[ -n "$$line" ]; then \
		echo "ok $$((n + 1)) verify_mutants: $$line"; \
	  else \
		echo "not ok $$((n + 1)) verify_mutants (exit $$rc): $${line:-no summary, see $(LOGS)/verify-mutants.log}"; \
	  fi; } | tee $(LOGS)/verify-full.tap | grep -v '^ok '; \
	! grep -q '^not ok' $(LOGS)/verify-full.tap
