# layering-tests.mk - the host tests of the code's layering, TAP like the
# rest: scripts/include-circles on its two small trees (cycle/, acyclic/),
# and each libthverbs folder's include paths (test_include_paths.sh: a
# folder cannot include another's private header).
LAYERING_TESTS	:= $(BIN)/host/layering/test_include_circles \
		   $(BIN)/host/layering/test_include_paths
HOST_TESTS	+= $(LAYERING_TESTS)
$(BIN)/host/layering/test_include_circles: \
		$(TOP)/selftests/host/layering/test_include_circles.sh \
		$(TOP)/scripts/include-circles
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s %s\n' $< $(TOP)/scripts/include-circles > $@
	chmod +x $@
$(BIN)/host/layering/test_include_paths: \
		$(TOP)/selftests/host/layering/test_include_paths.sh
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s %s\n' $< $(TOP) > $@
	chmod +x $@
