# bench.mk - benchmark targets of thbench for 'make bench' (appended to
# BENCH_TARGETS, which the top Makefile's bench: rule reads after the
# includes), and where 'thbench allreduce' finds its MPI peer's source.
$(O)/tools/thbench/bench_allreduce.o: TH_CPPFLAGS += -DTHBENCH_TOP='"$(TOP)"'

BENCH_ALLREDUCE_ARGS ?= --quick
BENCH_TARGETS	+= bench-allreduce
.PHONY: bench-allreduce

# A short default sweep: offload, p2p tree, recursive doubling and MPICH
# (when mpicc and mpiexec are installed), table on stdout, CSV and PNG in
# $(B)/bench/allreduce.  Never pass/fail: a benchmark only reports.
bench-allreduce: $(BIN)/thbench
	-$(BIN)/thbench allreduce $(BENCH_ALLREDUCE_ARGS) --out $(B)/bench/allreduce

# bench-thmpi: osu_allreduce (tools/thbench/mpi/osu_allreduce.c, plain MPI,
# built with mpicc) under mpiexec with libthmpi preloaded, on plain MPICH
# (UCX shm) and on MPICH over UCX tcp: latency and overlap, N = 2 4 8 16,
# 8 B .. 1 MiB; CSV, results.md, PNG and bench.log in $(B)/bench/thmpi.
# BENCH_THMPI_ARGS passes options to thmpi-bench.sh (e.g. -n "2 16" -t 100).
# Never pass/fail: without mpicc or libthmpi it says so and skips.
MPICC		?= mpicc
BENCH_THMPI_ARGS ?=
BENCH_TARGETS	+= bench-thmpi
.PHONY: bench-thmpi

$(BIN)/osu_allreduce: $(TOP)/tools/thbench/mpi/osu_allreduce.c
	@mkdir -p $(dir $@)
	$(MPICC) -std=gnu11 $(WARNFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $<

bench-thmpi: $(LIBTHMPI_SO)
	-@if command -v $(MPICC) >/dev/null; then \
		$(MAKE) --no-print-directory $(BIN)/osu_allreduce; \
	else \
		echo "bench-thmpi: no $(MPICC) (libmpich-dev): skipped"; \
	fi
	-$(TOP)/tools/thbench/mpi/thmpi-bench.sh -b $(BIN)/osu_allreduce \
		-l $(B)/lib/libthmpi.so -o $(B)/bench/thmpi $(BENCH_THMPI_ARGS)
