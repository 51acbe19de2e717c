# libthverbs.mk - the userspace library: the verbs API (verbs/), its two
# providers (providers/kernel/, providers/inproc/: the in-process fabric and
# its provider), collectives (coll/), the scheduler (sched/, see sched.mk)
# and the trigger engine, as a shared library that exports only th_*
# (libthverbs.map) and a static archive for static tools.
IPF_SRCS	:= $(sort $(wildcard lib/libthverbs/providers/inproc/*.c))
IPF_OBJS	:= $(IPF_SRCS:%.c=$(O)/%.o)
IPF_SAN_OBJS	:= $(IPF_SRCS:%.c=$(S)/%.o)
VERBS_SRCS	:= $(sort $(wildcard lib/libthverbs/verbs/*.c \
		     lib/libthverbs/providers/kernel/*.c \
		     lib/libthverbs/coll/*.c lib/libthverbs/boot/*.c))
VERBS_OBJS	:= $(VERBS_SRCS:%.c=$(O)/%.o)
VERBS_SAN_OBJS	:= $(VERBS_SRCS:%.c=$(S)/%.o)
CPPFLAGS	+= -I$(TOP)/lib/libthverbs/providers/inproc -I$(TOP)/lib/libthverbs/verbs

LIBTHVERBS_SO	:= $(B)/lib/libthverbs.so.1
LIBTHVERBS_A	:= $(B)/lib/libthverbs.a
LIBTHVERBS_OBJS	= $(VERBS_OBJS) $(IPF_OBJS) $(ENGINE_OBJS) $(SCHED_OBJS)
ALL_TARGETS	+= $(LIBTHVERBS_SO) $(LIBTHVERBS_A)

# Within the library, symbols are hidden unless marked TH_EXPORT.
$(VERBS_OBJS): CFLAGS += -fvisibility=hidden

$(LIBTHVERBS_SO): $(LIBTHVERBS_OBJS) lib/libthverbs/libthverbs.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libthverbs.so.1 \
		-Wl,--version-script=$(TOP)/lib/libthverbs/libthverbs.map \
		-o $@ $(LIBTHVERBS_OBJS) $(LDLIBS)
	ln -sf libthverbs.so.1 $(B)/lib/libthverbs.so

$(LIBTHVERBS_A): $(LIBTHVERBS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

THCTL_EXTRA_OBJS += $(VERBS_OBJS) $(IPF_OBJS)
THBENCH_EXTRA_OBJS += $(VERBS_OBJS) $(IPF_OBJS)
