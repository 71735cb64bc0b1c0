/*
 * feedback/text_decode.c - decodes the fields of feedback text lines
 * (xprof_text(5)) for the scanner (grammar/xprof_text.l).
 *
 * Speed: a canonical line (one blank between fields, no leading zeros, LF
 * end; what xprof_btoa writes) is neither walked by flex's DFA nor turned
 * into tokens.  A loop of its own (xp_tx_fast_lines) tells the line's
 * kind by its first bytes and calls the line's decoder here, which checks
 * that the rest has exactly the canonical shape and decodes it into an
 * xp_tx_line, then hands it to the parser's handler.  The decoders are
 * generated from the record lists of text_records.h, the same lists the
 * writer prints from, so the shape the fast path accepts is by
 * construction the shape xprof_btoa writes.  Anything else (a second
 * blank, a tab, a CR, a leading zero, a number past 64 bits, a signature
 * of more than 16 hex digits, a missing or extra field) makes the decoder
 * return NULL, and the line goes whole to the scanner's slow path, which
 * cuts it into generic tokens so that the grammar can accept every
 * non-canonical form and bison can name the offending field.
 *
 * The decoders stop at the first byte that does not fit; what they read
 * past the NUL bytes that end a chunk (names a word at a time, keyword
 * prefixes compared whole) stays within the chunk's padding (XP_TX_PAD;
 * see name_scan).
 *
 * The slow path's number tokens are decoded here too (xp_tx_sdec and
 * friends), so that the scanner holds no C beyond its rules.
 */
#include <string.h>

#include "feedback/text_parse.h"
#include "feedback/text_records.h"

int xp_tx_sdec(const char *s, size_t n, uint64_t *v)
{
	uint64_t r = 0;
	for (size_t i = 0; i < n; i++) {
		if (__builtin_mul_overflow(r, 10, &r) ||
		    __builtin_add_overflow(r, (uint64_t)(s[i] - '0'), &r)) {
			*v = UINT64_MAX;
			return 1;
		}
	}
	*v = r;
	return 0;
}

int xp_tx_shex(const char *s, size_t n, uint64_t *v)
{
	/* Leading zeros do not count towards the 16 digits a 64-bit value
	 * can have. */
	const char *p = s + 2;
	const char *e = s + n;
	while (p < e - 1 && *p == '0')
		p++;
	if (e - p > 16) {
		*v = UINT64_MAX;
		return 1;
	}
	uint64_t r = 0;
	for (; p < e; p++) {
		unsigned c = (unsigned char)*p;
		r = r << 4 | (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	*v = r;
	return 0;
}

int xp_tx_slinecol(const char *s, size_t n, uint64_t *v, uint32_t *v2)
{
	const char *c = memchr(s, ':', n);
	uint64_t w;
	int o1 = xp_tx_sdec(s, (size_t)(c - s), v);
	int o2 = xp_tx_sdec(c + 1, (size_t)(s + n - c - 1), &w);
	*v2 = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
	return o1 | (o2 || w > UINT32_MAX) << 1;
}

/* Bytes that end a name: blank, CR, LF and NUL. */
static const unsigned char name_end[256] = {
	[0] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, [' '] = 1,
};

/*
 * The first byte at or after p that ends a name.  Names are long (half of
 * a large file is proc:objfile pairs), so eight bytes are tested at once
 * where the byte order allows: a word holds a candidate when one of its
 * bytes is below 0x21 (every byte that ends a name is), and the lowest
 * such byte is exactly found from the mask (a borrow only runs upwards).
 * Words may reach past the line end and the chunk's NULs into the
 * chunk's padding (XP_TX_PAD), never further, since a NUL ends the scan.
 */
static inline const char *name_scan(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (;;) {
		uint64_t w;
		memcpy(&w, p, 8);
		uint64_t m = (w - 0x2121212121212121u) & ~w &
		             0x8080808080808080u;
		if (!m) {
			p += 8;
			continue;
		}
		p += __builtin_ctzll(m) >> 3;
		if (name_end[(unsigned char)*p])
			return p;
		/* A control byte, which a name may hold. */
		p++;
	}
#else
	while (!name_end[(unsigned char)*p])
		p++;
	return p;
#endif
}

/* A canonical decimal at p (no leading zero, fits 64 bits): returns the
 * byte after it. */
static inline const char *cdec(const char *p, uint64_t *out)
{
	const char *s = p;
	uint64_t v = 0;
	unsigned d;
	while ((d = (unsigned)(unsigned char)*p - '0') < 10u) {
		v = v * 10 + d;
		p++;
	}
	size_t n = (size_t)(p - s);
	/* Up to 19 digits cannot overflow; 20 may. */
	if (n - 1 >= 19 &&
	    (n == 0 || n > 20 || memcmp(s, "18446744073709551615", 20) > 0))
		return NULL;
	if (*s == '0' && n > 1)
		return NULL;
	*out = v;
	return p;
}

/* Canonical lower-case hex after "0x" (1..16 digits, no leading zero
 * unless the value is 0). */
static inline const char *chex(const char *p, uint64_t *out)
{
	const char *s = p;
	uint64_t v = 0;
	for (;;) {
		unsigned c = (unsigned char)*p;
		if (c - '0' < 10u)
			v = v << 4 | (c - '0');
		else if (c - 'a' < 6u)
			v = v << 4 | (c - 'a' + 10);
		else
			break;
		p++;
	}
	size_t n = (size_t)(p - s);
	if (n == 0 || n > 16 || (n > 1 && *s == '0'))
		return NULL;
	*out = v;
	return p;
}

/*
 * The decoding steps of the record items; t is the line start, p the
 * position.  A literal is compared whole: a chunk's NULs and padding
 * (XP_TX_PAD) hold the longest keyword past its last byte.
 */
#define FCOL(p) ((uint32_t)((p) - t) + 1)

#define NEED(c)                                                           \
	do {                                                              \
		if (*p != (c))                                            \
			return NULL;                                      \
		p++;                                                      \
	} while (0)

#define DEC_NUM(i, col_)                                                  \
	do {                                                              \
		L->col[i] = (col_);                                       \
		if (!(p = cdec(p, &L->v[i])))                             \
			return NULL;                                      \
	} while (0)

#define DEC_NAME()                                                        \
	do {                                                              \
		const char *s_ = p;                                       \
		p = name_scan(p);                                         \
		if (p == s_)                                              \
			return NULL;                                      \
		L->s = s_;                                                \
		L->slen = (size_t)(p - s_);                               \
		L->scol = FCOL(s_);                                       \
		L->has_s = 1;                                             \
	} while (0)

#define TF_LIT(R, lit)                                                    \
	if (memcmp(p, (lit), sizeof(lit) - 1) != 0)                       \
		return NULL;                                              \
	p += sizeof(lit) - 1;
/* The keyword of kind k, which the caller has matched: klen bytes. */
#define TF_KIND(R, fn)                                                    \
	p += klen;                                                        \
	L->kind = k;
#define TF_SP(R) NEED(' ');
#define TF_COLON(R) NEED(':');
#define TF_NUM(R, i, id, what) DEC_NUM(i, FCOL(p));
/* The id glued to a one-byte keyword is reported at the keyword. */
#define TF_ID(R, i, id, what) DEC_NUM(i, 1);
#define TF_HEX(R, i, id, what)                                            \
	L->col[i] = FCOL(p);                                              \
	NEED('0');                                                        \
	NEED('x');                                                        \
	if (!(p = chex(p, &L->v[i])))                                     \
		return NULL;
#define TF_BREF(R, i, id, what)                                           \
	L->col[i] = FCOL(p);                                              \
	NEED('B');                                                        \
	if (!(p = cdec(p, &L->v[i])))                                     \
		return NULL;
#define TF_LINECOL(R, i, id, what, id2, what2)                            \
	DEC_NUM(i, FCOL(p));                                              \
	if (*p == ':') {                                                  \
		p++;                                                      \
		L->nv = 1;                                                \
		DEC_NUM((i) + 1, FCOL(p));                                \
	}
#define TF_NAME(R, what) DEC_NAME();
#define TF_PAIR(R, what) DEC_NAME();
#define TF_OPTNAME(R, what)                                               \
	if (*p == ' ') {                                                  \
		p++;                                                      \
		DEC_NAME();                                               \
	}
#define TF_VPVAL TF_OPTNAME

/* dec_<kind>: one decoder per record kind; k and klen are the kind
 * and the length of the keyword of a line that starts with one
 * (TF_KIND). */
#define DECODER(R)                                                        \
	static inline const char *dec_##R(xp_tx_line *L, const char *t,   \
	                                  int k, size_t klen)             \
	{                                                                 \
		const char *p = t;                                        \
		(void)k;                                                  \
		(void)klen;                                               \
		L->nv = 0;                                                \
		L->f_ovf = 0;                                             \
		L->has_s = 0;                                             \
		XP_TX_REC_##R(R)                                          \
		return *p == '\n' ? p : NULL;                             \
	}
XP_TX_RECORDS(DECODER)
#undef DECODER
#include "feedback/text_records_undef.h"

/* A line starting with B: a block record (*ref 0) or a block ref. */
static inline const char *dec_b(xp_tx_line *L, const char *t, int *ref)
{
	/* B<id>: is a block record, B<id> and a blank a block ref. */
	const char *p = t + 1;
	while ((unsigned)(unsigned char)*p - '0' < 10u)
		p++;
	*ref = *p != ':';
	return *ref ? dec_blockref(L, t, 0, 0) : dec_block(L, t, 0, 0);
}

/* The prefix of a line is the literal s. */
#define PREFIX(s) (memcmp(p, (s), sizeof(s) - 1) == 0)

/* A canonical line of kind R, its keyword (if any) of kind k and klen
 * bytes: decoded and handled, or the loop ends. */
#define LINE(R, k, klen)                                                  \
	do {                                                              \
		if (!(e = dec_##R(L, p, (k), (klen))))                    \
			goto out;                                         \
		xp_tx_on_##R(P, L);                                       \
	} while (0)

const char *xp_tx_fast_lines(xp_tx_parser *P, xp_tx_line *L, const char *p,
                             const char *base, uint64_t base_off,
                             uint32_t *line)
{
	const int *stop = xp_tx_stop_flag(P);
	uint32_t ln = *line;

	for (;;) {
		const char *e;
		int ref;
		L->lstart = p;
		L->loff = base_off + (uint64_t)(p - base);
		L->line = ln;
		if ((unsigned)(unsigned char)*p - '0' < 10u) {
			LINE(counter, 0, 0);
			goto next;
		}
		switch (*p) {
		case 'B':
			if (!(e = dec_b(L, p, &ref)))
				goto out;
			if (ref)
				xp_tx_on_blockref(P, L);
			else
				xp_tx_on_block(P, L);
			break;
		case 'E':
			LINE(edge, 0, 0);
			break;
		case 'S':
			if (PREFIX("SRCLINE: "))
				LINE(srcline, 0, 0);
			else if (PREFIX("SRCFILE: "))
				LINE(srcfile, 0, 0);
			else
				LINE(tuple, 0, 0);
			break;
		case 'V':
			if (PREFIX("VP_INT "))
				LINE(vp, XP_VP_INT, 6);
			else if (PREFIX("VP_LLONG "))
				LINE(vp, XP_VP_LLONG, 8);
			else if (PREFIX("VP_FLOAT "))
				LINE(vp, XP_VP_FLOAT, 8);
			else if (PREFIX("VP_DOUBLE "))
				LINE(vp, XP_VP_DOUBLE, 9);
			else if (PREFIX("VP_PROC "))
				LINE(vp, XP_VP_PROC, 7);
			else
				goto out;
			break;
		case 'm':
			if (!PREFIX("max "))
				goto out;
			LINE(stat, XP_STAT_MAX, 3);
			break;
		case 's':
			if (!PREFIX("sum "))
				goto out;
			LINE(stat, XP_STAT_SUM, 3);
			break;
		case 'P':
			if (PREFIX("PROC: "))
				LINE(proc, 0, 0);
			else
				LINE(program, 0, 0);
			break;
		case 'O':
			if (PREFIX("OBJFILE:"))
				LINE(objfile, 0, 0);
			else
				LINE(objref, 0, 0);
			break;
		case 'C':
			LINE(comdat, 0, 0);
			break;
		default:
			goto out;
		}
	next:
		p = e + 1;
		ln++;
		if (*stop)
			break;
	}
out:
	*line = ln;
	return p;
}
