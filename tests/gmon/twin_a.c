/* twin_a.c - with twin_b.c: two static functions of one name, helper,
 * in two source files.  Their linker names are the same; a procedure
 * name must be unique in its object file. */
static int helper(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += i * x;
	return s;
}

int twin_a(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += helper(i);
	return s;
}
