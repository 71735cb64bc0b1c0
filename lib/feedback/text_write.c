/*
 * feedback/text_write.c - writes the canonical feedback text of a profile
 * (xprof_text(5)): one record a line, one space between fields, no
 * indentation, sections in the order the profile keeps.  Reading this text
 * back gives the same profile, and writing that profile gives the same
 * bytes.
 *
 * Lines are assembled straight into the output buffer; a line longer than
 * the writer's reserve (only possible with very long names) goes through a
 * scratch buffer.
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

/* Room for a line of at most need bytes, or NULL after an error. */
static char *lbegin(tw *t, size_t need)
{
	if (need <= XP_WBUF_MAXRES)
		return (char *)xp_wbuf_reserve(&t->w, need);
	t->big.len = 0;
	char *p = (char *)xp_buf_grow(&t->big, need);
	if (!p)
		t->err_nomem = 1;
	return p;
}

static void lend(tw *t, char *start, char *end, size_t need)
{
	if (need <= XP_WBUF_MAXRES)
		xp_wbuf_commit(&t->w, (size_t)(end - start));
	else
		xp_wbuf_write(&t->w, start, (size_t)(end - start));
}

static size_t slen(const tw *t, xp_str s) { return xp_fb_strlen(t->fb, s); }

static char *put_s(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
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

/* put_<kind>: prints a <kind> line at p; returns the byte after its LF. */
#define PRINTER(R)                                                        \
	static char *put_##R(const tw *t, char *p, const wline *w)        \
	{                                                                 \
		(void)t;                                                  \
		XP_TX_REC_##R(R)                                          \
		*p++ = '\n';                                              \
		return p;                                                 \
	}
XP_TX_RECORDS(PRINTER)
#undef PRINTER
#include "feedback/text_records_undef.h"

/* Prints one line of at most need bytes with put_<kind>. */
#define PUT_LINE(t, R, w, need)                                           \
	do {                                                              \
		char *p0_ = lbegin((t), (need));                          \
		if (!p0_)                                                 \
			return;                                           \
		lend((t), p0_, put_##R((t), p0_, (w)), (need));           \
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

static void write_stats(tw *t, uint32_t first, uint32_t n)
{
	for (uint32_t i = first; i < first + n; i++) {
		xp_stat st;
		xp_fb_stat(t->fb, i, &st);
		wline w = {.kind = st.kind};
		w.v[XP_TXF_stat_value] = st.value;
		PUT_LINE(t, stat, &w, 32);
	}
}

static void write_vpval(tw *t, const xp_vp *vp, uint32_t i)
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
}

static void write_proc_head(tw *t, const xp_proc *pr)
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
}

/* The block and edge records of a procedure. */
static void write_cfg(tw *t, const xp_proc *pr)
{
	const xp_fb *fb = t->fb;
	wline w = {0};
	for (uint32_t i = pr->first_block; i < pr->first_block + pr->n_blocks;
	     i++) {
		const unsigned char *r = xp_rec(fb, XP_T_BLOCKS, i);
		w.v[XP_TXF_block_id] = xp_get_le32(r + XP_BK_ID);
		w.v[XP_TXF_block_counter] = xp_get_le32(r + XP_BK_COUNTER);
		PUT_LINE(t, block, &w, 32);
	}
	for (uint32_t i = pr->first_edge; i < pr->first_edge + pr->n_edges;
	     i++) {
		const unsigned char *r = xp_rec(fb, XP_T_EDGES, i);
		w.v[XP_TXF_edge_id] = xp_get_le32(r + XP_ED_ID);
		w.v[XP_TXF_edge_counter] = xp_get_le32(r + XP_ED_COUNTER);
		w.v[XP_TXF_edge_from] = xp_get_le32(r + XP_ED_FROM);
		w.v[XP_TXF_edge_to] = xp_get_le32(r + XP_ED_TO);
		PUT_LINE(t, edge, &w, 64);
	}
}

static void write_tuples(tw *t, const xp_proc *pr)
{
	for (uint32_t i = pr->first_tuple; i < pr->first_tuple + pr->n_tuples;
	     i++) {
		xp_tuple tu;
		xp_fb_tuple(t->fb, i, &tu);
		wline w = {.nv = tu.col != 0};
		w.v[XP_TXF_tuple_id] = tu.id;
		w.v[XP_TXF_tuple_block] = tu.block;
		w.v[XP_TXF_tuple_line] = tu.line;
		w.v[XP_TXF_tuple_col] = tu.col;
		if (tu.srcfile != XP_NOSTR)
			wl_str(t, &w, tu.srcfile);
		PUT_LINE(t, tuple, &w, 80 + slen(t, tu.srcfile));
	}
}

static void write_proc(tw *t, uint32_t pi, uint32_t nvpv)
{
	xp_proc pr;
	xp_fb_proc(t->fb, pi, &pr);
	write_proc_head(t, &pr);
	write_stats(t, pr.first_stat, pr.n_stats);
	uint32_t val = pr.first_vpval;
	wline w = {0};
	for (uint32_t i = pr.first_counter;
	     i < pr.first_counter + pr.n_counters; i++) {
		const unsigned char *r = xp_rec(t->fb, XP_T_COUNTERS, i);
		w.v[XP_TXF_counter_id] = xp_get_le32(r + XP_CN_ID);
		w.v[XP_TXF_counter_value] = xp_get_le64(r + XP_CN_VALUE);
		PUT_LINE(t, counter, &w, 48);
	}
	for (uint32_t i = pr.first_vp; i < pr.first_vp + pr.n_vps; i++) {
		xp_vp vp;
		xp_fb_vp(t->fb, i, &vp);
		for (uint32_t k = 0; k < nvpv; k++)
			write_vpval(t, &vp, val++);
	}
	write_cfg(t, &pr);
	write_tuples(t, &pr);
}

static void write_objfile(tw *t, uint32_t oi)
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
	write_stats(t, of.first_stat, of.n_stats);
	for (uint32_t i = of.first_proc; i < of.first_proc + of.n_procs; i++)
		write_proc(t, i, of.n_values_per_vp);
}

static void write_program(tw *t, uint32_t gi)
{
	const xp_fb *fb = t->fb;
	xp_program pg;
	xp_fb_program(fb, gi, &pg);
	wline w = {0};
	wl_str(t, &w, pg.path);
	w.v[XP_TXF_program_n_objrefs] = pg.n_objrefs;
	w.v[XP_TXF_program_n_comdats] = pg.n_comdats;
	PUT_LINE(t, program, &w, 64 + w.l1);
	write_stats(t, pg.first_stat, pg.n_stats);
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
}

static void write_srcfile(tw *t, uint32_t si)
{
	const xp_fb *fb = t->fb;
	xp_srcfile sf;
	xp_fb_srcfile(fb, si, &sf);
	wline w = {0};
	wl_str(t, &w, sf.path);
	w.v[XP_TXF_srcfile_n_srclines] = sf.n_lines;
	PUT_LINE(t, srcfile, &w, 48 + w.l1);

	for (uint32_t li = sf.first_line; li < sf.first_line + sf.n_lines; li++) {
		xp_srcline sl;
		xp_fb_srcline(fb, li, &sl);
		w.nv = sl.col != 0;
		w.v[XP_TXF_srcline_line] = sl.line;
		w.v[XP_TXF_srcline_col] = sl.col;
		w.v[XP_TXF_srcline_n_refs] = sl.n_refs;
		PUT_LINE(t, srcline, &w, 64);

		/* Block refs repeat one proc:objfile pair over and over; the
		 * hot loop reads the string table directly. */
		for (uint32_t i = sl.first_ref; i < sl.first_ref + sl.n_refs; i++) {
			const unsigned char *r = xp_rec(fb, XP_T_BLOCKREFS, i);
			wl_pair(t, &w, xp_get_le32(r + XP_BR_PROC),
			        xp_get_le32(r + XP_BR_OBJFILE));
			w.v[XP_TXF_blockref_block] = xp_get_le32(r + XP_BR_BLOCK);
			w.v[XP_TXF_blockref_count] = xp_get_le64(r + XP_BR_COUNT);
			PUT_LINE(t, blockref, &w, 48 + w.l1 + w.l2);
		}
	}
}

static void write_all(tw *t)
{
	const xp_fb *fb = t->fb;
	char *p0 = lbegin(t, 128), *p = p0;
	if (!p)
		return;
	p = PUT_LIT(p, "PROFILE-FEEDBACK-DATA: 4.");
	p = put_u(p, fb->minor);
	p = put_sp_u(p, fb->n[XP_T_OBJFILES]);
	p = put_sp_u(p, fb->n[XP_T_PROGRAMS]);
	p = put_sp_u(p, fb->n_proc_names);
	if (fb->minor >= 4)
		p = put_sp_u(p, fb->n[XP_T_SRCFILES]);
	if (fb->type != XP_DT_FEEDBACK) {
		const char *tn = xp_datatype_name(fb->type);
		*p++ = ' ';
		p = put_s(p, tn, strlen(tn));
	}
	*p++ = '\n';
	lend(t, p0, p, 128);

	uint32_t next[4] = {0, 0, 0, 0};
	for (uint32_t r = 0; r < fb->n[XP_T_RUNS]; r++) {
		xp_run run;
		xp_fb_run(fb, r, &run);
		for (uint32_t k = 0; k < run.count; k++) {
			switch (run.kind) {
			case XP_SEC_OBJFILE: write_objfile(t, next[1]++); break;
			case XP_SEC_PROGRAM: write_program(t, next[2]++); break;
			case XP_SEC_SRCFILE: write_srcfile(t, next[3]++); break;
			}
			if (t->w.err || t->err_nomem)
				return;
		}
	}
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
