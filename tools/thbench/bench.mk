# bench.mk - benchmark targets of thbench for 'make bench' (appended to
# BENCH_TARGETS, which the top Makefile's bench: rule reads after the
# includes), and where 'thbench allreduce' finds its MPI peer's source.
# bench_ranks.c uses it: the MPI peer's source and the default --out DIR
# (build/bench/NAME; without it every run wrote ./thbench-NAME instead)
$(O)/tools/thbench/bench_ranks.o: TH_CPPFLAGS += -DTHBENCH_TOP='"$(TOP)"'

BENCH_ALLREDUCE_ARGS ?= --quick
BENCH_TARGETS	+= bench-allreduce
.PHONY: bench-allreduce

# A short default sweep: offload, p2p tree, recursive doubling and MPICH
# (when mpicc and mpiexec are installed), table on stdout, CSV and PNG in
# $(B)/bench/allreduce.  Never pass/fail: a benchmark only reports.
bench-allreduce: $(BIN)/thbench
	-$(BIN)/thbench allreduce $(BENCH_ALLREDUCE_ARGS) --out $(B)/bench/allreduce

# bench-thmpi: osu_coll (tools/thbench/mpi/osu_coll.c, plain MPI, built
# with mpicc) under mpiexec with libthmpi preloaded, on plain MPICH (UCX
# shm) and on MPICH over UCX tcp: latency and overlap, N = 2 4 8 16,
# 8 B .. 1 MiB, MPI_Allreduce by default; CSV, summary.csv, results.md,
# PNG and bench.log in $(B)/bench/thmpi.  BENCH_THMPI_ARGS passes options
# to thmpi-bench.sh, e.g. -n "4 16" -c "allreduce reduce bcast" (the
# collectives) -R 5 (each run five times, the variants interleaved:
# medians and p10/p90 over runs) -t 100.
# Never pass/fail: without mpicc or libthmpi it says so and skips.
MPICC		?= mpicc
BENCH_THMPI_ARGS ?=
BENCH_TARGETS	+= bench-thmpi
.PHONY: bench-thmpi

$(BIN)/osu_coll: $(TOP)/tools/thbench/mpi/osu_coll.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=gnu11 $(WARNFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

bench-thmpi: $(LIBTHMPI_SO)
	-@if command -v $(MPICC) >/dev/null; then \
		$(MAKE) --no-print-directory $(BIN)/osu_coll; \
	else \
		echo "bench-thmpi: no $(MPICC) (libmpich-dev): skipped"; \
	fi
	-$(TOP)/tools/thbench/mpi/thmpi-bench.sh -b $(BIN)/osu_coll \
		-l $(B)/lib/libthmpi.so -o $(B)/bench/thmpi $(BENCH_THMPI_ARGS)

# vmbench-thmpi: osu_coll (MPI_Allreduce) in the test VM (Debian's kernel
# under QEMU, th_nic.ko nodes=16), libthmpi on the kernel provider vs MPICH
# alone, N = 2 and 16, latency and overlap
# (tools/thbench/mpi/thmpi-vm-bench.sh); latency.csv, overlap.csv and
# results.md in $(B)/bench/thmpi-vm.
# VMBENCH_THMPI_APPEND adds NAME=VALUE words for the script (TH_BENCH_NS=
# 2,4,16 TH_BENCH_MS=300 TH_BENCH_MAX=65536).  TCG's numbers compare the
# variants with each other, not with hardware.  Never pass/fail.
VMBENCH_THMPI_DIR := $(B)/vm-thmpi-bench
VMBENCH_THMPI_APPEND ?=
.PHONY: vmbench-thmpi
vmbench-thmpi: module vm-payload
	@if [ ! -d $(B)/vm/payload/mpi ] || ! command -v $(MPICC) > /dev/null; then \
		echo "vmbench-thmpi: needs libthmpi and MPICH (THMPI=1, mpicc): skipped"; exit 0; fi; \
	$(MAKE) --no-print-directory $(BIN)/osu_coll && \
	rm -rf $(VMBENCH_THMPI_DIR)/payload && mkdir -p $(VMBENCH_THMPI_DIR)/payload/bin && \
	cp -a $(B)/vm/payload/mpi $(VMBENCH_THMPI_DIR)/payload/ && \
	cp $(BIN)/osu_coll $(VMBENCH_THMPI_DIR)/payload/bin/ && \
	cp $(TOP)/tools/thbench/mpi/thmpi-vm-bench.sh $(VMBENCH_THMPI_DIR)/payload/run.sh && \
	mkdir -p $(B)/bench/thmpi-vm && \
	{ TOP='$(TOP)' B='$(B)' LOGS='$(B)/bench/thmpi-vm' VM_DIR='$(VMBENCH_THMPI_DIR)' \
	  VM_MODULE='$(TOP)/th_nic.ko' VM_PAYLOAD='$(VMBENCH_THMPI_DIR)/payload' \
	  VM_APPEND='$(VMBENCH_THMPI_APPEND)' VM_TIMEOUT=$${VM_TIMEOUT:-3600} \
	  $(TOP)/scripts/vm/run-vm.sh || true; } && \
	$(TOP)/tools/thbench/mpi/thmpi-vm-table.sh $(B)/bench/thmpi-vm/vm-console.log \
		$(B)/bench/thmpi-vm
