/* cycle.c - mutual recursion for the call graph's cycles (tests/gmon.sh):
   is_even and is_odd call each other, and walk calls both. */
#include <stdio.h>

int is_odd(unsigned n);

__attribute__((noinline)) int is_even(unsigned n)
{
	return n == 0 ? 1 : is_odd(n - 1);
}

__attribute__((noinline)) int is_odd(unsigned n)
{
	return n == 0 ? 0 : is_even(n - 1);
}

__attribute__((noinline)) static unsigned long walk(unsigned rounds)
{
	unsigned long s = 0;
	for (unsigned i = 0; i < rounds; i++)
		s += (unsigned long)is_even(i % 5000) + (unsigned long)is_odd(i % 301);
	return s;
}

int main(void)
{
	printf("%lu\n", walk(60000));
	return 0;
}
