/*
 * base/strpool.c - interned strings: each distinct byte string is kept once
 * and named by a dense id (0, 1, 2, ... in the order first seen).  The
 * builder of profiles and the merger both keep their names here.
 *
 * Bytes live in one buffer, each string followed by a NUL so that it can
 * be used as a C string; off[id] is where string id starts, off[n] the end
 * of the last.  Lookups go through an open-addressing table of id + 1
 * (0: empty slot), at most half full; each slot also holds 32 bits of
 * its string's hash, which place it in the table, so that a probe
 * touches a string's bytes only when those bits match, and growing the
 * table hashes no string again.
 */
#include <stdlib.h>

#include "base/internal.h"

/* A fast hash of a short byte string (names and paths), a word at a
 * time. */
static uint64_t strhash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15u ^ len;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 32;
	}
	uint64_t w = 0;
	for (size_t k = 0; i < len; i++, k += 8)
		w |= (uint64_t)(unsigned char)s[i] << k;
	h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
	h ^= h >> 29;
	return h;
}

/* A slot of the table: the hash's top 32 bits above id + 1. */
#define SLOT_ID(e) ((uint32_t)(e))
#define SLOT_TAG(e) ((uint32_t)((e) >> 32))

static xp_err rehash(xp_strpool *sp)
{
	uint32_t cap = sp->hcap ? sp->hcap * 2 : 64;
	uint64_t *h = calloc(cap, sizeof *h);
	if (!h)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < sp->hcap; i++) {
		uint64_t e = sp->hash[i];
		if (!e)
			continue;
		uint32_t k = SLOT_TAG(e) & (cap - 1);
		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = e;
	}
	free(sp->hash);
	sp->hash = h;
	sp->hcap = cap;
	return XP_E_OK;
}

xp_err xp_strpool_intern(xp_strpool *sp, const char *s, size_t len,
                         uint32_t *out)
{
	if ((uint64_t)(sp->n + 1) * 2 > sp->hcap) {
		xp_err err = rehash(sp);
		if (err)
			return err;
	}
	uint32_t mask = sp->hcap - 1;
	uint32_t tag = (uint32_t)(strhash(s, len) >> 32);
	uint32_t k = tag & mask;
	for (uint64_t e; (e = sp->hash[k]) != 0; k = (k + 1) & mask) {
		uint32_t id = SLOT_ID(e) - 1;
		if (SLOT_TAG(e) == tag && xp_strpool_len(sp, id) == len &&
		    memcmp(xp_strpool_str(sp, id), s, len) == 0) {
			*out = id;
			return XP_E_OK;
		}
	}
	if (sp->n >= UINT32_MAX - 2 || sp->bytes.len + len + 1 > UINT32_MAX)
		return XP_E_LIMIT;
	if (sp->n + 2 > sp->offcap) {
		uint32_t cap = sp->offcap ? sp->offcap * 2 : 64;
		uint32_t *p = realloc(sp->off, (size_t)cap * sizeof *p);
		if (!p)
			return XP_E_NOMEM;
		if (!sp->off)
			p[0] = 0;
		sp->off = p;
		sp->offcap = cap;
	}
	unsigned char *q = xp_buf_grow(&sp->bytes, len + 1);
	if (!q)
		return XP_E_NOMEM;
	memcpy(q, s, len);
	q[len] = 0;
	sp->bytes.len += len + 1;
	sp->off[sp->n + 1] = (uint32_t)sp->bytes.len;
	sp->hash[k] = (uint64_t)tag << 32 | (sp->n + 1);
	*out = sp->n++;
	return XP_E_OK;
}

xp_err xp_strpool_map(xp_strpool *to, const xp_strpool *from, uint32_t **map)
{
	xp_err err;
	*map = malloc(((size_t)from->n + 1) * sizeof **map);
	if (!*map)
		return XP_E_NOMEM;
	for (uint32_t i = 0; i < from->n; i++)
		if ((err = xp_strpool_intern(to, xp_strpool_str(from, i),
		                             xp_strpool_len(from, i), &(*map)[i])))
			return err;
	return XP_E_OK;
}

void xp_strpool_free(xp_strpool *sp)
{
	xp_buf_free(&sp->bytes);
	free(sp->off);
	free(sp->hash);
	memset(sp, 0, sizeof *sp);
}
