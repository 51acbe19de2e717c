# thrun.mk - the job launcher (tools/thrun, a file per stage): starts N
# ranks and serves the bootstrap rendezvous of lib/libthverbs/boot; links
# libthverbs for the kernel provider's job domain.
THRUN_SRCS	:= $(sort $(wildcard tools/thrun/*.c))
THRUN_OBJS	:= $(THRUN_SRCS:%.c=$(O)/%.o)

TOOLS		+= thrun
TOOL_OBJS_thrun	:= $(THRUN_OBJS)
TOOL_LIBS_thrun = $(TH_TOOL_LIBS)
