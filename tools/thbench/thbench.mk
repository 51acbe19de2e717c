# thbench.mk - the benchmark driver: one subcommand per file (bench_*.c).
THBENCH_SRCS	:= $(sort $(wildcard tools/thbench/*.c))
THBENCH_OBJS	:= $(THBENCH_SRCS:%.c=$(O)/%.o)
ALL_TARGETS	+= $(BIN)/thbench

# faults are set on th_nic.ko over netlink: thctl's client (nl.c), libnl
THBENCH_OBJS	+= $(O)/tools/thctl/nl.o
$(THBENCH_OBJS): CPPFLAGS += -I$(TOP)/tools/thctl

$(BIN)/thbench: $(THBENCH_OBJS) $(ENGINE_OBJS) $(THBENCH_EXTRA_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) $(NL_LIBS)
