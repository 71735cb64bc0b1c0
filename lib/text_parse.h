/*
 * text_parse.h - the interface shared by the feedback text scanner
 * (grammar/xprof_text.l), the parser (grammar/xprof_text.y) and the driver
 * (lib/text_parse.c).  Nothing here is public; no flex or bison type leaks
 * into xprof.h.
 *
 * A canonical line is decoded by the scanner itself into an xpt_line
 * (its numbers and field columns) and handed straight to its xpt_on_*
 * handler.  Any other line is cut into generic tokens (xpt_tok: the text,
 * its column and, for numbers, the decoded value); the parser's actions
 * assemble the same xpt_line from them and call the same handler, so both
 * paths build identical profiles.
 */
#ifndef XPROF_TEXT_PARSE_H
#define XPROF_TEXT_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

typedef struct xpt_parser xpt_parser;

/* The value of every token: text, column and decoded number. */
typedef struct {
	const char *s;   /* the token's bytes in the chunk buffer */
	uint32_t len;
	uint32_t col;    /* 1-based column of its first byte */
	uint64_t v;      /* numbers, ids of B<n>, E<n>, S<n>:, VP type */
	uint32_t v2;     /* the column part of line:col */
	uint8_t ovf;     /* 1: v overflowed 64 bits; 2: v2 overflowed */
} xpt_tok;

/* Where a token starts.  Line text is found from lstart when needed. */
typedef struct {
	const char *lstart;  /* start of the token's line in its chunk */
	uint64_t loff;       /* byte offset of that line in the input */
	uint32_t line, col;
} xpt_loc;

/* Zero bytes that follow the two NULs ending a chunk, so that the
 * scanner may read a whole 8-byte word at any position up to them. */
#define XPT_PAD 8

/* Maximum number of numeric fields of a line (OBJFILE, PROC). */
#define XPT_NF 9

/*
 * One decoded line.  Numeric fields are v[0..]; f_ovf has bit i set when
 * field i did not fit 64 bits; col[i] is the column of field i.  The name
 * field (path, proc name, value text, pair) is s/slen at scol; has_s is 0
 * when an optional name field is absent.
 */
typedef struct {
	const char *lstart;
	uint64_t loff;
	uint32_t line;
	uint32_t nv;          /* tuples/SRCLINE: 1 when a column is given */
	uint64_t v[XPT_NF];
	uint32_t col[XPT_NF];
	uint32_t f_ovf;
	const char *s;
	size_t slen;
	uint32_t scol;
	int has_s;
	int kind;             /* stat kind or VP type */
} xpt_line;

/* Scanner side, defined in xprof_text.l. */
int xpt_scanner_new(xpt_parser *P, int slow_only, yyscan_t *out);
void xpt_scanner_free(yyscan_t s);
/* Starts scanning a chunk (len bytes followed by two NUL bytes and
 * XPT_PAD more) that begins at input offset off. */
void xpt_scanner_chunk(yyscan_t s, char *buf, size_t len, uint64_t off);
/* The text of the last token returned (the parser's lookahead). */
void xpt_scanner_last(yyscan_t s, const char **text, size_t *len);
/* After a syntax error: drop the rest of the current line. */
void xpt_scanner_skip_line(yyscan_t s);
/* Where the scanner has put a NUL over the input, and the byte it hid. */
void xpt_scanner_hold(yyscan_t s, const char **pos, char *ch);

/* Driver side, defined in text_parse.c. */
/* A fatal scanner error: unwinds to the parser's entry point. */
_Noreturn void xpt_fatal(xpt_parser *P, const char *msg);
/* Loads the next chunk into the scanner; 0 at the end of the input. */
int xpt_next_chunk(xpt_parser *P, yyscan_t s);
/* The flag xpt_stopped() reads, for the scanner to test cheaply. */
const int *xpt_stop_flag(const xpt_parser *P);
/* Nonzero once parsing must stop (error cap, fatal error). */
int xpt_stopped(const xpt_parser *P);

/* Reports an error at a column of a line; keeps count. */
void xpt_report(xpt_parser *P, const char *lstart, uint64_t loff,
               uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Line handlers, one per record kind; the parser calls them for slow
 * lines, the scanner for canonical ones. */
void xpt_on_header(xpt_parser *P, const xpt_tok *ver,
                   const xpt_loc *vloc, const xpt_tok *type,
                   const xpt_loc *tloc);
void xpt_on_header_count(xpt_parser *P, const xpt_tok *t,
                         const xpt_loc *loc);
void xpt_on_objfile(xpt_parser *P, const xpt_line *l);
void xpt_on_proc(xpt_parser *P, const xpt_line *l);
void xpt_on_stat(xpt_parser *P, const xpt_line *l);
void xpt_on_counter(xpt_parser *P, const xpt_line *l);
void xpt_on_vp(xpt_parser *P, const xpt_line *l);
void xpt_on_block(xpt_parser *P, const xpt_line *l);
void xpt_on_edge(xpt_parser *P, const xpt_line *l);
void xpt_on_tuple(xpt_parser *P, const xpt_line *l);
void xpt_on_program(xpt_parser *P, const xpt_line *l);
void xpt_on_objref(xpt_parser *P, const xpt_line *l);
void xpt_on_comdat(xpt_parser *P, const xpt_line *l);
void xpt_on_srcfile(xpt_parser *P, const xpt_line *l);
void xpt_on_srcline(xpt_parser *P, const xpt_line *l);
void xpt_on_blockref(xpt_parser *P, const xpt_line *l);
/* A line had a syntax error. */
void xpt_on_bad_line(xpt_parser *P);
/* End of input: closes every open section and checks the header. */
void xpt_on_end(xpt_parser *P);

/* The parser, generated from xprof_text.y. */
int xpt_parse(yyscan_t scanner, xpt_parser *P);

#endif /* XPROF_TEXT_PARSE_H */
