/*
 * dcpi/header.h - the interface shared by the DCPI header scanner
 * (grammar/dcpi_header.l), its parser (grammar/dcpi_header.y) and the
 * driver that checks and keeps what they find (lib/dcpi/header.c).
 * Nothing here is public; no flex or bison type leaks out of the module.
 */
#ifndef XP_DCPI_HEADER_H
#define XP_DCPI_HEADER_H

#include <stddef.h>
#include <stdint.h>

#include "dcpi/dcpi.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

typedef struct xp_dh_parser xp_dh_parser;

/* Every token's value: its bytes in the scanned copy and its column. */
typedef struct {
	const char *s;
	uint32_t len;
	uint32_t col;     /* 1-based */
	int kind;         /* keywords: their xp_dcpi_kind */
} xp_dh_tok;

/* Where a token starts. */
typedef struct {
	const char *lstart;  /* start of its line in the scanned copy */
	uint32_t line, col;
} xp_dh_loc;

/* Scanner side (dcpi_header.l). */
int xp_dh_scanner_new(xp_dh_parser *P, char *buf, size_t len, yyscan_t *out);
void xp_dh_scanner_free(yyscan_t s);
/* The text of the last token returned. */
void xp_dh_scanner_last(yyscan_t s, const char **text, size_t *len);

/* Driver side (header.c). */
_Noreturn void xp_dh_fatal(xp_dh_parser *P, const char *msg);
int xp_dh_stopped(const xp_dh_parser *P);
/* Reports a syntax error at a column of a line. */
void xp_dh_report(xp_dh_parser *P, const xp_dh_loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Reports, once, that the header has no samples line. */
void xp_dh_no_samples(xp_dh_parser *P, const xp_dh_loc *loc);
/* A well-formed line: keyword (or unknown word) and value. */
void xp_dh_on_line(xp_dh_parser *P, const xp_dh_tok *key, const xp_dh_loc *kloc,
                 const xp_dh_tok *val, const xp_dh_loc *vloc);
/* The samples line (pad may be NULL); ends the header. */
void xp_dh_on_samples(xp_dh_parser *P, const xp_dh_loc *kloc);
/* A line with a syntax error (already reported). */
void xp_dh_on_bad_line(xp_dh_parser *P);

#endif
