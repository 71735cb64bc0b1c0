/*
 * mpatrol/module.c - the module of mpatrol allocation profiles: recognising,
 * reading and writing the binary MPTL file, the checks every model
 * passes, and the model's accessors (xprof_mpatrol.h); its report is
 * report.c's.
 *
 * The format (specs/mpatrol-profile.txt, mpatrol(5)): the magic "MPTL";
 * an unsigned integer 1 that tells the byte order; the library's version;
 * the small, medium and large allocation bounds; the bin count and, when
 * it is not 0, the allocation bins, the large allocation total, the
 * deallocation bins and the large deallocation total; the profiling data
 * structures (an index and 16 counts each); the call sites (index,
 * parent index, a code address, symbol index, name offset, data index);
 * the symbol addresses; the symbol-name string table; the magic again.
 * Integers are the writer's size_t or unsigned long and addresses its
 * pointers, in its byte order: nothing in the file says how wide they
 * are.  The reader tries every layout (either byte order, 4 or 8 bytes
 * for integers and for pointers) and keeps the one that reads the whole
 * file to the closing magic at its very end and passes every check; two
 * that do are an ambiguity the user settles with a forced layout.
 */
#include <stdio.h>

#include "registry/module.h"
#include "mpatrol/mpatrol.h"
#include "base/rd.h"

static const char magic[4] = { 'M', 'P', 'T', 'L' };

/* ------------------------------------------------------------------ */
/* Layouts                                                             */
/* ------------------------------------------------------------------ */

const char *xp_mp_layout_str(xp_mp_layout l, char *buf)
{
	if (l.psz == l.isz)
		snprintf(buf, 16, "%s%u", l.big ? "be" : "le", l.isz * 8);
	else
		snprintf(buf, 16, "%s%up%u", l.big ? "be" : "le", l.isz * 8,
		         l.psz * 8);
	return buf;
}

int xp_mp_layout_parse(const char *s, xp_mp_layout *l)
{
	static const char *const sizes[] = { "32", "64" };

	if (s == NULL || (strncmp(s, "be", 2) != 0 && strncmp(s, "le", 2) != 0))
		return -1;
	l->big = s[0] == 'b';
	s += 2;
	for (unsigned i = 0; i < 2; i++) {
		if (strncmp(s, sizes[i], 2) != 0)
			continue;
		l->isz = l->psz = i ? 8 : 4;
		s += 2;
		if (*s == '\0')
			return 0;
		if (*s++ != 'p')
			return -1;
		for (unsigned j = 0; j < 2; j++)
			if (strcmp(s, sizes[j]) == 0) {
				l->psz = j ? 8 : 4;
				return 0;
			}
		return -1;
	}
	return -1;
}

const char *xp_mpatrol_layout_name(const xp_mpatrol *m)
{
	static const char *const names[2][2][2] = {
		{ { "le32", "le32p64" }, { "le64p32", "le64" } },
		{ { "be32", "be32p64" }, { "be64p32", "be64" } },
	};
	return names[m->big_endian != 0][m->int_size == 8][m->ptr_size == 8];
}

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

void xp_mp_free(xp_mpatrol *m)
{
	if (m == NULL)
		return;
	XP_FREE(m->acounts, m->dcounts, m->data, m->sites, m->syms, m->strtab,
	        m->data_pos, m->site_pos, m);
}

/* A copy of n elements of size sz (NULL for none); *ok cleared on
 * failure. */
static void *dup_array(const void *p, size_t n, size_t sz, int *ok)
{
	void *q;

	if (n == 0 || p == NULL)
		return NULL;
	q = malloc(n * sz);
	if (q == NULL)
		*ok = 0;
	else
		memcpy(q, p, n * sz);
	return q;
}

xp_mpatrol *xp_mp_copy(const xp_mpatrol *m)
{
	xp_mpatrol *c = malloc(sizeof *c);
	int ok = 1;

	if (c == NULL)
		return NULL;
	*c = *m;
	c->acounts = dup_array(m->acounts, m->nbins, sizeof *m->acounts, &ok);
	c->dcounts = dup_array(m->dcounts, m->nbins, sizeof *m->dcounts, &ok);
	c->data = dup_array(m->data, m->ndata, sizeof *m->data, &ok);
	c->sites = dup_array(m->sites, m->nsites, sizeof *m->sites, &ok);
	c->syms = dup_array(m->syms, m->nsyms, sizeof *m->syms, &ok);
	c->strtab = dup_array(m->strtab, m->strtab_len, 1, &ok);
	c->data_pos = dup_array(m->data_pos, m->ndata, sizeof *m->data_pos,
	                        &ok);
	c->site_pos = dup_array(m->site_pos, m->nsites, sizeof *m->site_pos,
	                        &ok);
	if (!ok) {
		xp_mp_free(c);
		return NULL;
	}
	return c;
}

const xp_mpatrol_site *xp_mpatrol_site_at(const xp_mpatrol *m,
                                          uint64_t index)
{
	if (index == 0 || index > m->nsites)
		return NULL;
	return &m->sites[m->site_pos[index - 1]];
}

const xp_mpatrol_data *xp_mpatrol_site_data(const xp_mpatrol *m,
                                            const xp_mpatrol_site *s)
{
	if (s->data == 0 || s->data > m->ndata)
		return NULL;
	return &m->data[m->data_pos[s->data - 1]];
}

const char *xp_mpatrol_site_name(const xp_mpatrol *m,
                                 const xp_mpatrol_site *s)
{
	if (s->name == 0 || s->name >= m->strtab_len)
		return NULL;
	return m->strtab + s->name;
}

uint64_t xp_mpatrol_site_symaddr(const xp_mpatrol *m,
                                 const xp_mpatrol_site *s)
{
	if (s->symbol == 0 || s->symbol > m->nsyms)
		return 0;
	return m->syms[s->symbol - 1];
}

static xp_err failf(xp_mp_fail *f, int at, size_t rec, int field,
                    const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static xp_err failf(xp_mp_fail *f, int at, size_t rec, int field,
                    const char *fmt, ...)
{
	va_list ap;

	f->at = at;
	f->rec = rec;
	f->field = field;
	va_start(ap, fmt);
	vsnprintf(f->msg, sizeof f->msg, fmt, ap);
	va_end(ap);
	return XP_E_CORRUPT;
}

/* Fills pos (n entries) with the position of each index, checking that
 * the indices are a permutation of 1..n. */
static xp_err index_map(size_t n, size_t *pos, const void *recs,
                        size_t recsize, int at, const char *what,
                        xp_mp_fail *f)
{
	const unsigned char *p = recs;

	for (size_t i = 0; i < n; i++)
		pos[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		uint64_t ix;
		memcpy(&ix, p + i * recsize, sizeof ix);  /* index is first */
		if (ix == 0 || ix > n)
			return failf(f, at, i, MP_F_INDEX,
			             "%s index %llu out of range 1..%zu", what,
			             (unsigned long long)ix, n);
		if (pos[ix - 1] != SIZE_MAX)
			return failf(f, at, i, MP_F_INDEX,
			             "duplicate %s index %llu", what,
			             (unsigned long long)ix);
		pos[ix - 1] = i;
	}
	return XP_E_OK;
}

xp_err xp_mp_check(xp_mpatrol *m, xp_mp_fail *f)
{
	unsigned char *state = NULL;
	xp_err err;

	free(m->data_pos);
	free(m->site_pos);
	m->data_pos = m->site_pos = NULL;
	if (m->ndata > 0 &&
	    (m->data_pos = malloc(m->ndata * sizeof *m->data_pos)) == NULL)
		return XP_E_NOMEM;
	if (m->nsites > 0 &&
	    (m->site_pos = malloc(m->nsites * sizeof *m->site_pos)) == NULL)
		return XP_E_NOMEM;
	err = index_map(m->ndata, m->data_pos, m->data, sizeof *m->data,
	                MP_AT_DATA, "profiling data", f);
	if (err != XP_E_OK)
		return err;
	err = index_map(m->nsites, m->site_pos, m->sites, sizeof *m->sites,
	                MP_AT_SITE, "call site", f);
	if (err != XP_E_OK)
		return err;

	for (size_t i = 0; i < m->nsites; i++) {
		const xp_mpatrol_site *s = &m->sites[i];
		unsigned long long ix = (unsigned long long)s->index;

		if (s->parent > m->nsites)
			return failf(f, MP_AT_SITE, i, MP_F_PARENT,
			             "call site %llu: parent index %llu out of "
			             "range 0..%zu", ix,
			             (unsigned long long)s->parent, m->nsites);
		if (s->symbol > m->nsyms)
			return failf(f, MP_AT_SITE, i, MP_F_SYMBOL,
			             "call site %llu: symbol index %llu out of "
			             "range 0..%zu", ix,
			             (unsigned long long)s->symbol, m->nsyms);
		if (s->name != 0 && s->name >= m->strtab_len)
			return failf(f, MP_AT_SITE, i, MP_F_NAME,
			             "call site %llu: name offset %llu past the "
			             "string table (%zu bytes)", ix,
			             (unsigned long long)s->name, m->strtab_len);
		if (s->name != 0 &&
		    memchr(m->strtab + s->name, '\0',
		           m->strtab_len - (size_t)s->name) == NULL)
			return failf(f, MP_AT_SITE, i, MP_F_NAME,
			             "call site %llu: the name at offset %llu "
			             "has no NUL before the end of the string "
			             "table", ix, (unsigned long long)s->name);
		if (s->data > m->ndata)
			return failf(f, MP_AT_SITE, i, MP_F_DATA,
			             "call site %llu: profiling data index %llu "
			             "out of range 0..%zu", ix,
			             (unsigned long long)s->data, m->ndata);
	}

	/* Cycles: walk up from each site; 1 marks the current walk, 2 the
	 * sites known to reach a root. */
	if (m->nsites > 0 && (state = calloc(m->nsites, 1)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < m->nsites; i++) {
		size_t j = i;

		while (state[j] == 0) {
			state[j] = 1;
			if (m->sites[j].parent == 0)
				break;
			j = m->site_pos[m->sites[j].parent - 1];
		}
		if (state[j] == 1 && m->sites[j].parent != 0) {
			/* j is on a cycle; name the one first in the file. */
			size_t first = j, k = j;
			do {
				k = m->site_pos[m->sites[k].parent - 1];
				if (k < first)
					first = k;
			} while (k != j);
			free(state);
			return failf(f, MP_AT_SITE, first, MP_F_PARENT,
			             "call site %llu: its parent links form a "
			             "cycle",
			             (unsigned long long)m->sites[first].index);
		}
		for (j = i; state[j] == 1; ) {
			state[j] = 2;
			if (m->sites[j].parent == 0)
				break;
			j = m->site_pos[m->sites[j].parent - 1];
		}
	}
	free(state);
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Reading the binary form                                             */
/* ------------------------------------------------------------------ */

/* An error found while trying one layout: its offset and text. */
typedef struct {
	uint64_t off;
	/* How far the reading went: where it stopped, or past the end of
	 * the file when it read the whole structure. */
	uint64_t reached;
	char msg[300];
} bin_fail;

typedef struct {
	const unsigned char *p;
	size_t len, pos;
	xp_mp_layout l;
	bin_fail *f;
} br;

static xp_err bfail(br *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static xp_err bfail(br *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	r->f->off = off;
	r->f->reached = r->pos;
	va_start(ap, fmt);
	vsnprintf(r->f->msg, sizeof r->f->msg, fmt, ap);
	va_end(ap);
	return XP_E_CORRUPT;
}

static xp_err need(br *r, size_t n, const char *what)
{
	if (n <= r->len - r->pos)
		return XP_E_OK;
	return bfail(r, r->pos, "truncated %s: %zu bytes needed, %zu left",
	             what, n, r->len - r->pos);
}

static uint64_t get(br *r, unsigned size)
{
	const unsigned char *q = r->p + r->pos;
	uint64_t v = 0;

	r->pos += size;
	for (unsigned i = 0; i < size; i++)
		v = v << 8 | q[r->l.big ? i : size - 1 - i];
	return v;
}

/*
 * Reads a count of records of recsize bytes each and checks that they fit
 * in what is left of the file, so that nothing is allocated from a count
 * the file cannot hold.
 */
static xp_err get_count(br *r, const char *what, const char *recs,
                        size_t recsize, size_t *n)
{
	uint64_t v, off = r->pos;
	xp_err err = need(r, r->l.isz, what);

	if (err != XP_E_OK)
		return err;
	v = get(r, r->l.isz);
	if (v > (r->len - r->pos) / recsize)
		return bfail(r, off, "%llu %s do not fit in the %zu bytes left",
		             (unsigned long long)v, recs, r->len - r->pos);
	*n = (size_t)v;
	return XP_E_OK;
}

static xp_err get_words(br *r, uint64_t *v, size_t n, unsigned size,
                        const char *what)
{
	xp_err err;

	if (n > (r->len - r->pos) / size)
		return bfail(r, r->pos, "truncated %s: %llu bytes needed, %zu "
		             "left", what, (unsigned long long)n * size,
		             r->len - r->pos);
	if ((err = need(r, n * size, what)) != XP_E_OK)
		return err;
	for (size_t i = 0; i < n; i++)
		v[i] = get(r, size);
	return XP_E_OK;
}

/* The magic for a message: printable bytes as they are. */
static void show_magic(char *buf, const unsigned char *p)
{
	char *q = buf;

	for (int i = 0; i < 4; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			*q++ = (char)p[i];
		else
			q += sprintf(q, "\\x%02x", p[i]);
	}
	*q = '\0';
}

/* Offset of a site's field in the file, from the site's offset. */
static uint64_t field_off(xp_mp_layout l, int field)
{
	switch (field) {
	case MP_F_PARENT: return l.isz;
	case MP_F_ADDR: return 2 * l.isz;
	case MP_F_SYMBOL: return 2 * l.isz + l.psz;
	case MP_F_NAME: return 3 * l.isz + l.psz;
	case MP_F_DATA: return 4 * l.isz + l.psz;
	default: return 0;
	}
}

/* The state of one reading: the cursor, the model it fills and the
 * offsets of the records, which place the complaints of xp_mp_check(). */
typedef struct {
	br r;
	xp_mpatrol *m;
	uint64_t *data_off, *site_off;
} lreader;

/* The magic, the endianness word (*passed_endian once it reads 1), the
 * version and the allocation bounds. */
static xp_err read_head(lreader *lr, int *passed_endian)
{
	br *r = &lr->r;
	unsigned isz = r->l.isz;
	uint64_t v, b3[3];
	char mg[20];
	xp_err err;

	if ((err = need(r, 4, "magic")) != XP_E_OK)
		return err;
	if (memcmp(r->p, magic, 4) != 0) {
		show_magic(mg, r->p);
		return bfail(r, 0, "magic is \"%s\", not \"MPTL\"", mg);
	}
	r->pos = 4;
	if ((err = need(r, isz, "endianness word")) != XP_E_OK)
		return err;
	if ((v = get(r, isz)) != 1)
		return bfail(r, 4, "endianness word is %llu, not 1",
		             (unsigned long long)v);
	*passed_endian = 1;
	if ((err = get_words(r, &lr->m->version, 1, isz, "version")) !=
	    XP_E_OK ||
	    (err = get_words(r, b3, 3, isz, "allocation bounds")) != XP_E_OK)
		return err;
	lr->m->sbound = b3[0];
	lr->m->mbound = b3[1];
	lr->m->lbound = b3[2];
	return XP_E_OK;
}

/* The bin count, then the allocation and the deallocation bins, each
 * followed by its total of the allocations larger than the bins. */
static xp_err read_bins(lreader *lr)
{
	br *r = &lr->r;
	xp_mpatrol *m = lr->m;
	unsigned isz = r->l.isz;
	uint64_t v, off = r->pos;
	xp_err err;

	if ((err = need(r, isz, "bin count")) != XP_E_OK)
		return err;
	v = get(r, isz);
	if (v > XP_MPATROL_MAX_BINS)
		return bfail(r, off, "%llu bins exceed the limit of %zu",
		             (unsigned long long)v, XP_MPATROL_MAX_BINS);
	if (v > (r->len - r->pos) / (2 * isz))
		return bfail(r, off, "%llu bins do not fit in the %zu bytes "
		             "left", (unsigned long long)v, r->len - r->pos);
	m->nbins = (size_t)v;
	if (m->nbins == 0)
		return XP_E_OK;
	m->acounts = malloc(m->nbins * sizeof *m->acounts);
	m->dcounts = malloc(m->nbins * sizeof *m->dcounts);
	if (m->acounts == NULL || m->dcounts == NULL)
		return XP_E_NOMEM;
	if ((err = get_words(r, m->acounts, m->nbins, isz,
	                     "allocation bins")) != XP_E_OK ||
	    (err = get_words(r, &m->atotals, 1, isz,
	                     "large allocation total")) != XP_E_OK ||
	    (err = get_words(r, m->dcounts, m->nbins, isz,
	                     "deallocation bins")) != XP_E_OK ||
	    (err = get_words(r, &m->dtotals, 1, isz,
	                     "large deallocation total")) != XP_E_OK)
		return err;
	return XP_E_OK;
}

/* The count of profiling data structures and the structures, 17
 * integers each: the index and four groups of four counts. */
static xp_err read_data(lreader *lr)
{
	br *r = &lr->r;
	xp_mpatrol *m = lr->m;
	unsigned isz = r->l.isz;
	size_t n;
	xp_err err;

	if ((err = get_count(r, "profiling data count", "profiling data "
	                     "structures", 17 * (size_t)isz, &n)) != XP_E_OK)
		return err;
	if (n > 0 && ((m->data = calloc(n, sizeof *m->data)) == NULL ||
	              (lr->data_off = malloc(n * sizeof *lr->data_off)) ==
	              NULL))
		return XP_E_NOMEM;
	m->ndata = n;
	for (size_t i = 0; i < n; i++) {
		xp_mpatrol_data *dt = &m->data[i];
		uint64_t w[17];

		lr->data_off[i] = r->pos;
		if ((err = get_words(r, w, 17, isz, "profiling data")) !=
		    XP_E_OK)
			return err;
		dt->index = w[0];
		memcpy(dt->acount, w + 1, sizeof dt->acount);
		memcpy(dt->atotal, w + 5, sizeof dt->atotal);
		memcpy(dt->dcount, w + 9, sizeof dt->dcount);
		memcpy(dt->dtotal, w + 13, sizeof dt->dtotal);
	}
	return XP_E_OK;
}

/* The count of call sites and the sites: five integers and an address. */
static xp_err read_sites(lreader *lr)
{
	br *r = &lr->r;
	xp_mpatrol *m = lr->m;
	unsigned isz = r->l.isz, psz = r->l.psz;
	size_t n;
	xp_err err;

	if ((err = get_count(r, "call site count", "call sites",
	                     5 * (size_t)isz + psz, &n)) != XP_E_OK)
		return err;
	if (n > 0 && ((m->sites = calloc(n, sizeof *m->sites)) == NULL ||
	              (lr->site_off = malloc(n * sizeof *lr->site_off)) ==
	              NULL))
		return XP_E_NOMEM;
	m->nsites = n;
	for (size_t i = 0; i < n; i++) {
		xp_mpatrol_site *s = &m->sites[i];

		lr->site_off[i] = r->pos;
		if ((err = need(r, 5 * (size_t)isz + psz, "call site")) !=
		    XP_E_OK)
			return err;
		s->index = get(r, isz);
		s->parent = get(r, isz);
		s->addr = get(r, psz);
		s->symbol = get(r, isz);
		s->name = get(r, isz);
		s->data = get(r, isz);
	}
	return XP_E_OK;
}

/* The count of symbol addresses and the addresses. */
static xp_err read_syms(lreader *lr)
{
	br *r = &lr->r;
	xp_mpatrol *m = lr->m;
	size_t n;
	xp_err err;

	if ((err = get_count(r, "symbol address count", "symbol addresses",
	                     r->l.psz, &n)) != XP_E_OK)
		return err;
	if (n > 0 && (m->syms = malloc(n * sizeof *m->syms)) == NULL)
		return XP_E_NOMEM;
	m->nsyms = n;
	return get_words(r, m->syms, n, r->l.psz, "symbol addresses");
}

/* The size of the string table and the table, copied as it is. */
static xp_err read_strtab(lreader *lr)
{
	br *r = &lr->r;
	xp_mpatrol *m = lr->m;
	size_t n;
	xp_err err;

	if ((err = get_count(r, "string table size", "string table bytes", 1,
	                     &n)) != XP_E_OK)
		return err;
	if (n > 0 && (m->strtab = malloc(n)) == NULL)
		return XP_E_NOMEM;
	m->strtab_len = n;
	if (n > 0)
		memcpy(m->strtab, r->p + r->pos, n);
	r->pos += n;
	return XP_E_OK;
}

/* The closing magic, which must end the file. */
static xp_err read_tail(lreader *lr)
{
	br *r = &lr->r;
	char mg[20];
	xp_err err;

	if ((err = need(r, 4, "closing magic")) != XP_E_OK)
		return err;
	if (memcmp(r->p + r->pos, magic, 4) != 0) {
		show_magic(mg, r->p + r->pos);
		return bfail(r, r->pos, "closing magic is \"%s\", not \"MPTL\"",
		             mg);
	}
	r->pos += 4;
	if (r->pos != r->len) {
		err = bfail(r, r->pos, "%zu bytes after the closing magic",
		            r->len - r->pos);
		r->f->reached = (uint64_t)r->len + 1;
		return err;
	}
	return XP_E_OK;
}

/* xp_mp_check() on the whole model, a complaint placed at the offset of
 * the record and field it names. */
static xp_err check_read(lreader *lr)
{
	br *r = &lr->r;
	xp_mp_fail mf;
	xp_err err = xp_mp_check(lr->m, &mf);

	if (err == XP_E_CORRUPT) {
		uint64_t off = 0;
		if (mf.at == MP_AT_DATA)
			off = lr->data_off[mf.rec];
		else if (mf.at == MP_AT_SITE)
			off = lr->site_off[mf.rec] + field_off(r->l, mf.field);
		bfail(r, off, "%s", mf.msg);
		r->f->reached = (uint64_t)r->len + 1;
	}
	return err;
}

/*
 * Reads the whole file with one layout.  XP_E_OK with *out, XP_E_NOMEM,
 * or XP_E_CORRUPT with *f; *passed_endian tells whether the endianness
 * word read 1.
 */
static xp_err read_layout(const unsigned char *buf, size_t len, xp_mp_layout l,
                          xp_mpatrol **out, bin_fail *f, int *passed_endian)
{
	xp_mpatrol *m = calloc(1, sizeof *m);
	lreader lr = { { buf, len, 0, l, f }, m, NULL, NULL };
	xp_err err;

	*out = NULL;
	*passed_endian = 0;
	if (m == NULL)
		return XP_E_NOMEM;
	m->int_size = l.isz;
	m->ptr_size = l.psz;
	m->big_endian = l.big;
	if ((err = read_head(&lr, passed_endian)) == XP_E_OK &&
	    (err = read_bins(&lr)) == XP_E_OK &&
	    (err = read_data(&lr)) == XP_E_OK &&
	    (err = read_sites(&lr)) == XP_E_OK &&
	    (err = read_syms(&lr)) == XP_E_OK &&
	    (err = read_strtab(&lr)) == XP_E_OK &&
	    (err = read_tail(&lr)) == XP_E_OK &&
	    (err = check_read(&lr)) == XP_E_OK)
		*out = m;
	else
		xp_mp_free(m);
	free(lr.site_off);
	free(lr.data_off);
	return err;
}

/* Every layout, in the order that breaks ties between diagnostics. */
static const xp_mp_layout layouts[8] = {
	{ 1, 4, 4 }, { 0, 4, 4 }, { 1, 8, 8 }, { 0, 8, 8 },
	{ 1, 4, 8 }, { 0, 4, 8 }, { 1, 8, 4 }, { 0, 8, 4 },
};

static xp_err xp_mp_read(const unsigned char *buf, size_t len, const char *name,
                      const xp_load_opts *o, void **out, xp_diags *d)
{
	xp_mpatrol *got[8] = { NULL };
	bin_fail fails[8];
	int passed[8], nok = 0, best = -1;
	char ln[16], list[200] = "";
	xp_mp_layout forced;
	xp_err err;

	*out = NULL;
	if (o != NULL && o->layout != NULL) {
		xp_mpatrol *m;
		int pe;

		if (xp_mp_layout_parse(o->layout, &forced) != 0)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "unknown layout \"%s\": expected be32, "
			                    "le32, be64 or le64, optionally followed "
			                    "by p32 or p64", o->layout);
		err = read_layout(buf, len, forced, &m, &fails[0], &pe);
		if (err == XP_E_CORRUPT)
			return xp_diag_bin(d, err, name, fails[0].off,
			                   "%s (layout %s)", fails[0].msg,
			                   xp_mp_layout_str(forced, ln));
		if (err != XP_E_OK)
			return err;
		*out = m;
		return XP_E_OK;
	}

	for (int i = 0; i < 8; i++) {
		err = read_layout(buf, len, layouts[i], &got[i], &fails[i],
		                  &passed[i]);
		if (err == XP_E_NOMEM) {
			for (int j = 0; j < i; j++)
				xp_mp_free(got[j]);
			return err;
		}
	}
	/* A file with no pointer in it reads the same whatever their size:
	 * such a reading counts once, with pointers as wide as integers. */
	for (int i = 0; i < 8; i++) {
		if (got[i] != NULL && layouts[i].psz != layouts[i].isz &&
		    got[i]->nsites == 0 && got[i]->nsyms == 0) {
			xp_mp_free(got[i]);
			got[i] = NULL;
		}
	}
	for (int i = 0; i < 8; i++) {
		if (got[i] == NULL)
			continue;
		if (nok++ == 0)
			best = i;
		size_t l = strlen(list);
		snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "",
		         xp_mp_layout_str(layouts[i], ln));
	}
	if (nok == 1) {
		*out = got[best];
		return XP_E_OK;
	}
	if (nok > 1) {
		for (int i = 0; i < 8; i++)
			xp_mp_free(got[i]);
		return xp_diag_file(d, XP_E_FORMAT, name,
		                    "ambiguous layout: the file reads as each of "
		                    "%s; choose one with -L", list);
	}
	/* Nothing reads it: report the reading that went furthest. */
	for (int i = 0; i < 8; i++)
		if (passed[i] &&
		    (best < 0 || fails[i].reached > fails[best].reached))
			best = i;
	if (best < 0) {
		if (len < 8)
			return xp_diag_bin(d, XP_E_CORRUPT, name, 4,
			                   "truncated endianness word: 4 bytes "
			                   "needed, %zu left", len < 4 ? 0 : len - 4);
		return xp_diag_bin(d, XP_E_CORRUPT, name, 4,
		                   "the endianness word is not 1 as a 4- or "
		                   "8-byte integer of either byte order");
	}
	return xp_diag_bin(d, XP_E_CORRUPT, name, fails[best].off,
	                   "%s (layout %s)", fails[best].msg,
	                   xp_mp_layout_str(layouts[best], ln));
}

/* ------------------------------------------------------------------ */
/* Writing the binary form                                             */
/* ------------------------------------------------------------------ */

static xp_err xp_mp_write(const void *mv, xp_wbuf *w)
{
	const xp_mpatrol *m = mv;
	unsigned isz = m->int_size, psz = m->ptr_size;
	int big = m->big_endian;

	xp_wbuf_write(w, magic, 4);
	xp_wbuf_word(w, 1, isz, big);
	xp_wbuf_word(w, m->version, isz, big);
	xp_wbuf_word(w, m->sbound, isz, big);
	xp_wbuf_word(w, m->mbound, isz, big);
	xp_wbuf_word(w, m->lbound, isz, big);
	xp_wbuf_word(w, m->nbins, isz, big);
	if (m->nbins > 0) {
		for (size_t i = 0; i < m->nbins; i++)
			xp_wbuf_word(w, m->acounts[i], isz, big);
		xp_wbuf_word(w, m->atotals, isz, big);
		for (size_t i = 0; i < m->nbins; i++)
			xp_wbuf_word(w, m->dcounts[i], isz, big);
		xp_wbuf_word(w, m->dtotals, isz, big);
	}
	xp_wbuf_word(w, m->ndata, isz, big);
	for (size_t i = 0; i < m->ndata; i++) {
		const xp_mpatrol_data *dt = &m->data[i];
		xp_wbuf_word(w, dt->index, isz, big);
		for (int k = 0; k < 4; k++)
			xp_wbuf_word(w, dt->acount[k], isz, big);
		for (int k = 0; k < 4; k++)
			xp_wbuf_word(w, dt->atotal[k], isz, big);
		for (int k = 0; k < 4; k++)
			xp_wbuf_word(w, dt->dcount[k], isz, big);
		for (int k = 0; k < 4; k++)
			xp_wbuf_word(w, dt->dtotal[k], isz, big);
	}
	xp_wbuf_word(w, m->nsites, isz, big);
	for (size_t i = 0; i < m->nsites; i++) {
		const xp_mpatrol_site *s = &m->sites[i];
		xp_wbuf_word(w, s->index, isz, big);
		xp_wbuf_word(w, s->parent, isz, big);
		xp_wbuf_word(w, s->addr, psz, big);
		xp_wbuf_word(w, s->symbol, isz, big);
		xp_wbuf_word(w, s->name, isz, big);
		xp_wbuf_word(w, s->data, isz, big);
	}
	xp_wbuf_word(w, m->nsyms, isz, big);
	for (size_t i = 0; i < m->nsyms; i++)
		xp_wbuf_word(w, m->syms[i], psz, big);
	xp_wbuf_word(w, m->strtab_len, isz, big);
	if (m->strtab_len > 0)
		xp_wbuf_write(w, m->strtab, m->strtab_len);
	xp_wbuf_write(w, magic, 4);
	return w->err;
}

/* ------------------------------------------------------------------ */
/* The module                                                          */
/* ------------------------------------------------------------------ */

static int xp_mp_detect(const unsigned char *head, size_t len)
{
	return len >= 4 && memcmp(head, magic, 4) == 0;
}

/* Allocations and deallocations, from the allocation bins. */
static void xp_mp_totals(const void *model, xp_prof_totals *t)
{
	const xp_mpatrol *m = model;
	uint64_t a = 0, f = 0;

	for (size_t i = 0; i < m->nbins; i++) {
		a = xp_sat_add(a, m->acounts[i]);
		f = xp_sat_add(f, m->dcounts[i]);
	}
	xp_prof_total(t, "allocations", a);
	xp_prof_total(t, "deallocations", f);
}

static void xp_mp_free_model(void *m)
{
	xp_mp_free(m);
}

const xp_module xp_module_mpatrol = {
	XP_MODULE_NAMES("mpatrol", MPATROL, "mpatrol.out", "mpatrol profile", "an"),
	XP_MODULE_ENTRIES(xp_mp),
	.report_takes = XP_REPORT_LINES | XP_REPORT_CALL_GRAPH |
	                XP_REPORT_COUNTS | XP_REPORT_STACK_DEPTH,
	.report_of = "mprof's report of an mpatrol profile",
};
