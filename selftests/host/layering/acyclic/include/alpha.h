/* alpha.h - what alpha/ offers; beta/ implements half of it */
int alpha_one(void);
int beta_two(void);
