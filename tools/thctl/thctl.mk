# thctl.mk - the command-line tool: one command (or family) per cmd_*.c.
THCTL_SRCS	:= $(sort $(wildcard tools/thctl/*.c))
THCTL_OBJS	:= $(THCTL_SRCS:%.c=$(O)/%.o)

# management over generic netlink: libnl-genl-3 (scripts/deps.sh)
NL_CFLAGS	:= -I/usr/include/libnl3
NL_LIBS		:= -lnl-genl-3 -lnl-3
# thctl's netlink client (nl.c) serves thbench and the lib suite too
TH_CPPFLAGS	+= $(NL_CFLAGS)
NL_CLIENT_SRC	:= tools/thctl/nl.c

TOOLS		+= thctl
TOOL_OBJS_thctl	:= $(THCTL_OBJS)
TOOL_LIBS_thctl = $(TH_TOOL_LIBS) $(NL_LIBS)
