# circles-tests.mk - the host test of scripts/include-circles on its two
# small trees (selftests/host/circles/cycle, acyclic), TAP like the rest.
CIRCLES_TEST	:= $(BIN)/host/circles/test_include_circles
HOST_TESTS	+= $(CIRCLES_TEST)
$(CIRCLES_TEST): $(TOP)/selftests/host/circles/test_include_circles.sh \
		$(TOP)/scripts/include-circles
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash %s %s\n' $< $(TOP)/scripts/include-circles > $@
	chmod +x $@
