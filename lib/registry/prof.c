/*
 * registry/prof.c - profiles of the foreign formats: opening a file of any of them,
 * writing either form, merging and converting to feedback, each through
 * the format's module (module.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feedback/db.h"
#include "registry/module.h"

struct xp_prof {
	const xp_module *mod;
	xp_format source;   /* the form that was read */
	void *model;
};

static const xp_load_opts no_load_opts;

/* Reads buf as the binary (text == 0) or text form of mod. */
static xp_err try_read(const xp_module *mod, int text, const unsigned char *p,
                       size_t len, const char *name, const xp_load_opts *o,
                       xp_prof **out, xp_diags *d)
{
	xp_prof *pr = calloc(1, sizeof *pr);
	xp_err err;

	*out = NULL;
	if (pr == NULL)
		return XP_E_NOMEM;
	pr->mod = mod;
	pr->source = text ? mod->text_fmt : mod->fmt;
	err = text ? mod->read_text(p, len, name, o, &pr->model, d)
	           : mod->read(p, len, name, o, &pr->model, d);
	if (err != XP_E_OK) {
		free(pr);
		return err;
	}
	*out = pr;
	return XP_E_OK;
}

/* The profile just read checked against the executable of o, if any;
 * a profile that cannot be of it is freed. */
static xp_err check_exe(xp_prof **out, const char *name,
                        const xp_load_opts *o, xp_diags *d)
{
	xp_err err = xp_prof_check_exe((*out)->mod, (*out)->model, o->exe,
	                               o->exe_sym, name, d);

	if (err != XP_E_OK) {
		xp_prof_free(*out);
		*out = NULL;
	}
	return err;
}

/*
 * Formats without a magic number (BSD gmon.out files, CPU profiles) can
 * both claim the same first bytes.  Every module that recognises the
 * input is tried, in the order of the registry, and the first that reads
 * it whole wins; when none does, the first one's diagnostics are given,
 * followed by one line for each other format that was tried.
 */
xp_err xp_prof_open_mem(const void *buf, size_t len, const char *name,
                        const xp_load_opts *o, xp_prof **out, xp_diags *d)
{
	const unsigned char *p = buf;
	xp_format f = xp_format_detect(p, len);
	xp_diags *first = NULL, *others;
	xp_err first_err = XP_E_FORMAT;

	*out = NULL;
	if (o == NULL)
		o = &no_load_opts;
	if (f == XP_FMT_UNKNOWN)
		return xp_diag_file(d, XP_E_FORMAT, name,
		                    "not a profile in any format this program "
		                    "knows");
	if (xp_module_of(f) == NULL) {
		char list[512];
		xp_format_list(list, sizeof list, "or");
		return xp_diag_file(d, XP_E_FORMAT, name, "%s, not %s",
		                    xp_format_a(f), list);
	}
	if ((others = xp_diags_new(0)) == NULL)
		return XP_E_NOMEM;
	for (int text = 0; text < 2; text++) {
		for (const xp_module *mod = xp_module_next(NULL); mod != NULL;
		     mod = xp_module_next(mod)) {
			xp_diags *t;
			xp_err err;

			if (!(text ? mod->detect_text(p, len)
			           : mod->detect(p, len)))
				continue;
			if ((t = xp_diags_new(0)) == NULL) {
				first_err = XP_E_NOMEM;
				goto out;
			}
			err = try_read(mod, text, p, len, name, o, out, t);
			if (err == XP_E_OK || err == XP_E_NOMEM) {
				xp_diags_append(d, t);
				xp_diags_free(t);
				xp_diags_free(first);
				xp_diags_free(others);
				return err == XP_E_OK ? check_exe(out, name, o, d)
				                      : err;
			}
			if (first == NULL) {
				first = t;
				first_err = err;
				continue;
			}
			if (xp_diags_count(t) > 0)
				xp_diag_file(others, err, name,
				             "not %s either: %s",
				             xp_format_a(text ? mod->text_fmt
				                                 : mod->fmt),
				             xp_diags_get(t, 0)->msg);
			xp_diags_free(t);
		}
	}
out:
	xp_diags_append(d, first);
	xp_diags_append(d, others);
	xp_diags_free(first);
	xp_diags_free(others);
	return first_err;
}

xp_err xp_prof_open_input(xp_input *in, const xp_load_opts *o,
                          xp_prof **out, xp_diags *d)
{
	const char *path = in->name;
	void *map = NULL;
	size_t len;
	xp_err err;

	*out = NULL;
	in->summed = 0;
	if (in->kind == XP_INPUT_DIR) {
		char list[512];
		xp_format_list(list, sizeof list, "or");
		return xp_diag_file(d, XP_E_FORMAT, path, "a profile directory, "
		                    "not %s", list);
	}
	if (in->kind == XP_INPUT_STREAM) {
		err = xp_prof_open_mem(in->buf.len ? in->buf.p : (void *)"",
		                       in->buf.len, in->name, o, out, d);
		in->sum.len = in->buf.len;
		in->sum.crc = xp_crc32c(0, in->buf.p, in->buf.len);
		in->summed = err == XP_E_OK;
		return err;
	}
	if ((uint64_t)in->st.st_size > SIZE_MAX / 2)
		return xp_diag_file(d, XP_E_LIMIT, path, "file too large");
	len = (size_t)in->st.st_size;
	if (len > 0) {
		/* Every byte is read (the checksum), so all pages at once. */
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
		           in->fd, 0);
		if (map == MAP_FAILED) {
			int e = errno;
			return xp_diag_file(d, e == ENOMEM ? XP_E_NOMEM : XP_E_IO,
			                    path, "%s", strerror(e));
		}
	}
	err = xp_prof_open_mem(map != NULL ? map : "", len, path, o, out, d);
	if (err == XP_E_OK) {
		/* What the manifest of a merge records; the mapping is
		 * still in memory. */
		in->sum.len = len;
		in->sum.crc = map != NULL ? xp_crc32c(0, map, len) : 0;
		in->summed = 1;
	}
	if (map != NULL)
		munmap(map, len);
	return err;
}

xp_err xp_prof_open(const char *path, const xp_load_opts *o, xp_prof **out,
                    xp_diags *d)
{
	xp_input *in;
	xp_err err = xp_input_open_any(path, &in, d);

	*out = NULL;
	if (err == XP_E_OK)
		err = xp_prof_open_input(in, o, out, d);
	xp_input_free(in);
	return err;
}

void xp_prof_free(xp_prof *p)
{
	if (p == NULL)
		return;
	if (p->model != NULL)
		p->mod->free(p->model);
	free(p);
}

xp_err xp_prof_adopt(xp_format f, void *model, xp_prof **out)
{
	const xp_module *mod = xp_module_of(f);

	if ((*out = calloc(1, sizeof **out)) == NULL) {
		mod->free(model);
		return XP_E_NOMEM;
	}
	(*out)->mod = mod;
	(*out)->source = mod->fmt;
	(*out)->model = model;
	return XP_E_OK;
}

xp_format xp_prof_format(const xp_prof *p)
{
	return p->mod->fmt;
}

xp_format xp_prof_source_format(const xp_prof *p)
{
	return p->source;
}

const void *xp_prof_model(const xp_prof *p)
{
	return p->model;
}

static xp_err write_w(const xp_prof *p, int text, xp_wbuf *w)
{
	xp_err err = text ? p->mod->write_text(p->model, w)
	                  : p->mod->write(p->model, w);
	if (err != XP_E_OK) {
		xp_wbuf_discard(w);
		return err;
	}
	return XP_E_OK;
}

xp_err xp_prof_write_fd(const xp_prof *p, int text, int fd)
{
	xp_wbuf w;
	xp_err err = xp_wbuf_init_fd(&w, fd);

	if (err != XP_E_OK)
		return err;
	err = write_w(p, text, &w);
	if (err != XP_E_OK)
		return err;
	return xp_wbuf_close(&w, NULL, NULL);
}

xp_err xp_prof_write_mem(const xp_prof *p, int text, unsigned char **buf,
                         size_t *len)
{
	xp_wbuf w;
	xp_err err = xp_wbuf_init_mem(&w);

	*buf = NULL;
	*len = 0;
	if (err != XP_E_OK)
		return err;
	err = write_w(p, text, &w);
	if (err != XP_E_OK)
		return err;
	return xp_wbuf_close(&w, buf, len);
}

static const xp_prof_merge_opts no_merge_opts;

xp_err xp_prof_merge(xp_prof **acc, const xp_prof *in, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d)
{
	xp_prof *a = *acc;
	xp_err err;

	if (o == NULL)
		o = &no_merge_opts;
	if (!(weight > 0))
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "weight must be positive");
	if (o->mode != XP_MERGE_SUM && !in->mod->merge_modes) {
		char list[512];
		xp_module_list(list, sizeof list, "or", 1);
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "%s has no merge modes (--mode applies "
		                    "to feedback and to %s)",
		                    xp_format_a(in->mod->fmt), list);
	}
	if (a != NULL && a->mod != in->mod)
		return xp_diag_file(d, XP_E_FORMAT, name,
		                    "%s cannot be merged with %s",
		                    xp_format_a(in->mod->fmt),
		                    xp_format_a(a->mod->fmt));
	if (a == NULL) {
		a = calloc(1, sizeof *a);
		if (a == NULL)
			return XP_E_NOMEM;
		a->mod = in->mod;
		a->source = in->mod->fmt;
	}
	err = in->mod->merge(&a->model, in->model, weight, o, name, d);
	if (err != XP_E_OK) {
		if (*acc == NULL)
			xp_prof_free(a);
		return err;
	}
	*acc = a;
	return XP_E_OK;
}

static const xp_conv_opts no_conv_opts;

xp_err xp_prof_to_feedback(const xp_prof *p, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d)
{
	*out = NULL;
	if (p->mod->to_feedback == NULL)
		return xp_diag_file(d, XP_E_INVAL, "",
		                    "%s cannot be converted to feedback",
		                    xp_format_a(p->mod->fmt));
	return p->mod->to_feedback(p->model, o != NULL ? o : &no_conv_opts,
	                           out, d);
}

struct xp_report {
	const xp_module *mod;
	void *handle;
	const void *model;
};

static const xp_report_opts no_report_opts;

/* The options o gives that mod's report does not take: refused, with
 * what it has no use for. */
static xp_err refuse_options(const xp_module *mod, const xp_report_opts *o,
                             const char *name, xp_diags *d)
{
	static const struct {
		unsigned bit;
		const char *what;
	} opt[] = {
		{ XP_REPORT_LINES, "lines" },
		{ XP_REPORT_CALL_GRAPH, "call graph" },
		{ XP_REPORT_COUNTS, "order by counts" },
		{ XP_REPORT_STACK_DEPTH, "stack depth" },
	};
	unsigned given = (o->lines ? XP_REPORT_LINES : 0) |
	                 (o->call_graph ? XP_REPORT_CALL_GRAPH : 0) |
	                 (o->counts ? XP_REPORT_COUNTS : 0) |
	                 (o->stack_depth_given ? XP_REPORT_STACK_DEPTH : 0);

	for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
		if (given & opt[i].bit & ~mod->report_takes)
			return xp_diag_file(d, XP_E_INVAL, name, "%s has no %s",
			                    mod->report_of, opt[i].what);
	return XP_E_OK;
}

xp_err xp_prof_report(const xp_prof *p, const xp_report_opts *o,
                      const char *name, xp_report **out, xp_diags *d)
{
	xp_report *r;
	xp_err err;

	*out = NULL;
	if (p->mod->report == NULL)
		return xp_diag_file(d, XP_E_INVAL, name, "%s has no report",
		                    xp_format_a(p->mod->fmt));
	if (o == NULL)
		o = &no_report_opts;
	if ((err = refuse_options(p->mod, o, name, d)) != XP_E_OK)
		return err;
	if ((r = calloc(1, sizeof *r)) == NULL)
		return XP_E_NOMEM;
	r->mod = p->mod;
	err = p->mod->report(p->model, o, name, &r->handle, &r->model, d);
	if (err != XP_E_OK) {
		free(r);
		return err;
	}
	*out = r;
	return XP_E_OK;
}

xp_format xp_report_format(const xp_report *r)
{
	return r->mod->fmt;
}

const void *xp_report_model(const xp_report *r)
{
	return r->model;
}

void xp_report_free(xp_report *r)
{
	if (r == NULL)
		return;
	if (r->handle != NULL)
		r->mod->report_free(r->handle);
	free(r);
}

void xp_prof_totals_of(const xp_prof *p, xp_prof_totals *t)
{
	memset(t, 0, sizeof *t);
	p->mod->totals(p->model, t);
}
