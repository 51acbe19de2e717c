# tools.mk - pulls in each tool's own fragment (tools/<tool>/<tool>.mk).
include $(sort $(wildcard tools/*/*.mk))
