/*
 * unit.h - the few macros the unit tests are written with, a reader of
 * whole files (unit_slurp), a pseudo-random generator (unit_next) and
 * the interning of builder strings (unit_str).
 *
 * A unit test program is a main() that runs its test functions with
 * RUN(fn) and ends with `return unit_done();`.  Output follows the
 * convention of tests/run.sh, one line per result:
 *
 *   PASS name                 a test function whose checks all held
 *   FAIL file:line: cond      one check that did not hold
 *
 * so a test function with two failed checks gives two FAIL lines and no
 * PASS line.  unit_done() returns the exit status: 0 when every check
 * held, 1 otherwise.
 *
 * The state lives in file-scope statics: each test program includes this
 * header once, from its one source file.
 */
#ifndef XPROF_UNIT_H
#define XPROF_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xprof.h"

static unsigned unit_failed_checks;
static unsigned unit_tests_run;

/* Reports one failed check; the macros below call it. */
static inline void unit_fail(const char *file, int line, const char *what)
{
	printf("FAIL %s:%d: %s\n", file, line, what);
	fflush(stdout);
	unit_failed_checks++;
}

/* A condition that must hold. */
#define CHECK(cond)                                                     \
	do {                                                            \
		if (!(cond))                                            \
			unit_fail(__FILE__, __LINE__, #cond);           \
	} while (0)

/* Two integers that must be equal; both values are printed if not. */
#define CHECK_EQ(a, b)                                                  \
	do {                                                            \
		intmax_t unit_a_ = (intmax_t)(a), unit_b_ = (intmax_t)(b); \
		if (unit_a_ != unit_b_) {                               \
			char unit_m_[512];                              \
			snprintf(unit_m_, sizeof unit_m_,               \
			         "%s == %s (%jd != %jd)", #a, #b,       \
			         unit_a_, unit_b_);                     \
			unit_fail(__FILE__, __LINE__, unit_m_);         \
		}                                                       \
	} while (0)

/* The same for unsigned 64-bit values, which intmax_t cannot all hold. */
#define CHECK_EQ_U64(a, b)                                              \
	do {                                                            \
		uint64_t unit_a_ = (uint64_t)(a), unit_b_ = (uint64_t)(b); \
		if (unit_a_ != unit_b_) {                               \
			char unit_m_[512];                              \
			snprintf(unit_m_, sizeof unit_m_,               \
			         "%s == %s (%" PRIu64 " != %" PRIu64 ")", \
			         #a, #b, unit_a_, unit_b_);             \
			unit_fail(__FILE__, __LINE__, unit_m_);         \
		}                                                       \
	} while (0)

/* Two NUL-terminated strings that must be equal (NULL equals only NULL). */
#define CHECK_STR(a, b)                                                 \
	do {                                                            \
		const char *unit_a_ = (a), *unit_b_ = (b);              \
		if (!(unit_a_ == unit_b_ ||                             \
		      (unit_a_ && unit_b_ && !strcmp(unit_a_, unit_b_)))) { \
			char unit_m_[512];                              \
			snprintf(unit_m_, sizeof unit_m_,               \
			         "%s == %s (\"%.200s\" != \"%.200s\")", #a, #b, \
			         unit_a_ ? unit_a_ : "(null)",          \
			         unit_b_ ? unit_b_ : "(null)");         \
			unit_fail(__FILE__, __LINE__, unit_m_);         \
		}                                                       \
	} while (0)

/* Two byte ranges that must be equal in length and content. */
#define CHECK_MEM(a, alen, b, blen)                                     \
	do {                                                            \
		size_t unit_al_ = (alen), unit_bl_ = (blen);            \
		if (unit_al_ != unit_bl_ ||                             \
		    (unit_al_ && memcmp((a), (b), unit_al_))) {         \
			char unit_m_[512];                              \
			snprintf(unit_m_, sizeof unit_m_,               \
			         "%s equals %s (lengths %zu and %zu)",  \
			         #a, #b, unit_al_, unit_bl_);           \
			unit_fail(__FILE__, __LINE__, unit_m_);         \
		}                                                       \
	} while (0)

/* Runs one test function, then prints PASS if none of its checks failed. */
static inline void unit_run(const char *name, void (*fn)(void))
{
	unsigned before = unit_failed_checks;

	unit_tests_run++;
	fn();
	if (unit_failed_checks == before)
		printf("PASS %s\n", name);
	fflush(stdout);
}

#define RUN(fn) unit_run(#fn, fn)

/*
 * The whole of file path, NUL-terminated, with its length (without the
 * NUL) in *len; NULL when it cannot be read.  The caller frees it.
 */
static inline char *unit_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0, r;
	char *buf = f ? malloc(cap) : NULL;

	*len = 0;
	while (buf && (r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			char *more = realloc(buf, cap *= 2);
			if (!more)
				free(buf);
			buf = more;
		}
	}
	if (buf && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

/* The next value of a xorshift64 generator whose state (not 0) is *s. */
static inline uint64_t unit_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The id of string s in builder b; a failure to intern fails the test. */
static inline xp_str unit_str(xp_fbb *b, const char *s)
{
	xp_str id = XP_NOSTR;
	if (xp_fbb_intern(b, s, strlen(s), &id) != XP_E_OK)
		unit_fail(__FILE__, __LINE__, "xp_fbb_intern");
	return id;
}

/* The exit status of the test program. */
static inline int unit_done(void)
{
	if (unit_tests_run == 0) {
		/* A program that ran nothing proves nothing. */
		unit_fail(__FILE__, __LINE__, "no test was run");
	}
	return unit_failed_checks ? 1 : 0;
}

#endif /* XPROF_UNIT_H */
