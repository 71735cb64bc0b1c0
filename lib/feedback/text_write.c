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

static void write_stats(tw *t, uint32_t first, uint32_t n)
{
	for (uint32_t i = first; i < first + n; i++) {
		xp_stat st;
		xp_fb_stat(t->fb, i, &st);
		char *p0 = lbegin(t, 32), *p = p0;
		if (!p)
			return;
		p = st.kind == XP_STAT_MAX ? PUT_LIT(p, "max") : PUT_LIT(p, "sum");
		p = put_sp_u(p, st.value);
		*p++ = '\n';
		lend(t, p0, p, 32);
	}
}

static void write_vpval(tw *t, const xp_vp *vp, uint32_t i)
{
	const xp_fb *fb = t->fb;
	xp_vpval v;
	xp_fb_vpval(fb, i, vp->type, &v);
	size_t need = 96;
	if (vp->type == XP_VP_PROC && v.has_value)
		need += slen(t, v.v.proc.name) + slen(t, v.v.proc.objfile);
	char *p0 = lbegin(t, need), *p = p0;
	if (!p)
		return;
	const char *tn = xp_vptype_name(vp->type);
	p = put_s(p, tn, strlen(tn));
	p = put_sp_u(p, vp->expr_id);
	p = put_sp_u(p, v.count);
	if (v.has_value) {
		*p++ = ' ';
		switch (vp->type) {
		case XP_VP_INT: p += xp_fmt_i64(p, v.v.i); break;
		case XP_VP_LLONG: p += xp_fmt_i64(p, v.v.ll); break;
		case XP_VP_FLOAT: p += xp_fmt_float(p, v.v.f); break;
		case XP_VP_DOUBLE: p += xp_fmt_double(p, v.v.d); break;
		case XP_VP_PROC:
			p = put_str(t, p, v.v.proc.name);
			*p++ = ':';
			p = put_str(t, p, v.v.proc.objfile);
			break;
		}
	}
	*p++ = '\n';
	lend(t, p0, p, need);
}

static void write_proc(tw *t, uint32_t pi, uint32_t nvpv)
{
	const xp_fb *fb = t->fb;
	xp_proc pr;
	xp_fb_proc(fb, pi, &pr);

	size_t need = 256 + slen(t, pr.name);
	char *p0 = lbegin(t, need), *p = p0;
	if (!p)
		return;
	p = PUT_LIT(p, "PROC: ");
	p = put_str(t, p, pr.name);
	*p++ = ' ';
	p = put_hex(p, pr.signature);
	p = put_sp_u(p, pr.n_counters);
	p = put_sp_u(p, pr.n_vp_sites);
	p = put_sp_u(p, pr.n_vps);
	p = put_sp_u(p, pr.proc_id);
	p = put_sp_u(p, pr.n_blocks);
	p = put_sp_u(p, pr.n_edges);
	p = put_sp_u(p, pr.n_srcmap_ops);
	*p++ = '\n';
	lend(t, p0, p, need);

	write_stats(t, pr.first_stat, pr.n_stats);

	for (uint32_t i = pr.first_counter; i < pr.first_counter + pr.n_counters;
	     i++) {
		const unsigned char *r = xp_rec(fb, XP_T_COUNTERS, i);
		p0 = p = (char *)xp_wbuf_reserve(&t->w, 48);
		if (!p)
			return;
		p = put_u(p, xp_get_le32(r + XP_CN_ID));
		p = put_sp_u(p, xp_get_le64(r + XP_CN_VALUE));
		*p++ = '\n';
		xp_wbuf_commit(&t->w, (size_t)(p - p0));
	}

	uint32_t val = pr.first_vpval;
	for (uint32_t i = pr.first_vp; i < pr.first_vp + pr.n_vps; i++) {
		xp_vp vp;
		xp_fb_vp(fb, i, &vp);
		for (uint32_t k = 0; k < nvpv; k++)
			write_vpval(t, &vp, val++);
	}

	for (uint32_t i = pr.first_block; i < pr.first_block + pr.n_blocks; i++) {
		const unsigned char *r = xp_rec(fb, XP_T_BLOCKS, i);
		p0 = p = (char *)xp_wbuf_reserve(&t->w, 32);
		if (!p)
			return;
		*p++ = 'B';
		p = put_u(p, xp_get_le32(r + XP_BK_ID));
		*p++ = ':';
		p = put_sp_u(p, xp_get_le32(r + XP_BK_COUNTER));
		*p++ = '\n';
		xp_wbuf_commit(&t->w, (size_t)(p - p0));
	}

	for (uint32_t i = pr.first_edge; i < pr.first_edge + pr.n_edges; i++) {
		const unsigned char *r = xp_rec(fb, XP_T_EDGES, i);
		p0 = p = (char *)xp_wbuf_reserve(&t->w, 64);
		if (!p)
			return;
		*p++ = 'E';
		p = put_u(p, xp_get_le32(r + XP_ED_ID));
		p = put_sp_u(p, xp_get_le32(r + XP_ED_COUNTER));
		p = PUT_LIT(p, " B");
		p = put_u(p, xp_get_le32(r + XP_ED_FROM));
		p = PUT_LIT(p, " B");
		p = put_u(p, xp_get_le32(r + XP_ED_TO));
		*p++ = '\n';
		xp_wbuf_commit(&t->w, (size_t)(p - p0));
	}

	for (uint32_t i = pr.first_tuple; i < pr.first_tuple + pr.n_tuples; i++) {
		xp_tuple tu;
		xp_fb_tuple(fb, i, &tu);
		need = 80 + slen(t, tu.srcfile);
		p0 = p = lbegin(t, need);
		if (!p)
			return;
		*p++ = 'S';
		p = put_u(p, tu.id);
		p = PUT_LIT(p, ": B");
		p = put_u(p, tu.block);
		p = put_sp_u(p, tu.line);
		if (tu.col) {
			*p++ = ':';
			p = put_u(p, tu.col);
		}
		if (tu.srcfile != XP_NOSTR) {
			*p++ = ' ';
			p = put_str(t, p, tu.srcfile);
		}
		*p++ = '\n';
		lend(t, p0, p, need);
	}
}

static void write_objfile(tw *t, uint32_t oi)
{
	xp_objfile of;
	xp_fb_objfile(t->fb, oi, &of);
	size_t need = 160 + slen(t, of.path);
	char *p0 = lbegin(t, need), *p = p0;
	if (!p)
		return;
	p = PUT_LIT(p, "OBJFILE:");
	p = put_str(t, p, of.path);
	p = put_sp_u(p, of.n_procs);
	p = put_sp_u(p, of.tv_sec);
	p = put_sp_u(p, of.tv_usec);
	p = put_sp_u(p, of.n_values_per_vp);
	*p++ = ' ';
	p = put_hex(p, of.signature);
	p = put_sp_u(p, of.n_srcfile_names);
	*p++ = '\n';
	lend(t, p0, p, need);
	write_stats(t, of.first_stat, of.n_stats);
	for (uint32_t i = of.first_proc; i < of.first_proc + of.n_procs; i++)
		write_proc(t, i, of.n_values_per_vp);
}

static void write_program(tw *t, uint32_t gi)
{
	const xp_fb *fb = t->fb;
	xp_program pg;
	xp_fb_program(fb, gi, &pg);
	size_t need = 64 + slen(t, pg.path);
	char *p0 = lbegin(t, need), *p = p0;
	if (!p)
		return;
	p = PUT_LIT(p, "PROGRAM: ");
	p = put_str(t, p, pg.path);
	p = put_sp_u(p, pg.n_objrefs);
	p = put_sp_u(p, pg.n_comdats);
	*p++ = '\n';
	lend(t, p0, p, need);
	write_stats(t, pg.first_stat, pg.n_stats);
	for (uint32_t i = pg.first_objref; i < pg.first_objref + pg.n_objrefs;
	     i++) {
		xp_str s = xp_fb_objref(fb, i);
		need = 16 + slen(t, s);
		p0 = p = lbegin(t, need);
		if (!p)
			return;
		p = PUT_LIT(p, "OBJREF: ");
		p = put_str(t, p, s);
		*p++ = '\n';
		lend(t, p0, p, need);
	}
	for (uint32_t i = pg.first_comdat; i < pg.first_comdat + pg.n_comdats;
	     i++) {
		xp_comdat cd;
		xp_fb_comdat(fb, i, &cd);
		need = 24 + slen(t, cd.proc) + slen(t, cd.objfile);
		p0 = p = lbegin(t, need);
		if (!p)
			return;
		p = PUT_LIT(p, "COMDAT_PROC: ");
		p = put_str(t, p, cd.proc);
		*p++ = ':';
		p = put_str(t, p, cd.objfile);
		*p++ = '\n';
		lend(t, p0, p, need);
	}
}

static void write_srcfile(tw *t, uint32_t si)
{
	const xp_fb *fb = t->fb;
	xp_srcfile sf;
	xp_fb_srcfile(fb, si, &sf);
	size_t need = 48 + slen(t, sf.path);
	char *p0 = lbegin(t, need), *p = p0;
	if (!p)
		return;
	p = PUT_LIT(p, "SRCFILE: ");
	p = put_str(t, p, sf.path);
	p = put_sp_u(p, sf.n_lines);
	*p++ = '\n';
	lend(t, p0, p, need);

	for (uint32_t li = sf.first_line; li < sf.first_line + sf.n_lines; li++) {
		xp_srcline sl;
		xp_fb_srcline(fb, li, &sl);
		p0 = p = (char *)xp_wbuf_reserve(&t->w, 64);
		if (!p)
			return;
		p = PUT_LIT(p, "SRCLINE: ");
		p = put_u(p, sl.line);
		if (sl.col) {
			*p++ = ':';
			p = put_u(p, sl.col);
		}
		p = put_sp_u(p, sl.n_refs);
		*p++ = '\n';
		xp_wbuf_commit(&t->w, (size_t)(p - p0));

		/* Block refs repeat one proc:objfile pair over and over; the
		 * hot loop reads the string table directly. */
		for (uint32_t i = sl.first_ref; i < sl.first_ref + sl.n_refs; i++) {
			const unsigned char *r = xp_rec(fb, XP_T_BLOCKREFS, i);
			xp_str ps = xp_get_le32(r + XP_BR_PROC);
			xp_str os = xp_get_le32(r + XP_BR_OBJFILE);
			size_t pl = slen(t, ps), ol = slen(t, os);
			need = 48 + pl + ol;
			p0 = p = lbegin(t, need);
			if (!p)
				return;
			*p++ = 'B';
			p = put_u(p, xp_get_le32(r + XP_BR_BLOCK));
			p = put_sp_u(p, xp_get_le64(r + XP_BR_COUNT));
			*p++ = ' ';
			p = put_s(p, xp_fb_str(fb, ps), pl);
			*p++ = ':';
			p = put_s(p, xp_fb_str(fb, os), ol);
			*p++ = '\n';
			lend(t, p0, p, need);
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
