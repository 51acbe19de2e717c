# ofi-tests.mk - host tests of the ofi provider (selftests/host/ofi/): two
# processes under thrun over libfabric's tcp;ofi_rxm, sanitized.  Only in
# builds with libfabric (OFI=1, libthverbs.mk).
ifeq ($(OFI),1)
OFI_RANK	:= $(BIN)/host/ofi/ofi_rank
OFI_FORGER	:= $(BIN)/host/ofi/ofi_forger
OFI_TESTS	:= $(BIN)/host/ofi/test_ofi
HOST_TESTS	+= $(OFI_TESTS)

$(S)/selftests/host/ofi/test_ofi.o: TH_CPPFLAGS += -DTH_THRUN='"$(BIN)/thrun"' \
	-DTH_OFI_RANK='"$(OFI_RANK)"' -DTH_COLL_RANK='"$(COLL_RANK_HOST)"' \
	-DTH_OFI_FORGER='"$(OFI_FORGER)"' \
	-DTH_OFI_ATTACK_SUPP='"$(TOP)/selftests/host/ofi/libfabric-attack.supp"'

# the attacker of test_ofi's forged-messages case: it knows the wire
# (ofi.h) but nothing of the job's
$(S)/selftests/host/ofi/ofi_forger.o: TH_CPPFLAGS += \
	-I$(TOP)/lib/libthverbs/providers/ofi -I$(TOP)/lib/libthverbs/providers/inproc
$(OFI_FORGER): $(S)/selftests/host/ofi/ofi_forger.o
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS) $(OFI_LIBS)

$(OFI_RANK): $(S)/selftests/host/ofi/ofi_rank.o $(VERBS_SAN_OBJS) \
		$(SCHED_SAN_OBJS) $(IPF_SAN_OBJS) $(OFI_SAN_OBJS) $(ENGINE_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS) $(OFI_LIBS)

# thrun and ofi_rank are run, not linked
$(OFI_TESTS): $(S)/selftests/host/ofi/test_ofi.o $(BIN)/thrun $(OFI_RANK) \
		$(COLL_RANK_HOST) $(OFI_FORGER)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $(filter %.o,$^) $(TH_LDLIBS)

# the message seal alone (providers/ofi/auth.c), no job
OFI_AUTH_TEST	:= $(BIN)/host/ofi/test_ofi_auth
HOST_TESTS	+= $(OFI_AUTH_TEST)
$(S)/selftests/host/ofi/test_ofi_auth.o: TH_CPPFLAGS += \
	-I$(TOP)/lib/libthverbs/providers/ofi
$(OFI_AUTH_TEST): $(S)/selftests/host/ofi/test_ofi_auth.o \
		$(S)/lib/libthverbs/providers/ofi/auth.o
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS)

# the shm rings alone (providers/ofi/ring.c, shapes checked by auth.c), no job
OFI_RING_TEST	:= $(BIN)/host/ofi/test_ofi_ring
HOST_TESTS	+= $(OFI_RING_TEST)
$(S)/selftests/host/ofi/test_ofi_ring.o: TH_CPPFLAGS += \
	-I$(TOP)/lib/libthverbs/providers/ofi
$(OFI_RING_TEST): $(S)/selftests/host/ofi/test_ofi_ring.o \
		$(S)/lib/libthverbs/providers/ofi/ring.o \
		$(S)/lib/libthverbs/providers/ofi/auth.o
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS)

# the doorbell regions' handoff alone (providers/ofi/handoff.c), no job
OFI_HANDOFF_TEST	:= $(BIN)/host/ofi/test_ofi_handoff
HOST_TESTS	+= $(OFI_HANDOFF_TEST)
$(S)/selftests/host/ofi/test_ofi_handoff.o: TH_CPPFLAGS += \
	-I$(TOP)/lib/libthverbs/providers/ofi
$(OFI_HANDOFF_TEST): $(S)/selftests/host/ofi/test_ofi_handoff.o \
		$(S)/lib/libthverbs/providers/ofi/handoff.o \
		$(S)/lib/libthverbs/providers/ofi/auth.o
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS)

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

# The same rank programs over rdma-core's verbs on soft-RoCE (rdma_rxe),
# in the test VM: Debian's kernel has the module, the host none.  Its TAP
# is $(LOGS)/vm-rxe.tap, its console $(LOGS)/rxe/vm-console.log.
VM_RXE_DIR	:= $(B)/vm-rxe
.PHONY: vmtest-rxe
# thrun is the VM's static one: the host's links libthverbs.so, which the
# payload does not carry, and thrun needs no ofi of its own (the ranks
# have it).
vmtest-rxe: module $(VM_THRUN) $(OFI_RANK) $(COLL_RANK_HOST)
	@mkdir -p $(LOGS)/rxe; \
	fail() { echo "not ok 1 rxe: $$1" > $(LOGS)/vm-rxe.tap; exit 1; }; \
	kver=$$($(TOP)/scripts/kdir.sh --version) || fail "no kernel to boot"; \
	$(TOP)/scripts/vm/rxe-payload.sh $(VM_RXE_DIR)/payload $$kver \
		$(VM_THRUN) $(OFI_RANK) $(COLL_RANK_HOST) || \
		fail "its payload could not be assembled"; \
	TOP='$(TOP)' B='$(B)' LOGS='$(LOGS)/rxe' VM_DIR='$(VM_RXE_DIR)' \
	VM_MODULE='$(TOP)/th_nic.ko' VM_PAYLOAD='$(VM_RXE_DIR)/payload' \
	VM_TIMEOUT=$${VM_TIMEOUT:-900} $(TOP)/scripts/vm/run-vm.sh; rc=$$?; \
	sed 's/^\(\(not \)\?ok [0-9]*\) /\1 rxe: /' $(LOGS)/rxe/vm.tap > $(LOGS)/vm-rxe.tap; \
	exit $$rc
else
.PHONY: vmtest-rxe
vmtest-rxe:
	@mkdir -p $(LOGS); \
	echo "ok 1 rxe # SKIP built without libfabric (OFI=0)" > $(LOGS)/vm-rxe.tap
endif
