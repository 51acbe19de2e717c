/* three.c - reads beta_count, defined in two.c (same folder, one way) */
#include "beta.h"

int beta_three(void)
{
	return beta_count + 3;
}
