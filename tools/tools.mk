# tools.mk - pulls in each tool's own fragment (tools/<tool>/<tool>.mk),
# which names its objects and libraries (TOOL_OBJS_<tool>, TOOL_LIBS_<tool>),
# and links every tool twice: $(BIN)/<tool> to run from the build tree
# (RUNPATH to build/lib) and $(B)/inst/bin/<tool> for `make install`
# (no RUNPATH: installed, the library is on the loader's path).
TOOLS	:=
include $(sort $(wildcard tools/*/*.mk))
ALL_TARGETS	+= $(TOOLS:%=$(BIN)/%)

.SECONDEXPANSION:
$(TOOLS:%=$(BIN)/%): $(BIN)/%: $$(TOOL_OBJS_$$*) $(LIBTHVERBS_SO)
	@mkdir -p $(dir $@)
	$(CC) $(TH_CFLAGS) $(CFLAGS) $(LDFLAGS) $(TH_TOOL_RPATH) -o $@ \
		$(TOOL_OBJS_$*) $(TOOL_LIBS_$*) $(TH_LDLIBS)

$(TOOLS:%=$(B)/inst/bin/%): $(B)/inst/bin/%: $$(TOOL_OBJS_$$*) $(LIBTHVERBS_SO)
	@mkdir -p $(dir $@)
	$(CC) $(TH_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
		$(TOOL_OBJS_$*) $(TOOL_LIBS_$*) $(TH_LDLIBS)
