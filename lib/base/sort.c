/*
 * base/sort.c - sorting pairs of a 64-bit key and a value by key, in
 * linear time.
 *
 * Profiles hold addresses by the ten thousand (arcs, return addresses,
 * call chains); a comparison sort through qsort(3) spends most of its
 * time calling the comparison.  This is a least-significant-digit radix
 * sort on 11-bit digits of the key: one pass finds the bits in which keys
 * differ, and only the digits that hold some are counted and moved, so
 * that addresses within a few megabytes of each other take two passes.
 * Like every LSD radix sort it is stable: equal keys keep their order.
 * Records of several key fields are sorted by each field in turn, the
 * least significant first.  Orders that no key expresses (gprof's, of
 * doubles and counts) take a merge sort of indices.
 */
#include "base/internal.h"

/* Below this many pairs an insertion sort is faster than the passes. */
#define SMALL 48

static void insertion(xp_kv *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		xp_kv x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].key > x.key; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Bits of the key sorted by one pass: 2048 counts fit the first level
 * of cache, and addresses within 4 MiB of each other take two passes. */
#define DIGIT 11

xp_err xp_sort_kv(xp_kv *v, size_t n)
{
	size_t count[1u << DIGIT];
	xp_kv *tmp, *src = v, *dst;
	uint64_t differ = 0;
	unsigned low = 0;
	int sorted = 1;

	if (n < SMALL) {
		insertion(v, n);
		return XP_E_OK;
	}
	/* Which bits differ between keys, and whether they are in order. */
	for (size_t i = 1; i < n; i++) {
		differ |= v[i].key ^ v[0].key;
		sorted &= v[i].key >= v[i - 1].key;
	}
	if (sorted)
		return XP_E_OK;
	if ((tmp = malloc(n * sizeof *tmp)) == NULL)
		return XP_E_NOMEM;
	/* The bits below the lowest that differs order nothing. */
	while (!(differ >> low & 1))
		low++;
	for (unsigned b = low; b < 64 && differ >> b != 0; b += DIGIT) {
		const uint64_t mask = (1u << DIGIT) - 1;
		size_t at = 0;

		/* A digit that every key shares moves nothing. */
		if ((differ >> b & mask) == 0)
			continue;
		memset(count, 0, sizeof count);
		for (size_t i = 0; i < n; i++)
			count[src[i].key >> b & mask]++;
		for (size_t x = 0; x <= mask; x++) {
			size_t k = count[x];
			count[x] = at;
			at += k;
		}
		dst = src == v ? tmp : v;
		for (size_t i = 0; i < n; i++)
			dst[count[src[i].key >> b & mask]++] = src[i];
		src = dst;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(tmp);
	return XP_E_OK;
}

/* The 64-bit field at offset off of the record at r. */
static uint64_t field(const unsigned char *r, size_t off)
{
	uint64_t v;

	memcpy(&v, r + off, sizeof v);
	return v;
}

/* The records at a and b compared by their key fields. */
static int cmp_fields(const unsigned char *a, const unsigned char *b,
                      const size_t *key, size_t nkeys)
{
	for (size_t k = 0; k < nkeys; k++) {
		uint64_t x = field(a, key[k]), y = field(b, key[k]);
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* Records of at most this many bytes are sorted in place when few. */
#define MAXREC 64

static void insert_records(unsigned char *p, size_t n, size_t size,
                           const size_t *key, size_t nkeys)
{
	unsigned char x[MAXREC];

	for (size_t i = 1; i < n; i++) {
		size_t j = i;

		if (cmp_fields(p + (i - 1) * size, p + i * size, key, nkeys) <= 0)
			continue;
		memcpy(x, p + i * size, size);
		do {
			memcpy(p + j * size, p + (j - 1) * size, size);
			j--;
		} while (j > 0 &&
		         cmp_fields(p + (j - 1) * size, x, key, nkeys) > 0);
		memcpy(p + j * size, x, size);
	}
}

xp_err xp_sort_records(void *base, size_t n, size_t size, const size_t *key,
                       size_t nkeys)
{
	unsigned char *p = base, *tmp;
	xp_kv *kv;
	size_t i, j;
	int sorted = 1, first = 1;
	xp_err err = XP_E_OK;

	if (n < SMALL && size <= MAXREC) {
		insert_records(p, n, size, key, nkeys);
		return XP_E_OK;
	}
	for (i = 0; i + 1 < n && first; i++) {
		const unsigned char *a = p + i * size, *b = a + size;
		sorted &= cmp_fields(a, b, key, nkeys) <= 0;
		first = field(a, key[0]) <= field(b, key[0]);
	}
	if (sorted && first)
		return XP_E_OK;
	/* In order by the first field already (the arcs of a gmon.out, by
	 * caller): each run of equal first fields by the others. */
	if (first && nkeys > 1) {
		for (i = 0; i < n && err == XP_E_OK; i = j) {
			uint64_t f = field(p + i * size, key[0]);
			for (j = i + 1; j < n && field(p + j * size, key[0]) == f;
			     j++)
				;
			err = xp_sort_records(p + i * size, j - i, size, key + 1,
			                      nkeys - 1);
		}
		return err;
	}
	kv = malloc(n * sizeof *kv);
	tmp = malloc(n * size);
	if (kv == NULL || tmp == NULL) {
		err = XP_E_NOMEM;
		goto out;
	}
	/* The least significant field first; each sort keeps the order
	 * the ones before it made among equal keys. */
	for (i = 0; i < n; i++)
		kv[i].val = i;
	for (size_t k = nkeys; k-- > 0;) {
		for (i = 0; i < n; i++)
			kv[i].key = field(p + kv[i].val * size, key[k]);
		if ((err = xp_sort_kv(kv, n)) != XP_E_OK)
			goto out;
	}
	for (i = 0; i < n; i++)
		memcpy(tmp + i * size, p + kv[i].val * size, size);
	memcpy(p, tmp, n * size);
out:
	free(kv);
	free(tmp);
	return err;
}

xp_err xp_sort_keyed(void *base, size_t n, size_t size, size_t key,
                     int (*cmp)(const void *, const void *))
{
	unsigned char *p = base, *t = malloc(n * size + 1);
	xp_kv *kv = malloc((n + 1) * sizeof *kv);
	xp_err err = XP_E_NOMEM;
	size_t i, j;

	if (kv == NULL || t == NULL)
		goto out;
	for (i = 0; i < n; i++)
		kv[i] = (xp_kv){field(p + i * size, key), i};
	if ((err = xp_sort_kv(kv, n)) != XP_E_OK)
		goto out;
	for (i = 0; i < n; i++)
		memcpy(t + i * size, p + kv[i].val * size, size);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && kv[j].key == kv[i].key; j++)
			;
		xp_qsort(t + i * size, j - i, size, cmp);
	}
	memcpy(p, t, n * size);
out:
	free(kv);
	free(t);
	return err;
}

void xp_sort_idx(size_t *v, size_t *tmp, size_t n,
                 int (*cmp)(const void *ctx, size_t a, size_t b),
                 const void *ctx)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	xp_sort_idx(v, tmp, h, cmp, ctx);
	xp_sort_idx(v + h, tmp, n - h, cmp, ctx);
	if (cmp(ctx, v[h - 1], v[h]) <= 0)
		return;
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = cmp(ctx, v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof *v);
}
