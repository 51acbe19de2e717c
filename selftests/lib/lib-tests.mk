# lib-tests.mk - the libthverbs suite (selftests/lib/*_test.c): built
# sanitized for the host, where it runs on the in-process provider, and
# static into the VM payload, where it runs on th_nic.ko.
LIB_TEST_SRCS	:= $(sort $(wildcard selftests/lib/*_test.c))
LIB_HOST_TESTS	:= $(patsubst selftests/lib/%.c,$(BIN)/host/%,$(LIB_TEST_SRCS))
LIB_VM_TESTS	:= $(patsubst selftests/lib/%.c,$(B)/vm/payload/%,$(LIB_TEST_SRCS))
HOST_TESTS	+= $(LIB_HOST_TESTS)

# th_nic.ko's fault injection is set over netlink: thctl's client, libnl
$(LIB_HOST_TESTS): $(BIN)/host/%: $(S)/selftests/lib/%.o $(VERBS_SAN_OBJS) $(SCHED_SAN_OBJS) \
		$(IPF_SAN_OBJS) $(OFI_SAN_OBJS) $(ENGINE_SAN_OBJS) $(S)/tools/thctl/nl.o
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS) $(NL_LIBS) $(OFI_LIBS)
$(S)/selftests/lib/%.o: TH_CPPFLAGS += -I$(TOP)/tools/thctl

vm-payload: $(LIB_VM_TESTS)

$(LIB_VM_TESTS): $(B)/vm/payload/%: $(TOP)/selftests/lib/%.c $(LIBTHVERBS_A) \
		$(TOP)/$(NL_CLIENT_SRC) | ksrc
	@mkdir -p $(dir $@)
	$(CC) $(TH_CPPFLAGS) -I$(TOP)/tools/thctl $(VM_TEST_CFLAGS) -o $@ $< \
		$(TOP)/$(NL_CLIENT_SRC) $(LIBTHVERBS_A) $(NL_LIBS) -lm

# thbench, static, so the VM run reports the kernel provider's latencies
# (as comments: benchmarks never pass or fail).
VM_THBENCH	:= $(B)/vm/payload/bench/thbench
vm-payload: $(VM_THBENCH)
$(VM_THBENCH): $(THBENCH_OBJS) $(LIBTHVERBS_A)
	@mkdir -p $(dir $@)
	$(CC) -static -pthread -fopenmp -o $@ $(THBENCH_OBJS) $(LIBTHVERBS_A) $(NL_LIBS) -lm

# thctl, static: the demo runs as a test on the kernel provider, and
# `make vmshell` has the tool at hand.
VM_THCTL	:= $(B)/vm/payload/bin/thctl
vm-payload: $(VM_THCTL)
$(VM_THCTL): $(THCTL_OBJS) $(LIBTHVERBS_A)
	@mkdir -p $(dir $@)
	$(CC) -static -pthread -o $@ $(THCTL_OBJS) $(LIBTHVERBS_A) $(NL_LIBS) -lm

# The chain-file examples and their golden digests (made with inproc): the
# VM replays them on the kernel provider, so both must give bit-identical
# buffers.  The tree layout is kept so the script finds its examples.
VM_THCTL_TESTS	:= $(B)/vm/payload/thctl
vm-payload: $(VM_THCTL_TESTS)/.copied
$(VM_THCTL_TESTS)/.copied: selftests/host/thctl/test_thctl.sh \
		$(wildcard tools/thctl/examples/*)
	@mkdir -p $(VM_THCTL_TESTS)/selftests/host/thctl $(VM_THCTL_TESTS)/tools/thctl
	@cp selftests/host/thctl/test_thctl.sh $(VM_THCTL_TESTS)/selftests/host/thctl/
	@rm -rf $(VM_THCTL_TESTS)/tools/thctl/examples
	@cp -r tools/thctl/examples $(VM_THCTL_TESTS)/tools/thctl/
	@touch $@

# thrun and a rank program: the MPI-like model (one process per node,
# addresses exchanged through the bootstrap) on the kernel provider.
VM_THRUN	:= $(B)/vm/payload/bin/thrun
VM_COLL_RANK	:= $(B)/vm/payload/bin/coll_rank
vm-payload: $(VM_THRUN) $(VM_COLL_RANK)
$(VM_THRUN): $(BIN)/thrun $(LIBTHVERBS_A)
	@mkdir -p $(dir $@)
	$(CC) -static -O2 -g $(TH_CPPFLAGS) -I$(TOP)/lib/libthverbs/boot -pthread -o $@ \
		$(addprefix $(TOP)/,$(THRUN_SRCS)) $(LIBTHVERBS_A) $(TH_LDLIBS)
$(VM_COLL_RANK): $(TOP)/selftests/lib/coll_rank.c $(LIBTHVERBS_A)
	@mkdir -p $(dir $@)
	$(CC) $(TH_CPPFLAGS) $(VM_TEST_CFLAGS) -o $@ $< $(LIBTHVERBS_A) -lm
