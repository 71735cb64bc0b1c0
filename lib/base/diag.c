/*
 * base/diag.c - error codes and diagnostics.  The library collects problems in
 * a caller-owned xp_diags list; the tools format and print them.  Nothing
 * here prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/internal.h"

static const char *const err_names[] = {
#define XP_ERR_NAME_(name, text) "XP_E_" #name,
	XP_ERROR_LIST(XP_ERR_NAME_)
#undef XP_ERR_NAME_
};

static const char *const err_texts[] = {
#define XP_ERR_TEXT_(name, text) text,
	XP_ERROR_LIST(XP_ERR_TEXT_)
#undef XP_ERR_TEXT_
};

const char *xp_errname(xp_err e)
{
	return (unsigned)e < XP_E_COUNT_ ? err_names[e] : "XP_E_?";
}

const char *xp_strerror(xp_err e)
{
	return (unsigned)e < XP_E_COUNT_ ? err_texts[e] : "unknown error";
}

struct xp_diags {
	unsigned max;
	xp_diag *v;
	size_t n, cap;
	size_t dropped;
};

xp_diags *xp_diags_new(unsigned max_errors)
{
	xp_diags *d = calloc(1, sizeof *d);
	if (d)
		d->max = max_errors ? max_errors : 20;
	return d;
}

static void diag_release(xp_diag *dg)
{
	XP_FREE((char *)dg->file, (char *)dg->msg, (char *)dg->text);
}

void xp_diags_free(xp_diags *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		diag_release(&d->v[i]);
	free(d->v);
	free(d);
}

size_t xp_diags_count(const xp_diags *d) { return d ? d->n : 0; }

const xp_diag *xp_diags_get(const xp_diags *d, size_t i)
{
	return d && i < d->n ? &d->v[i] : NULL;
}

size_t xp_diags_dropped(const xp_diags *d) { return d ? d->dropped : 0; }

int xp_diags_full(const xp_diags *d) { return d && d->n >= d->max; }

static int diag_cmp(const xp_diag *a, const xp_diag *b)
{
	int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	return 0;
}

void xp_diags_sort(xp_diags *d)
{
	/* Insertion sort: stable, and lists are short (capped). */
	if (!d)
		return;
	for (size_t i = 1; i < d->n; i++) {
		xp_diag x = d->v[i];
		size_t j = i;
		while (j > 0 && diag_cmp(&d->v[j - 1], &x) > 0) {
			d->v[j] = d->v[j - 1];
			j--;
		}
		d->v[j] = x;
	}
}

char *xp_strndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	if (p) {
		memcpy(p, s, n);
		p[n] = 0;
	}
	return p;
}

static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return NULL;
	char *p = malloc((size_t)n + 1);
	if (p)
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

/* Appends a diagnostic, taking ownership of msg and text. */
static xp_diag *add(xp_diags *d, xp_err code, const char *file,
                    uint64_t offset, uint32_t line, uint32_t col, char *msg,
                    char *text)
{
	if (!d || d->n >= d->max) {
		if (d)
			d->dropped++;
		free(msg);
		free(text);
		return NULL;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 8;
		xp_diag *v = realloc(d->v, cap * sizeof *v);
		if (!v) {
			d->dropped++;
			free(msg);
			free(text);
			return NULL;
		}
		d->v = v;
		d->cap = cap;
	}
	xp_diag *dg = &d->v[d->n++];
	dg->code = code;
	dg->severity = XP_SEV_ERROR;
	dg->file = xp_strndup(file ? file : "", file ? strlen(file) : 0);
	dg->offset = offset;
	dg->line = line;
	dg->col = col;
	dg->msg = msg ? msg : xp_strndup("out of memory", 13);
	dg->text = text;
	return dg;
}

void xp_diags_append(xp_diags *dst, const xp_diags *src)
{
	for (size_t i = 0; src != NULL && i < src->n; i++) {
		const xp_diag *g = &src->v[i];
		size_t tl = g->text != NULL ? strlen(g->text) : 0;
		xp_diag *n = add(dst, g->code, g->file, g->offset, g->line,
		                 g->col, xp_strndup(g->msg, strlen(g->msg)),
		                 g->text != NULL ? xp_strndup(g->text, tl) : NULL);
		if (n != NULL)
			n->severity = g->severity;
	}
	if (dst != NULL && src != NULL)
		dst->dropped += src->dropped;
}

xp_err xp_diag_text(xp_diags *d, xp_err code, const char *file,
                    uint32_t line, uint32_t col, uint64_t line_off,
                    const char *line_text, size_t line_len,
                    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	char *text = NULL;
	if (line_text) {
		while (line_len > 0 && (line_text[line_len - 1] == '\n' ||
		                        line_text[line_len - 1] == '\r'))
			line_len--;
		/* A line cut short at a NUL byte is shown up to it. */
		const char *nul = memchr(line_text, 0, line_len);
		if (nul)
			line_len = (size_t)(nul - line_text);
		text = xp_strndup(line_text, line_len);
	}
	add(d, code, file, line_off, line ? line : 1, col ? col : 1, msg, text);
	return code;
}

xp_err xp_diag_vbin(xp_diags *d, xp_err code, const char *file,
                    uint64_t offset, const char *fmt, va_list ap)
{
	add(d, code, file, offset, 0, 0, vformat(fmt, ap), NULL);
	return code;
}

xp_err xp_diag_bin(xp_diags *d, xp_err code, const char *file,
                   uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	xp_diag_vbin(d, code, file, offset, fmt, ap);
	va_end(ap);
	return code;
}

xp_err xp_diag_file(xp_diags *d, xp_err code, const char *file,
                    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	add(d, code, file, XP_NOPOS, 0, 0, msg, NULL);
	return code;
}

void xp_diag_warn(xp_diags *d, const char *file, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(fmt, ap);
	va_end(ap);
	xp_diag *dg = add(d, XP_E_OK, file, XP_NOPOS, 0, 0, msg, NULL);
	if (dg)
		dg->severity = XP_SEV_WARNING;
}

/*
 * The part [*from, *to) of a line of len bytes that a diagnostic shows:
 * all of it up to XP_DIAG_WINDOW bytes, otherwise XP_DIAG_WINDOW bytes
 * with the column at (0-based, possibly past the end) in their middle
 * where the line allows.
 */
static void window(size_t len, size_t at, size_t *from, size_t *to)
{
	size_t w = XP_DIAG_WINDOW;

	*from = 0;
	*to = len;
	if (len <= w)
		return;
	if (at > len)
		at = len;
	*from = at > w / 2 ? at - w / 2 : 0;
	if (*from + w > len)
		*from = len - w;
	*to = *from + w;
}

char *xp_diag_format(const xp_diag *dg, const char *prog)
{
	xp_buf b = {0};
	char head[64];
	int ok = 1;
	if (prog) {
		ok &= xp_buf_append(&b, prog, strlen(prog)) == XP_E_OK;
		ok &= xp_buf_append(&b, ": ", 2) == XP_E_OK;
	}
	ok &= xp_buf_append(&b, dg->file, strlen(dg->file)) == XP_E_OK;
	if (dg->line > 0)
		snprintf(head, sizeof head, ":%u:%u: ", dg->line, dg->col);
	else if (dg->offset != XP_NOPOS)
		snprintf(head, sizeof head, ": offset 0x%llx: ",
		         (unsigned long long)dg->offset);
	else if (dg->file[0])
		snprintf(head, sizeof head, ": ");
	else
		head[0] = '\0';  /* a problem of the run, not of a file */
	ok &= xp_buf_append(&b, head, strlen(head)) == XP_E_OK;
	if (dg->severity == XP_SEV_WARNING)
		ok &= xp_buf_append(&b, "warning: ", 9) == XP_E_OK;
	ok &= xp_buf_append(&b, dg->msg, strlen(dg->msg)) == XP_E_OK;
	ok &= xp_buf_append(&b, "\n", 1) == XP_E_OK;
	if (dg->line > 0 && dg->text) {
		size_t len = strlen(dg->text), from, to;
		size_t at = dg->col > 0 ? dg->col - 1 : 0;

		/* A long line is shown as a window of XP_DIAG_WINDOW bytes
		 * around the column, "..." marking where it was cut. */
		window(len, at, &from, &to);
		if (from > 0)
			ok &= xp_buf_append(&b, "...", 3) == XP_E_OK;
		ok &= xp_buf_append(&b, dg->text + from, to - from) == XP_E_OK;
		if (to < len)
			ok &= xp_buf_append(&b, "...", 3) == XP_E_OK;
		ok &= xp_buf_append(&b, "\n", 1) == XP_E_OK;
		/* The caret sits under byte col; tabs are copied so that it
		 * lines up however the terminal expands them. */
		if (from > 0)
			ok &= xp_buf_append(&b, "   ", 3) == XP_E_OK;
		for (size_t i = from; i < at; i++) {
			char c = i < len && dg->text[i] == '\t' ? '\t' : ' ';
			ok &= xp_buf_append(&b, &c, 1) == XP_E_OK;
		}
		ok &= xp_buf_append(&b, "^\n", 2) == XP_E_OK;
	}
	ok &= xp_buf_append(&b, "", 1) == XP_E_OK;
	if (!ok) {
		xp_buf_free(&b);
		return NULL;
	}
	return (char *)b.p;
}
