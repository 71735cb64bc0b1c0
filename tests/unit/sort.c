/*
 * sort.c - unit tests of the linear-time sort of key-value pairs
 * (lib/base/sort.c): against a stable insertion of the same pairs, for
 * sizes below and above the insertion-sort threshold, keys that differ
 * in few or in all of their bytes, many equal keys (whose values must
 * keep their order), keys already sorted and the empty array; and the
 * sorts of records by two key fields and by a key field then a
 * comparison, records in any order and records already in order by the
 * first field (as a gmon.out lists its arcs); and the merge sort of
 * indices by a comparison, on the same records.
 */
#include <stddef.h>

#include "base/internal.h"
#include "unit.h"

/* A record of two keys and its position before the sort. */
typedef struct {
	uint64_t hi, lo, pos;
} rec;

/* The sorts checked: xp_sort_kv by hi, xp_sort_records by hi and lo,
 * xp_sort_keyed by hi and then lo, xp_sort_idx of indices by hi and lo. */
enum { KV, RECORDS, KEYED, INDEX };

/* Indices of records by (hi, lo), for xp_sort_idx. */
static int cmp_idx(const void *ctx, size_t x, size_t y)
{
	const rec *a = (const rec *)ctx + x, *b = (const rec *)ctx + y;

	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int cmp_lo(const void *x, const void *y)
{
	const rec *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Sorts the n records of a as how says. */
static xp_err sort_as(int how, rec *a, size_t n)
{
	static const size_t key[2] = { offsetof(rec, hi), offsetof(rec, lo) };
	xp_kv *v;
	xp_err err;

	if (how == RECORDS)
		return xp_sort_records(a, n, sizeof *a, key, 2);
	if (how == INDEX) {
		size_t *ix = malloc((n + 1) * sizeof *ix);
		size_t *tmp = malloc((n + 1) * sizeof *tmp);
		rec *c = calloc(n + 1, sizeof *c);
		if (!ix || !tmp || !c) {
			free(ix);
			free(tmp);
			free(c);
			return XP_E_NOMEM;
		}
		for (size_t i = 0; i < n; i++) {
			ix[i] = i;
			c[i] = a[i];
		}
		xp_sort_idx(ix, tmp, n, cmp_idx, c);
		for (size_t i = 0; i < n; i++)
			a[i] = c[ix[i]];
		free(ix);
		free(tmp);
		free(c);
		return XP_E_OK;
	}
	if (how == KEYED)
		return xp_sort_keyed(a, n, sizeof *a, key[0], cmp_lo);
	if ((v = malloc((n + 1) * sizeof *v)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = (xp_kv){a[i].hi, a[i].pos};
	if ((err = xp_sort_kv(v, n)) == XP_E_OK)
		for (size_t i = 0; i < n; i++)
			a[i] = (rec){v[i].key, 0, v[i].val};
	free(v);
	return err;
}

/*
 * n records with keys from the generator, hi masked with mhi (or i / 3,
 * ascending already, when mhi is 0 and sorted_hi) or'ed with base, lo
 * masked with mlo; sorted as how says and compared with a stable
 * insertion by (hi, lo), written here again.
 */
static void check_as(int how, size_t n, uint64_t mhi, uint64_t base,
                     uint64_t mlo, int sorted_hi, uint64_t seed)
{
	rec *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
	uint64_t s = seed;
	int same = 1;

	if (a == NULL || b == NULL) {
		CHECK(0);
		free(a);
		free(b);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		a[i].hi = (sorted_hi ? i / 3 : unit_next(&s) & mhi) | base;
		a[i].lo = how == KV ? 0 : unit_next(&s) & mlo;
		a[i].pos = i;
		b[i] = a[i];
	}
	CHECK(sort_as(how, a, n) == XP_E_OK);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && (b[j - 1].hi > b[j].hi ||
		                             (b[j - 1].hi == b[j].hi &&
		                              b[j - 1].lo > b[j].lo)); j--) {
			rec t = b[j];
			b[j] = b[j - 1];
			b[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++)
		if (a[i].hi != b[i].hi || a[i].lo != b[i].lo ||
		    a[i].pos != b[i].pos)
			same = 0;
	CHECK(same);
	free(a);
	free(b);
}

/* n pairs of keys made from the generator by mask | base. */
static void check(size_t n, uint64_t mask, uint64_t base, uint64_t seed)
{
	check_as(KV, n, mask, base, 0, 0, seed);
}

static void test_small(void)
{
	check(0, ~0ull, 0, 1);
	check(1, ~0ull, 0, 2);
	check(7, 0xff, 0, 3);
	check(47, ~0ull, 0, 4);
	/* Few distinct keys: equal ones keep their order here too. */
	check(40, 0x3, 0, 11);
}

static void test_addresses(void)
{
	/* Addresses within 2 MiB: three bytes differ, five are shared. */
	check(5000, 0x1fffff, 0x400000, 5);
	check(5000, 0x1fffff, 0x7f0000000000ull, 6);
}

static void test_full_keys(void)
{
	check(3000, ~0ull, 0, 7);
	/* Keys past 2^63 sort as unsigned. */
	check(3000, 0x80000000000000ffull, 0, 8);
}

static void test_equal_keys(void)
{
	/* Sixteen distinct keys among thousands: the values of each key
	 * must come out in the order they went in. */
	check(4000, 0xf0000000000000f0ull, 0, 9);
	check(100, 0, 42, 10);
}

static void test_sorted(void)
{
	xp_kv v[200];

	for (size_t i = 0; i < 200; i++)
		v[i] = (xp_kv){i / 3, 199 - i};
	CHECK(xp_sort_kv(v, 200) == XP_E_OK);
	for (size_t i = 0; i < 200; i++)
		CHECK(v[i].key == i / 3 && v[i].val == 199 - i);
	for (size_t i = 0; i < 200; i++)
		v[i] = (xp_kv){199 - i, i};
	CHECK(xp_sort_kv(v, 200) == XP_E_OK);
	for (size_t i = 0; i < 200; i++)
		CHECK(v[i].key == i && v[i].val == 199 - i);
}

static void test_records(void)
{
	for (int how = RECORDS; how <= INDEX; how++) {
		check_as(how, 0, 0xff, 0, 0xff, 0, 21);
		check_as(how, 30, 0x3, 0, 0x3, 0, 22);
		check_as(how, 30, 0, 0, 0xffff, 0, 23);
		check_as(how, 3000, 0x1fffff, 0, 0x1fffff, 0, 24);
		check_as(how, 3000, 0xf, 0, 0x7, 0, 25);
		check_as(how, 3000, 0, 0, 0x1fffff, 1, 26);
		check_as(how, 3000, 0, 0, 0x3, 1, 27);
	}
}

int main(void)
{
	RUN(test_small);
	RUN(test_addresses);
	RUN(test_full_keys);
	RUN(test_equal_keys);
	RUN(test_sorted);
	RUN(test_records);
	return unit_done();
}
