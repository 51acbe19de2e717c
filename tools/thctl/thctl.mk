# thctl.mk - the command-line tool: one command (or family) per cmd_*.c.
THCTL_SRCS	:= $(sort $(wildcard tools/thctl/*.c))
THCTL_OBJS	:= $(THCTL_SRCS:%.c=$(O)/%.o)
ALL_TARGETS	+= $(BIN)/thctl

$(BIN)/thctl: $(THCTL_OBJS) $(ENGINE_OBJS) $(THCTL_EXTRA_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
