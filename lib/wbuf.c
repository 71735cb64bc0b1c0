/*
 * wbuf.c - the buffered writer behind the text and database writers: it
 * stages output in a large buffer and hands it to write(2) or to a
 * growing memory buffer, keeping the first error.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

#define WBUF_SIZE (1u << 20)

static xp_err init(xp_wbuf *w, int fd)
{
	memset(w, 0, sizeof *w);
	w->fd = fd;
	w->buf = malloc(WBUF_SIZE);
	if (!w->buf) {
		w->err = XP_E_NOMEM;
		return XP_E_NOMEM;
	}
	w->cap = WBUF_SIZE;
	return XP_E_OK;
}

xp_err xp_wbuf_init_fd(xp_wbuf *w, int fd) { return init(w, fd); }
xp_err xp_wbuf_init_mem(xp_wbuf *w) { return init(w, -1); }

static void fail(xp_wbuf *w, xp_err err, int e)
{
	if (w->err == XP_E_OK) {
		w->err = err;
		w->saved_errno = e;
	}
}

/* Sends n bytes to the target, bypassing the stage. */
static void sink(xp_wbuf *w, const unsigned char *p, size_t n)
{
	if (w->err)
		return;
	if (w->fd < 0) {
		if (xp_buf_append(&w->mem, p, n))
			fail(w, XP_E_NOMEM, ENOMEM);
		return;
	}
	while (n > 0) {
		ssize_t k = write(w->fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			fail(w, XP_E_IO, errno);
			return;
		}
		p += k;
		n -= (size_t)k;
	}
}

xp_err xp_wbuf_flush(xp_wbuf *w)
{
	if (w->len) {
		sink(w, w->buf, w->len);
		w->len = 0;
	}
	return w->err;
}

unsigned char *xp_wbuf_reserve_slow(xp_wbuf *w, size_t n)
{
	if (w->err || n > w->cap)
		return NULL;
	xp_wbuf_flush(w);
	return w->err ? NULL : w->buf;
}

void xp_wbuf_write(xp_wbuf *w, const void *p, size_t n)
{
	if (w->err)
		return;
	if (w->crc_on)
		w->crc = xp_crc32c(w->crc, p, n);
	w->total += n;
	if (n <= w->cap - w->len) {
		memcpy(w->buf + w->len, p, n);
		w->len += n;
		return;
	}
	xp_wbuf_flush(w);
	if (n < w->cap / 2) {
		memcpy(w->buf, p, n);
		w->len = n;
	} else {
		sink(w, p, n);
	}
}

xp_err xp_wbuf_close(xp_wbuf *w, unsigned char **mem, size_t *len)
{
	xp_wbuf_flush(w);
	free(w->buf);
	w->buf = NULL;
	w->cap = w->len = 0;
	if (w->err) {
		xp_buf_free(&w->mem);
		if (mem)
			*mem = NULL;
		if (len)
			*len = 0;
		if (w->saved_errno)
			errno = w->saved_errno;
		return w->err;
	}
	if (w->fd < 0) {
		if (mem)
			*mem = w->mem.p;
		else
			free(w->mem.p);
		if (len)
			*len = w->mem.len;
		w->mem = (xp_buf){0};
	}
	return XP_E_OK;
}

void xp_wbuf_discard(xp_wbuf *w)
{
	free(w->buf);
	w->buf = NULL;
	w->cap = w->len = 0;
	xp_buf_free(&w->mem);
}
