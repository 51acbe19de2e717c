# thbench.mk - the benchmark driver: one subcommand per file (bench_*.c).
THBENCH_SRCS	:= $(sort $(wildcard tools/thbench/*.c))
THBENCH_OBJS	:= $(THBENCH_SRCS:%.c=$(O)/%.o)
ALL_TARGETS	+= $(BIN)/thbench

$(BIN)/thbench: $(THBENCH_OBJS) $(ENGINE_OBJS) $(THBENCH_EXTRA_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
