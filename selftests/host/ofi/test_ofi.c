// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_ofi.c - the ofi provider between two processes on this host, over
 * libfabric's tcp;ofi_rxm: each test runs one case of ofi_rank under
 * `thrun -n 2 --provider ofi` and passes when both ranks say it held
 * (their complaints, if any, go to this test's output).  Deliveries in
 * one message and by RMA, reads, inline writes, the refusals a target
 * gives (a wrong key or range: the initiator's violation; an absent vport
 * or another domain: -ECONNREFUSED), and a rank that dies.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#ifndef TH_THRUN
#error "TH_THRUN: the path of thrun, from ofi-tests.mk"
#endif
#ifndef TH_OFI_RANK
#error "TH_OFI_RANK: the path of ofi_rank, from ofi-tests.mk"
#endif

/* thrun's own timeout; the case's waits are shorter */
#define CASE_TIMEOUT	"40"

/* thrun's exit status for one case, or -1 if it could not run. */
static int run_case(const char *name)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		/* a dead rank is found within the delivery deadline */
		setenv("TH_OFI_TIMEOUT", "2", 1);
		execl(TH_THRUN, TH_THRUN, "-n", "2", "--provider", "ofi",
		      "--timeout", CASE_TIMEOUT, TH_OFI_RANK, name, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define OFI_CASE(name)						\
	TEST(name)						\
	{							\
		ASSERT_EQ(0, run_case(#name));			\
	}

OFI_CASE(put)
OFI_CASE(put_rma)
OFI_CASE(get)
OFI_CASE(get_rma)
OFI_CASE(inline_remote)
OFI_CASE(bad_key)
OFI_CASE(bad_range)
OFI_CASE(no_vport)
OFI_CASE(foreign_domain)
OFI_CASE(peer_dies)

TEST_HARNESS_MAIN
