# ofi-tests.mk - host tests of the ofi provider (selftests/host/ofi/): two
# processes under thrun over libfabric's tcp;ofi_rxm, sanitized.  Only in
# builds with libfabric (OFI=1, libthverbs.mk).
ifeq ($(OFI),1)
OFI_RANK	:= $(BIN)/host/ofi/ofi_rank
OFI_TESTS	:= $(BIN)/host/ofi/test_ofi
HOST_TESTS	+= $(OFI_TESTS)

$(S)/selftests/host/ofi/test_ofi.o: TH_CPPFLAGS += -DTH_THRUN='"$(BIN)/thrun"' \
	-DTH_OFI_RANK='"$(OFI_RANK)"' -DTH_COLL_RANK='"$(COLL_RANK_HOST)"'

$(OFI_RANK): $(S)/selftests/host/ofi/ofi_rank.o $(VERBS_SAN_OBJS) \
		$(SCHED_SAN_OBJS) $(IPF_SAN_OBJS) $(OFI_SAN_OBJS) $(ENGINE_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS) $(OFI_LIBS)

# thrun and ofi_rank are run, not linked
$(OFI_TESTS): $(S)/selftests/host/ofi/test_ofi.o $(BIN)/thrun $(OFI_RANK) \
		$(COLL_RANK_HOST)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $(filter %.o,$^) $(TH_LDLIBS)

# Two "hosts": network namespaces joined by a veth pair (root only; the
# script skips otherwise); the paths it runs are filled in here.
OFI_NETNS_TEST	:= $(BIN)/host/ofi/test_netns
HOST_TESTS	+= $(OFI_NETNS_TEST)
$(OFI_NETNS_TEST): $(TOP)/selftests/host/ofi/test_netns.sh $(BIN)/thrun \
		$(OFI_RANK) $(COLL_RANK_HOST)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s %s %s %s\n' $< $(BIN)/thrun \
		$(COLL_RANK_HOST) $(OFI_RANK) > $@
	chmod +x $@
endif
