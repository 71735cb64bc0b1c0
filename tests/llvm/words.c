/*
 * words.c - the program of tests/llvm.sh: counts the words of its
 * arguments by length class through a table of handlers (indirect
 * calls) and copies them with memcpy of varying sizes, so that Clang's
 * profiles have counters, branches, indirect-call sites and (with
 * -fprofile-generate) memory-operation sizes that differ between runs.
 */
#include <stdio.h>
#include <string.h>

static long small, medium, large;

static void on_small(const char *w) { small += (long)strlen(w); }
static void on_medium(const char *w) { medium += (long)strlen(w); }
static void on_large(const char *w) { large += (long)strlen(w); }

static void (*const handlers[])(const char *) = {
	on_small, on_medium, on_large,
};

static int classify(size_t n)
{
	if (n < 4)
		return 0;
	if (n < 8)
		return 1;
	return 2;
}

int main(int argc, char **argv)
{
	char buf[64];
	int vowels = 0;

	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (n >= sizeof buf)
			n = sizeof buf - 1;
		memcpy(buf, argv[i], n);
		buf[n] = '\0';
		for (size_t k = 0; k < n; k++)
			if (strchr("aeiou", buf[k]) != NULL)
				vowels++;
		handlers[classify(n)](buf);
	}
	printf("%ld %ld %ld %d\n", small, medium, large, vowels);
	return 0;
}
