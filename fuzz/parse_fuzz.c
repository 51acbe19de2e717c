// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * parse_fuzz.c - libFuzzer targets for the text parsers, one per build
 * (FUZZ_PARSER): thctl's chain files, the thdag and STG task graphs, the
 * placer's job files and its cost models.  Every input either parses into
 * something that is then freed, or is refused with a line and a column;
 * ASan, UBSan and LeakSanitizer watch both.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "chainfile.h"
#include <thverbs/place.h>
#include <thverbs/sched.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the chain-file parser takes a C string; the others a length */
	char *text = malloc(size + 1);
	struct th_dag_diag d;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
#if FUZZ_PARSER == 1
	{
		struct cf_limits lim = { .nodes = 16, .max_counters = 256,
					 .max_chain = 16 };
		struct cf_diag cd;

		cf_free(cf_parse(text, &lim, 0, &cd));
	}
#elif FUZZ_PARSER == 2
	th_dag_destroy(th_dag_parse_text(text, size, &d));
#elif FUZZ_PARSER == 3
	th_dag_destroy(th_dag_parse_stg(text, size, &d));
#elif FUZZ_PARSER == 4
	th_place_jobs_destroy(th_place_jobs_parse(text, size, &d));
#elif FUZZ_PARSER == 5
	th_place_model_destroy(th_place_model_parse(text, size, &d));
#else
#error "FUZZ_PARSER: 1 chainfile, 2 thdag, 3 stg, 4 jobs, 5 model"
#endif
	(void)d;
	free(text);
	return 0;
}
