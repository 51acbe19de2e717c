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
