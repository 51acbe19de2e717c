# mutants.mk - make mutants: the mutation check (scripts/mutants.sh) over
# the mutations of scripts/mutants.list, in a scratch copy of the tree.
# Not part of make check: it rebuilds and reruns tests once per mutation.
# MUTANTS_ONLY=REGEX picks some; MUTANTS_TIMEOUT (s) bounds each test run.
.PHONY: mutants
mutants: ksrc
	@$(TOP)/scripts/mutants.sh $(TOP)/scripts/mutants.list
