# libthmpi.mk - libthmpi, the PMPI interposition library for MPICH
# (lib/libthmpi/): MPI_Allreduce, MPI_Reduce, MPI_Bcast, their
# non-blocking and persistent forms on th_nic collectives, on th_nic.ko
# when every rank is on one host with it, else over the ofi provider.
# Built when MPICH's headers (libmpich-dev) and libfabric are
# here (THMPI=0 builds without it); linked against libthverbs.so and
# MPICH, loaded by linking (-lthmpi before -lmpich) or LD_PRELOAD.
THMPI		?= $(shell [ "$(OFI)" = 1 ] && pkg-config --exists mpich 2>/dev/null && echo 1 || echo 0)
ifeq ($(THMPI),1)
THMPI_SRCS	:= $(sort $(wildcard lib/libthmpi/*.c))
THMPI_OBJS	:= $(THMPI_SRCS:%.c=$(O)/%.o)
THMPI_CFLAGS	:= $(shell pkg-config --cflags mpich)
THMPI_LIBS	:= $(shell pkg-config --libs mpich)
LIBTHMPI_SO	:= $(B)/lib/libthmpi.so.$(VERSION)
LIBTHMPI_SONAME	:= libthmpi.so.1
ALL_TARGETS	+= $(LIBTHMPI_SO)

# Only the MPI_* entry points are exported (libthmpi.map; their PMPI_ peers
# are MPICH's): mpi.h declares them without a visibility of their own.
$(THMPI_OBJS): TH_CPPFLAGS += $(THMPI_CFLAGS)

$(LIBTHMPI_SO): $(THMPI_OBJS) $(LIBTHVERBS_SO) $(TOP)/lib/libthmpi/libthmpi.map
	@mkdir -p $(dir $@)
	$(CC) $(TH_CFLAGS) $(CFLAGS) $(LDFLAGS) -shared \
		-Wl,-soname,$(LIBTHMPI_SONAME) -Wl,-z,defs \
		-Wl,--version-script=$(TOP)/lib/libthmpi/libthmpi.map \
		$(TH_TOOL_RPATH) -o $@ $(THMPI_OBJS) $(TH_TOOL_LIBS) \
		$(THMPI_LIBS) $(TH_LDLIBS)
	ln -sf $(notdir $@) $(B)/lib/$(LIBTHMPI_SONAME)
	ln -sf $(LIBTHMPI_SONAME) $(B)/lib/libthmpi.so

# `make install`'s copy: relinked without the build tree's RUNPATH, as the
# tools are (install.mk).
LIBTHMPI_INST	:= $(B)/inst/lib/libthmpi.so.$(VERSION)
$(LIBTHMPI_INST): $(THMPI_OBJS) $(LIBTHVERBS_SO) $(TOP)/lib/libthmpi/libthmpi.map
	@mkdir -p $(dir $@)
	$(CC) $(TH_CFLAGS) $(CFLAGS) $(LDFLAGS) -shared \
		-Wl,-soname,$(LIBTHMPI_SONAME) -Wl,-z,defs \
		-Wl,--version-script=$(TOP)/lib/libthmpi/libthmpi.map \
		-o $@ $(THMPI_OBJS) $(TH_TOOL_LIBS) $(THMPI_LIBS) $(TH_LDLIBS)
endif
