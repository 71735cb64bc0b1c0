/*
 * feedback/text_parse.h - the interface shared by the feedback text scanner
 * (grammar/xprof_text.l), the parser (grammar/xprof_text.y) and the driver
 * (lib/feedback/text_parse.c).  Nothing here is public; no flex or bison
 * type leaks
 * into xprof.h.
 *
 * A canonical line is decoded for the scanner (text_decode.c, from the
 * record lists of text_records.h) into an xp_tx_line (its numbers and
 * field columns) and handed straight to its xp_tx_on_* handler.  Any other line is cut into generic tokens (xp_tx_tok: the text,
 * its column and, for numbers, the decoded value); the parser's actions
 * assemble the same xp_tx_line from them and call the same handler, so both
 * paths build identical profiles.
 */
#ifndef XPROF_TEXT_PARSE_H
#define XPROF_TEXT_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "base/internal.h"
#include "feedback/text_records.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

typedef struct xp_tx_parser xp_tx_parser;

/* The value of every token: text, column and decoded number. */
typedef struct {
	const char *s;   /* the token's bytes in the chunk buffer */
	uint32_t len;
	uint32_t col;    /* 1-based column of its first byte */
	uint64_t v;      /* numbers, ids of B<n>, E<n>, S<n>:, VP type */
	uint32_t v2;     /* the column part of line:col */
	uint8_t ovf;     /* 1: v overflowed 64 bits; 2: v2 overflowed */
} xp_tx_tok;

/* Where a token starts.  Line text is found from lstart when needed. */
typedef struct {
	const char *lstart;  /* start of the token's line in its chunk */
	uint64_t loff;       /* byte offset of that line in the input */
	uint32_t line, col;
} xp_tx_loc;

/*
 * The longest line a feedback text may have (xprof_text(5)): real lines
 * are a few KB at the most, and a chunk must hold a whole line, so a
 * file without line ends (a binary file, a run of NULs) is refused once
 * a line passes this, before its buffer grows without bound; the search
 * for places to cut a text on threads (text_jobs.c) gives up there too.
 */
#define XP_TX_MAX_LINE ((size_t)64 << 20)

/* Zero bytes that follow the two NULs ending a chunk, so that the
 * decoder (text_decode.c) may read a whole 8-byte word at any position
 * up to them, and compare a keyword (at most 13 bytes) whole at any
 * position before them. */
#define XP_TX_PAD 16

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
	uint64_t v[XP_TX_NF];
	uint32_t col[XP_TX_NF];
	uint32_t f_ovf;
	const char *s;
	size_t slen;
	uint32_t scol;
	int has_s;
	int kind;             /* stat kind or VP type */
} xp_tx_line;

/*
 * What a line's keyword says the line is, for the recovery after an
 * error in it: a record kind, XP_TXK_<kind> (text_records.h); none (a
 * line that starts with no keyword: a counter record, a block ref or
 * junk); or an unknown keyword that resembles no keyword.
 */
#define XP_TX_KIND_ENUM(R) XP_TXK_##R,
typedef enum {
	XP_TX_RECORDS(XP_TX_KIND_ENUM)
	XP_TXK_NONE,
	XP_TXK_UNKNOWN
} xp_tx_kind;
#undef XP_TX_KIND_ENUM

/* Scanner side, defined in xprof_text.l. */
int xp_tx_scanner_new(xp_tx_parser *P, int slow_only, yyscan_t *out);
void xp_tx_scanner_free(yyscan_t s);
/* Starts scanning a chunk (len bytes followed by two NUL bytes and
 * XP_TX_PAD more) that begins at input offset off. */
void xp_tx_scanner_chunk(yyscan_t s, char *buf, size_t len, uint64_t off);
/* The text of the last token returned (the parser's lookahead). */
void xp_tx_scanner_last(yyscan_t s, const char **text, size_t *len);
/* After a syntax error: drop the rest of the current line. */
void xp_tx_scanner_skip_line(yyscan_t s);
/* The kind the keyword of the slow line being scanned names
 * (XP_TXK_NONE for a line that starts with no keyword). */
xp_tx_kind xp_tx_scanner_line_kind(yyscan_t s);
/* The number of the line being scanned. */
uint32_t xp_tx_scanner_line(yyscan_t s);
/* Where the scanner has put a NUL over the input, and the byte it hid. */
void xp_tx_scanner_hold(yyscan_t s, const char **pos, char *ch);

/*
 * The fast path, defined in text_decode.c: decodes the canonical lines
 * from p on (p is the start of line *line of a chunk that starts at base,
 * input offset base_off) into L and hands each to its handler, until a
 * line is not canonical, the chunk ends or the handlers stop the parse.
 * Returns the start of the first line it did not take (p itself when the
 * first is not canonical); *line is that line's number.
 */
const char *xp_tx_fast_lines(xp_tx_parser *P, xp_tx_line *L, const char *p,
                             const char *base, uint64_t base_off,
                             uint32_t *line);
/* The slow path's numbers: n decimal digits (returns 1 if they do not
 * fit 64 bits, then *v is UINT64_MAX); 0x and n - 2 hex digits (the
 * same); <line>:<col> (bit 0 of the result: the line overflowed, bit 1:
 * the column does not fit 32 bits). */
int xp_tx_sdec(const char *s, size_t n, uint64_t *v);
int xp_tx_shex(const char *s, size_t n, uint64_t *v);
int xp_tx_slinecol(const char *s, size_t n, uint64_t *v, uint32_t *v2);

/* Driver side, defined in text_parse.c. */
/* A fatal scanner error: unwinds to the parser's entry point. */
_Noreturn void xp_tx_fatal(xp_tx_parser *P, const char *msg);
/* Loads the next chunk into the scanner; 0 at the end of the input. */
int xp_tx_next_chunk(xp_tx_parser *P, yyscan_t s);
/* The flag xp_tx_stopped() reads, for the scanner to test cheaply. */
const int *xp_tx_stop_flag(const xp_tx_parser *P);
/* Nonzero once parsing must stop (error cap, fatal error). */
int xp_tx_stopped(const xp_tx_parser *P);

/* The kind of record keyword s (n bytes, with its colon), or XP_TXK_NONE
 * when s is no keyword. */
xp_tx_kind xp_tx_keyword(const char *s, size_t n);

/* Reports an error at a column of a line; keeps count. */
void xp_tx_report(xp_tx_parser *P, const char *lstart, uint64_t loff,
               uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Line handlers, one per record kind; the parser calls them for slow
 * lines, the scanner for canonical ones. */
void xp_tx_on_header(xp_tx_parser *P, const xp_tx_tok *ver,
                   const xp_tx_loc *vloc, const xp_tx_tok *type,
                   const xp_tx_loc *tloc);
void xp_tx_on_header_count(xp_tx_parser *P, const xp_tx_tok *t,
                         const xp_tx_loc *loc);
void xp_tx_on_objfile(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_proc(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_stat(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_counter(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_vp(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_block(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_edge(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_tuple(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_program(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_objref(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_comdat(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_srcfile(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_srcline(xp_tx_parser *P, const xp_tx_line *l);
void xp_tx_on_blockref(xp_tx_parser *P, const xp_tx_line *l);
/* A line had a syntax error; kind is what its keyword named. */
void xp_tx_on_bad_line(xp_tx_parser *P, xp_tx_kind kind);
/* A line started with an unknown keyword (the name field of l; kind is
 * 1 when more text was glued to it). */
void xp_tx_on_unknown(xp_tx_parser *P, const xp_tx_line *l);
/* End of input: closes every open section and checks the header. */
void xp_tx_on_end(xp_tx_parser *P);

/*
 * A part of a text, parsed on a thread of its own (text_jobs.c): the
 * text's header (bytes [hstart, hend) of the input), then its own
 * sections (bytes [start, end)).  What the sections of the other parts
 * decide is left to the join: the header's section counts, the path of
 * an OBJFILE that an OBJREF names, a path that two parts define.
 */
typedef struct {
	size_t hstart, hend, start, end;
	/* What xp_tx_parse_part gives back: */
	xp_fbb *b;              /* the records, not sealed */
	unsigned minor, ncounts;
	xp_datatype type;
	uint64_t hcount[4];     /* the header's counts */
	uint32_t n_obj, n_prog, n_src;
	uint32_t *objs;         /* the paths of its n_obj OBJFILEs (b's ids) */
	uint32_t *late;         /* OBJREF paths (b's ids) no OBJFILE before */
	size_t nlate;           /* them in the part defined */
} xp_tx_part;

/*
 * Parses part pt of the text in buf (fd < 0) or in the regular file fd.
 * XP_E_OK when it holds no error, else the first error's code, and
 * nothing in pt; it reports nothing (the caller parses the text on one
 * thread to report).
 */
xp_err xp_tx_parse_part(int fd, const void *buf, const char *name,
                        xp_tx_part *pt);
/*
 * Parses the text in bytes [start, end) of buf (fd < 0) or of the
 * regular file fd in up to jobs (at most 64) parts on as many threads
 * (text_jobs.c).
 * Returns 1 with *out set when the text splits into parts that hold no
 * error, 0 when it must be parsed on one thread: it does not split, or
 * it has an error (the text is then parsed again on one thread, which
 * reports what a text with errors has to say as it always does).
 */
int xp_tx_parse_jobs(int fd, const void *buf, size_t start, size_t end,
                     const char *name, unsigned jobs, xp_fb **out);

/* The parser, generated from xprof_text.y. */
int xp_tx_parse(yyscan_t scanner, xp_tx_parser *P);

#endif /* XPROF_TEXT_PARSE_H */
