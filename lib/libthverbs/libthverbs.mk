# libthverbs.mk - the userspace library: the verbs API (verbs/), its
# providers (providers/kernel/, providers/inproc/: the in-process fabric and
# its provider, providers/ofi/), collectives (coll/), the bootstrap (boot/),
# the scheduler (sched/, see sched.mk), the placer (place/) and the trigger
# engine, as a shared library whose exports are exactly the functions
# libthverbs.map names, and a static archive for static programs (the VM's
# tools).
IPF_SRCS	:= $(sort $(wildcard lib/libthverbs/providers/inproc/*.c))
IPF_OBJS	:= $(IPF_SRCS:%.c=$(O)/%.o)
IPF_SAN_OBJS	:= $(IPF_SRCS:%.c=$(S)/%.o)
# The ofi provider, when libfabric's headers are here (Debian: libfabric-dev);
# OFI=0 builds without it.  The shared library does not link libfabric: the
# provider loads it at a job's join (providers/ofi/fabric_dl.c), so that a
# process that never joins one does not pay its dependencies' start.  Only the shared library and the sanitized host
# tests have it: the static archive is what the VM's programs link, and
# the VM has no libfabric.  The rest of the library reaches it through its
# entry in the registration list (verbs/providers.c), a weak symbol.
OFI		?= $(shell pkg-config --exists libfabric 2>/dev/null && echo 1 || echo 0)
ifeq ($(OFI),1)
OFI_SRCS	:= $(sort $(wildcard lib/libthverbs/providers/ofi/*.c))
OFI_LIBS	:= $(shell pkg-config --libs libfabric)
endif
OFI_OBJS	:= $(OFI_SRCS:%.c=$(O)/%.o)
OFI_SAN_OBJS	:= $(OFI_SRCS:%.c=$(S)/%.o)
# The verifier (verify/): pure logic over descriptors and the engine's
# opcode table (Documentation/verify.rst).
VERIFY_SRCS	:= $(sort $(wildcard lib/libthverbs/verify/*.c))
VERIFY_SAN_OBJS	:= $(VERIFY_SRCS:%.c=$(S)/%.o)
# The placer (place/): its jobs, its cost model, placement, and running a
# placement on the NIC; it uses the scheduler (sched/) and the collectives'
# plan object (coll/).
PLACE_SRCS	:= $(sort $(wildcard lib/libthverbs/place/*.c))
PLACE_SAN_OBJS	:= $(PLACE_SRCS:%.c=$(S)/%.o)
# The LogGP(S) simulator of GOAL schedules (sim/): pure logic, no verbs;
# its host tests link it alone (selftests/host/sim/sim-tests.mk).
SIM_SRCS	:= $(sort $(wildcard lib/libthverbs/sim/*.c))
SIM_SAN_OBJS	:= $(SIM_SRCS:%.c=$(S)/%.o)
VERBS_SRCS	:= $(sort $(wildcard lib/libthverbs/verbs/*.c \
		     lib/libthverbs/providers/kernel/*.c \
		     lib/libthverbs/coll/*.c lib/libthverbs/boot/*.c \
		     lib/libthverbs/verify/*.c) $(PLACE_SRCS) $(SIM_SRCS))
VERBS_OBJS	:= $(VERBS_SRCS:%.c=$(O)/%.o)
VERBS_SAN_OBJS	:= $(VERBS_SRCS:%.c=$(S)/%.o)

# Each folder compiles with the include paths it is allowed, so that a file
# that includes another folder's private header fails to build: the public
# headers (include/) and the engine's for all (the Makefile's TH_CPPFLAGS);
# the core's private header (verbs/thverbs_priv.h) for the core, the
# collectives, the bootstrap and the providers; a provider's header for its
# own folder only.  The ofi provider is an in-process node with a network
# (its own, inproc's and the bootstrap's private headers); the placer
# reads its files with the scheduler's lexer (sched/parse.h) and runs a
# placement through the collectives' plan (coll/plan.h, group.h); the
# simulator (sim/) needs only its own header; tests are white-box
# (TH_WHITEBOX_CPPFLAGS).  A folder's own header needs no -I ("x.h" is
# looked for beside the file first).
LTV		:= $(TOP)/lib/libthverbs
TH_FOLDER_CPPFLAGS_verbs		:= -I$(LTV)/verbs
TH_FOLDER_CPPFLAGS_coll			:= -I$(LTV)/verbs
TH_FOLDER_CPPFLAGS_boot			:= -I$(LTV)/verbs
TH_FOLDER_CPPFLAGS_sched		:=
TH_FOLDER_CPPFLAGS_place		:= -I$(LTV)/verbs -I$(LTV)/sched -I$(LTV)/coll
TH_FOLDER_CPPFLAGS_verify		:=
TH_FOLDER_CPPFLAGS_sim			:=
TH_FOLDER_CPPFLAGS_providers/kernel	:= -I$(LTV)/verbs
TH_FOLDER_CPPFLAGS_providers/inproc	:= -I$(LTV)/verbs
TH_FOLDER_CPPFLAGS_providers/ofi	:= -I$(LTV)/verbs -I$(LTV)/providers/inproc \
					   -I$(LTV)/boot
LTV_FOLDERS	:= verbs coll boot sched place verify sim providers/kernel \
		   providers/inproc providers/ofi
# and every file includes the public headers it uses (THVERBS_VERBS_ONLY:
# thverbs/verbs.h without the collectives and the bootstrap it brings in
# for programs written before they had headers of their own)
$(foreach d,$(LTV_FOLDERS),$(eval \
  $(O)/lib/libthverbs/$(d)/%.o $(S)/lib/libthverbs/$(d)/%.o: \
	TH_CPPFLAGS += -DTHVERBS_VERBS_ONLY $(TH_FOLDER_CPPFLAGS_$(d))))
TH_WHITEBOX_CPPFLAGS := -I$(LTV)/verbs -I$(LTV)/providers/inproc -I$(LTV)/boot \
			-I$(LTV)/sched
$(O)/selftests/%.o $(S)/selftests/%.o: TH_CPPFLAGS += $(TH_WHITEBOX_CPPFLAGS)
# thrun speaks the bootstrap's protocol (boot/boot_proto.h) to the ranks
$(O)/tools/thrun/%.o: TH_CPPFLAGS += -I$(LTV)/boot

# The shared library's file carries the release (libthverbs.so.1.0.0); its
# SONAME only the ABI's major (libthverbs.so.1), bumped when an exported
# function changes incompatibly.
LIBTHVERBS_SOMAJOR := 1
LIBTHVERBS_SONAME  := libthverbs.so.$(LIBTHVERBS_SOMAJOR)
LIBTHVERBS_SO	:= $(B)/lib/libthverbs.so.$(VERSION)
LIBTHVERBS_A	:= $(B)/lib/libthverbs.a
LIBTHVERBS_MAP	:= $(TOP)/lib/libthverbs/libthverbs.map
LIBTHVERBS_OBJS	:= $(VERBS_OBJS) $(IPF_OBJS) $(ENGINE_OBJS) $(SCHED_OBJS)
ALL_TARGETS	+= $(LIBTHVERBS_SO) $(LIBTHVERBS_A)

# Everything in the library is hidden but what the public headers declare
# (they push default visibility while THVERBS_BUILD is defined), and the
# version script then exports those by name.
$(LIBTHVERBS_OBJS) $(OFI_OBJS): TH_CFLAGS += -fvisibility=hidden
$(LIBTHVERBS_OBJS) $(OFI_OBJS): TH_CPPFLAGS += -DTHVERBS_BUILD

# The shared library is optimised across its files at link time.  A chain's
# path crosses a dozen of the engine's stages, each a file of its own
# (th_chain.c, th_counter.c, th_exec.c, ...) and most of them a few lines
# called once per descriptor or counter: linked whole, the compiler inlines
# them.  One process driving 16 ranks (an 8-byte Allreduce) ran 8 % fewer
# instructions a round and was 7-9 % faster on the same CPU
# (Documentation/install.rst).  The objects keep their machine code too
# (fat), so that the static archive links into any program, LTO or not.
# TH_LTO= turns it off (another compiler, a debugger that should see every
# call).
TH_LTO	?= -flto=auto -ffat-lto-objects
$(LIBTHVERBS_OBJS) $(OFI_OBJS): TH_CFLAGS += $(TH_LTO)

$(LIBTHVERBS_SO): $(LIBTHVERBS_OBJS) $(OFI_OBJS) $(LIBTHVERBS_MAP)
	@mkdir -p $(dir $@)
	$(CC) $(TH_CFLAGS) $(TH_LTO) $(CFLAGS) $(LDFLAGS) -shared \
		-Wl,-soname,$(LIBTHVERBS_SONAME) -Wl,-z,defs \
		-Wl,--version-script=$(LIBTHVERBS_MAP) \
		-o $@ $(LIBTHVERBS_OBJS) $(OFI_OBJS) $(TH_LDLIBS)
	ln -sf $(notdir $@) $(B)/lib/$(LIBTHVERBS_SONAME)
	ln -sf $(LIBTHVERBS_SONAME) $(B)/lib/libthverbs.so

$(LIBTHVERBS_A): $(LIBTHVERBS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# Tools link the shared library like any program (-lthverbs).  In the build
# tree they find it through a RUNPATH of $ORIGIN/../lib (build/bin beside
# build/lib); `make install` relinks them without one (install.mk).
TH_TOOL_LIBS	:= -L$(B)/lib -lthverbs
TH_TOOL_RPATH	:= -Wl,-rpath,'$$ORIGIN/../lib'

# The public line, checked: exports = header declarations = version script
# (scripts/check-api.sh), and a manual page for each that man-db parses
# (Documentation/man/check-man.sh), as TAP for the summary.
.PHONY: apicheck
apicheck: $(LIBTHVERBS_SO)
	@mkdir -p $(LOGS)
	@CC="$(CC)" $(TOP)/scripts/check-api.sh $(B)/lib/$(LIBTHVERBS_SONAME) \
		$(TOP)/lib/libthverbs/include $(LIBTHVERBS_MAP) > $(LOGS)/api.tap; \
	CC="$(CC)" sh $(TOP)/Documentation/man/check-man.sh \
		$(TOP)/lib/libthverbs/include $(TOP)/Documentation/man \
		$(TOP)/include/uapi > $(LOGS)/man.tap; \
	grep -hE '^(not )?ok|^#' $(LOGS)/api.tap; grep -E '^not ok|SKIP' $(LOGS)/man.tap; \
	echo "man pages: $$(grep -c '^ok' $(LOGS)/man.tap) ok, $$(grep -c '^not ok' $(LOGS)/man.tap) not ok"; \
	! grep -q '^not ok' $(LOGS)/api.tap $(LOGS)/man.tap
