/*
 * gcov/module.c - the GCC coverage module: recognising, reading and
 * writing the notes (.gcno) and data (.gcda) files of GCC (gcov(5)).
 *
 * The format (GCC's gcc/gcov-io.h): words of 32 bits in the byte order
 * of the machine that wrote the file, which the magic settles ("gcno"
 * or "gcda" read as a word); 64-bit counters as two words, the low one
 * first.  A header (magic, version, stamp; from GCC 12 a checksum; in
 * notes then the working directory as a string and a flag saying
 * whether blocks record unexecuted code), then records, each a tag, a
 * length and the record's fields, until a zero tag or the end of the
 * file.  How lengths and strings are counted changed with GCC 12: the
 * release's row of layout.c says which way a file is read.
 *
 * Notes hold per function a FUNCTION record (ident, line-number and CFG
 * checksums, name, whether artificial, source file, start and end line
 * and column), its number of blocks (BLOCKS), one ARCS record per block
 * with arcs (destination and flags) and LINES records giving the source
 * lines of blocks.  Data hold the object summary (runs, sum of each
 * run's largest counter) and per function a FUNCTION record (ident and
 * checksums) and one COUNTERS record per kind of counter the object
 * file uses; a COUNTERS record whose length is negative stands for that
 * many counters that are all zero.
 */
#include <stdio.h>

#include "gcov/gcov.h"

/* ------------------------------------------------------------------ */
/* The model                                                           */
/* ------------------------------------------------------------------ */

/* The model with the strings it owns, which its public part points
 * into. */
typedef struct {
	xp_gcov g;
	char **strs;
	size_t n_strs, cap_strs;
	size_t cap_recs, cap_fns, cap_arcs, cap_items, cap_values, cap_raw;
} gcov_full;

xp_gcov *xp_gcov_new(xp_gcov_kind kind, int big, uint32_t version)
{
	gcov_full *f = calloc(1, sizeof *f);
	unsigned mj, mn;

	if (f == NULL)
		return NULL;
	f->g.kind = kind;
	f->g.big = big;
	f->g.version = version;
	xp_gcov_layout_of(version, &mj, &mn);
	f->g.major = mj;
	f->g.end = 1;
	return &f->g;
}

void xp_gcov_free(xp_gcov *g)
{
	gcov_full *f = (gcov_full *)g;

	if (g == NULL)
		return;
	for (size_t i = 0; i < f->n_strs; i++)
		free(f->strs[i]);
	XP_FREE(f->strs, g->recs, g->fns, g->arcs, g->items, g->values,
	        g->raw, f);
}

const xp_gcov_layout *xp_gcov_layout_get(const xp_gcov *g)
{
	unsigned mj, mn;
	return xp_gcov_layout_of(g->version, &mj, &mn);
}

const char *xp_gcov_strdup(xp_gcov *g, const char *s, size_t n)
{
	gcov_full *f = (gcov_full *)g;
	char *c;

	if (xp_grow(&f->strs, &f->cap_strs, f->n_strs,
	                  sizeof *f->strs))
		return NULL;
	if ((c = malloc(n + 1)) == NULL)
		return NULL;
	memcpy(c, s, n);
	c[n] = 0;
	f->strs[f->n_strs++] = c;
	return c;
}

/* Appends the element at e to the array arr of cnt elements. */
#define XP_GCOV_PUSH(g, arr, cnt, capf, e)                                \
	(xp_grow(&(g)->arr, &((gcov_full *)(g))->capf,    \
	               (g)->cnt, sizeof *(g)->arr) ? XP_E_NOMEM            \
	 : ((g)->arr[(g)->cnt++] = *(e), XP_E_OK))

xp_err xp_gcov_add_rec(xp_gcov *g, const xp_gcov_rec *r)
{
	return XP_GCOV_PUSH(g, recs, n_recs, cap_recs, r);
}

xp_err xp_gcov_add_fn(xp_gcov *g, const xp_gcov_fn *fn, size_t *out)
{
	*out = g->n_fns;
	return XP_GCOV_PUSH(g, fns, n_fns, cap_fns, fn);
}

xp_err xp_gcov_add_arc(xp_gcov *g, const xp_gcov_arc *a)
{
	return XP_GCOV_PUSH(g, arcs, n_arcs, cap_arcs, a);
}

xp_err xp_gcov_add_item(xp_gcov *g, const xp_gcov_item *it)
{
	return XP_GCOV_PUSH(g, items, n_items, cap_items, it);
}

xp_err xp_gcov_add_value(xp_gcov *g, uint64_t v)
{
	return XP_GCOV_PUSH(g, values, n_values, cap_values, &v);
}

xp_err xp_gcov_add_raw(xp_gcov *g, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (XP_GCOV_PUSH(g, raw, n_raw, cap_raw, &p[i]) != XP_E_OK)
			return XP_E_NOMEM;
	return XP_E_OK;
}

char *xp_gcov_sibling(const char *path, xp_gcov_kind want)
{
	size_t n = strlen(path);
	const char *have = want == XP_GCOV_NOTES ? ".gcda" : ".gcno";
	char *s;

	if (n < 5 || strcmp(path + n - 5, have) != 0)
		return NULL;
	if ((s = malloc(n + 1)) == NULL)
		return NULL;
	memcpy(s, path, n - 5);
	strcpy(s + n - 5, want == XP_GCOV_NOTES ? ".gcno" : ".gcda");
	return s;
}

/* ------------------------------------------------------------------ */
/* Recognition                                                         */
/* ------------------------------------------------------------------ */

/* The kind and byte order of a magic; -1 when it is none. */
static int magic_of(const unsigned char *p, int *big)
{
	static const char *const m[] = { "oncg", "adcg", "gcno", "gcda" };

	for (int i = 0; i < 4; i++)
		if (memcmp(p, m[i], 4) == 0) {
			*big = i >= 2;
			return i % 2 ? XP_GCOV_DATA : XP_GCOV_NOTES;
		}
	return -1;
}

static int xp_gcov_detect(const unsigned char *head, size_t len)
{
	int big;

	return len >= 4 && magic_of(head, &big) >= 0;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
	xp_rd r;
	const xp_gcov_layout *lay;
	xp_gcov *g;
	size_t end;            /* where the current record ends */
} rdr;

/* A word of the record being read, or of the header (end 0: the file). */
static xp_err word(rdr *s, const char *what, uint32_t *v)
{
	size_t lim = s->end ? s->end : s->r.len;

	if (lim - s->r.pos < 4) {
		if (s->end)
			return xp_rd_error(&s->r, XP_E_CORRUPT, s->r.pos,
			                   "record too short for its %s", what);
		return xp_rd_need(&s->r, 4, what);
	}
	*v = xp_rd_u32(&s->r);
	return XP_E_OK;
}

/* A string: NULL when the file gives it as absent. */
static xp_err string(rdr *s, const char *what, const char **out)
{
	size_t at = s->r.pos, lim = s->end ? s->end : s->r.len, n, sl;
	const unsigned char *p;
	uint32_t len;
	xp_err err;

	*out = NULL;
	if ((err = word(s, what, &len)) != XP_E_OK || len == 0)
		return err;
	n = s->lay->bytes ? len : (size_t)len * 4;  /* size_t has 64 bits */
	if (n > lim - s->r.pos)
		return xp_rd_error(&s->r, XP_E_CORRUPT, at, "%s of %zu bytes "
		                   "runs past the %s", what, n,
		                   s->end ? "record" : "file");
	p = xp_rd_bytes(&s->r, n);
	sl = strnlen((const char *)p, n);
	/* What GCC writes: the NUL, then padding to a word (GCC 11) or
	 * nothing (GCC 12). */
	if (sl == n || (s->lay->bytes ? sl + 1 != n : (sl + 4) / 4 * 4 != n))
		return xp_rd_error(&s->r, XP_E_CORRUPT, at, "%s is not a "
		                   "NUL-terminated string as GCC writes it",
		                   what);
	for (size_t i = sl; i < n; i++)
		if (p[i] != 0)
			return xp_rd_error(&s->r, XP_E_CORRUPT, at + 4 + i,
			                   "%s has bytes after its NUL", what);
	if ((*out = xp_gcov_strdup(s->g, (const char *)p, sl)) == NULL)
		return XP_E_NOMEM;
	return XP_E_OK;
}

static xp_err read_function(rdr *s, size_t size, xp_gcov_rec *rc)
{
	xp_gcov_fn fn;
	xp_err err;

	memset(&fn, 0, sizeof fn);
	if (size == 0 && s->g->kind == XP_GCOV_DATA) {
		fn.placeholder = 1;
	} else if ((err = word(s, "ident", &fn.ident)) ||
	           (err = word(s, "line-number checksum",
	                       &fn.lineno_checksum)) ||
	           (err = word(s, "CFG checksum", &fn.cfg_checksum))) {
		return err;
	}
	if (s->g->kind == XP_GCOV_NOTES &&
	    ((err = string(s, "function name", &fn.name)) ||
	     (err = word(s, "artificial flag", &fn.artificial)) ||
	     (err = string(s, "source file", &fn.source)) ||
	     (err = word(s, "start line", &fn.start_line)) ||
	     (err = word(s, "start column", &fn.start_column)) ||
	     (err = word(s, "end line", &fn.end_line)) ||
	     (s->lay->end_column &&
	      (err = word(s, "end column", &fn.end_column)))))
		return err;
	return xp_gcov_add_fn(s->g, &fn, &rc->index);
}

static xp_err read_arcs(rdr *s, xp_gcov_rec *rc)
{
	xp_err err;

	if ((err = word(s, "block number", &rc->a)))
		return err;
	rc->index = s->g->n_arcs;
	while (s->r.pos < s->end) {
		xp_gcov_arc a;
		if ((err = word(s, "arc destination", &a.dest)) ||
		    (err = word(s, "arc flags", &a.flags)) ||
		    (err = xp_gcov_add_arc(s->g, &a)))
			return err;
		rc->n++;
	}
	return XP_E_OK;
}

static xp_err read_lines(rdr *s, xp_gcov_rec *rc)
{
	xp_err err;

	if ((err = word(s, "block number", &rc->a)))
		return err;
	rc->index = s->g->n_items;
	while (s->r.pos < s->end) {
		xp_gcov_item it = { 0, NULL };
		if ((err = word(s, "line number", &it.line)) ||
		    (it.line == 0 && (err = string(s, "file name", &it.file))) ||
		    (err = xp_gcov_add_item(s->g, &it)))
			return err;
		rc->n++;
	}
	return XP_E_OK;
}

/* The size of a COUNTERS record's fields, or (length negative) the
 * number of counters that are all zero. */
static xp_err counters_size(rdr *s, uint32_t length, size_t *size,
                            xp_gcov_rec *rc)
{
	size_t unit = s->lay->bytes ? 8 : 2;

	if (length & 0x80000000u) {
		uint32_t neg = (uint32_t)0 - length;
		if (neg % unit != 0)
			return xp_rd_error(&s->r, XP_E_CORRUPT, s->r.pos - 4,
			                   "negative length -%u is not a whole "
			                   "number of counters", neg);
		rc->zero = 1;
		rc->n = neg / unit;
		*size = 0;
	} else if (*size % 8 != 0) {
		return xp_rd_error(&s->r, XP_E_CORRUPT, s->r.pos - 4,
		                   "length of %zu bytes is not a whole number "
		                   "of counters", *size);
	}
	return XP_E_OK;
}

static xp_err read_values(rdr *s, xp_gcov_rec *rc)
{
	xp_err err;

	rc->index = s->g->n_values;
	while (s->r.pos < s->end) {
		uint32_t lo, hi;
		if ((err = word(s, "counter", &lo)) ||
		    (err = word(s, "counter", &hi)) ||
		    (err = xp_gcov_add_value(s->g, (uint64_t)hi << 32 | lo)))
			return err;
		rc->n++;
	}
	return XP_E_OK;
}

xp_gcov_rectype xp_gcov_rectype_of(const xp_gcov_layout *lay, xp_gcov_kind k,
                               uint32_t tag)
{
	if (tag == XP_GCOV_TAG_FUNCTION)
		return XP_GCOV_FUNCTION;
	if (k == XP_GCOV_NOTES)
		return tag == XP_GCOV_TAG_BLOCKS ? XP_GCOV_BLOCKS
		     : tag == XP_GCOV_TAG_ARCS ? XP_GCOV_ARCS
		     : tag == XP_GCOV_TAG_LINES ? XP_GCOV_LINES
		     : XP_GCOV_UNKNOWN;
	if (tag == XP_GCOV_TAG_SUMMARY)
		return XP_GCOV_SUMMARY;
	/* Exactly a counter tag: GCC also reads the tag with the bit
	 * below K's set as K's counters, but never writes it, and it
	 * would be written back as K's tag. */
	if (tag >= XP_GCOV_TAG_COUNTER_BASE &&
	    ((tag - XP_GCOV_TAG_COUNTER_BASE) & 0x1ffffu) == 0 &&
	    (tag - XP_GCOV_TAG_COUNTER_BASE) >> 17 < lay->n_counters)
		return XP_GCOV_COUNTERS;
	return XP_GCOV_UNKNOWN;
}

/* One record at the reader's position (its tag and length read). */
static xp_err read_record(rdr *s, size_t at, uint32_t tag, uint32_t length)
{
	xp_gcov_rec rc;
	size_t size;
	xp_err err = XP_E_OK;

	memset(&rc, 0, sizeof rc);
	rc.tag = tag;
	rc.type = xp_gcov_rectype_of(s->lay, s->g->kind, tag);
	size = s->lay->bytes ? length : (size_t)length * 4;
	if (rc.type == XP_GCOV_COUNTERS &&
	    (err = counters_size(s, length, &size, &rc)) != XP_E_OK)
		return err;
	if (size > xp_rd_left(&s->r))
		return xp_rd_error(&s->r, XP_E_CORRUPT, at + 4, "record of "
		                   "%zu bytes runs past the end of the file "
		                   "(%zu bytes left)", size, xp_rd_left(&s->r));
	s->end = s->r.pos + size;
	switch (rc.type) {
	case XP_GCOV_FUNCTION:
		err = read_function(s, size, &rc);
		break;
	case XP_GCOV_BLOCKS:
		err = word(s, "number of blocks", &rc.a);
		break;
	case XP_GCOV_ARCS:
		err = read_arcs(s, &rc);
		break;
	case XP_GCOV_LINES:
		err = read_lines(s, &rc);
		break;
	case XP_GCOV_SUMMARY: {
		uint32_t sm = 0;
		err = word(s, "runs", &rc.a);
		if (err == XP_E_OK)
			err = word(s, "sum_max", &sm);
		rc.b = sm;
		break;
	}
	case XP_GCOV_COUNTERS:
		rc.a = (tag - XP_GCOV_TAG_COUNTER_BASE) >> 17;
		rc.index = s->g->n_values;
		if (!rc.zero)
			err = read_values(s, &rc);
		break;
	default:
		rc.index = s->g->n_raw;
		rc.n = size;
		err = xp_gcov_add_raw(s->g, xp_rd_bytes(&s->r, size), size);
		break;
	}
	if (err == XP_E_OK && s->r.pos != s->end)
		err = xp_rd_error(&s->r, XP_E_CORRUPT, at, "record 0x%08x has "
		                  "%zu bytes more than its fields", tag,
		                  s->end - s->r.pos);
	s->end = 0;
	return err != XP_E_OK ? err : xp_gcov_add_rec(s->g, &rc);
}

/* The header: the version settles the layout. */
static xp_err read_header(rdr *s, const unsigned char *buf, const char *name,
                          xp_diags *d, xp_gcov **out)
{
	uint32_t version;
	unsigned mj, mn;
	int big = 0;
	xp_gcov_kind kind = (xp_gcov_kind)magic_of(buf, &big);
	xp_err err;

	s->r.big = big;
	xp_rd_bytes(&s->r, 4);
	if ((err = xp_rd_need(&s->r, 4, "version")) != XP_E_OK)
		return err;
	version = xp_rd_u32(&s->r);
	if ((s->lay = xp_gcov_layout_of(version, &mj, &mn)) == NULL) {
		char v[5];
		for (int i = 0; i < 4; i++) {
			unsigned c = version >> (24 - 8 * i) & 0xff;
			v[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
		}
		v[4] = 0;
		if (mj == 0)
			return xp_rd_error(&s->r, XP_E_VERSION, 4, "unknown "
			                   "version 0x%08x (\"%s\"); this "
			                   "program reads the files of %s",
			                   version, v, xp_gcov_releases());
		return xp_rd_error(&s->r, XP_E_VERSION, 4, "written by GCC "
		                   "%u.%u (version \"%s\"); this program "
		                   "reads the files of %s", mj, mn, v,
		                   xp_gcov_releases());
	}
	if ((s->g = *out = xp_gcov_new(kind, big, version)) == NULL)
		return XP_E_NOMEM;
	if ((err = word(s, "stamp", &s->g->stamp)) ||
	    (s->lay->checksum && (err = word(s, "checksum",
	                                     &s->g->checksum))))
		return err;
	if (kind == XP_GCOV_NOTES &&
	    ((err = string(s, "working directory", &s->g->cwd)) ||
	     (err = word(s, "unexecuted-blocks flag",
	                 &s->g->unexecuted_blocks))))
		return err;
	(void)name;
	(void)d;
	return XP_E_OK;
}

static xp_err xp_gcov_read(const unsigned char *buf, size_t len,
                           const char *name, const xp_load_opts *o,
                           void **out, xp_diags *d)
{
	rdr s;
	xp_gcov *g = NULL;
	xp_err err;

	*out = NULL;
	memset(&s, 0, sizeof s);
	xp_rd_init(&s.r, buf, len, 0, name, d);
	if (o != NULL && o->layout != NULL)
		return xp_diag_file(d, XP_E_INVAL, name, "GCC's coverage files "
		                    "say their layout; -L does not apply");
	if ((err = xp_rd_need(&s.r, 4, "magic")) != XP_E_OK)
		return err;
	if ((err = read_header(&s, buf, name, d, &g)) != XP_E_OK)
		goto fail;
	g->end = 0;
	while (xp_rd_left(&s.r) > 0) {
		size_t at = s.r.pos;
		uint32_t tag, length;
		if ((err = word(&s, "record tag", &tag)))
			goto fail;
		if (tag == 0) {
			g->end = 1;
			if (xp_rd_left(&s.r) > 0) {
				err = xp_rd_error(&s.r, XP_E_CORRUPT, s.r.pos,
				                  "%zu bytes after the end of the "
				                  "records", xp_rd_left(&s.r));
				goto fail;
			}
			break;
		}
		if ((err = word(&s, "record length", &length)) ||
		    (err = read_record(&s, at, tag, length)))
			goto fail;
	}
	if ((g->path = xp_gcov_strdup(g, name, strlen(name))) == NULL) {
		err = XP_E_NOMEM;
		goto fail;
	}
	*out = g;
	return XP_E_OK;
fail:
	xp_gcov_free(g);
	return err;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

static size_t str_size(const xp_gcov_layout *lay, const char *s)
{
	if (s == NULL)
		return 4;
	return 4 + (lay->bytes ? strlen(s) + 1 : (strlen(s) + 4) / 4 * 4);
}

static void put_str(xp_wbuf *w, const xp_gcov_layout *lay, int big,
                    const char *s)
{
	static const unsigned char zeros[4];
	size_t n, len;

	if (s == NULL) {
		xp_wbuf_word(w, 0, 4, big);
		return;
	}
	len = strlen(s);
	n = str_size(lay, s) - 4;
	xp_wbuf_word(w, lay->bytes ? n : n / 4, 4, big);
	xp_wbuf_write(w, s, len);
	xp_wbuf_write(w, zeros, n - len);
}

/* The bytes of a record's fields. */
static size_t rec_size(const xp_gcov *g, const xp_gcov_layout *lay,
                       const xp_gcov_rec *rc)
{
	size_t n = 0;

	switch (rc->type) {
	case XP_GCOV_FUNCTION: {
		const xp_gcov_fn *f = &g->fns[rc->index];
		if (f->placeholder)
			return 0;
		if (g->kind == XP_GCOV_DATA)
			return 12;
		return 12 + str_size(lay, f->name) + 4 +
		       str_size(lay, f->source) + (lay->end_column ? 16 : 12);
	}
	case XP_GCOV_BLOCKS:
		return 4;
	case XP_GCOV_ARCS:
		return 4 + 8 * rc->n;
	case XP_GCOV_LINES:
		for (size_t i = 0; i < rc->n; i++) {
			const xp_gcov_item *it = &g->items[rc->index + i];
			n += it->line ? 4 : 4 + str_size(lay, it->file);
		}
		return 4 + n;
	case XP_GCOV_SUMMARY:
		return 8;
	case XP_GCOV_COUNTERS:
		return rc->zero ? 0 : 8 * rc->n;
	default:
		return rc->n;
	}
}

static void put_record(xp_wbuf *w, const xp_gcov *g,
                       const xp_gcov_layout *lay, const xp_gcov_rec *rc)
{
	int big = g->big;
	size_t size = rec_size(g, lay, rc);
	uint32_t length = (uint32_t)(lay->bytes ? size : size / 4);

	if (rc->type == XP_GCOV_COUNTERS && rc->zero)
		length = (uint32_t)0 - (uint32_t)(rc->n * (lay->bytes ? 8 : 2));
	xp_wbuf_word(w, rc->tag, 4, big);
	xp_wbuf_word(w, length, 4, big);
	switch (rc->type) {
	case XP_GCOV_FUNCTION: {
		const xp_gcov_fn *f = &g->fns[rc->index];
		if (f->placeholder)
			break;
		xp_wbuf_word(w, f->ident, 4, big);
		xp_wbuf_word(w, f->lineno_checksum, 4, big);
		xp_wbuf_word(w, f->cfg_checksum, 4, big);
		if (g->kind == XP_GCOV_DATA)
			break;
		put_str(w, lay, big, f->name);
		xp_wbuf_word(w, f->artificial, 4, big);
		put_str(w, lay, big, f->source);
		xp_wbuf_word(w, f->start_line, 4, big);
		xp_wbuf_word(w, f->start_column, 4, big);
		xp_wbuf_word(w, f->end_line, 4, big);
		if (lay->end_column)
			xp_wbuf_word(w, f->end_column, 4, big);
		break;
	}
	case XP_GCOV_BLOCKS:
		xp_wbuf_word(w, rc->a, 4, big);
		break;
	case XP_GCOV_ARCS:
		xp_wbuf_word(w, rc->a, 4, big);
		for (size_t i = 0; i < rc->n; i++) {
			xp_wbuf_word(w, g->arcs[rc->index + i].dest, 4, big);
			xp_wbuf_word(w, g->arcs[rc->index + i].flags, 4, big);
		}
		break;
	case XP_GCOV_LINES:
		xp_wbuf_word(w, rc->a, 4, big);
		for (size_t i = 0; i < rc->n; i++) {
			const xp_gcov_item *it = &g->items[rc->index + i];
			xp_wbuf_word(w, it->line, 4, big);
			if (it->line == 0)
				put_str(w, lay, big, it->file);
		}
		break;
	case XP_GCOV_SUMMARY:
		xp_wbuf_word(w, rc->a, 4, big);
		xp_wbuf_word(w, (uint32_t)rc->b, 4, big);
		break;
	case XP_GCOV_COUNTERS:
		for (size_t i = 0; !rc->zero && i < rc->n; i++) {
			uint64_t v = g->values[rc->index + i];
			xp_wbuf_word(w, (uint32_t)v, 4, big);
			xp_wbuf_word(w, (uint32_t)(v >> 32), 4, big);
		}
		break;
	default:
		/* A record of no bytes may come before any other is kept. */
		if (rc->n > 0)
			xp_wbuf_write(w, g->raw + rc->index, rc->n);
		break;
	}
}

static xp_err xp_gcov_write(const void *m, xp_wbuf *w)
{
	const xp_gcov *g = m;
	const xp_gcov_layout *lay = xp_gcov_layout_get(g);
	int big = g->big;

	xp_wbuf_word(w, g->kind == XP_GCOV_NOTES ? XP_GCOV_MAGIC_NOTES
	                                         : XP_GCOV_MAGIC_DATA, 4, big);
	xp_wbuf_word(w, g->version, 4, big);
	xp_wbuf_word(w, g->stamp, 4, big);
	if (lay->checksum)
		xp_wbuf_word(w, g->checksum, 4, big);
	if (g->kind == XP_GCOV_NOTES) {
		put_str(w, lay, big, g->cwd);
		xp_wbuf_word(w, g->unexecuted_blocks, 4, big);
	}
	for (size_t i = 0; i < g->n_recs; i++)
		put_record(w, g, lay, &g->recs[i]);
	if (g->end)
		xp_wbuf_word(w, 0, 4, big);
	return w->err;
}

/* Functions; for a data file also the runs (of its summary) and the sum
 * of its arc counters. */
static void xp_gcov_totals(const void *model, xp_prof_totals *t)
{
	const xp_gcov *g = model;
	uint64_t runs = 0, arcs = 0;

	xp_prof_total(t, "functions", g->n_fns);
	if (g->kind != XP_GCOV_DATA)
		return;
	for (size_t i = 0; i < g->n_recs; i++) {
		const xp_gcov_rec *r = &g->recs[i];
		if (r->type == XP_GCOV_SUMMARY)
			runs = r->a;
		else if (r->type == XP_GCOV_COUNTERS &&
		         r->a == XP_GCOV_C_ARCS && !r->zero)
			for (size_t k = 0; k < r->n; k++)
				arcs = xp_sat_add(arcs, g->values[r->index + k]);
	}
	xp_prof_total(t, "runs", runs);
	xp_prof_total(t, "arc-counts", arcs);
}

/* No export: a coverage file holds no samples, and its counts have no
 * source lines without the conversion to feedback. */
static xp_err xp_gcov_export(const void *m, xp_export_kind k,
                             const xp_export_opts *o, const char *name,
                             xp_xs *x, xp_diags *d)
{
	(void)m;
	(void)k;
	(void)o;
	(void)x;
	return xp_diag_file(d, XP_E_INVAL, name, "a GCC coverage file has "
	                    "no export");
}

static void xp_gcov_free_model(void *m)
{
	xp_gcov_free(m);
}

const xp_module xp_module_gcov = {
	XP_MODULE_NAMES("gcov", GCOV, "a.gcda", "GCC coverage file", "a"),
	/* No report of gcov's own: xprof_show summarizes the conversion to
	 * feedback, as for every module without one. */
	.detect = xp_gcov_detect, .detect_text = xp_gcov_detect_text,
	.read = xp_gcov_read, .read_text = xp_gcov_read_text,
	.write = xp_gcov_write, .write_text = xp_gcov_write_text,
	.merge = xp_gcov_merge, .to_feedback = xp_gcov_to_feedback,
	.export = xp_gcov_export, .totals = xp_gcov_totals,
	.free = xp_gcov_free_model,
};
