/* one.c - alpha_one(), which calls into beta/ */
#include <alpha.h>

int alpha_one(void)
{
	return beta_two() + 1;
}
