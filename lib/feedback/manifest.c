/*
 * feedback/manifest.c - the manifest of a merge (xprof_db(5), MANIFEST):
 * its records, the union with the manifests of inputs that have one, and
 * the summary that replaces the records beyond XP_MANIFEST_MAX_INPUTS.
 *
 * Records are kept sorted in one total order (path, checksum, size,
 * weight, format, totals), and options by name, so that the same inputs
 * in any order make the same manifest.  Whether a manifest is a summary
 * depends only on how many records its inputs bring in all, and every
 * figure of a summary is a sum over the records it stands for (the
 * fingerprint too: a sum of hashes, modulo 2^64), so a merge of merges
 * summarizes exactly as one merge of all the inputs does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feedback/manifest.h"
#include "registry/module.h"

static void mtot_free(xp_mtot *t)
{
	for (unsigned i = 0; i < t->n; i++)
		free((char *)t->name[i]);
	t->n = 0;
}

void xp_man_rec_free(xp_mrec *r)
{
	free(r->path);
	free(r->format);
	mtot_free(&r->t);
}

xp_err xp_mtot_add(xp_mtot *t, const char *name, uint64_t v)
{
	char *s;

	if (t->n == XP_MAN_TOTALS)
		return XP_E_INVAL;
	if ((s = strdup(name)) == NULL)
		return XP_E_NOMEM;
	t->name[t->n] = s;
	t->value[t->n++] = v;
	return XP_E_OK;
}

xp_manifest *xp_manifest_new(const char *tool, const char *version)
{
	xp_manifest *man = calloc(1, sizeof *man);
	size_t n;

	if (man == NULL)
		return NULL;
	n = strlen(tool) + strlen(version) + 2;
	man->tool_name = strdup(tool);
	man->tool_version = strdup(version);
	man->tool = malloc(n);
	if (!man->tool_name || !man->tool_version || !man->tool) {
		xp_manifest_free(man);
		return NULL;
	}
	snprintf(man->tool, n, "%s %s", tool, version);
	return man;
}

void xp_manifest_free(xp_manifest *man)
{
	if (man == NULL)
		return;
	for (size_t i = 0; i < man->nopt; i++) {
		free(man->oname[i]);
		free(man->ovalue[i]);
	}
	for (size_t i = 0; i < man->nrec; i++)
		xp_man_rec_free(&man->rec[i]);
	for (size_t i = 0; i < man->nfmt; i++) {
		free(man->fmt[i].format);
		mtot_free(&man->fmt[i].t);
	}
	XP_FREE(man->tool_name, man->tool_version, man->tool, man->oname,
	        man->ovalue, man->rec, man->fmt, man);
}

xp_err xp_manifest_option(xp_manifest *man, const char *name,
                          const char *value)
{
	size_t i = 0;
	char **on, **ov, *a, *b;

	while (i < man->nopt && strcmp(man->oname[i], name) < 0)
		i++;
	if (i < man->nopt && strcmp(man->oname[i], name) == 0) {
		if ((b = strdup(value)) == NULL)
			return XP_E_NOMEM;
		free(man->ovalue[i]);
		man->ovalue[i] = b;
		return XP_E_OK;
	}
	on = realloc(man->oname, (man->nopt + 1) * sizeof *on);
	if (on)
		man->oname = on;
	ov = realloc(man->ovalue, (man->nopt + 1) * sizeof *ov);
	if (ov)
		man->ovalue = ov;
	a = strdup(name);
	b = strdup(value);
	if (!on || !ov || !a || !b) {
		free(a);
		free(b);
		return XP_E_NOMEM;
	}
	memmove(on + i + 1, on + i, (man->nopt - i) * sizeof *on);
	memmove(ov + i + 1, ov + i, (man->nopt - i) * sizeof *ov);
	on[i] = a;
	ov[i] = b;
	man->nopt++;
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Records and the summary                                             */
/* ------------------------------------------------------------------ */

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int tot_cmp(const xp_mtot *a, const xp_mtot *b)
{
	for (unsigned i = 0; i < a->n && i < b->n; i++) {
		int c = strcmp(a->name[i], b->name[i]);
		if (c == 0)
			c = CMP(a->value[i], b->value[i]);
		if (c != 0)
			return c;
	}
	return CMP(a->n, b->n);
}

static int rec_cmp(const xp_mrec *a, const xp_mrec *b)
{
	int c = strcmp(a->path, b->path);

	if (c == 0)
		c = CMP(a->crc, b->crc);
	if (c == 0)
		c = CMP(a->size, b->size);
	if (c == 0)
		c = CMP(a->weight, b->weight);
	if (c == 0)
		c = strcmp(a->format, b->format);
	return c != 0 ? c : tot_cmp(&a->t, &b->t);
}

/* FNV-1a over n bytes, continued from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3u;
	}
	return h;
}

/* The hash of a record in the fingerprint: its path, checksum, size and
 * format (not its weight, which the merges above it may change). */
static uint64_t rec_hash(const xp_mrec *r)
{
	unsigned char b[12];
	uint64_t h = fnv(0xcbf29ce484222325u, r->path, strlen(r->path) + 1);

	xp_put_le32(b, r->crc);
	xp_put_le64(b + 4, r->size);
	h = fnv(h, b, sizeof b);
	return fnv(h, r->format, strlen(r->format) + 1);
}

/* Adds v to the total name of t, keeping t sorted by name; when t is
 * full, the names that sort last are left out. */
static xp_err tot_sum(xp_mtot *t, const char *name, uint64_t v)
{
	unsigned i = 0;
	char *s;

	while (i < t->n && strcmp(t->name[i], name) < 0)
		i++;
	if (i < t->n && strcmp(t->name[i], name) == 0) {
		t->value[i] = xp_sat_add(t->value[i], v);
		return XP_E_OK;
	}
	if (i == XP_MAN_TOTALS)
		return XP_E_OK;
	if ((s = strdup(name)) == NULL)
		return XP_E_NOMEM;
	if (t->n == XP_MAN_TOTALS)
		free((char *)t->name[--t->n]);
	memmove(t->name + i + 1, t->name + i, (t->n - i) * sizeof *t->name);
	memmove(t->value + i + 1, t->value + i, (t->n - i) * sizeof *t->value);
	t->name[i] = s;
	t->value[i] = v;
	t->n++;
	return XP_E_OK;
}

/* The summary of format, made if missing. */
static xp_mfmt *fmt_slot(xp_manifest *man, const char *format)
{
	size_t i = 0;
	char *s;

	while (i < man->nfmt && strcmp(man->fmt[i].format, format) < 0)
		i++;
	if (i < man->nfmt && strcmp(man->fmt[i].format, format) == 0)
		return &man->fmt[i];
	if (xp_grow(&man->fmt, &man->fmtcap, man->nfmt, sizeof *man->fmt) != 0 ||
	    (s = strdup(format)) == NULL)
		return NULL;
	memmove(man->fmt + i + 1, man->fmt + i,
	        (man->nfmt - i) * sizeof *man->fmt);
	memset(&man->fmt[i], 0, sizeof man->fmt[i]);
	man->fmt[i].format = s;
	man->nfmt++;
	return &man->fmt[i];
}

xp_err xp_man_add_fmt(xp_manifest *man, const xp_mfmt *f)
{
	xp_mfmt *s = fmt_slot(man, f->format);
	xp_err err = XP_E_OK;

	if (s == NULL)
		return XP_E_NOMEM;
	s->inputs = xp_sat_add(s->inputs, f->inputs);
	s->bytes = xp_sat_add(s->bytes, f->bytes);
	for (unsigned k = 0; k < f->t.n && err == XP_E_OK; k++)
		err = tot_sum(&s->t, f->t.name[k], f->t.value[k]);
	return err;
}

xp_err xp_man_add_summary(xp_manifest *man, uint64_t inputs, uint64_t bytes,
                          uint64_t fp)
{
	man->summarized = 1;
	man->s_inputs = xp_sat_add(man->s_inputs, inputs);
	man->s_bytes = xp_sat_add(man->s_bytes, bytes);
	man->s_fp += fp;
	return XP_E_OK;
}

/* Folds record r into the summary. */
static xp_err fold(xp_manifest *man, const xp_mrec *r)
{
	xp_mfmt f;

	memset(&f, 0, sizeof f);
	f.format = r->format;
	f.inputs = 1;
	f.bytes = r->size;
	f.t = r->t;
	xp_man_add_summary(man, 1, r->size, rec_hash(r));
	return xp_man_add_fmt(man, &f);
}

/* Folds every record into the summary. */
static xp_err fold_all(xp_manifest *man)
{
	xp_err err = XP_E_OK;

	man->summarized = 1;
	for (size_t i = 0; i < man->nrec; i++) {
		if (err == XP_E_OK)
			err = fold(man, &man->rec[i]);
		xp_man_rec_free(&man->rec[i]);
	}
	man->nrec = 0;
	return err;
}

xp_err xp_man_add_rec(xp_manifest *man, xp_mrec *r)
{
	size_t lo = 0, hi = man->nrec;
	xp_err err;

	if (man->summarized) {
		err = fold(man, r);
		xp_man_rec_free(r);
		return err;
	}
	if (xp_grow(&man->rec, &man->reccap, man->nrec, sizeof *man->rec)) {
		xp_man_rec_free(r);
		return XP_E_NOMEM;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rec_cmp(&man->rec[mid], r) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(man->rec + lo + 1, man->rec + lo,
	        (man->nrec - lo) * sizeof *man->rec);
	man->rec[lo] = *r;
	man->nrec++;
	return man->nrec > XP_MANIFEST_MAX_INPUTS ? fold_all(man) : XP_E_OK;
}

/* Adds the records and summary of sub, weights times weight. */
static xp_err add_union(xp_manifest *man, const xp_manifest *sub,
                        double weight)
{
	xp_err err = XP_E_OK;

	if (sub->summarized) {
		if ((err = fold_all(man)) != XP_E_OK)
			return err;
		xp_man_add_summary(man, sub->s_inputs, sub->s_bytes, sub->s_fp);
		for (size_t i = 0; i < sub->nfmt && err == XP_E_OK; i++)
			err = xp_man_add_fmt(man, &sub->fmt[i]);
	}
	for (size_t i = 0; i < sub->nrec && err == XP_E_OK; i++) {
		const xp_mrec *s = &sub->rec[i];
		xp_mrec r;

		memset(&r, 0, sizeof r);
		r.path = strdup(s->path);
		r.format = strdup(s->format);
		r.size = s->size;
		r.crc = s->crc;
		r.weight = s->weight * weight;
		err = r.path && r.format ? XP_E_OK : XP_E_NOMEM;
		for (unsigned k = 0; k < s->t.n && err == XP_E_OK; k++)
			err = xp_mtot_add(&r.t, s->t.name[k], s->t.value[k]);
		if (err == XP_E_OK)
			err = xp_man_add_rec(man, &r);
		else
			xp_man_rec_free(&r);
	}
	return err;
}

/* The module whose format token (format_token()) tok is, or NULL. */
static const xp_module *token_module(const char *tok)
{
	for (const xp_module *m = xp_module_next(NULL); m != NULL;
	     m = xp_module_next(m)) {
		size_t n = strlen(m->name);
		if (strncmp(tok, m->name, n) == 0 &&
		    (tok[n] == '\0' || strcmp(tok + n, "-text") == 0))
			return m;
	}
	return NULL;
}

const char *xp_manifest_sampled(const xp_manifest *man)
{
	const xp_module *m;

	for (size_t i = 0; i < man->nrec; i++)
		if ((m = token_module(man->rec[i].format)) && m->sampled)
			return m->display_a;
	for (size_t i = 0; i < man->nfmt; i++)
		if ((m = token_module(man->fmt[i].format)) && m->sampled)
			return m->display_a;
	return NULL;
}

xp_err xp_manifest_absorb(xp_manifest *man, const xp_manifest *sub)
{
	return add_union(man, sub, 1.0);
}

/* ------------------------------------------------------------------ */
/* Adding inputs                                                       */
/* ------------------------------------------------------------------ */

/* The format's name in a manifest: its module's, or feedback, followed
 * by "-text" for the text form. */
static const char *format_token(xp_format f, char *buf, size_t len)
{
	const char *mod = xp_format_module(f);

	snprintf(buf, len, "%s%s", mod ? mod : "feedback",
	         xp_format_is_text(f) ? "-text" : "");
	return buf;
}

static const char *const fb_total_names[4] = {
	"objfiles", "procs", "counters", "count"
};

/*
 * Adds the input path of size bytes and checksum crc.  When it is a
 * database whose manifest (at mpath) describes it, that manifest's
 * records come instead.
 */
static xp_err add_one(xp_manifest *man, const char *path, const char *mpath,
                      uint64_t size, uint32_t crc, double weight,
                      const char *format, const xp_mtot *t, xp_diags *d)
{
	xp_manifest *sub = NULL;
	xp_mrec r;
	xp_err err;

	if (mpath != NULL) {
		err = xp_manifest_read(mpath, &sub, d);
		if (err == XP_E_OK && sub->has_db && sub->db_size == size &&
		    sub->db_crc == crc) {
			err = add_union(man, sub, weight);
			xp_manifest_free(sub);
			return err;
		}
		if (err == XP_E_OK)
			xp_diag_warn(d, mpath, "describes another database (%s); "
			             "%s is recorded as one input",
			             sub->has_db ? "the database was replaced "
			             "since" : "it was written alone", path);
		xp_manifest_free(sub);
		if (err != XP_E_OK && err != XP_E_NOTFOUND)
			return err;
	}
	memset(&r, 0, sizeof r);
	r.path = strdup(path);
	r.format = strdup(format);
	r.size = size;
	r.crc = crc;
	r.weight = weight;
	err = r.path && r.format ? XP_E_OK : XP_E_NOMEM;
	for (unsigned k = 0; k < t->n && err == XP_E_OK; k++)
		err = xp_mtot_add(&r.t, t->name[k], t->value[k]);
	if (err != XP_E_OK) {
		xp_man_rec_free(&r);
		return err;
	}
	return xp_man_add_rec(man, &r);
}

/* The totals of a feedback input or profile, as names and values (the
 * names are not owned). */
static void fb_mtot(const uint64_t v[4], xp_mtot *t)
{
	t->n = 4;
	for (unsigned k = 0; k < 4; k++) {
		t->name[k] = fb_total_names[k];
		t->value[k] = v[k];
	}
}

xp_err xp_manifest_add_input(xp_manifest *man, xp_input *in,
                             const xp_prof *p, double weight, xp_diags *d)
{
	char fbuf[64], *mpath = NULL;
	xp_mtot t;
	xp_err err;

	if (!in->summed || (p == NULL && !in->has_totals))
		return xp_diag_file(d, XP_E_INVAL, in->name,
		                    "recorded in a manifest before it was read");
	memset(&t, 0, sizeof t);
	if (p != NULL) {
		xp_prof_totals pt;
		xp_prof_totals_of(p, &pt);
		t.n = pt.n;
		for (unsigned k = 0; k < pt.n; k++) {
			t.name[k] = pt.name[k];
			t.value[k] = pt.value[k];
		}
	} else {
		fb_mtot(in->totals, &t);
	}
	if (in->fmt == XP_FMT_FEEDBACK_DB && in->kind == XP_INPUT_DIR)
		mpath = xp_profdir_manifest(in->path, XP_DT_FEEDBACK, NULL);
	else if (in->fmt == XP_FMT_FEEDBACK_DB && in->kind == XP_INPUT_FILE)
		mpath = xp_manifest_beside(in->path);
	if (in->fmt == XP_FMT_FEEDBACK_DB && in->kind != XP_INPUT_STREAM &&
	    mpath == NULL)
		return XP_E_NOMEM;
	err = add_one(man, in->path, mpath, in->sum.len, in->sum.crc, weight,
	              format_token(in->fmt, fbuf, sizeof fbuf), &t, d);
	free(mpath);
	return err;
}

xp_err xp_manifest_add_db(xp_manifest *man, const char *path,
                          const xp_fb *fb, double weight, xp_diags *d)
{
	uint64_t v[4];
	uint32_t crc;
	char *mpath;
	xp_mtot t;
	xp_err err;

	if (fb->image == NULL)
		return xp_diag_file(d, XP_E_INVAL, path, "not a database");
	crc = xp_get_le32(fb->image + XP_DBH_CRC);
	crc = xp_crc32c_with_field(crc, fb->image_len, XP_DBH_CRC, crc);
	xp_fb_totals(fb, v);
	fb_mtot(v, &t);
	if ((mpath = xp_manifest_beside(path)) == NULL)
		return XP_E_NOMEM;
	err = add_one(man, path, mpath, fb->image_len, crc, weight, "feedback",
	              &t, d);
	free(mpath);
	return err;
}

/* ------------------------------------------------------------------ */
/* Accessors                                                           */
/* ------------------------------------------------------------------ */

const char *xp_manifest_tool(const xp_manifest *man)
{
	return man->tool;
}

size_t xp_manifest_n_options(const xp_manifest *man)
{
	return man->nopt;
}

void xp_manifest_get_option(const xp_manifest *man, size_t i,
                            const char **name, const char **value)
{
	*name = man->oname[i];
	*value = man->ovalue[i];
}

int xp_manifest_database(const xp_manifest *man, uint64_t *size,
                         uint32_t *crc32c)
{
	*size = man->db_size;
	*crc32c = man->db_crc;
	return man->has_db;
}

static void totals_of(const xp_mtot *t, xp_manifest_totals *out)
{
	out->n = t->n;
	out->names = t->name;
	out->values = t->value;
}

size_t xp_manifest_n_inputs(const xp_manifest *man)
{
	return man->nrec;
}

void xp_manifest_get_input(const xp_manifest *man, size_t i,
                           xp_manifest_input *out)
{
	const xp_mrec *r = &man->rec[i];

	out->path = r->path;
	out->size = r->size;
	out->crc32c = r->crc;
	out->weight = r->weight;
	out->format = r->format;
	totals_of(&r->t, &out->totals);
}

int xp_manifest_summary(const xp_manifest *man, uint64_t *inputs,
                        uint64_t *bytes, uint64_t *fingerprint)
{
	*inputs = man->s_inputs;
	*bytes = man->s_bytes;
	*fingerprint = man->s_fp;
	return man->summarized;
}

size_t xp_manifest_n_formats(const xp_manifest *man)
{
	return man->nfmt;
}

void xp_manifest_get_format(const xp_manifest *man, size_t i,
                            xp_manifest_format *out)
{
	const xp_mfmt *f = &man->fmt[i];

	out->format = f->format;
	out->inputs = f->inputs;
	out->bytes = f->bytes;
	totals_of(&f->t, &out->totals);
}
