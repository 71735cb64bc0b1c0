/*
 * feedback/text_write.c - writes the canonical feedback text of a profile
 * (xprof_text(5)): one record a line, one space between fields, no
 * indentation, sections in the order the profile keeps.  Reading this text
 * back gives the same profile, and writing that profile gives the same
 * bytes.
 *
 * Lines are assembled straight into the output buffer through a cursor
 * held in local variables (a store through a char pointer may alias any
 * field the compiler would otherwise reload), committed to the writer
 * only when the room left is too small for the next line; a line longer
 * than the writer's reserve (only possible with very long names) goes
 * through a scratch buffer.
 */
#include <stdlib.h>

#include "base/internal.h"
#include "feedback/text_records.h"

typedef struct {
	const xp_fb *fb;
	xp_wbuf w;
	xp_buf big;       /* scratch for over-long lines */
	int err_nomem;
} tw;

/* Where the next line goes, up to end; p is NULL after an error. */
typedef struct {
	char *p, *end;
} cur;

/* The writer's free room as a cursor. */
static cur cur_at(tw *t)
{
	xp_wbuf *w = &t->w;
	unsigned char *p = xp_wbuf_reserve(w, 0);
	if (!p)
		return (cur){0};
	return (cur){(char *)p, (char *)w->buf + w->cap};
}

/* Hands the lines before c.p to the writer. */
static void cur_commit(tw *t, cur c)
{
	xp_wbuf *w = &t->w;
	if (c.p)
		xp_wbuf_commit(w, (size_t)((unsigned char *)c.p -
		                           (w->buf + w->len)));
}

/* A cursor with room for need <= XP_WBUF_MAXRES bytes, after c. */
static cur room(tw *t, cur c, size_t need)
{
	cur_commit(t, c);
	if (!xp_wbuf_reserve(&t->w, need))
		return (cur){0};
	return cur_at(t);
}

/* Room for an over-long line of need bytes, or NULL. */
static char *scratch(tw *t, size_t need)
{
	t->big.len = 0;
	char *p = (char *)xp_buf_grow(&t->big, need);
	if (!p)
		t->err_nomem = 1;
	return p;
}

/* Writes the line start..end made in the scratch buffer after c. */
static cur put_long(tw *t, cur c, const char *start, const char *end)
{
	cur_commit(t, c);
	xp_wbuf_write(&t->w, start, (size_t)(end - start));
	return cur_at(t);
}

static size_t slen(const tw *t, xp_str s) { return xp_fb_strlen(t->fb, s); }

/*
 * Copies the n bytes of s to p.  Names of tens of bytes are most of the
 * strings of a text, too short for memcpy's call to pay: they are moved
 * in fixed-size pieces, the last overlapping the one before, which the
 * compiler turns into moves of registers.  Nothing is read or written
 * outside the two ranges.
 */
static inline char *put_s(char *p, const char *s, size_t n)
{
	if (n >= 16) {
		for (size_t i = 0; i + 16 < n; i += 16)
			memcpy(p + i, s + i, 16);
		memcpy(p + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		memcpy(p, s, 8);
		memcpy(p + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(p, s, 4);
		memcpy(p + n - 4, s + n - 4, 4);
	} else {
		for (size_t i = 0; i < n; i++)
			p[i] = s[i];
	}
	return p + n;
}

#define PUT_LIT(p, lit) put_s((p), (lit), sizeof(lit) - 1)

static char *put_str(const tw *t, char *p, xp_str s)
{
	return put_s(p, xp_fb_str(t->fb, s), slen(t, s));
}

static char *put_u(char *p, uint64_t v) { return p + xp_fmt_u64(p, v); }

static char *put_sp_u(char *p, uint64_t v)
{
	*p++ = ' ';
	return p + xp_fmt_u64(p, v);
}

static char *put_hex(char *p, uint64_t v)
{
	p = PUT_LIT(p, "0x");
	return p + xp_fmt_hex64(p, v);
}

/*
 * One record line's values, in the field numbers of text_records.h: the
 * numbers v[], the column of a line:col (nv), the kind of a stat or VP
 * line, the name (s1) or pair (s1:s2), and a VP line's value.
 */
typedef struct {
	uint64_t v[XP_TX_NF];
	int nv, kind;
	const char *s1, *s2;
	size_t l1, l2;
	const xp_vpval *val;
} wline;

/* A VP value, after its blank. */
static char *put_vpval(const tw *t, char *p, int type, const xp_vpval *v)
{
	switch (type) {
	case XP_VP_INT: p += xp_fmt_i64(p, v->v.i); break;
	case XP_VP_LLONG: p += xp_fmt_i64(p, v->v.ll); break;
	case XP_VP_FLOAT: p += xp_fmt_float(p, v->v.f); break;
	case XP_VP_DOUBLE: p += xp_fmt_double(p, v->v.d); break;
	case XP_VP_PROC:
		p = put_str(t, p, v->v.proc.name);
		*p++ = ':';
		p = put_str(t, p, v->v.proc.objfile);
		break;
	}
	return p;
}

/* The printing steps of the record items (text_records.h). */
#define TF_LIT(R, lit) p = PUT_LIT(p, lit);
#define TF_KIND(R, fn)                                                    \
	{                                                                 \
		const char *kw_ = fn(w->kind);                            \
		p = put_s(p, kw_, strlen(kw_));                           \
	}
#define TF_SP(R) *p++ = ' ';
#define TF_COLON(R) *p++ = ':';
#define TF_NUM(R, i, id, what) p = put_u(p, w->v[i]);
#define TF_ID TF_NUM
#define TF_HEX(R, i, id, what) p = put_hex(p, w->v[i]);
#define TF_BREF(R, i, id, what)                                           \
	*p++ = 'B';                                                       \
	p = put_u(p, w->v[i]);
#define TF_LINECOL(R, i, id, what, id2, what2)                            \
	p = put_u(p, w->v[i]);                                            \
	if (w->nv) {                                                      \
		*p++ = ':';                                               \
		p = put_u(p, w->v[(i) + 1]);                              \
	}
#define TF_NAME(R, what) p = put_s(p, w->s1, w->l1);
#define TF_PAIR(R, what)                                                  \
	p = put_s(p, w->s1, w->l1);                                       \
	*p++ = ':';                                                       \
	p = put_s(p, w->s2, w->l2);
#define TF_OPTNAME(R, what)                                               \
	if (w->s1) {                                                      \
		*p++ = ' ';                                               \
		p = put_s(p, w->s1, w->l1);                               \
	}
#define TF_VPVAL(R, what)                                                 \
	if (w->val && w->val->has_value) {                                \
		*p++ = ' ';                                               \
		p = put_vpval(t, p, w->kind, w->val);                     \
	}

/* put_<kind>: prints a <kind> line at p; returns the byte after its LF.
 * Inlined into every loop that prints lines, where the line's fields
 * stay in registers. */
#define PRINTER(R)                                                        \
	static inline __attribute__((always_inline)) char *               \
	put_##R(const tw *t, char *p, const wline *w)                     \
	{                                                                 \
		(void)t;                                                  \
		XP_TX_REC_##R(R)                                          \
		*p++ = '\n';                                              \
		return p;                                                 \
	}
XP_TX_RECORDS(PRINTER)
#undef PRINTER
#include "feedback/text_records_undef.h"

/*
 * Prints one line of at most need bytes with put_<kind> at the cursor c
 * of the function it is used in, which returns c (p NULL) after an
 * error.  The room asked for is 8 bytes more: a number may write up to
 * its eighth byte (xp_fmt_u64).
 */
#define PUT_LINE(t, R, w, need)                                           \
	do {                                                              \
		size_t n_ = (need) + 8;                                   \
		if (n_ > (size_t)(c.end - c.p)) {                         \
			if (n_ > XP_WBUF_MAXRES) {                        \
				char *s_ = scratch((t), n_);              \
				c = s_ ? put_long((t), c, s_,             \
				                  put_##R((t), s_, (w)))  \
				       : (cur){0};                        \
				if (!c.p)                                 \
					return c;                         \
				break;                                    \
			}                                                 \
			c = room((t), c, n_);                             \
			if (!c.p)                                         \
				return c;                                 \
		}                                                         \
		c.p = put_##R((t), c.p, (w));                             \
	} while (0)

/* The name field of a line: string s. */
static void wl_str(const tw *t, wline *w, xp_str s)
{
	w->s1 = xp_fb_str(t->fb, s);
	w->l1 = slen(t, s);
}

/* The pair field of a line: strings a:b. */
static void wl_pair(const tw *t, wline *w, xp_str a, xp_str b)
{
	wl_str(t, w, a);
	w->s2 = xp_fb_str(t->fb, b);
	w->l2 = slen(t, b);
}

/*
 * Records first, ..., first + n - 1 of table t: the first one (NULL when
 * n is 0), the others following it; a loop walks them with a pointer
 * and a count of its own, which no store of a line can change.
 */
static const unsigned char *recs(const xp_fb *fb, xp_table t, uint32_t first,
                                 uint32_t n)
{
	return n != 0 ? xp_rec(fb, t, first) : NULL;
}

static cur write_stats(tw *t, cur c, uint32_t first, uint32_t n)
{
	wline w = {0};
	const unsigned char *r = recs(t->fb, XP_T_STATS, first, n);
	for (; n > 0; n--, r += XP_RS_STAT) {
		w.kind = (int)xp_get_le32(r + XP_ST_KIND);
		w.v[XP_TXF_stat_value] = xp_get_le64(r + XP_ST_VALUE);
		PUT_LINE(t, stat, &w, 32);
	}
	return c;
}

static cur write_vpval(tw *t, cur c, const xp_vp *vp, uint32_t i)
{
	xp_vpval v;
	xp_fb_vpval(t->fb, i, vp->type, &v);
	size_t need = 96;
	if (vp->type == XP_VP_PROC && v.has_value)
		need += slen(t, v.v.proc.name) + slen(t, v.v.proc.objfile);
	wline w = {.kind = vp->type, .val = &v};
	w.v[XP_TXF_vp_expr_id] = vp->expr_id;
	w.v[XP_TXF_vp_count] = v.count;
	PUT_LINE(t, vp, &w, need);
	return c;
}

static cur write_proc_head(tw *t, cur c, const xp_proc *pr)
{
	wline w = {0};
	wl_str(t, &w, pr->name);
	w.v[XP_TXF_proc_signature] = pr->signature;
	w.v[XP_TXF_proc_n_counters] = pr->n_counters;
	w.v[XP_TXF_proc_n_vp_sites] = pr->n_vp_sites;
	w.v[XP_TXF_proc_n_vp_records] = pr->n_vps;
	w.v[XP_TXF_proc_proc_id] = pr->proc_id;
	w.v[XP_TXF_proc_n_blocks] = pr->n_blocks;
	w.v[XP_TXF_proc_n_edges] = pr->n_edges;
	w.v[XP_TXF_proc_n_srcmap_ops] = pr->n_srcmap_ops;
	PUT_LINE(t, proc, &w, 256 + w.l1);
	return c;
}

/* The block and edge records of a procedure. */
static cur write_cfg(tw *t, cur c, const xp_proc *pr)
{
	const xp_fb *fb = t->fb;
	wline w = {0};
	const unsigned char *r = recs(fb, XP_T_BLOCKS, pr->first_block,
	                              pr->n_blocks);
	for (uint32_t n = pr->n_blocks; n > 0; n--, r += XP_RS_BLOCK) {
		w.v[XP_TXF_block_id] = xp_get_le32(r + XP_BK_ID);
		w.v[XP_TXF_block_counter] = xp_get_le32(r + XP_BK_COUNTER);
		PUT_LINE(t, block, &w, 32);
	}
	r = recs(fb, XP_T_EDGES, pr->first_edge, pr->n_edges);
	for (uint32_t n = pr->n_edges; n > 0; n--, r += XP_RS_EDGE) {
		w.v[XP_TXF_edge_id] = xp_get_le32(r + XP_ED_ID);
		w.v[XP_TXF_edge_counter] = xp_get_le32(r + XP_ED_COUNTER);
		w.v[XP_TXF_edge_from] = xp_get_le32(r + XP_ED_FROM);
		w.v[XP_TXF_edge_to] = xp_get_le32(r + XP_ED_TO);
		PUT_LINE(t, edge, &w, 64);
	}
	return c;
}

static cur write_tuples(tw *t, cur c, const xp_proc *pr)
{
	wline w = {0};
	const unsigned char *r = recs(t->fb, XP_T_TUPLES, pr->first_tuple,
	                              pr->n_tuples);
	for (uint32_t n = pr->n_tuples; n > 0; n--, r += XP_RS_TUPLE) {
		xp_str file = xp_get_le32(r + XP_TU_FILE);
		w.v[XP_TXF_tuple_id] = xp_get_le32(r + XP_TU_ID);
		w.v[XP_TXF_tuple_block] = xp_get_le32(r + XP_TU_BLOCK);
		w.v[XP_TXF_tuple_line] = xp_get_le32(r + XP_TU_LINE);
		w.v[XP_TXF_tuple_col] = xp_get_le32(r + XP_TU_COL);
		w.nv = w.v[XP_TXF_tuple_col] != 0;
		w.s1 = NULL;
		w.l1 = 0;
		if (file != XP_NOSTR)
			wl_str(t, &w, file);
		PUT_LINE(t, tuple, &w, 80 + w.l1);
	}
	return c;
}

static cur write_proc(tw *t, cur c, uint32_t pi, uint32_t nvpv)
{
	xp_proc pr;
	xp_fb_proc(t->fb, pi, &pr);
	c = write_proc_head(t, c, &pr);
	if (c.p)
		c = write_stats(t, c, pr.first_stat, pr.n_stats);
	if (!c.p)
		return c;
	uint32_t val = pr.first_vpval;
	wline w = {0};
	const unsigned char *r = recs(t->fb, XP_T_COUNTERS, pr.first_counter,
	                              pr.n_counters);
	for (uint32_t n = pr.n_counters; n > 0; n--, r += XP_RS_COUNTER) {
		w.v[XP_TXF_counter_id] = xp_get_le32(r + XP_CN_ID);
		w.v[XP_TXF_counter_value] = xp_get_le64(r + XP_CN_VALUE);
		PUT_LINE(t, counter, &w, 48);
	}
	for (uint32_t i = pr.first_vp; i < pr.first_vp + pr.n_vps; i++) {
		xp_vp vp;
		xp_fb_vp(t->fb, i, &vp);
		for (uint32_t k = 0; k < nvpv && c.p; k++)
			c = write_vpval(t, c, &vp, val++);
	}
	if (c.p)
		c = write_cfg(t, c, &pr);
	if (c.p)
		c = write_tuples(t, c, &pr);
	return c;
}

static cur write_objfile(tw *t, cur c, uint32_t oi)
{
	xp_objfile of;
	xp_fb_objfile(t->fb, oi, &of);
	wline w = {0};
	wl_str(t, &w, of.path);
	w.v[XP_TXF_objfile_n_procs] = of.n_procs;
	w.v[XP_TXF_objfile_tv_sec] = of.tv_sec;
	w.v[XP_TXF_objfile_tv_usec] = of.tv_usec;
	w.v[XP_TXF_objfile_n_values_per_vp] = of.n_values_per_vp;
	w.v[XP_TXF_objfile_signature] = of.signature;
	w.v[XP_TXF_objfile_n_srcfile_names] = of.n_srcfile_names;
	PUT_LINE(t, objfile, &w, 160 + w.l1);
	c = write_stats(t, c, of.first_stat, of.n_stats);
	for (uint32_t i = of.first_proc;
	     i < of.first_proc + of.n_procs && c.p; i++)
		c = write_proc(t, c, i, of.n_values_per_vp);
	return c;
}

static cur write_program(tw *t, cur c, uint32_t gi)
{
	const xp_fb *fb = t->fb;
	xp_program pg;
	xp_fb_program(fb, gi, &pg);
	wline w = {0};
	wl_str(t, &w, pg.path);
	w.v[XP_TXF_program_n_objrefs] = pg.n_objrefs;
	w.v[XP_TXF_program_n_comdats] = pg.n_comdats;
	PUT_LINE(t, program, &w, 64 + w.l1);
	c = write_stats(t, c, pg.first_stat, pg.n_stats);
	if (!c.p)
		return c;
	for (uint32_t i = pg.first_objref; i < pg.first_objref + pg.n_objrefs;
	     i++) {
		wl_str(t, &w, xp_fb_objref(fb, i));
		PUT_LINE(t, objref, &w, 16 + w.l1);
	}
	for (uint32_t i = pg.first_comdat; i < pg.first_comdat + pg.n_comdats;
	     i++) {
		xp_comdat cd;
		xp_fb_comdat(fb, i, &cd);
		wl_pair(t, &w, cd.proc, cd.objfile);
		PUT_LINE(t, comdat, &w, 24 + w.l1 + w.l2);
	}
	return c;
}

static cur write_srcfile(tw *t, cur c, uint32_t si)
{
	const xp_fb *fb = t->fb;
	xp_srcfile sf;
	xp_fb_srcfile(fb, si, &sf);
	wline w = {0};
	wl_str(t, &w, sf.path);
	w.v[XP_TXF_srcfile_n_srclines] = sf.n_lines;
	PUT_LINE(t, srcfile, &w, 48 + w.l1);

	/* Block refs repeat one proc:objfile pair over and over: its
	 * strings are looked up when it changes. */
	xp_str proc = 0, obj = 0;
	int have = 0;
	const unsigned char *sl = recs(fb, XP_T_SRCLINES, sf.first_line,
	                               sf.n_lines);
	for (uint32_t nl = sf.n_lines; nl > 0; nl--, sl += XP_RS_SRCLINE) {
		uint32_t first = xp_get_le32(sl + XP_SL_FREF);
		uint32_t n = xp_get_le32(sl + XP_SL_NREF);
		w.v[XP_TXF_srcline_line] = xp_get_le32(sl + XP_SL_LINE);
		w.v[XP_TXF_srcline_col] = xp_get_le32(sl + XP_SL_COL);
		w.v[XP_TXF_srcline_n_refs] = n;
		w.nv = w.v[XP_TXF_srcline_col] != 0;
		PUT_LINE(t, srcline, &w, 64);

		const unsigned char *r = recs(fb, XP_T_BLOCKREFS, first, n);
		for (; n > 0; n--, r += XP_RS_BLOCKREF) {
			xp_str rp = xp_get_le32(r + XP_BR_PROC);
			xp_str ro = xp_get_le32(r + XP_BR_OBJFILE);
			if (!have || rp != proc || ro != obj) {
				wl_pair(t, &w, rp, ro);
				proc = rp;
				obj = ro;
				have = 1;
			}
			w.v[XP_TXF_blockref_block] = xp_get_le32(r + XP_BR_BLOCK);
			w.v[XP_TXF_blockref_count] = xp_get_le64(r + XP_BR_COUNT);
			PUT_LINE(t, blockref, &w, 48 + w.l1 + w.l2);
		}
	}
	return c;
}

/* The first line. */
static cur write_head(tw *t, cur c)
{
	const xp_fb *fb = t->fb;
	const char *tn = fb->type != XP_DT_FEEDBACK ? xp_datatype_name(fb->type)
	                                            : NULL;
	c = room(t, c, 160);
	if (!c.p)
		return c;
	char *p = PUT_LIT(c.p, "PROFILE-FEEDBACK-DATA: 4.");
	p = put_u(p, fb->minor);
	p = put_sp_u(p, fb->n[XP_T_OBJFILES]);
	p = put_sp_u(p, fb->n[XP_T_PROGRAMS]);
	p = put_sp_u(p, fb->n_proc_names);
	if (fb->minor >= 4)
		p = put_sp_u(p, fb->n[XP_T_SRCFILES]);
	if (tn) {
		*p++ = ' ';
		p = put_s(p, tn, strlen(tn));
	}
	*p++ = '\n';
	c.p = p;
	return c;
}

static void write_all(tw *t)
{
	const xp_fb *fb = t->fb;
	cur c = write_head(t, cur_at(t));

	uint32_t next[4] = {0, 0, 0, 0};
	for (uint32_t r = 0; r < fb->n[XP_T_RUNS] && c.p; r++) {
		xp_run run;
		xp_fb_run(fb, r, &run);
		for (uint32_t k = 0; k < run.count && c.p; k++) {
			switch (run.kind) {
			case XP_SEC_OBJFILE:
				c = write_objfile(t, c, next[1]++);
				break;
			case XP_SEC_PROGRAM:
				c = write_program(t, c, next[2]++);
				break;
			case XP_SEC_SRCFILE:
				c = write_srcfile(t, c, next[3]++);
				break;
			}
		}
	}
	cur_commit(t, c);
}

static xp_err finish(tw *t, unsigned char **mem, size_t *len)
{
	xp_buf_free(&t->big);
	if (t->err_nomem) {
		xp_wbuf_discard(&t->w);
		return XP_E_NOMEM;
	}
	return xp_wbuf_close(&t->w, mem, len);
}

xp_err xp_text_write_fd(const xp_fb *fb, int fd)
{
	tw t = {.fb = fb};
	xp_err err = xp_wbuf_init_fd(&t.w, fd);
	if (err)
		return err;
	write_all(&t);
	return finish(&t, NULL, NULL);
}

xp_err xp_text_write_mem(const xp_fb *fb, char **buf, size_t *len)
{
	tw t = {.fb = fb};
	*buf = NULL;
	*len = 0;
	xp_err err = xp_wbuf_init_mem(&t.w);
	if (err)
		return err;
	write_all(&t);
	unsigned char *m = NULL;
	err = finish(&t, &m, len);
	*buf = (char *)m;
	return err;
}
