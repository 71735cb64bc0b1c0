/*
 * sym.c - unit tests of the symbolizer (lib/symbolize/symbolize.c) on the real
 * executables of ../shared/realdata: x86-64 and i386 PIEs, a non-PIE,
 * and big-endian 32-bit PowerPC and 64-bit s390x.  The expected values
 * are what nm(1) and addr2line(1) print for the same files; lookups in
 * order and the mapped bytes of a section agree with the plain lookup
 * and the plain read.
 */
#include <stdlib.h>

#include "base/internal.h"
#include "unit.h"
#include "xprof.h"

#define RD "../shared/realdata/"

static xp_sym *open_ok(const char *path)
{
	xp_diags *d = xp_diags_new(0);
	xp_sym *s = NULL;
	xp_err e = xp_sym_open(path, &s, d);

	CHECK(e == XP_E_OK);
	xp_diags_free(d);
	return s;
}

static const xp_symbol *find(const xp_sym *s, const char *name)
{
	for (size_t i = 0; i < xp_sym_count(s); i++)
		if (strcmp(xp_sym_get(s, i)->name, name) == 0)
			return xp_sym_get(s, i);
	return NULL;
}

/* main at want, found again from an address inside it, at the line. */
static void check_main(const char *path, uint64_t want, unsigned line,
                       int be, unsigned ab, int pic)
{
	xp_sym *s = open_ok(path);
	const xp_symbol *m, *l;
	const char *file, *func;
	unsigned ln;

	if (s == NULL)
		return;
	CHECK(xp_sym_big_endian(s) == be);
	CHECK(xp_sym_addr_bytes(s) == ab);
	CHECK(xp_sym_is_pic(s) == pic);
	m = find(s, "main");
	CHECK(m != NULL);
	if (m != NULL) {
		CHECK(m->addr == want);
		CHECK(m->flags & XP_SYMF_GLOBAL);
		CHECK(m->flags & XP_SYMF_FUNCTION);
		CHECK(m->size > 4);
		l = xp_sym_lookup(s, want + 4);
		CHECK(l != NULL && strcmp(l->name, "main") == 0);
		l = xp_sym_lookup(s, want + m->size - 1);
		CHECK(l != NULL && strcmp(l->name, "main") == 0);
		l = xp_sym_lookup(s, want + m->size);
		CHECK(l == NULL || strcmp(l->name, "main") != 0);
		CHECK(xp_sym_line(s, want + 4, &file, &func, &ln) == 0);
		CHECK(ln == line);
		CHECK(func != NULL && strcmp(func, "main") == 0);
		CHECK(file != NULL && strstr(file, ".c") != NULL);
	}
	CHECK(xp_sym_lookup(s, 0) == NULL);
	xp_sym_free(s);
}

static void test_x86_64_pie(void)
{
	check_main(RD "gmon/callcounts_pg", 0x1070, 7, 0, 8, 1);
}

static void test_i386_pie(void)
{
	check_main(RD "gmon/callcounts_pg32", 0x1080, 7, 0, 4, 1);
}

static void test_nopie(void)
{
	xp_sym *s = open_ok(RD "gmon/sortbench_pg_nopie");
	const xp_symbol *m;
	uint64_t lo, hi;

	check_main(RD "gmon/sortbench_pg_nopie", 0x401632, 71, 0, 8, 0);
	if (s == NULL)
		return;
	/* nm -n: atexit follows main, so main ends there. */
	m = find(s, "main");
	CHECK(m != NULL && m->size == 0x401820 - 0x401632);
	xp_sym_text_range(s, &lo, &hi);
	CHECK(lo <= 0x401632 && hi > 0x401820);
	xp_sym_free(s);
}

static void test_ppc32_be(void)
{
	check_main(RD "gmon/callcounts_ppc", 0x100003a0, 7, 1, 4, 0);
}

static void test_s390x_be(void)
{
	check_main(RD "gmon/callcounts_s390x", 0x1000870, 7, 1, 8, 0);
}

/* Symbols by address, then name, then their order in the table. */
static void check_sorted(const char *path)
{
	xp_sym *s = open_ok(path);
	size_t bad = 0, ties = 0;

	if (s == NULL)
		return;
	for (size_t i = 1; i < xp_sym_count(s); i++) {
		const xp_symbol *x = xp_sym_get(s, i - 1), *y = xp_sym_get(s, i);
		int c = strcmp(x->name, y->name);
		ties += x->addr == y->addr;
		bad += x->addr > y->addr ||
		       (x->addr == y->addr && (c > 0 ||
		                               (c == 0 && x->seq > y->seq)));
	}
	CHECK(bad == 0);
	CHECK(ties > 0);
	CHECK(xp_sym_get(s, xp_sym_count(s)) == NULL);
	xp_sym_free(s);
}

static void test_sorted(void)
{
	check_sorted(RD "gmon/callcounts_ppc");
	check_sorted(RD "gmon/sortbench_pg");
	check_sorted(RD "gperftools/fib_prof_s390x");
}

/* Names as they lie in the ELF string table, the next string after. */
static void check_strtab(const char *path, const char *name,
                         const char *next)
{
	xp_sym *s = open_ok(path);
	const xp_symbol *y;
	const char *raw;

	if (s == NULL)
		return;
	y = find(s, name);
	CHECK(y != NULL);
	raw = y != NULL ? xp_sym_strtab_name(s, y) : NULL;
	CHECK(raw != NULL && strcmp(raw, name) == 0);
	if (raw != NULL && next != NULL)
		CHECK(strcmp(raw + strlen(raw) + 1, next) == 0);
	xp_sym_free(s);
}

static void test_strtab(void)
{
	check_strtab(RD "gmon/callcounts_ppc", "open_verify.constprop.0",
	             "add_path.constprop.0.isra.0");
	check_strtab(RD "gmon/callcounts_s390x", "main", NULL);
	check_strtab(RD "gmon/callcounts_pg", "main", NULL);
	check_strtab(RD "gmon/callcounts_pg32", "main", NULL);
}

/* xp_sym_lookup_next answers as xp_sym_lookup does, for addresses in
 * ascending order (small steps and large ones) and in any order. */
static void check_lookup_next(const char *path)
{
	xp_sym *s = open_ok(path);
	uint64_t lo, hi, r = 7;
	size_t at = 0, bad = 0;

	if (s == NULL)
		return;
	xp_sym_text_range(s, &lo, &hi);
	for (uint64_t a = lo - 16; a < hi + 16; a += 3)
		bad += xp_sym_lookup_next(s, &at, a) != xp_sym_lookup(s, a);
	at = 0;
	for (uint64_t a = lo; a < hi; a += 1 + (unit_next(&r) & 0xfff))
		bad += xp_sym_lookup_next(s, &at, a) != xp_sym_lookup(s, a);
	for (int i = 0; i < 5000; i++) {
		uint64_t a = lo + unit_next(&r) % (hi - lo + 64);
		bad += xp_sym_lookup_next(s, &at, a) != xp_sym_lookup(s, a);
	}
	CHECK(bad == 0);
	CHECK(xp_sym_lookup_next(s, &at, 0) == NULL);
	xp_sym_free(s);
}

static void test_lookup_next(void)
{
	check_lookup_next(RD "gmon/sortbench_pg_nopie");
	check_lookup_next(RD "gmon/callcounts_ppc");
	check_lookup_next(RD "gmon/callcounts_pg32");
}

/* The bytes that xp_sym_span shows are those xp_sym_read reads, at
 * every address of the span near the one asked for. */
static void check_span(const char *path)
{
	xp_sym *s = open_ok(path);
	uint64_t lo, hi, slo = 0, shi = 0;
	size_t spans = 0, bad = 0;

	if (s == NULL)
		return;
	xp_sym_text_range(s, &lo, &hi);
	for (uint64_t a = lo; a < hi; a += 61) {
		const unsigned char *p = xp_sym_span(s, a, &slo, &shi);
		unsigned char b[8];

		if (p == NULL)
			continue;
		spans++;
		bad += a < slo || a >= shi;
		for (uint64_t x = a; x < a + 32 && x + 8 <= shi; x++)
			bad += xp_sym_read(s, x, b, 8) != 0 ||
			       memcmp(b, p + (x - slo), 8) != 0;
	}
	CHECK(spans > 0);
	CHECK(bad == 0);
	CHECK(xp_sym_span(s, 0, &slo, &shi) == NULL);
	xp_sym_free(s);
}

static void test_span(void)
{
	check_span(RD "gmon/sortbench_pg_nopie");
	check_span(RD "gmon/callcounts_s390x");
	check_span(RD "gmon/callcounts_pg32");
}

static void test_not_object(void)
{
	xp_diags *d = xp_diags_new(0);
	xp_sym *s = NULL;

	CHECK(xp_sym_open("README.md", &s, d) == XP_E_FORMAT);
	CHECK(s == NULL);
	CHECK(xp_diags_count(d) == 1);
	CHECK(xp_sym_open("tests/no-such-file", &s, d) != XP_E_OK);
	CHECK(s == NULL);
	xp_diags_free(d);
}

int main(void)
{
	RUN(test_x86_64_pie);
	RUN(test_i386_pie);
	RUN(test_nopie);
	RUN(test_ppc32_be);
	RUN(test_s390x_be);
	RUN(test_sorted);
	RUN(test_strtab);
	RUN(test_lookup_next);
	RUN(test_span);
	RUN(test_not_object);
	return unit_done();
}
