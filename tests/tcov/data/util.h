/* util.h - an inline helper. */
static inline int twice(int x)
{
	return 2 * x;
}
