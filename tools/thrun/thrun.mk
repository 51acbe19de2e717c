# thrun.mk - the job launcher (tools/thrun): starts N ranks and serves the
# bootstrap rendezvous of lib/libthverbs/boot; needs no library objects.
THRUN_SRCS	:= $(sort $(wildcard tools/thrun/*.c))
THRUN_OBJS	:= $(THRUN_SRCS:%.c=$(O)/%.o)
ALL_TARGETS	+= $(BIN)/thrun

$(BIN)/thrun: $(THRUN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
