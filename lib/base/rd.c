/*
 * base/rd.c - the out-of-line parts of the readers of rd.h, and the read
 * window of internal.h.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "base/rd.h"

xp_err xp_rd_error(const xp_rd *r, xp_err code, uint64_t off,
                   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	xp_diag_vbin(r->d, code, r->name, off, fmt, ap);
	va_end(ap);
	return code;
}

xp_err xp_rd_need(const xp_rd *r, size_t n, const char *what)
{
	if (xp_rd_has(r, n))
		return XP_E_OK;
	return xp_rd_error(r, XP_E_CORRUPT, r->pos,
	                   "truncated %s: %zu bytes needed, %zu left", what, n,
	                   xp_rd_left(r));
}

void xp_wbuf_printf(xp_wbuf *w, const char *fmt, ...)
{
	char buf[256], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if ((size_t)n < sizeof buf) {
		xp_wbuf_write(w, buf, (size_t)n);
		return;
	}
	if ((big = malloc((size_t)n + 1)) == NULL) {
		if (w->err == XP_E_OK)
			w->err = XP_E_NOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	xp_wbuf_write(w, big, (size_t)n);
	free(big);
}

void xp_wbuf_word(xp_wbuf *w, uint64_t v, unsigned size, int big)
{
	unsigned char b[8];

	for (unsigned i = 0; i < size; i++) {
		unsigned shift = big ? 8 * (size - 1 - i) : 8 * i;
		b[i] = (unsigned char)(v >> shift);
	}
	xp_wbuf_write(w, b, size);
}

void xp_lines_init(xp_lines *l, const void *buf, size_t len,
                   const char *name, xp_diags *d)
{
	l->base = l->p = buf;
	l->end = l->p + len;
	l->line = l->p;
	l->len = 0;
	l->lineno = 0;
	l->off = 0;
	l->name = name;
	l->d = d;
}

int xp_lines_next(xp_lines *l)
{
	const char *nl;

	if (l->p >= l->end)
		return 0;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	l->line = l->p;
	l->len = (size_t)((nl != NULL ? nl : l->end) - l->p);
	l->off = (uint64_t)(l->p - l->base);
	l->lineno++;
	l->p = nl != NULL ? nl + 1 : l->end;
	return 1;
}

int xp_lines_final_newline(const xp_lines *l)
{
	return l->end == l->base || l->end[-1] == '\n';
}

xp_err xp_lines_error(const xp_lines *l, xp_err code, const char *at,
                      const char *fmt, ...)
{
	char msg[512];
	uint32_t col = 1;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (at != NULL && at >= l->line && at <= l->line + l->len)
		col = (uint32_t)(at - l->line) + 1;
	return xp_diag_text(l->d, code, l->name, l->lineno ? l->lineno : 1,
	                    col, l->off, l->line, l->len, "%s", msg);
}

int xp_parse_u64(const char *s, size_t n, uint64_t *out)
{
	unsigned base = 10;
	size_t i = 0;
	uint64_t v = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; i < n; i++) {
		int d = xp_hexval((unsigned char)s[i]);
		if (d < 0 || (unsigned)d >= base)
			return -1;
		if (v > (UINT64_MAX - (unsigned)d) / base)
			return 1;
		v = v * base + (unsigned)d;
	}
	*out = v;
	return 0;
}

int xp_text_keyword(const unsigned char *head, size_t len, const char *kw)
{
	size_t kl = strlen(kw);

	return len > kl && memcmp(head, kw, kl) == 0 &&
	       (head[kl] == ' ' || head[kl] == '\n' || head[kl] == '\r');
}

const unsigned char *xp_win_get_slow(xp_win *w, uint64_t from, uint64_t to)
{
	size_t keep = 0;
	if (to - from > w->cap) {
		w->err = EINVAL;
		return NULL;
	}
	if (from >= w->start && from < w->end) {
		keep = (size_t)(w->end - from);
		memmove(w->buf, w->buf + (from - w->start), keep);
	}
	w->start = from;
	w->end = from + keep;
	while (w->end < to) {
		ssize_t k = pread(w->fd, w->buf + (w->end - w->start),
		                  w->cap - (size_t)(w->end - w->start),
		                  (off_t)w->end);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = k < 0 ? errno : -1;
			w->start = w->end = 0;
			return NULL;
		}
		w->end += (uint64_t)k;
	}
	return w->buf;
}
