# thbench.mk - the benchmark driver: one subcommand per file (bench_*.c).
THBENCH_SRCS	:= $(sort $(wildcard tools/thbench/*.c))
THBENCH_OBJS	:= $(THBENCH_SRCS:%.c=$(O)/%.o)

# faults are set on th_nic.ko over netlink: thctl's client (nl.c), libnl
THBENCH_OBJS	+= $(O)/tools/thctl/nl.o
# placements are run and measured by thctl's loop (place_measure.c)
THBENCH_OBJS	+= $(O)/tools/thctl/place_measure.o
$(THBENCH_OBJS): TH_CPPFLAGS += -I$(TOP)/tools/thctl

# "thbench alu" times the engine's ALU itself, which the library does not
# export: the tool compiles that one engine file in.
TOOLS		+= thbench
TOOL_OBJS_thbench := $(THBENCH_OBJS) $(O)/driver/trigger/th_alu.o
TOOL_LIBS_thbench = $(TH_TOOL_LIBS) $(NL_LIBS)

# "thbench threads" runs an OpenMP reduction beside the offload: that one
# file is OpenMP, and thbench links libgomp.
$(O)/tools/thbench/bench_threads.o: TH_CFLAGS += -fopenmp
TOOL_LIBS_thbench += -fopenmp
