# engine.mk - the trigger engine and ALU built for userspace; Kbuild takes
# the same files into th_nic.ko.
ENGINE_SRCS	:= $(sort $(wildcard driver/trigger/*.c))
ENGINE_OBJS	:= $(ENGINE_SRCS:%.c=$(O)/%.o)
ENGINE_SAN_OBJS	:= $(ENGINE_SRCS:%.c=$(S)/%.o)
