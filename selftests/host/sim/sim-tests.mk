# sim-tests.mk - host tests of the LogGP(S) simulator (lib/libthverbs/sim):
# the GOAL reader and writer, the generators and the event core against
# known answers, one sanitized kselftest binary each, linked with the
# simulator's objects and the engine's (th_sim_chains() reads its opcode
# table).
SIM_TEST_SRCS	:= $(sort $(wildcard selftests/host/sim/test_*.c))
SIM_TESTS	:= $(patsubst selftests/host/sim/%.c,$(BIN)/host/sim/%,$(SIM_TEST_SRCS))
HOST_TESTS	+= $(SIM_TESTS)

$(S)/selftests/host/sim/%.o: TH_CPPFLAGS += -I$(TOP)/lib/libthverbs/sim

$(SIM_TESTS): $(BIN)/host/sim/%: $(S)/selftests/host/sim/%.o $(SIM_SAN_OBJS) \
		$(ENGINE_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -pthread -o $@ $^ $(TH_LDLIBS)
