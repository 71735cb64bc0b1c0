/*
 * dcpi_header.y - the grammar of the ASCII header of a DCPI profile
 * (dcpi(5); ../shared/specs/dcpi-profile.txt gives it in BNF).
 *
 * A pure, reentrant parser with locations; the scanner is
 * grammar/dcpi_header.l, and lib/dcpi/header.c checks what the grammar
 * cannot say and keeps the lines (the xp_dh_on_* handlers).
 *
 * The specification's grammar, and how it maps here:
 *
 *   <header>     : <line>+ <terminator>
 *   <terminator> : "samples" <space>* "\n"
 *   <line>       : <required> "\n" | <optional> "\n" | <unknown> "\n"
 *
 * Its keywords fall into five classes by the kind of their value, and
 * the scanner returns the class as the token (the keyword itself is the
 * token's value):
 *
 *   K_HEXKW   image, cpuamask, tstart      <hex_digit>+
 *   K_DECKW   period, tsize, cpuspeed, cpuimplv, cpucount   <digit>+
 *   K_TIMEKW  epoch                        YYMMDDHHMM | YYYYMMDDHHMMSS
 *   K_RESTKW  platform, event, path        <rest_of_line>
 *   K_VERKW   version                      <major>.<minor>
 *   T_WORD    any other word: an <unknown> line, <rest_of_line> value
 *
 * Choices, and why (dcpi(5) lists them for users):
 *
 *  - A known keyword always makes a line of its kind, never an unknown
 *    line, although "image zz" also matches <unknown>: a bad value is
 *    reported instead of being kept silently under a known name.
 *
 *  - tstart (the text start that the specification's prose relies on but
 *    its grammar does not list) and version (<major>.<minor>, whose
 *    nonterminals the grammar defines and never uses) are known optional
 *    lines.
 *
 *  - Which lines are required, and that every known line appears at most
 *    once, is counted by the handlers: a grammar that counted would have
 *    to list the orders of the lines.  The same goes for the ranges of
 *    the time's fields and for numbers past 64 bits.
 *
 *  - "<rest_of_line>" ends at the newline and keeps everything else,
 *    trailing blanks included.  After any other value, nothing but the
 *    newline may follow (the spec's "\n"); the only line that may carry
 *    trailing blanks is the terminator, whose blanks are the padding.
 *
 *  - Error recovery is per line (`line: error EOL`), and a bad samples
 *    line still ends the header (`K_SAMPLES error EOL`), so every bad
 *    line is reported, up to the error cap.
 *
 *  - parse.error custom: short messages that quote the offending text
 *    and name what was expected in the format's terms.
 *
 *  - No semantic value owns memory: tokens point into the driver's copy
 *    of the header, so no %destructor is needed.
 *
 *  - %expect 0: the grammar has no conflicts.
 */

%define api.pure full
%define api.prefix {xp_dh_}
%define api.value.type {xp_dh_tok}
%define api.location.type {xp_dh_loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0

%param {yyscan_t scanner}
%parse-param {xp_dh_parser *P}

%code requires {
#include "dcpi/header.h"
}

%code provides {
/* The input's bytes at the place of p in the scanned copy, where the
 * driver (lib/dcpi/header.c) has replaced every NUL byte by a stand-in
 * (see there).  Token texts are quoted from the input. */
const char *xp_dh_input(const xp_dh_parser *P, const char *p);
}

%code {
#include <stdio.h>

int xp_dh_lex(XP_DH_STYPE *lval, XP_DH_LTYPE *lloc, yyscan_t scanner);
static void yyerror(const XP_DH_LTYPE *loc, yyscan_t scanner, xp_dh_parser *P,
                    const char *msg);

#define YYLLOC_DEFAULT(Cur, Rhs, N)                                       \
	do {                                                              \
		if (N)                                                    \
			(Cur) = YYRHSLOC(Rhs, 1);                         \
		else                                                      \
			(Cur) = YYRHSLOC(Rhs, 0);                         \
	} while (0)

/* Runs a handler; stops the parse once the error cap is reached. */
#define H(call)                                                           \
	do {                                                              \
		call;                                                     \
		if (xp_dh_stopped(P))                                       \
			YYABORT;                                          \
	} while (0)
}

%token EOL "end of line"
%token SEP "blank"
%token T_BLANK "misplaced blank"
%token T_PAD "padding"
%token T_HEX "hexadecimal number"
%token T_DEC "decimal number"
%token T_TIME "time"
%token T_VER "version number"
%token T_REST "value"
%token T_BAD "invalid value"
%token T_WORD "keyword"
%token K_HEXKW "hex keyword"
%token K_DECKW "decimal keyword"
%token K_TIMEKW "epoch"
%token K_RESTKW "text keyword"
%token K_VERKW "version"
%token K_SAMPLES "samples"

%%

header:
	lines terminator
	;

lines:
	%empty
	| lines line
	;

line:
	K_HEXKW SEP T_HEX EOL	{ H(xp_dh_on_line(P, &$1, &@1, &$3, &@3)); }
	| K_DECKW SEP T_DEC EOL	{ H(xp_dh_on_line(P, &$1, &@1, &$3, &@3)); }
	| K_TIMEKW SEP T_TIME EOL { H(xp_dh_on_line(P, &$1, &@1, &$3, &@3)); }
	| K_VERKW SEP T_VER EOL	{ H(xp_dh_on_line(P, &$1, &@1, &$3, &@3)); }
	| K_RESTKW SEP T_REST EOL { H(xp_dh_on_line(P, &$1, &@1, &$3, &@3)); }
	| T_WORD SEP T_REST EOL	{ H(xp_dh_on_line(P, &$1, &@1, &$3, &@3)); }
	| error EOL		{ yyerrok; H(xp_dh_on_bad_line(P)); }
	;

terminator:
	K_SAMPLES pad EOL	{ H(xp_dh_on_samples(P, &@1)); }
	| K_SAMPLES error EOL	{ yyerrok; H(xp_dh_on_bad_line(P)); }
	;

pad:
	%empty
	| T_PAD
	;

%%

/* Called by bison only when its stacks cannot grow. */
static void yyerror(const XP_DH_LTYPE *loc, yyscan_t scanner, xp_dh_parser *P,
                    const char *msg)
{
	(void)scanner;
	xp_dh_report(P, loc, "%s", msg);
}

/* How a token is named in "expecting ..." lists. */
static const char *expect_name(yysymbol_kind_t k)
{
	switch (k) {
	case YYSYMBOL_YYEOF: return "end of file";
	case YYSYMBOL_EOL: return "end of line";
	case YYSYMBOL_SEP: return "a blank";
	case YYSYMBOL_T_HEX: return "a hexadecimal number";
	case YYSYMBOL_T_DEC: return "a decimal number";
	case YYSYMBOL_T_TIME:
		return "a time (YYMMDDHHMM or YYYYMMDDHHMMSS)";
	case YYSYMBOL_T_VER: return "a version (<major>.<minor>)";
	case YYSYMBOL_T_REST: return "a value";
	default: return yysymbol_name(k);
	}
}

static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner,
                                 xp_dh_parser *P)
{
	enum { MAXEXP = 12 };
	yysymbol_kind_t exp[MAXEXP];
	yysymbol_kind_t la = yypcontext_token(ctx);
	const xp_dh_loc *loc = yypcontext_location(ctx);
	const char *ltext;
	size_t llen;
	int n = yypcontext_expected_tokens(ctx, exp, MAXEXP);
	int line_start = 0, samples = 0;
	char what[128];
	char expects[256] = "";

	xp_dh_scanner_last(scanner, &ltext, &llen);
	if (llen > 0)
		ltext = xp_dh_input(P, ltext);
	for (int i = 0; i < n; i++) {
		if (exp[i] == YYSYMBOL_T_WORD)
			line_start = 1;
		if (exp[i] == YYSYMBOL_K_SAMPLES)
			samples = 1;
	}
	if (la == YYSYMBOL_YYEOF && samples) {
		xp_dh_no_samples(P, loc);
		return 0;
	}
	switch (la) {
	case YYSYMBOL_YYEOF:
	case YYSYMBOL_EOL:
		snprintf(what, sizeof what, "%s", expect_name(la));
		break;
	case YYSYMBOL_SEP:
	case YYSYMBOL_T_BLANK:
	case YYSYMBOL_T_PAD:
		snprintf(what, sizeof what, "blank");
		break;
	default: {
		size_t k = llen > 40 ? 40 : llen;
		char q[48];
		size_t j = 0;

		/* Quote the text; NULs would cut the message short. */
		for (size_t i = 0; i < k; i++)
			q[j++] = ltext[i] != '\0' ? ltext[i] : '?';
		q[j] = '\0';
		snprintf(what, sizeof what, "\"%s%s\"", q,
		         k < llen ? "..." : "");
		break;
	}
	}
	if (line_start) {
		snprintf(expects, sizeof expects,
		         ", expecting a header line or samples");
	} else if (n > 0) {
		size_t off = 0;
		for (int i = 0; i < n && off < sizeof expects; i++)
			off += (size_t)snprintf(expects + off,
			                        sizeof expects - off, "%s%s",
			                        i == 0 ? ", expecting "
			                        : i == n - 1 ? " or " : ", ",
			                        expect_name(exp[i]));
	}
	xp_dh_report(P, loc, "unexpected %s%s", what, expects);
	return 0;
}
