/*
 * failalloc.c - an LD_PRELOAD shim for tests/hostile.sh: the allocation
 * numbered $XP_FAIL_ALLOC (malloc, calloc and realloc counted together,
 * from 1) fails, as when memory runs out; the ones before and after it
 * succeed.  When the process exits and no allocation had that number,
 * the shim says so on standard error ("failalloc: not reached"), so that
 * a test can count the allocations of a run by trying numbers until then.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static unsigned long count, fail_at;
static int armed, reached;

static int fail_now(void)
{
	if (!armed) {
		const char *s = getenv("XP_FAIL_ALLOC");
		armed = 1;
		fail_at = s != NULL ? strtoul(s, NULL, 10) : 0;
	}
	if (++count != fail_at)
		return 0;
	reached = 1;
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	return fail_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void)
{
	static const char msg[] = "failalloc: not reached\n";

	if (fail_at != 0 && !reached)
		(void)!write(2, msg, sizeof msg - 1);
}
