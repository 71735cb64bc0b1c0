/*
 * mpatrol/merge.c - summing mpatrol profiles.
 *
 * Merging (mpatrol(5), MERGING): the bins and large totals are summed
 * bin by bin, which needs the same bin count and allocation bounds on
 * both sides.  Call sites are matched by their symbol path: a call site
 * is the same as another when its parent is (recursively) and its frame
 * is: the same symbol name and offset in that symbol, or, for a call site
 * without a symbol, the same name and address.  Index numbers play no
 * part, so runs whose mpatrol numbered its call sites differently, or
 * whose program was loaded at another address, still add up.  A call
 * site first seen in a later profile is appended with the next index; its
 * profiling data, symbol address and name come along.
 */
#include <math.h>
#include <stdio.h>

#include "mpatrol/mpatrol.h"

/* ------------------------------------------------------------------ */
/* Small hash tables of positions                                      */
/* ------------------------------------------------------------------ */

typedef struct {
	size_t *slot;    /* position + 1; 0 is empty */
	size_t cap;      /* a power of two */
	size_t n;
} ptab;

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Makes room for one more entry; rehashing needs each entry's hash. */
static int ptab_reserve(ptab *t, uint64_t (*hash)(const void *, size_t),
                        const void *ctx)
{
	size_t ncap, *ns;

	if ((t->n + 1) * 2 <= t->cap)
		return 0;
	ncap = t->cap ? t->cap * 2 : 64;
	if ((ns = calloc(ncap, sizeof *ns)) == NULL)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		size_t p;
		if (t->slot[i] == 0)
			continue;
		p = (size_t)hash(ctx, t->slot[i] - 1) & (ncap - 1);
		while (ns[p] != 0)
			p = (p + 1) & (ncap - 1);
		ns[p] = t->slot[i];
	}
	free(t->slot);
	t->slot = ns;
	t->cap = ncap;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Merging                                                             */
/* ------------------------------------------------------------------ */

/* The identity of a call site in the accumulated profile. */
typedef struct {
	uint64_t parent;  /* index of the parent site in acc; 0: none */
	uint64_t name;    /* canonical name offset in acc; 0: none */
	uint64_t value;   /* offset in the symbol, or the address */
	int has_sym;
} site_key;

typedef struct {
	xp_mpatrol *a;
	site_key *keys;   /* by position in a->sites */
	size_t kcap;
	ptab sites;       /* positions in a->sites */
	ptab names;       /* offsets in a->strtab */
	ptab syms;        /* positions in a->syms */
	size_t strcap, symcap, sitecap, datacap;
	size_t *dmap;     /* position in a->data by index - 1 */
	double w;
	int overflow;
} mctx;

static uint64_t key_hash(const site_key *k)
{
	return xp_mix64(k->parent * 31 + k->name * 1000003 + k->value * 7 +
	           (uint64_t)k->has_sym);
}

static uint64_t site_hash(const void *ctx, size_t pos)
{
	const mctx *c = ctx;
	return key_hash(&c->keys[pos]);
}

static uint64_t name_hash(const void *ctx, size_t off)
{
	const mctx *c = ctx;
	return hash_str(c->a->strtab + off);
}

static uint64_t sym_hash(const void *ctx, size_t pos)
{
	const mctx *c = ctx;
	return xp_mix64(c->a->syms[pos]);
}

/* The canonical offset of a name in acc's table; 0 when absent. */
static uint64_t name_find(const mctx *c, const char *s)
{
	size_t mask = c->names.cap - 1, p;

	if (c->names.cap == 0)
		return 0;
	for (p = (size_t)hash_str(s) & mask; c->names.slot[p] != 0;
	     p = (p + 1) & mask)
		if (strcmp(c->a->strtab + c->names.slot[p] - 1, s) == 0)
			return c->names.slot[p] - 1;
	return 0;
}

/* Notes the string at off of acc's table as the canonical one if it is
 * the first of its text. */
static int name_note(mctx *c, size_t off)
{
	size_t p;

	if (name_find(c, c->a->strtab + off) != 0)
		return 0;
	if (ptab_reserve(&c->names, name_hash, c) != 0)
		return -1;
	p = (size_t)hash_str(c->a->strtab + off) & (c->names.cap - 1);
	while (c->names.slot[p] != 0)
		p = (p + 1) & (c->names.cap - 1);
	c->names.slot[p] = off + 1;
	c->names.n++;
	return 0;
}

/* The offset of name s in acc's table, appended when new. */
static int name_intern(mctx *c, const char *s, uint64_t *off)
{
	xp_mpatrol *a = c->a;
	size_t n = strlen(s) + 1, start;

	if ((*off = name_find(c, s)) != 0)
		return 0;
	/* Offset 0 means "no name": a table that is empty gets a NUL
	 * first, as mpatrol's own tables have. */
	start = a->strtab_len == 0 ? 1 : a->strtab_len;
	if (start + n > c->strcap) {
		size_t cap = c->strcap ? c->strcap : 64;
		char *p;
		while (cap < start + n)
			cap *= 2;
		if ((p = realloc(a->strtab, cap)) == NULL)
			return -1;
		a->strtab = p;
		c->strcap = cap;
	}
	if (a->strtab_len == 0)
		a->strtab[0] = '\0';
	memcpy(a->strtab + start, s, n);
	a->strtab_len = start + n;
	*off = start;
	return name_note(c, start);
}

/* The index of symbol address v in acc's table, appended when new. */
static int sym_intern(mctx *c, uint64_t v, uint64_t *index)
{
	xp_mpatrol *a = c->a;
	size_t p;

	if (c->syms.cap != 0) {
		for (p = (size_t)xp_mix64(v) & (c->syms.cap - 1); c->syms.slot[p];
		     p = (p + 1) & (c->syms.cap - 1))
			if (a->syms[c->syms.slot[p] - 1] == v) {
				*index = c->syms.slot[p];
				return 0;
			}
	}
	if (a->nsyms == c->symcap) {
		size_t cap = c->symcap ? c->symcap * 2 : 16;
		uint64_t *q = realloc(a->syms, cap * sizeof *q);
		if (q == NULL)
			return -1;
		a->syms = q;
		c->symcap = cap;
	}
	a->syms[a->nsyms++] = v;
	if (ptab_reserve(&c->syms, sym_hash, c) != 0)
		return -1;
	p = (size_t)xp_mix64(v) & (c->syms.cap - 1);
	while (c->syms.slot[p] != 0)
		p = (p + 1) & (c->syms.cap - 1);
	c->syms.slot[p] = a->nsyms;
	c->syms.n++;
	*index = a->nsyms;
	return 0;
}

/* Notes a symbol of acc's own table (the first of an address wins). */
static int sym_note(mctx *c, size_t pos)
{
	uint64_t v = c->a->syms[pos];
	size_t p;

	if (ptab_reserve(&c->syms, sym_hash, c) != 0)
		return -1;
	for (p = (size_t)xp_mix64(v) & (c->syms.cap - 1); c->syms.slot[p];
	     p = (p + 1) & (c->syms.cap - 1))
		if (c->a->syms[c->syms.slot[p] - 1] == v)
			return 0;
	c->syms.slot[p] = pos + 1;
	c->syms.n++;
	return 0;
}

static int key_eq(const site_key *x, const site_key *y)
{
	return x->parent == y->parent && x->name == y->name &&
	       x->value == y->value && x->has_sym == y->has_sym;
}

/* Position in acc of the site with key k, or SIZE_MAX. */
static size_t site_find(const mctx *c, const site_key *k)
{
	size_t mask = c->sites.cap - 1, p;

	if (c->sites.cap == 0)
		return SIZE_MAX;
	for (p = (size_t)key_hash(k) & mask; c->sites.slot[p] != 0;
	     p = (p + 1) & mask)
		if (key_eq(&c->keys[c->sites.slot[p] - 1], k))
			return c->sites.slot[p] - 1;
	return SIZE_MAX;
}

static int site_note(mctx *c, size_t pos)
{
	size_t p;

	if (ptab_reserve(&c->sites, site_hash, c) != 0)
		return -1;
	p = (size_t)key_hash(&c->keys[pos]) & (c->sites.cap - 1);
	while (c->sites.slot[p] != 0)
		p = (p + 1) & (c->sites.cap - 1);
	c->sites.slot[p] = pos + 1;
	c->sites.n++;
	return 0;
}

/* The key of a site of profile m whose parent is parent in acc. */
static site_key key_of(const mctx *c, const xp_mpatrol *m,
                       const xp_mpatrol_site *s, uint64_t parent,
                       int *absent)
{
	const char *name = xp_mpatrol_site_name(m, s);
	site_key k;

	k.parent = parent;
	k.name = 0;
	*absent = 0;
	if (name != NULL && (k.name = name_find(c, name)) == 0)
		*absent = 1;
	k.has_sym = s->symbol != 0;
	k.value = s->symbol ? s->addr - xp_mpatrol_site_symaddr(m, s)
	                    : s->addr;
	return k;
}

/* v scaled by the weight, rounded; sets c->overflow past 64 bits. */
static uint64_t scale(mctx *c, uint64_t v)
{
	double x;

	if (c->w == 1.0)
		return v;
	x = floor((double)v * c->w + 0.5);
	if (x >= 18446744073709551616.0) {
		c->overflow = 1;
		return 0;
	}
	return (uint64_t)x;
}

static void add(mctx *c, uint64_t *acc, uint64_t v)
{
	uint64_t s = scale(c, v);

	if (s > xp_mp_max(c->a->int_size) || *acc > xp_mp_max(c->a->int_size) - s)
		c->overflow = 1;
	else
		*acc += s;
}

/* Appends a site of m (whose parent in acc is parent) to acc. */
static int site_add(mctx *c, const xp_mpatrol *m, const xp_mpatrol_site *s,
                    uint64_t parent, size_t *pos)
{
	xp_mpatrol *a = c->a;
	const char *name = xp_mpatrol_site_name(m, s);
	xp_mpatrol_site *n;
	int absent;

	if (a->nsites == c->sitecap) {
		size_t cap = c->sitecap ? c->sitecap * 2 : 16;
		xp_mpatrol_site *q = realloc(a->sites, cap * sizeof *q);
		site_key *k;
		if (q == NULL)
			return -1;
		a->sites = q;
		if ((k = realloc(c->keys, cap * sizeof *k)) == NULL)
			return -1;
		c->keys = k;
		c->sitecap = cap;
	}
	n = &a->sites[a->nsites];
	memset(n, 0, sizeof *n);
	n->index = a->nsites + 1;
	n->parent = parent;
	n->addr = s->addr;
	if (name != NULL && name_intern(c, name, &n->name) != 0)
		return -1;
	if (s->symbol != 0 &&
	    sym_intern(c, xp_mpatrol_site_symaddr(m, s), &n->symbol) != 0)
		return -1;
	c->keys[a->nsites] = key_of(c, m, s, parent, &absent);
	*pos = a->nsites++;
	return site_note(c, *pos);
}

/* Adds the data of an input site to acc's site at pos. */
static int data_add(mctx *c, size_t pos, const xp_mpatrol_data *in)
{
	xp_mpatrol *a = c->a;
	xp_mpatrol_site *s = &a->sites[pos];
	xp_mpatrol_data *dt = NULL;
	size_t *m;

	if (s->data != 0)
		dt = &a->data[c->dmap[s->data - 1]];
	if (dt == NULL) {
		if (a->ndata == c->datacap) {
			size_t cap = c->datacap ? c->datacap * 2 : 16;
			xp_mpatrol_data *q = realloc(a->data, cap * sizeof *q);
			if (q == NULL)
				return -1;
			a->data = q;
			if ((m = realloc(c->dmap, cap * sizeof *m)) == NULL)
				return -1;
			c->dmap = m;
			c->datacap = cap;
		}
		c->dmap[a->ndata] = a->ndata;
		dt = &a->data[a->ndata];
		memset(dt, 0, sizeof *dt);
		dt->index = ++a->ndata;
		s->data = dt->index;
	}
	for (int k = 0; k < 4; k++) {
		add(c, &dt->acount[k], in->acount[k]);
		add(c, &dt->atotal[k], in->atotal[k]);
		add(c, &dt->dcount[k], in->dcount[k]);
		add(c, &dt->dtotal[k], in->dtotal[k]);
	}
	return 0;
}

/* Sums in into c->a; -1 when out of memory. */
static int merge_sites(mctx *c, const xp_mpatrol *in)
{
	size_t *map = NULL, *stack = NULL;
	int ret = -1;

	if (in->nsites > 0 &&
	    ((map = calloc(in->nsites, sizeof *map)) == NULL ||
	     (stack = malloc(in->nsites * sizeof *stack)) == NULL))
		goto out;
	/* map[i]: position + 1 in acc of the site at position i of in. */
	for (size_t i = 0; i < in->nsites; i++) {
		size_t depth = 0, j = i;

		while (map[j] == 0) {
			stack[depth++] = j;
			if (in->sites[j].parent == 0)
				break;
			j = in->site_pos[in->sites[j].parent - 1];
		}
		while (depth > 0) {
			const xp_mpatrol_site *s = &in->sites[stack[--depth]];
			const xp_mpatrol_site *ps = xp_mpatrol_site_at(in,
			                                               s->parent);
			uint64_t parent = 0;
			size_t pos;
			site_key k;
			int absent;

			if (ps != NULL)
				parent = c->a->sites[map[ps - in->sites] - 1].index;
			k = key_of(c, in, s, parent, &absent);
			pos = absent ? SIZE_MAX : site_find(c, &k);
			if (pos == SIZE_MAX && site_add(c, in, s, parent, &pos))
				goto out;
			map[s - in->sites] = pos + 1;
		}
	}
	for (size_t i = 0; i < in->nsites; i++) {
		const xp_mpatrol_data *dt = xp_mpatrol_site_data(in,
		                                                 &in->sites[i]);
		if (dt != NULL && data_add(c, map[i] - 1, dt) != 0)
			goto out;
	}
	ret = 0;
out:
	free(map);
	free(stack);
	return ret;
}

/* Indexes what acc already holds. */
static int index_acc(mctx *c)
{
	xp_mpatrol *a = c->a;

	c->strcap = a->strtab_len;
	c->symcap = a->nsyms;
	c->sitecap = a->nsites;
	c->datacap = a->ndata;
	if (a->ndata > 0 &&
	    (c->dmap = malloc(a->ndata * sizeof *c->dmap)) == NULL)
		return -1;
	for (size_t i = 0; i < a->ndata; i++)
		c->dmap[a->data[i].index - 1] = i;
	for (size_t i = 0; i < a->strtab_len; i++) {
		/* Every string start after the first NUL-terminated one. */
		if (i > 0 && a->strtab[i - 1] == '\0' &&
		    memchr(a->strtab + i, '\0', a->strtab_len - i) != NULL &&
		    name_note(c, i) != 0)
			return -1;
	}
	for (size_t i = 0; i < a->nsyms; i++)
		if (sym_note(c, i) != 0)
			return -1;
	if (a->nsites > 0 &&
	    (c->keys = malloc(a->nsites * sizeof *c->keys)) == NULL)
		return -1;
	c->kcap = a->nsites;
	for (size_t i = 0; i < a->nsites; i++) {
		const char *name = xp_mpatrol_site_name(a, &a->sites[i]);
		int absent;

		/* Names at offsets that are not a string start (rare) get
		 * noted too, so that key_of finds them. */
		if (name != NULL && name_find(c, name) == 0 &&
		    name_note(c, (size_t)a->sites[i].name) != 0)
			return -1;
		c->keys[i] = key_of(c, a, &a->sites[i], a->sites[i].parent,
		                    &absent);
	}
	for (size_t i = 0; i < a->nsites; i++)
		if (site_note(c, i) != 0)
			return -1;
	return 0;
}

xp_err xp_mp_merge(void **accp, const void *inv, double weight,
                const xp_prof_merge_opts *o, const char *name,
                xp_diags *d)
{
	const xp_mpatrol *in = inv, *old = *accp;
	mctx c;
	xp_mp_fail f;
	xp_err err = XP_E_NOMEM;

	memset(&c, 0, sizeof c);
	c.w = weight;
	if (old != NULL) {
		if (old->sbound != in->sbound || old->mbound != in->mbound ||
		    old->lbound != in->lbound)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "allocation bounds %llu, %llu, %llu "
			                    "differ from the %llu, %llu, %llu of "
			                    "the profiles before it; such profiles "
			                    "cannot be summed",
			                    (unsigned long long)in->sbound,
			                    (unsigned long long)in->mbound,
			                    (unsigned long long)in->lbound,
			                    (unsigned long long)old->sbound,
			                    (unsigned long long)old->mbound,
			                    (unsigned long long)old->lbound);
		if (old->nbins != in->nbins)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "%zu allocation bins differ from the "
			                    "%zu of the profiles before it; such "
			                    "profiles cannot be summed", in->nbins,
			                    old->nbins);
		c.a = xp_mp_copy(old);
	} else {
		c.a = calloc(1, sizeof *c.a);
		if (c.a != NULL) {
			c.a->big_endian = in->big_endian;
			c.a->int_size = in->int_size;
			c.a->ptr_size = in->ptr_size;
			c.a->version = in->version;
			c.a->sbound = in->sbound;
			c.a->mbound = in->mbound;
			c.a->lbound = in->lbound;
			c.a->nbins = in->nbins;
			if (in->nbins > 0 &&
			    ((c.a->acounts = calloc(in->nbins, 8)) == NULL ||
			     (c.a->dcounts = calloc(in->nbins, 8)) == NULL)) {
				xp_mp_free(c.a);
				c.a = NULL;
			}
		}
	}
	if (c.a == NULL)
		return XP_E_NOMEM;
	/* The sum is as wide as the widest input. */
	if (in->int_size > c.a->int_size)
		c.a->int_size = in->int_size;
	if (in->ptr_size > c.a->ptr_size)
		c.a->ptr_size = in->ptr_size;
	for (size_t i = 0; i < in->nbins; i++) {
		add(&c, &c.a->acounts[i], in->acounts[i]);
		add(&c, &c.a->dcounts[i], in->dcounts[i]);
	}
	add(&c, &c.a->atotals, in->atotals);
	add(&c, &c.a->dtotals, in->dtotals);
	if (index_acc(&c) != 0 || merge_sites(&c, in) != 0)
		goto fail;
	if (c.overflow) {
		err = xp_diag_file(d, XP_E_LIMIT, name,
		                   "the sum overflows the %u-byte integers of "
		                   "the profile", c.a->int_size);
		goto fail;
	}
	err = xp_mp_check(c.a, &f);
	if (err == XP_E_CORRUPT)
		err = xp_diag_file(d, XP_E_CORRUPT, name, "merge: %s", f.msg);
	if (err != XP_E_OK)
		goto fail;
	XP_FREE(c.keys, c.dmap, c.sites.slot, c.names.slot, c.syms.slot);
	xp_mp_free(*accp);
	*accp = c.a;
	return XP_E_OK;
fail:
	XP_FREE(c.keys, c.dmap, c.sites.slot, c.names.slot, c.syms.slot);
	xp_mp_free(c.a);
	return err;
}
