/* twin_b.c - the other helper of twin_a.c, and main. */
static int helper(int x)
{
	int s = 1;
	for (int i = 0; i < x; i++)
		s ^= i + x;
	return s;
}

int twin_a(int n);

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3000; i++)
		s += helper(i);
	return (twin_a(3000) + s) & 1;
}
