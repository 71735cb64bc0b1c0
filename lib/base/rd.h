/*
 * base/rd.h - the bounds-checked readers that the format modules build on: a
 * byte reader for binary files of either byte order, and a line reader
 * for text forms, each with diagnostics that carry the position.
 */
#ifndef XP_RD_H
#define XP_RD_H

#include "base/internal.h"

/* ------------------------------------------------------------------ */
/* Binary                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
	const unsigned char *p;
	size_t len, pos;
	int big;               /* big-endian words */
	const char *name;      /* for diagnostics */
	xp_diags *d;
} xp_rd;

static inline void xp_rd_init(xp_rd *r, const unsigned char *p, size_t len,
                              int big, const char *name, xp_diags *d)
{
	r->p = p;
	r->len = len;
	r->pos = 0;
	r->big = big;
	r->name = name;
	r->d = d;
}

/* Bytes left. */
static inline size_t xp_rd_left(const xp_rd *r)
{
	return r->len - r->pos;
}

/* True when n more bytes are there. */
static inline int xp_rd_has(const xp_rd *r, size_t n)
{
	return n <= r->len - r->pos;
}

/* The next n bytes (callers check xp_rd_has first). */
static inline const unsigned char *xp_rd_bytes(xp_rd *r, size_t n)
{
	const unsigned char *q = r->p + r->pos;
	r->pos += n;
	return q;
}

/* Words of 4 or 8 bytes in the reader's byte order (checked first). */
static inline uint32_t xp_rd_u32(xp_rd *r)
{
	const unsigned char *q = xp_rd_bytes(r, 4);
	return r->big ? xp_get_be32(q) : xp_get_le32(q);
}

static inline uint64_t xp_rd_u64(xp_rd *r)
{
	const unsigned char *q = xp_rd_bytes(r, 8);
	return r->big ? xp_get_be64(q) : xp_get_le64(q);
}

static inline uint64_t xp_rd_word(xp_rd *r, unsigned size)
{
	return size == 8 ? xp_rd_u64(r) : xp_rd_u32(r);
}

/* Adds an error at offset off of the reader's file; returns code. */
xp_err xp_rd_error(const xp_rd *r, xp_err code, uint64_t off,
                   const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* "truncated FIELD: N bytes needed, M left" at the current position,
 * unless n bytes are there; returns XP_E_OK or XP_E_CORRUPT. */
xp_err xp_rd_need(const xp_rd *r, size_t n, const char *what);

/* The value of a hexadecimal digit, or -1. */
static inline int xp_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * A number of the text forms: decimal, or hexadecimal after "0x" (or
 * "0X"), n > 0 bytes at s.  0 with *out set; -1 when a byte is not a
 * digit; 1 when the value does not fit in 64 bits.
 */
int xp_parse_u64(const char *s, size_t n, uint64_t *out);

/* printf(3) into a writer, whatever the length. */
void xp_wbuf_printf(xp_wbuf *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes words of 4 or 8 bytes in either byte order. */
void xp_wbuf_word(xp_wbuf *w, uint64_t v, unsigned size, int big);

/* ------------------------------------------------------------------ */
/* Text                                                                */
/* ------------------------------------------------------------------ */

typedef struct {
	const char *p, *end;   /* what is left */
	const char *line;      /* the current line, without its newline */
	size_t len;
	uint32_t lineno;       /* 1-based; 0 before the first line */
	uint64_t off;          /* offset of the current line */
	const char *base;
	const char *name;
	xp_diags *d;
} xp_lines;

/* Whether head (len bytes) opens with the word kw, then a space or the
 * end of the line: how a module's text form is recognised. */
int xp_text_keyword(const unsigned char *head, size_t len, const char *kw);

void xp_lines_init(xp_lines *l, const void *buf, size_t len,
                   const char *name, xp_diags *d);
/* Moves to the next line ("\n" ends a line; the last may lack one; a
 * "\r" before the "\n" is kept in the line).  Returns 0 at the end. */
int xp_lines_next(xp_lines *l);
/* True when the input ended with a newline (or is empty). */
int xp_lines_final_newline(const xp_lines *l);
/*
 * Adds an error at column (at - l->line + 1) of the current line, at
 * may be NULL for column 1.  Returns code.
 */
xp_err xp_lines_error(const xp_lines *l, xp_err code, const char *at,
                      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
