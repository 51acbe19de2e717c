# mpi-tests.mk - libthmpi's tests (selftests/host/mpi/): thmpi_check, an
# MPI program built against MPICH alone and once more linked with
# libthmpi, run by test_thmpi.sh under mpiexec.  Only in builds with
# libthmpi (THMPI=1, lib/libthmpi/libthmpi.mk).
ifeq ($(THMPI),1)
THMPI_CHECK	:= $(BIN)/host/mpi/thmpi_check
THMPI_CHECK_LINKED := $(BIN)/host/mpi/thmpi_check_linked
THMPI_TEST	:= $(BIN)/host/mpi/test_thmpi
HOST_TESTS	+= $(THMPI_TEST)

$(O)/selftests/host/mpi/thmpi_check.o: TH_CPPFLAGS += $(THMPI_CFLAGS)

$(THMPI_CHECK): $(O)/selftests/host/mpi/thmpi_check.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(THMPI_LIBS) -lm

# -lthmpi before MPICH's libraries: its MPI_* come first
$(THMPI_CHECK_LINKED): $(O)/selftests/host/mpi/thmpi_check.o $(LIBTHMPI_SO)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(B)/lib -lthmpi \
		-Wl,-rpath,$(B)/lib $(THMPI_LIBS) -lm

$(THMPI_TEST): $(TOP)/selftests/host/mpi/test_thmpi.sh $(LIBTHMPI_SO) \
		$(THMPI_CHECK) $(THMPI_CHECK_LINKED)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s %s %s %s\n' $< $(LIBTHMPI_SO) \
		$(THMPI_CHECK) $(THMPI_CHECK_LINKED) > $@
	chmod +x $@

# The benchmark tools' logic (selftests/host/mpi/test_bench_tools.sh):
# osu_coll (built with mpicc, tools/thbench/bench.mk) under mpiexec with
# and without libthmpi, thmpi-bench.sh's report from known CSV files, and
# the refusals of both and of ofi-hop.sh.  No timing is judged.
BENCH_TOOLS_TEST := $(BIN)/host/mpi/test_bench_tools
HOST_TESTS	+= $(BENCH_TOOLS_TEST)

$(BENCH_TOOLS_TEST): $(TOP)/selftests/host/mpi/test_bench_tools.sh \
		$(BIN)/osu_coll $(LIBTHMPI_SO) \
		$(TOP)/tools/thbench/mpi/thmpi-bench.sh $(TOP)/tools/thbench/ofi-hop.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s %s %s\n' $< $(BIN)/osu_coll \
		$(LIBTHMPI_SO) > $@
	chmod +x $@

# libthmpi on th_nic.ko in the test VM (selftests/th_nic/thmpi.sh, which
# run.sh sources): MPICH's mpiexec and its proxy, the check and the
# library; mkinitramfs.sh brings what they link against.
VM_MPI		:= $(B)/vm/payload/mpi
vm-payload: $(VM_MPI)/.copied
$(VM_MPI)/.copied: $(TOP)/selftests/th_nic/thmpi.sh $(LIBTHMPI_SO) $(THMPI_CHECK)
	@mkdir -p $(VM_MPI)/bin $(VM_MPI)/lib
	@for t in mpiexec.hydra hydra_pmi_proxy; do \
		p=$$(command -v $$t) || { echo "$$t missing (scripts/deps.sh)" >&2; exit 1; }; \
		cp $$p $(VM_MPI)/bin/; \
	done
	@ln -sf mpiexec.hydra $(VM_MPI)/bin/mpiexec
	@cp $(TOP)/selftests/th_nic/thmpi.sh $(THMPI_CHECK) $(VM_MPI)/
	@# libthmpi finds libthverbs through its RUNPATH, $$ORIGIN/../lib
	@cp $(LIBTHMPI_SO) $(VM_MPI)/lib/libthmpi.so.1
	@cp $(LIBTHVERBS_SO) $(VM_MPI)/lib/$(LIBTHVERBS_SONAME)
	@touch $@
endif
