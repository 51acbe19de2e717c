# libthverbs.mk - the userspace library.  For now: the in-process fabric
# (lib/libthverbs/inproc) that runs the trigger engine over process memory.
IPF_SRCS	:= $(sort $(wildcard lib/libthverbs/inproc/*.c))
IPF_OBJS	:= $(IPF_SRCS:%.c=$(O)/%.o)
IPF_SAN_OBJS	:= $(IPF_SRCS:%.c=$(S)/%.o)
CPPFLAGS	+= -I$(TOP)/lib/libthverbs/inproc
THCTL_EXTRA_OBJS += $(IPF_OBJS)
