# fuzz.mk - coverage-guided fuzzing with libFuzzer (Debian's clang), under
# AddressSanitizer and UndefinedBehaviorSanitizer: the engine
# (fuzz/engine_fuzz.c), the text parsers (fuzz/parse_fuzz.c, one build
# per parser) and the chain verifier (fuzz/verify_fuzz.c).  `make fuzz` runs each target for FUZZ_SECONDS (60), FUZZ_JOBS
# (the number of CPUs) at once, from its
# committed seed corpus (fuzz/corpus/TARGET), first over every regression
# input (fuzz/regress/TARGET), and prints TAP with executions, their rate
# and coverage; a crash fails it and leaves the input in $(FUZZ_DIR)/crashes.
# `make fuzz-smoke` is make check's: the same, FUZZ_SMOKE_SECONDS (10) each
# (every regression input still runs); make check-full runs `make fuzz`.
FUZZ_CC		?= clang
FUZZ_SECONDS	?= 60
FUZZ_SMOKE_SECONDS ?= 10
# each target is one single-threaded process: this many at once, each
# with its whole budget (scripts/fuzz.sh)
FUZZ_JOBS	?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_DIR	:= $(B)/fuzz
FUZZ_FLAGS	:= -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer -pthread $(TH_CPPFLAGS) \
		   $(TH_WHITEBOX_CPPFLAGS) \
		   -I$(TOP)/selftests/host/lib -I$(TOP)/selftests/common \
		   -I$(TOP)/tools/thctl -w
FUZZ_PARSERS	:= chainfile thdag stg jobs model
FUZZ_TARGETS	:= engine $(FUZZ_PARSERS) verify
FUZZ_BINS	:= $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%_fuzz)

# what each target links: the engine and the in-process fabric, or a parser
FUZZ_ENGINE_SRCS := $(ENGINE_SRCS) $(IPF_SRCS) selftests/host/lib/th_test.c
FUZZ_PARSE_SRCS	:= $(SCHED_SRCS) \
		   $(addprefix lib/libthverbs/place/,place.c compose.c jobs.c model.c) \
		   lib/libthverbs/coll/tree.c tools/thctl/chainfile.c
FUZZ_ENGINE_OBJS := $(FUZZ_ENGINE_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_VERIFY_OBJS := $(VERIFY_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_PARSE_OBJS	:= $(FUZZ_PARSE_SRCS:%.c=$(FUZZ_DIR)/obj/%.o)

$(FUZZ_DIR)/obj/%.o: $(TOP)/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/engine_fuzz: $(TOP)/fuzz/engine_fuzz.c $(FUZZ_ENGINE_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ -lm

$(FUZZ_DIR)/verify_fuzz: $(TOP)/fuzz/verify_fuzz.c $(FUZZ_VERIFY_OBJS) $(FUZZ_ENGINE_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ -lm

fuzz_parser_id = $(if $(filter chainfile,$(1)),1,$(if $(filter thdag,$(1)),2,$(if \
	$(filter stg,$(1)),3,$(if $(filter jobs,$(1)),4,5))))

$(FUZZ_PARSERS:%=$(FUZZ_DIR)/%_fuzz): $(FUZZ_DIR)/%_fuzz: $(TOP)/fuzz/parse_fuzz.c $(FUZZ_PARSE_OBJS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DFUZZ_PARSER=$(call fuzz_parser_id,$*) \
		-fsanitize=fuzzer -o $@ $^ -lm

.PHONY: fuzz fuzz-build fuzz-smoke
fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@mkdir -p $(LOGS)
	@FUZZ_JOBS=$(FUZZ_JOBS) $(TOP)/scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS) | \
		tee $(LOGS)/fuzz.tap; ! grep -q '^not ok' $(LOGS)/fuzz.tap

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)
