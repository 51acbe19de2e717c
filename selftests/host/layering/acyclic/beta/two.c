/* two.c - beta_two(): it includes alpha.h but names nothing alpha/ defines */
#include <alpha.h>
#include "beta.h"

int beta_count = 0;

int beta_two(void)
{
	return beta_count + 2;
}
