/* beta.h - beta/'s own header */
extern int beta_count;
