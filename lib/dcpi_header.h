/*
 * dcpi_header.h - the interface shared by the DCPI header scanner
 * (grammar/dcpi_header.l), its parser (grammar/dcpi_header.y) and the
 * driver that checks and keeps what they find (lib/dcpi_header.c).
 * Nothing here is public; no flex or bison type leaks out of the module.
 */
#ifndef XP_DCPI_HEADER_H
#define XP_DCPI_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "dcpi_impl.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

typedef struct xpd_parser xpd_parser;

/* Every token's value: its bytes in the scanned copy and its column. */
typedef struct {
	const char *s;
	uint32_t len;
	uint32_t col;     /* 1-based */
	int kind;         /* keywords: their xp_dcpi_kind */
} xpd_tok;

/* Where a token starts. */
typedef struct {
	const char *lstart;  /* start of its line in the scanned copy */
	uint32_t line, col;
} xpd_loc;

/* Scanner side (dcpi_header.l). */
int xpd_scanner_new(xpd_parser *P, char *buf, size_t len, yyscan_t *out);
void xpd_scanner_free(yyscan_t s);
/* The text of the last token returned. */
void xpd_scanner_last(yyscan_t s, const char **text, size_t *len);

/* Driver side (dcpi_header.c). */
_Noreturn void xpd_fatal(xpd_parser *P, const char *msg);
int xpd_stopped(const xpd_parser *P);
/* Reports a syntax error at a column of a line. */
void xpd_report(xpd_parser *P, const xpd_loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reports, once, that the header has no samples line. */
void xpd_no_samples(xpd_parser *P, const xpd_loc *loc);
/* A well-formed line: keyword (or unknown word) and value. */
void xpd_on_line(xpd_parser *P, const xpd_tok *key, const xpd_loc *kloc,
                 const xpd_tok *val, const xpd_loc *vloc);
/* The samples line (pad may be NULL); ends the header. */
void xpd_on_samples(xpd_parser *P, const xpd_loc *kloc);
/* A line with a syntax error (already reported). */
void xpd_on_bad_line(xpd_parser *P);

#endif
