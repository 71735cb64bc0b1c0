/*
 * feedback/compare.h - the exact arithmetic that the comparison
 * (compare.c) and the summary (summary.c) share.
 *
 * Sums of counts are kept in 128 bits and the questions that decide a
 * result are answered with integers wide enough to hold a product, so
 * that no rounding can change an answer.
 */
#ifndef XP_FEEDBACK_COMPARE_H
#define XP_FEEDBACK_COMPARE_H

#include <string.h>

#include "base/internal.h"

/* An unsigned 128-bit sum. */
typedef struct {
	uint64_t hi, lo;
} u128;

static inline void u128_add(u128 *x, uint64_t v)
{
	x->lo += v;
	if (x->lo < v)
		x->hi++;
}

static inline uint64_t u128_sat(u128 x)
{
	return x.hi ? UINT64_MAX : x.lo;
}

/* The same number as a native integer, for products (compare.c). */
typedef unsigned __int128 u128n;

static inline u128n u128_native(u128 x)
{
	return (u128n)x.hi << 64 | x.lo;
}

static inline u128 u128_of(u128n x)
{
	return (u128){(uint64_t)(x >> 64), (uint64_t)x};
}

static inline int u128_zero(u128 x)
{
	return x.hi == 0 && x.lo == 0;
}

/* A 256-bit number in 32-bit limbs, least significant first: room for a
 * 128-bit sum times a 64-bit factor. */
typedef struct {
	uint32_t w[8];
} big;

/* r = x * m for x < 2^128. */
static inline void big_mul(big *r, u128 x, uint64_t m)
{
	uint32_t xs[4] = {(uint32_t)x.lo, (uint32_t)(x.lo >> 32),
	                  (uint32_t)x.hi, (uint32_t)(x.hi >> 32)};
	uint32_t ms[2] = {(uint32_t)m, (uint32_t)(m >> 32)};

	memset(r, 0, sizeof *r);
	for (int i = 0; i < 4; i++) {
		uint64_t carry = 0;
		for (int j = 0; j < 2; j++) {
			uint64_t t = (uint64_t)xs[i] * ms[j] + r->w[i + j] + carry;
			r->w[i + j] = (uint32_t)t;
			carry = t >> 32;
		}
		for (int k = i + 2; carry && k < 8; k++) {
			uint64_t t = (uint64_t)r->w[k] + carry;
			r->w[k] = (uint32_t)t;
			carry = t >> 32;
		}
	}
}

static inline int big_cmp(const big *x, const big *y)
{
	for (int i = 7; i >= 0; i--)
		if (x->w[i] != y->w[i])
			return x->w[i] < y->w[i] ? -1 : 1;
	return 0;
}


#endif
