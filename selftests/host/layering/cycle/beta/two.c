/* two.c - beta_two(), which calls back into alpha/ */
#include <alpha.h>
#include "beta.h"

int beta_count = 0;

int beta_two(void)
{
	return beta_count ? alpha_one() : 2;
}
