/*
 * xprof_text.y - the grammar of the feedback text (xprof_text(5)).
 *
 * A pure, reentrant parser with locations; the scanner is
 * grammar/xprof_text.l and the semantic checks and the building of the
 * profile live in lib/feedback/text_parse.c, reached through the xp_tx_on_* handlers
 * (lib/feedback/text_parse.h).
 *
 * Choices, and why:
 *
 *  - The grammar is line-based: a text is a header followed by a flat list
 *    of lines.  Which line may follow which (stats first in a section, the
 *    record order inside a PROC, OBJREF before COMDAT_PROC, block refs
 *    under a SRCLINE) is checked by the handlers, not by productions.  The
 *    counts declared by head lines have to be checked against what follows
 *    anyway, which needs the same state; keeping it in one place lets the
 *    errors say what is wrong in the format's own terms ("counter record
 *    after block records", "PROC declares 3 counter records, found 2")
 *    instead of a list of expected tokens, and it makes every line a place
 *    where error recovery can resume.
 *
 *  - Only non-canonical lines reach the grammar.  A canonical line (what
 *    xprof_btoa writes, nearly every line of a real file) is decoded by
 *    the scanner into an xp_tx_line and handed to its handler there, with
 *    no token at all: a token per line cost a shift and two reductions
 *    each, a large share of the parse.  That is safe because the scanner
 *    is asked for a token at a line start only once the parser has
 *    reduced the line before (every line ends with a token after which
 *    the only action is to reduce, so bison needs no lookahead to do it),
 *    so the handlers still run in line order.  Any other line arrives as
 *    a keyword (K_*, or a generic token for counter records and block
 *    refs, which have none) followed by generic field tokens and EOL; the
 *    action builds the same xp_tx_line from them and calls the same
 *    handler, so both forms build the same profile.
 *
 *  - Generic tokens are typed by their shape: T_UINT (digits), T_SINT
 *    (signed digits), T_HEX (0x...), T_BREF (B<n>), T_LINECOL (n:n) and
 *    T_WORD (any other run of bytes other than blank, CR, LF and NUL).
 *    Numeric fields take T_UINT only, so bison itself reports a field of
 *    the wrong kind at its column ("unexpected "x", expecting an unsigned
 *    integer").  A name may be any of them, since a path such as "42" or
 *    "B7" is valid; `name` collects them.  Values of VP records are names
 *    too: their type is only known from the keyword, so the handler
 *    converts them.
 *
 *  - The header is always scanned on the slow path: it may be wrapped over
 *    several lines, and it occurs once.  Its counts are a list so that a
 *    4.3 header (three counts) and a 4.4 header (four) share one
 *    production and a wrong number of counts gets a precise message.
 *
 *  - Error recovery is at line granularity: `line: error EOL`.  After a
 *    syntax error the scanner is told to drop the rest of the line, and
 *    yyerrok lets the next line report its own errors at once.  The
 *    action tells the handlers what the line's keyword was (the scanner
 *    keeps it, and has not read the next line yet when the action runs,
 *    for the reason given at `line`), so that the records of a broken
 *    head line (a PROC:, say) are not checked against the section before
 *    it; see xp_tx_on_bad_line.  In the header, `error HEND` skips to the
 *    first section.  Handlers report semantic errors themselves and
 *    parsing goes on; once the error cap is reached they set a stop flag,
 *    the actions abort the parse and the scanner returns end of file.
 *
 *  - An unknown keyword (a word at a line start that looks like one, such
 *    as PORC:) is a token of its own, K_UNKNOWN, after which the scanner
 *    drops the rest of the line: `line: K_UNKNOWN EOL` is no syntax
 *    error, but its handler reports the keyword (with the nearest real
 *    one) and recovers as after a broken line of the kind that keyword
 *    names.  Bison's own message would only say "unexpected", and its
 *    recovery would not know what the line was.
 *
 *  - parse.error custom: messages are short, name the field's token text
 *    and collect the six token kinds a name may be into "a name".
 *    parse.lac full makes the expected-token lists exact despite the
 *    default reductions.
 *
 *  - No semantic value owns memory: tokens point into the chunk buffers,
 *    which the driver keeps alive (the current chunk and the one before,
 *    enough for the single lookahead token), and handlers copy what they
 *    keep.  So there is nothing for a %destructor to free when bison
 *    discards values during error recovery or an abort.
 *
 *  - %expect 0: the grammar has no conflicts.
 */

%define api.pure full
%define api.prefix {xp_tx_}
%define api.value.type {xp_tx_tok}
%define api.location.type {xp_tx_loc}
%define parse.error custom
%define parse.lac full
%locations
%expect 0

%param {yyscan_t scanner}
%parse-param {xp_tx_parser *P}

%code requires {
#include "feedback/text_parse.h"
}

%code {
#include <stdio.h>

int xp_tx_lex(XP_TX_STYPE *lval, XP_TX_LTYPE *lloc, yyscan_t scanner);
static void yyerror(const XP_TX_LTYPE *loc, yyscan_t scanner, xp_tx_parser *P,
                    const char *msg);

/* A nonterminal starts where its first symbol starts; an empty one where
 * the previous symbol started. */
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
		if (xp_tx_stopped(P))                                       \
			YYABORT;                                          \
	} while (0)

static void l_init(xp_tx_line *L, const xp_tx_loc *loc)
{
	L->lstart = loc->lstart;
	L->loff = loc->loff;
	L->line = loc->line;
	L->nv = 0;
	L->f_ovf = 0;
	L->has_s = 0;
}

static void l_num(xp_tx_line *L, int i, const xp_tx_tok *t)
{
	L->v[i] = t->v;
	L->col[i] = t->col;
	if (t->ovf & 1)
		L->f_ovf |= 1u << i;
}

static void l_name(xp_tx_line *L, const xp_tx_tok *t)
{
	L->s = t->s;
	L->slen = t->len;
	L->scol = t->col;
	L->has_s = 1;
}

/* line[:col] into fields i and i+1. */
static void l_linecol(xp_tx_line *L, int i, const xp_tx_tok *t)
{
	l_num(L, i, t);
	if (t->len > 0 && memchr(t->s, ':', t->len)) {
		const char *c = memchr(t->s, ':', t->len);
		L->nv = 1;
		L->v[i + 1] = t->v2;
		L->col[i + 1] = t->col + (uint32_t)(c - t->s) + 1;
		if (t->ovf & 2)
			L->f_ovf |= 1u << (i + 1);
	}
}
}

%token END 0 "end of file"
%token EOL "end of line"
%token HEND "end of header"
%token T_UINT "unsigned integer"
%token T_SINT "signed integer"
%token T_HEX "hexadecimal number"
%token T_BREF "B<block id>"
%token T_LINECOL "line:column"
%token T_WORD "word"
%token T_BAD "invalid byte"
%token K_HEADER "PROFILE-FEEDBACK-DATA:"
%token K_OBJFILE "OBJFILE:"
%token K_PROC "PROC:"
%token K_STAT "max or sum"
%token K_VP "VP_ keyword"
%token K_BLOCK "B<block id>:"
%token K_EDGE "E<edge id>"
%token K_TUPLE "S<tuple id>:"
%token K_PROGRAM "PROGRAM:"
%token K_OBJREF "OBJREF:"
%token K_COMDAT "COMDAT_PROC:"
%token K_SRCFILE "SRCFILE:"
%token K_SRCLINE "SRCLINE:"
%token K_UNKNOWN "unknown keyword"

%%

file:
	header lines		{ H(xp_tx_on_end(P)); }
	;

header:
	K_HEADER version counts type HEND
				{ H(xp_tx_on_header(P, &$2, &@2, &$4, &@4)); }
	| error HEND		{ yyerrok; }
	;

version:
	T_WORD
	| T_UINT
	;

counts:
	%empty
	| counts T_UINT		{ H(xp_tx_on_header_count(P, &$2, &@2)); }
	;

type:
	%empty			{ $$.s = NULL; $$.len = 0; $$.col = 0; }
	| T_WORD
	;

lines:
	%empty
	| lines line
	;

/*
 * Handlers run in line order, and that is what makes it safe for the
 * scanner to call the handlers of canonical lines itself (see the header
 * comment): the scanner is asked for the token that starts a line only
 * once the line before has been reduced and its handler has run.  That
 * holds because every alternative below ends with EOL, after which the
 * only action is to reduce, so bison reduces without asking for a
 * lookahead.  Keep it so: an alternative that needs a lookahead after
 * its EOL (a line continued on the next one, an optional trailing line),
 * or an action that is not at the end of its alternative, would let a
 * later canonical line be handled before this one.
 *
 * Each alternative is the token form of one record of
 * lib/feedback/text_records.h, which defines the record's fields once
 * for the decoder of canonical lines, the writer and the diagnostics.
 * Bison cannot expand those lists into productions, so the token
 * sequences here are written out again (a name may be any generic token,
 * a numeric field takes T_UINT only, hex a T_HEX, a block ref a T_BREF);
 * what is shared is where each token goes, the XP_TXF_<kind>_<field>
 * numbers of the same lists.
 */
line:
	K_OBJFILE name T_UINT T_UINT T_UINT T_UINT T_HEX T_UINT EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_name(&L, &$2);
			l_num(&L, XP_TXF_objfile_n_procs, &$3);
			l_num(&L, XP_TXF_objfile_tv_sec, &$4);
			l_num(&L, XP_TXF_objfile_tv_usec, &$5);
			l_num(&L, XP_TXF_objfile_n_values_per_vp, &$6);
			l_num(&L, XP_TXF_objfile_signature, &$7);
			l_num(&L, XP_TXF_objfile_n_srcfile_names, &$8);
			H(xp_tx_on_objfile(P, &L));
		}
	| K_PROC name T_HEX T_UINT T_UINT T_UINT T_UINT T_UINT T_UINT T_UINT EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_name(&L, &$2);
			l_num(&L, XP_TXF_proc_signature, &$3);
			l_num(&L, XP_TXF_proc_n_counters, &$4);
			l_num(&L, XP_TXF_proc_n_vp_sites, &$5);
			l_num(&L, XP_TXF_proc_n_vp_records, &$6);
			l_num(&L, XP_TXF_proc_proc_id, &$7);
			l_num(&L, XP_TXF_proc_n_blocks, &$8);
			l_num(&L, XP_TXF_proc_n_edges, &$9);
			l_num(&L, XP_TXF_proc_n_srcmap_ops, &$10);
			H(xp_tx_on_proc(P, &L));
		}
	| K_STAT T_UINT EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			L.kind = (int)$1.v;
			l_num(&L, XP_TXF_stat_value, &$2);
			H(xp_tx_on_stat(P, &L));
		}
	| T_UINT T_UINT EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_num(&L, XP_TXF_counter_id, &$1);
			l_num(&L, XP_TXF_counter_value, &$2);
			H(xp_tx_on_counter(P, &L));
		}
	| K_VP T_UINT T_UINT EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			L.kind = (int)$1.v;
			l_num(&L, XP_TXF_vp_expr_id, &$2);
			l_num(&L, XP_TXF_vp_count, &$3);
			H(xp_tx_on_vp(P, &L));
		}
	| K_VP T_UINT T_UINT name EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			L.kind = (int)$1.v;
			l_num(&L, XP_TXF_vp_expr_id, &$2);
			l_num(&L, XP_TXF_vp_count, &$3);
			l_name(&L, &$4);
			H(xp_tx_on_vp(P, &L));
		}
	| K_BLOCK T_UINT EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_num(&L, XP_TXF_block_id, &$1);
			l_num(&L, XP_TXF_block_counter, &$2);
			H(xp_tx_on_block(P, &L));
		}
	| K_EDGE T_UINT T_BREF T_BREF EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_num(&L, XP_TXF_edge_id, &$1);
			l_num(&L, XP_TXF_edge_counter, &$2);
			l_num(&L, XP_TXF_edge_from, &$3);
			l_num(&L, XP_TXF_edge_to, &$4);
			H(xp_tx_on_edge(P, &L));
		}
	| K_TUPLE T_BREF linecol EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_num(&L, XP_TXF_tuple_id, &$1);
			l_num(&L, XP_TXF_tuple_block, &$2);
			l_linecol(&L, XP_TXF_tuple_line, &$3);
			H(xp_tx_on_tuple(P, &L));
		}
	| K_TUPLE T_BREF linecol name EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_num(&L, XP_TXF_tuple_id, &$1);
			l_num(&L, XP_TXF_tuple_block, &$2);
			l_linecol(&L, XP_TXF_tuple_line, &$3);
			l_name(&L, &$4);
			H(xp_tx_on_tuple(P, &L));
		}
	| K_PROGRAM name T_UINT T_UINT EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_name(&L, &$2);
			l_num(&L, XP_TXF_program_n_objrefs, &$3);
			l_num(&L, XP_TXF_program_n_comdats, &$4);
			H(xp_tx_on_program(P, &L));
		}
	| K_OBJREF name EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_name(&L, &$2);
			H(xp_tx_on_objref(P, &L));
		}
	| K_COMDAT name EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_name(&L, &$2);
			H(xp_tx_on_comdat(P, &L));
		}
	| K_SRCFILE name T_UINT EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_name(&L, &$2);
			l_num(&L, XP_TXF_srcfile_n_srclines, &$3);
			H(xp_tx_on_srcfile(P, &L));
		}
	| K_SRCLINE linecol T_UINT EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_linecol(&L, XP_TXF_srcline_line, &$2);
			l_num(&L, XP_TXF_srcline_n_refs, &$3);
			H(xp_tx_on_srcline(P, &L));
		}
	| T_BREF T_UINT name EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_num(&L, XP_TXF_blockref_block, &$1);
			l_num(&L, XP_TXF_blockref_count, &$2);
			l_name(&L, &$3);
			H(xp_tx_on_blockref(P, &L));
		}
	| K_UNKNOWN EOL
		{
			xp_tx_line L;
			l_init(&L, &@1);
			l_name(&L, &$1);
			L.kind = (int)$1.v;
			H(xp_tx_on_unknown(P, &L));
		}
	| error EOL
		{
			yyerrok;
			xp_tx_on_bad_line(P, xp_tx_scanner_line_kind(scanner));
		}
	;

linecol:
	T_UINT
	| T_LINECOL
	;

name:
	T_WORD
	| T_UINT
	| T_SINT
	| T_HEX
	| T_BREF
	| T_LINECOL
	;

%%

/* Called by bison only when its stacks cannot grow. */
static void yyerror(const XP_TX_LTYPE *loc, yyscan_t scanner, xp_tx_parser *P,
                    const char *msg)
{
	(void)scanner;
	xp_tx_report(P, loc->lstart, loc->loff, loc->line, loc->col, "%s", msg);
}

/* How a token is named in "expecting ..." lists. */
static const char *expect_name(yysymbol_kind_t k)
{
	switch (k) {
	case YYSYMBOL_YYEOF: return "end of file";
	case YYSYMBOL_EOL: return "end of line";
	case YYSYMBOL_HEND: return "end of header";
	case YYSYMBOL_T_UINT: return "an unsigned integer";
	case YYSYMBOL_T_SINT: return "a signed integer";
	case YYSYMBOL_T_HEX: return "a hexadecimal number";
	case YYSYMBOL_T_BREF: return "B<block id>";
	case YYSYMBOL_T_LINECOL: return "<line>:<column>";
	case YYSYMBOL_T_WORD: return "a name";
	default: return yysymbol_name(k);
	}
}

/* Part of a name: covered by "a name" when T_WORD is expected too. */
static int is_name_token(yysymbol_kind_t k)
{
	return k == YYSYMBOL_T_UINT || k == YYSYMBOL_T_SINT ||
	       k == YYSYMBOL_T_HEX || k == YYSYMBOL_T_BREF ||
	       k == YYSYMBOL_T_LINECOL;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner,
                                 xp_tx_parser *P)
{
	enum { MAXEXP = 8 };
	yysymbol_kind_t exp[MAXEXP];
	yysymbol_kind_t la = yypcontext_token(ctx);
	const xp_tx_loc *loc = yypcontext_location(ctx);
	const char *ltext;
	size_t llen;
	xp_tx_scanner_last(scanner, &ltext, &llen);
	int n = yypcontext_expected_tokens(ctx, exp, MAXEXP);
	char what[128];
	char expects[256] = "";

	if (la != YYSYMBOL_EOL && la != YYSYMBOL_YYEOF && la != YYSYMBOL_HEND)
		xp_tx_scanner_skip_line(scanner);

	int has_word = 0, has_header = 0;
	for (int i = 0; i < n; i++) {
		if (exp[i] == YYSYMBOL_T_WORD)
			has_word = 1;
		if (exp[i] == YYSYMBOL_K_HEADER)
			has_header = 1;
	}
	if (has_header && (la == YYSYMBOL_YYEOF || la == YYSYMBOL_HEND)) {
		xp_tx_report(P, loc->lstart, loc->loff, loc->line, loc->col,
		          "missing PROFILE-FEEDBACK-DATA: header");
		return 0;
	}

	switch (la) {
	case YYSYMBOL_YYEOF:
	case YYSYMBOL_EOL:
	case YYSYMBOL_HEND:
		snprintf(what, sizeof what, "%s", expect_name(la));
		break;
	case YYSYMBOL_T_BAD:
		snprintf(what, sizeof what, "%s",
		         llen > 0 && ltext[0] == '\r' ? "carriage return"
		                                       : "NUL byte");
		break;
	default: {
		/* Quote the token's text, shortened if long. */
		size_t len = llen > 40 ? 40 : llen;
		snprintf(what, sizeof what, "\"%.*s%s\"", (int)len, ltext,
		         len < llen ? "..." : "");
		break;
	}
	}

	/* n == 0 means too many to list (or none). */
	if (n > 0) {
		size_t off = 0;
		int listed = 0;
		for (int i = 0; i < n; i++) {
			if (has_word && is_name_token(exp[i]))
				continue;
			listed++;
		}
		int k = 0;
		for (int i = 0; i < n && off < sizeof expects; i++) {
			if (has_word && is_name_token(exp[i]))
				continue;
			const char *sep = k == 0 ? ", expecting "
			                  : k == listed - 1 ? " or " : ", ";
			off += (size_t)snprintf(expects + off,
			                        sizeof expects - off, "%s%s",
			                        sep, expect_name(exp[i]));
			k++;
		}
		if (listed > 4)
			expects[0] = 0;
	}
	xp_tx_report(P, loc->lstart, loc->loff, loc->line, loc->col,
	          "unexpected %s%s", what, expects);
	return 0;
}
