/*
 * feedback/text_parse.c - the driver of the feedback text parser (xprof_text(5)):
 * feeds the input to the scanner in chunks, checks every rule of the
 * format that the grammar leaves to its actions, and builds the profile
 * through the builder (xp_fbb_*).
 *
 * Input is cut into chunks of about CHUNK bytes that end at a line
 * boundary (a chunk grows to hold an over-long line), each in a buffer
 * followed by the two NUL bytes flex needs and XP_TX_PAD more, so that the
 * scanner may read a word at a time up to its end.  Input in memory is
 * copied, since flex writes into its buffer.  A regular file is read
 * into the chunk buffer with pread(2) from where the chunk starts: that
 * costs less than mapping it a window at a time and copying (the page
 * tables of the mapping cost more than the copy), it never holds the
 * input whole, and positioned reads let a reader start anywhere.  Other
 * files (pipes, terminals) are read straight into the chunk buffer;
 * the bytes after the last line end of a read wait in a small carry
 * buffer for the next chunk.  Two chunk buffers
 * alternate: tokens point into them, and the parser may hold one
 * lookahead token of the next chunk while it still reduces the last line
 * of the previous one.  The input is never held whole.
 *
 * Each open section keeps its head line (copied only once its chunk
 * buffer is about to be reused), so that a count found wrong when the
 * section ends can be reported at the declaring field.
 * After the first error nothing more is built; the checks go on, so one
 * run reports every error up to the cap.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/internal.h"
#include "feedback/db.h"
#include "feedback/text_parse.h"

#define CHUNK (1u << 20)

#define MAX_LINE XP_TX_MAX_LINE

/* ------------------------------------------------------------------ */
/* Sets of ids                                                          */
/* ------------------------------------------------------------------ */

/*
 * A map from u32 keys to u32 values (line numbers).  Entries carry a
 * generation, so clearing is O(1): procedures come by the thousand.
 */
typedef struct {
	uint32_t key, val, gen;
} hent;

typedef struct {
	hent *t;
	uint32_t cap, n, gen;
} u32map;

/* The slot of key in a table of mask + 1 entries. */
static uint32_t slot(uint32_t key, uint32_t mask)
{
	return (uint32_t)xp_mix64(key) & mask;
}

static void map_free(u32map *m)
{
	free(m->t);
	memset(m, 0, sizeof *m);
}

static void map_clear(u32map *m)
{
	m->n = 0;
	m->gen++;
}

static int map_grow(u32map *m)
{
	uint32_t ncap = m->cap ? m->cap * 2 : 64;
	hent *nt = calloc(ncap, sizeof *nt);
	if (!nt)
		return -1;
	uint32_t gen = m->gen ? m->gen : 1;
	for (uint32_t i = 0; i < m->cap; i++) {
		if (m->t[i].gen != m->gen || m->gen == 0)
			continue;
		uint32_t k = slot(m->t[i].key, ncap - 1);
		while (nt[k].gen == gen)
			k = (k + 1) & (ncap - 1);
		nt[k] = m->t[i];
		nt[k].gen = gen;
	}
	free(m->t);
	m->t = nt;
	m->cap = ncap;
	m->gen = gen;
	return 0;
}

/* Adds key; returns 1 (and *old) if present, 0 if added, -1 no memory. */
static int map_add(u32map *m, uint32_t key, uint32_t val, uint32_t *old)
{
	if (m->gen == 0 || (m->n + 1) * 2 > m->cap) {
		if (map_grow(m) != 0)
			return -1;
	}
	uint32_t mask = m->cap - 1;
	uint32_t k = slot(key, mask);
	while (m->t[k].gen == m->gen) {
		if (m->t[k].key == key) {
			*old = m->t[k].val;
			return 1;
		}
		k = (k + 1) & mask;
	}
	m->t[k].key = key;
	m->t[k].val = val;
	m->t[k].gen = m->gen;
	m->n++;
	return 0;
}

static int map_get(const u32map *m, uint32_t key, uint32_t *val)
{
	if (m->gen == 0 || m->n == 0)
		return 0;
	uint32_t mask = m->cap - 1;
	uint32_t k = slot(key, mask);
	while (m->t[k].gen == m->gen) {
		if (m->t[k].key == key) {
			*val = m->t[k].val;
			return 1;
		}
		k = (k + 1) & mask;
	}
	return 0;
}

/*
 * The ids of one kind within a section, each in [1..n] (the caller checks
 * the range first), with the line of each one's first occurrence.  For a
 * range of up to IDS_DENSE ids, a table indexed by id whose entries carry
 * the section's generation, so that clearing it costs nothing.  A larger
 * range keeps its ids in an array while they come in increasing order,
 * which alone proves them unique, and hashes them once one comes out of
 * order.
 */
#define IDS_DENSE 65536u

typedef struct {
	uint32_t gen, line;
} idslot;

typedef struct {
	idslot *d;          /* the table: entries 0..dn */
	uint32_t dn, gen;   /* gen: the section's, never 0 */
	int dense;          /* this section uses the table */
	uint32_t *v;        /* pairs: id, line */
	size_t n, cap;
	uint32_t max;
	int hashed;
	u32map m;
} idset;

/* A new section of ids in [1..n].  Without memory for the table, the
 * array and the hash do. */
static void ids_clear(idset *s, uint32_t n)
{
	s->n = 0;
	s->hashed = 0;
	map_clear(&s->m);
	s->dense = 0;
	if (n > IDS_DENSE)
		return;
	if (!s->d || n > s->dn) {
		idslot *d = realloc(s->d, ((size_t)n + 1) * sizeof *d);
		if (!d)
			return;
		size_t old = s->d ? (size_t)s->dn + 1 : 0;
		memset(d + old, 0, ((size_t)n + 1 - old) * sizeof *d);
		s->d = d;
		s->dn = n;
	}
	if (++s->gen == 0) {
		memset(s->d, 0, ((size_t)s->dn + 1) * sizeof *s->d);
		s->gen = 1;
	}
	s->dense = 1;
}

static void ids_free(idset *s)
{
	free(s->d);
	free(s->v);
	map_free(&s->m);
}

/* Adds id (at most the section's n); returns 1 (and *old, the line of
 * its first occurrence) if present, 0 if added, -1 without memory. */
static int ids_add(idset *s, uint32_t id, uint32_t line, uint32_t *old)
{
	if (s->dense) {
		idslot *e = &s->d[id];
		if (e->gen == s->gen) {
			*old = e->line;
			return 1;
		}
		e->gen = s->gen;
		e->line = line;
		return 0;
	}
	if (!s->hashed) {
		if (s->n == 0 || id > s->max) {
			if (s->n == s->cap) {
				size_t nc = s->cap ? s->cap * 2 : 64;
				uint32_t *nv = realloc(s->v, nc * 2 * sizeof *nv);
				if (!nv)
					return -1;
				s->v = nv;
				s->cap = nc;
			}
			s->v[2 * s->n] = id;
			s->v[2 * s->n + 1] = line;
			s->n++;
			s->max = id;
			return 0;
		}
		map_clear(&s->m);
		for (size_t i = 0; i < s->n; i++) {
			uint32_t o;
			if (map_add(&s->m, s->v[2 * i], s->v[2 * i + 1], &o) < 0)
				return -1;
		}
		s->hashed = 1;
	}
	return map_add(&s->m, id, line, old);
}

/* ------------------------------------------------------------------ */
/* Parser state                                                         */
/* ------------------------------------------------------------------ */

/*
 * A copy of a head line, for errors found when its section ends.  The
 * copy is made only when needed: for an error, or when the chunk buffer
 * that holds the line is about to be reused (pending and lstart say where
 * the line still is).  Most sections end without an error and within the
 * two chunks kept, so most head lines are never copied.
 */
typedef struct {
	xp_buf text;
	const char *lstart;
	int pending;
	uint64_t loff;
	uint32_t line;
	uint32_t col[XP_TX_NF + 1];
	uint32_t scol;
} headcopy;

enum { PH_STATS, PH_COUNTERS, PH_VPS, PH_BLOCKS, PH_EDGES, PH_TUPLES };


static const char *const phase_names[] = {
	"stats", "counter records", "value profile records", "block records",
	"edge records", "source mapping tuples"
};

/* A name and its string id, to intern the same bytes again without a
 * lookup (intern_again). */
typedef struct {
	xp_buf bytes;
	xp_str id;
	int valid;
} memo;

struct xp_tx_parser {
	jmp_buf fatal_jmp;   /* where xp_tx_fatal() unwinds to */
	xp_diags *d;
	const char *name;
	xp_fbb *b;
	xp_err fatal;        /* NOMEM, IO, LIMIT: stop at once */
	unsigned nerr, max_errors;
	int stop;
	yyscan_t scanner;

	/* Input. */
	int fd;
	const unsigned char *in;   /* memory mode: the input */
	size_t in_len, in_pos;     /* memory and positioned mode: size, taken */
	int pread_mode;            /* a regular file, read with pread(2) */
	/* A part (xp_tx_parse_part): its own bytes, after the header's. */
	int part;
	size_t part_pos, part_len;
	xp_buf late;               /* OBJREF paths the part left open */
	xp_buf objs;               /* the part's OBJFILE paths */
	int in_eof;                /* fd mode: read() returned 0 */
	xp_buf carry;              /* fd mode: a partial line read ahead */
	uint64_t in_off;           /* input offset of the next chunk */
	xp_bytesum *sum;           /* when not NULL: every byte taken */
	char *cbuf[2];
	size_t ccap[2], clen[2];
	int cur;
	xp_buf scratch;            /* line text for diagnostics */

	/* Header. */
	int have_header;
	unsigned minor;
	xp_datatype type;
	unsigned ncounts;
	uint64_t hcount[4];
	int hcount_ok;
	headcopy hcopy[4];
	headcopy hextra;           /* the first count too many */
	headcopy htype;

	/* Sections. */
	uint32_t n_obj, n_prog, n_src;
	u32map objpaths, progpaths, srcpaths;   /* xp_str -> line */

	/* The object file open. */
	/* A line had a syntax error: records that find no section open are
	 * not reported, since that line may have been their head. */
	int broken;
	/* An OBJFILE line may have been lost to an error: OBJREF lines are
	 * not checked against the OBJFILE sections, whose paths are then
	 * not all known. */
	int obj_lost;
	/* Lines with syntax errors so far.  A section that holds one is
	 * not checked against its declared counts: the bad line may have
	 * been one of its records, and the count error would only repeat
	 * what was said.  Likewise the header's section counts. */
	uint32_t nbad;
	uint32_t o_bad, p_bad, g_bad, s_bad, l_bad;  /* nbad at open */

	int in_obj;
	headcopy oh;
	uint32_t o_nprocs, o_nvpv, o_procs;
	u32map procnames;
	idset procids;

	/* The procedure open. */
	int in_proc;
	headcopy ph;
	uint32_t p_ncnt, p_nvprec, p_nblk, p_nedge, p_nsrcmap;
	uint32_t p_cnt, p_vplines, p_blk, p_edge, p_tup;
	int phase;
	idset cntids, blkids, edgeids, tupids;
	uint32_t vp_expr;
	int vp_type;

	/* The program open. */
	int in_prog;
	headcopy gh;
	uint32_t g_nobjref, g_ncomdat, g_objref, g_comdat;
	int g_phase;            /* 0 stats, 1 objrefs, 2 comdats */

	/* The source file and source line open. */
	int in_src;
	headcopy sh;
	uint32_t s_nlines, s_lines;
	int in_sline;
	headcopy lh;
	uint32_t l_nrefs, l_refs;

	/* The names that come back in runs: a block ref's procedure and
	 * object file, a tuple's source file. */
	memo m_proc, m_obj, m_src;
};

_Noreturn void xp_tx_fatal(xp_tx_parser *P, const char *msg)
{
	xp_diag_file(P->d, XP_E_NOMEM, P->name, "%s", msg);
	longjmp(P->fatal_jmp, 1);
}

const int *xp_tx_stop_flag(const xp_tx_parser *P)
{
	return &P->stop;
}

int xp_tx_stopped(const xp_tx_parser *P)
{
	return P->stop;
}

static void set_fatal(xp_tx_parser *P, xp_err e)
{
	if (!P->fatal)
		P->fatal = e;
	P->stop = 1;
}

/* Builder calls are made only while the text is free of errors. */
#define BUILD(call)                                                       \
	do {                                                              \
		if (P->nerr == 0 && P->b) {                               \
			xp_err e_ = (call);                               \
			if (e_)                                           \
				set_fatal(P, e_);                         \
		}                                                         \
	} while (0)

/* ------------------------------------------------------------------ */
/* Chunked input                                                        */
/* ------------------------------------------------------------------ */

/* Makes chunk buffer c hold at least n bytes, the NULs and the padding. */
static int chunk_reserve(xp_tx_parser *P, int c, size_t n)
{
	if (P->ccap[c] >= n + 2 + XP_TX_PAD)
		return 0;
	/* Sized to need, so that a small input costs a small buffer. */
	size_t ncap = P->ccap[c] ? P->ccap[c] : 4096;
	while (ncap < n + 2 + XP_TX_PAD)
		ncap *= 2;
	char *nb = realloc(P->cbuf[c], ncap);
	if (!nb) {
		set_fatal(P, XP_E_NOMEM);
		return -1;
	}
	P->cbuf[c] = nb;
	P->ccap[c] = ncap;
	return 0;
}

/* A line longer than MAX_LINE: reported at its start; -1. */
static long long too_long(xp_tx_parser *P)
{
	xp_diag_text(P->d, XP_E_LIMIT, P->name,
	             P->scanner ? xp_tx_scanner_line(P->scanner) : 1, 1,
	             P->in_off, NULL, 0,
	             "line longer than %zu MiB, the longest a feedback text "
	             "may have", MAX_LINE >> 20);
	set_fatal(P, XP_E_LIMIT);
	return -1;
}

/* fd mode: reads into chunk buffer c until it holds want bytes or the
 * input ends. */
static int read_until(xp_tx_parser *P, int c, size_t *have, size_t want)
{
	while (!P->in_eof && *have < want) {
		size_t room = P->ccap[c] - 2 - XP_TX_PAD - *have;
		ssize_t r = read(P->fd, P->cbuf[c] + *have, room);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			xp_diag_file(P->d, XP_E_IO, P->name, "read error: %s",
			             strerror(errno));
			set_fatal(P, XP_E_IO);
			return -1;
		}
		if (r == 0)
			P->in_eof = 1;
		*have += (size_t)r;
	}
	return 0;
}

/*
 * fd mode: fills chunk buffer c with the carried partial line and what
 * read() gives, about CHUNK bytes, up to the last line end (more when a
 * line is longer; everything at the end of the input), and carries the
 * rest over.  Returns the chunk's length (0 at the end of the input) or
 * -1 on error.
 */
static long long read_chunk(xp_tx_parser *P, int c)
{
	size_t have = P->carry.len;
	if (chunk_reserve(P, c, have + CHUNK) != 0)
		return -1;
	if (have > 0)
		memcpy(P->cbuf[c], P->carry.p, have);
	size_t want = CHUNK, take;
	for (;;) {
		if (read_until(P, c, &have, want) != 0)
			return -1;
		const char *nl = have ? memrchr(P->cbuf[c], '\n', have) : NULL;
		if (nl) {
			take = (size_t)(nl - P->cbuf[c]) + 1;
			break;
		}
		if (P->in_eof) {
			take = have;
			break;
		}
		if (have >= MAX_LINE)
			return too_long(P);
		/* A line longer than the buffer: grow it and read on. */
		want = 2 * have;
		if (chunk_reserve(P, c, want) != 0)
			return -1;
	}
	P->carry.len = 0;
	if (xp_buf_append(&P->carry, P->cbuf[c] + take, have - take) !=
	    XP_E_OK) {
		set_fatal(P, XP_E_NOMEM);
		return -1;
	}
	return (long long)take;
}

/*
 * Memory and positioned mode: copies bytes [pos, pos + n) of the input
 * into dst (n no more than what is left); 0, or -1 after an error.  A
 * regular file that ends before its size said (it shrank while being
 * read) ends the input there.
 */
static int fetch(xp_tx_parser *P, char *dst, size_t pos, size_t n)
{
	if (!P->pread_mode) {
		memcpy(dst, P->in + pos, n);
		return 0;
	}
	for (size_t got = 0; got < n;) {
		ssize_t r = pread(P->fd, dst + got, n - got,
		                  (off_t)(pos + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			xp_diag_file(P->d, XP_E_IO, P->name, "read error: %s",
			             strerror(errno));
			set_fatal(P, XP_E_IO);
			return -1;
		}
		if (r == 0) {
			P->in_len = pos + got;
			break;
		}
		got += (size_t)r;
	}
	return 0;
}

/*
 * Memory and positioned mode: copies the next chunk of the input into
 * buffer c: at most CHUNK bytes ending with a line end, more when one
 * line is longer, everything at the end.  The bytes after the chunk's
 * last line end are taken again by the next chunk.  Returns its length
 * (0 at the end) or -1.
 */
static long long copy_chunk(xp_tx_parser *P, int c)
{
	if (P->in_pos == P->in_len && P->part_pos < P->part_len) {
		/* A part: its own bytes follow the header's. */
		P->in_pos = P->part_pos;
		P->in_len = P->part_len;
		P->part_pos = P->part_len;
	}
	size_t avail = P->in_len - P->in_pos;
	size_t seen = 0, take = 0;
	if (avail == 0)
		return 0;
	for (size_t want = avail < CHUNK ? avail : CHUNK; take == 0;) {
		if (seen >= MAX_LINE)
			return too_long(P);
		if (chunk_reserve(P, c, want) != 0 ||
		    fetch(P, P->cbuf[c] + seen, P->in_pos + seen,
		          want - seen) != 0)
			return -1;
		avail = P->in_len - P->in_pos;
		if (want > avail)
			want = avail;
		if (want == 0)
			return 0;
		/* The last line end of the first bytes; then, for a line
		 * longer than CHUNK, the first one further on, doubling. */
		const char *nl = seen == 0 ? memrchr(P->cbuf[c], '\n', want)
		                           : memchr(P->cbuf[c] + seen, '\n',
		                                    want - seen);
		if (nl)
			take = (size_t)(nl - P->cbuf[c]) + 1;
		else if (want == avail)
			take = avail;
		seen = want;
		want = seen * 2 < avail ? seen * 2 : avail;
	}
	P->in_pos += take;
	return (long long)take;
}

static void heads_fetch(xp_tx_parser *P, int c);

int xp_tx_next_chunk(xp_tx_parser *P, yyscan_t s)
{
	int c = P->cur ^ 1;
	heads_fetch(P, c);
	long long n = P->fd >= 0 && !P->pread_mode ? read_chunk(P, c)
	                                         : copy_chunk(P, c);
	if (n <= 0)
		return 0;
	if (P->sum) {
		P->sum->crc = xp_crc32c(P->sum->crc, P->cbuf[c], (size_t)n);
		P->sum->len += (uint64_t)n;
	}
	memset(P->cbuf[c] + n, 0, 2 + XP_TX_PAD);
	P->clen[c] = (size_t)n;
	P->cur = c;
	xp_tx_scanner_chunk(s, P->cbuf[c], (size_t)n, P->in_off);
	P->in_off += (uint64_t)n;
	return 1;
}

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */
/* ------------------------------------------------------------------ */

/*
 * The text of the line starting at lstart, in one of the two chunks.  The
 * scanner keeps a NUL over the byte after its last token; that byte is
 * put back in the copy.
 */
static const char *line_text(xp_tx_parser *P, const char *lstart, size_t *len)
{
	*len = 0;
	if (!lstart)
		return NULL;
	const char *end = NULL;
	for (int i = 0; i < 2; i++) {
		uintptr_t b = (uintptr_t)P->cbuf[i], p = (uintptr_t)lstart;
		if (P->cbuf[i] && p >= b && p <= b + P->clen[i])
			end = P->cbuf[i] + P->clen[i];
	}
	/* At the end of the input there is no line to show. */
	if (!end || lstart == end)
		return NULL;
	const char *hold = NULL;
	char holdc = 0;
	if (P->scanner)
		xp_tx_scanner_hold(P->scanner, &hold, &holdc);
	const char *p = lstart;
	while (p < end) {
		char c = p == hold ? holdc : *p;
		if (c == '\n')
			break;
		p++;
	}
	size_t n = (size_t)(p - lstart);
	P->scratch.len = 0;
	if (xp_buf_append(&P->scratch, lstart, n) != XP_E_OK)
		return NULL;
	if ((uintptr_t)hold >= (uintptr_t)lstart &&
	    (uintptr_t)hold < (uintptr_t)p)
		P->scratch.p[hold - lstart] = (unsigned char)holdc;
	*len = n;
	return (const char *)P->scratch.p;
}

static void count_error(xp_tx_parser *P)
{
	P->nerr++;
	if (P->nerr >= P->max_errors || xp_diags_full(P->d))
		P->stop = 1;
}

static void verror(xp_tx_parser *P, const char *text, size_t len,
                   uint64_t loff, uint32_t line, uint32_t col,
                   const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	xp_diag_text(P->d, XP_E_SYNTAX, P->name, line, col, loff, text, len,
	             "%s", msg);
	count_error(P);
}

void xp_tx_report(xp_tx_parser *P, const char *lstart, uint64_t loff,
               uint32_t line, uint32_t col, const char *fmt, ...)
{
	size_t len;
	const char *text = line_text(P, lstart, &len);
	va_list ap;
	va_start(ap, fmt);
	verror(P, text, len, loff, line, col, fmt, ap);
	va_end(ap);
}

/* An error on the line l, at column col. */
#define LERR(l, col, ...)                                                 \
	xp_tx_report(P, (l)->lstart, (l)->loff, (l)->line, (col), __VA_ARGS__)

/*
 * Whether the section a line belongs in is open (open != 0); if not,
 * reports msg, unless an error on the section's header already covers it.
 */
static int in_section(xp_tx_parser *P, const xp_tx_line *l, int open,
                      const char *msg)
{
	if (!open && !P->broken)
		LERR(l, 1, "%s", msg);
	return open;
}

/* Copies a head line that is still only in its chunk. */
static void head_fetch(xp_tx_parser *P, headcopy *h)
{
	if (!h->pending)
		return;
	h->pending = 0;
	size_t len;
	const char *t = line_text(P, h->lstart, &len);
	h->text.len = 0;
	if (t && xp_buf_append(&h->text, t, len) != XP_E_OK)
		set_fatal(P, XP_E_NOMEM);
}

/* Before chunk buffer c is reused: copies the head lines it holds. */
static void heads_fetch(xp_tx_parser *P, int c)
{
	headcopy *const all[] = {
		&P->hcopy[0], &P->hcopy[1], &P->hcopy[2], &P->hcopy[3],
		&P->hextra, &P->htype, &P->oh, &P->ph, &P->gh, &P->sh, &P->lh
	};
	uintptr_t b = (uintptr_t)P->cbuf[c];
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		uintptr_t p = (uintptr_t)all[i]->lstart;
		if (all[i]->pending && b && p >= b && p <= b + P->clen[c])
			head_fetch(P, all[i]);
	}
}

__attribute__((format(printf, 4, 5)))
static void head_error(xp_tx_parser *P, headcopy *h, uint32_t col,
                       const char *fmt, ...)
{
	head_fetch(P, h);
	va_list ap;
	va_start(ap, fmt);
	verror(P, (const char *)h->text.p, h->text.len, h->loff, h->line, col,
	       fmt, ap);
	va_end(ap);
}

/* Keeps line l (a copy when needed, see headcopy). */
static void head_keep(xp_tx_parser *P, headcopy *h, const xp_tx_line *l)
{
	h->lstart = l->lstart;
	h->pending = 1;
	h->loff = l->loff;
	h->line = l->line;
	memcpy(h->col, l->col, sizeof l->col);
	h->scol = l->scol;
}

/* ------------------------------------------------------------------ */
/* Field checks                                                         */
/* ------------------------------------------------------------------ */

/*
 * what_<kind>(i): the name of numeric field i of a <kind> line in the
 * diagnostics, and with NAMEF that of its name field, from the record
 * lists of text_records.h.  F(kind, id) gives a field's number and name
 * for the checks below.
 */
#define NAMEF (-1)
#define TF_LIT(R, s)
#define TF_KIND(R, fn)
#define TF_SP(R)
#define TF_COLON(R)
#define TF_NUM(R, i, id, what) case (i): return (what);
#define TF_ID TF_NUM
#define TF_HEX TF_NUM
#define TF_BREF TF_NUM
#define TF_LINECOL(R, i, id, what, id2, what2)                            \
	case (i): return (what);                                          \
	case (i) + 1: return (what2);
#define TF_NAME(R, what) case NAMEF: return (what);
#define TF_PAIR TF_NAME
#define TF_OPTNAME TF_NAME
#define TF_VPVAL TF_NAME
/* One per record; a record none of whose fields a check names leaves its
 * function unused (clang says so even for static inline ones). */
#define WHAT(R)                                                           \
	__attribute__((unused)) static inline const char *what_##R(int i) \
	{                                                                 \
		switch (i) {                                              \
		XP_TX_REC_##R(R)                                          \
		}                                                         \
		return "field";                                           \
	}
XP_TX_RECORDS(WHAT)
#undef WHAT
#include "feedback/text_records_undef.h"

#define F(R, id) XP_TXF_##R##_##id, what_##R(XP_TXF_##R##_##id)

/* Field i of l must fit 32 bits; returns 0 (after reporting) if not. */
static int u32f(xp_tx_parser *P, const xp_tx_line *l, int i, const char *what)
{
	if ((l->f_ovf >> i & 1) || l->v[i] > UINT32_MAX) {
		LERR(l, l->col[i], "%s does not fit 32 bits", what);
		return 0;
	}
	return 1;
}

static int u64f(xp_tx_parser *P, const xp_tx_line *l, int i, const char *what)
{
	if (l->f_ovf >> i & 1) {
		LERR(l, l->col[i], "%s does not fit 64 bits", what);
		return 0;
	}
	return 1;
}

/* id (field i) must be in [lo..n]; lo is 0 or 1. */
static int rangef(xp_tx_parser *P, const xp_tx_line *l, int i, const char *what,
                  uint32_t lo, uint32_t n)
{
	uint64_t v = l->v[i];
	if ((v >= 1 && v <= n) || (lo == 0 && v == 0))
		return 1;
	if (lo == 0)
		LERR(l, l->col[i], "%s %llu out of range (0 or [1..%u])", what,
		     (unsigned long long)v, n);
	else
		LERR(l, l->col[i], "%s %llu out of range [1..%u]", what,
		     (unsigned long long)v, n);
	return 0;
}

static xp_str intern(xp_tx_parser *P, const char *s, size_t len)
{
	xp_str id = XP_NOSTR;
	if (!P->b)
		return XP_NOSTR;
	xp_err e = xp_fbb_intern_word(P->b, s, len, &id);
	if (e) {
		set_fatal(P, e);
		return XP_NOSTR;
	}
	return id;
}

/* intern(), for names that come back in runs: the bytes the memo m
 * holds give its id at once. */
static xp_str intern_again(xp_tx_parser *P, memo *m, const char *s,
                           size_t len)
{
	if (m->valid && m->bytes.len == len && memcmp(m->bytes.p, s, len) == 0)
		return m->id;
	m->id = intern(P, s, len);
	m->bytes.len = 0;
	m->valid = m->id != XP_NOSTR &&
	           xp_buf_append(&m->bytes, s, len) == XP_E_OK;
	return m->id;
}

/* Splits <proc_name>:<objfile> at the first ':'; both parts non-empty. */
static int split_pair(xp_tx_parser *P, const xp_tx_line *l, const char *what,
                      size_t *plen)
{
	const char *c = memchr(l->s, ':', l->slen);
	if (!c || c == l->s || (size_t)(c - l->s) + 1 == l->slen) {
		LERR(l, l->scol, "%s \"%.*s\" is not <proc_name>:<objfile>",
		     what, (int)(l->slen > 60 ? 60 : l->slen), l->s);
		return 0;
	}
	*plen = (size_t)(c - l->s);
	return 1;
}

static int idset_dup(xp_tx_parser *P, idset *s, const xp_tx_line *l, int i,
                     const char *what)
{
	uint32_t old;
	int r = ids_add(s, (uint32_t)l->v[i], l->line, &old);
	if (r < 0) {
		set_fatal(P, XP_E_NOMEM);
		return 1;
	}
	if (r > 0) {
		LERR(l, l->col[i], "duplicate %s %llu (first at line %u)", what,
		     (unsigned long long)l->v[i], old);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Closing sections                                                     */
/* ------------------------------------------------------------------ */

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void close_proc(xp_tx_parser *P)
{
	if (!P->in_proc)
		return;
	P->in_proc = 0;
	if (P->p_bad != P->nbad)
		return;
	headcopy *h = &P->ph;
	if (P->p_cnt != P->p_ncnt)
		head_error(P, h, h->col[1],
		           "PROC declares %u counter %s, found %u", P->p_ncnt,
		           plural(P->p_ncnt, "record", "records"), P->p_cnt);
	uint64_t want = (uint64_t)P->p_nvprec * P->o_nvpv;
	if (P->p_vplines != want && P->o_nvpv > 0)
		head_error(P, h, h->col[3],
		           "PROC declares %u value profile %s of %u %s, found "
		           "%u value %s", P->p_nvprec,
		           plural(P->p_nvprec, "record", "records"), P->o_nvpv,
		           plural(P->o_nvpv, "value", "values"), P->p_vplines,
		           plural(P->p_vplines, "line", "lines"));
	if (P->p_blk != P->p_nblk)
		head_error(P, h, h->col[5], "PROC declares %u %s, found %u",
		           P->p_nblk, plural(P->p_nblk, "block", "blocks"),
		           P->p_blk);
	if (P->p_edge != P->p_nedge)
		head_error(P, h, h->col[6], "PROC declares %u %s, found %u",
		           P->p_nedge, plural(P->p_nedge, "edge", "edges"),
		           P->p_edge);
}

static void close_obj(xp_tx_parser *P)
{
	close_proc(P);
	if (!P->in_obj)
		return;
	P->in_obj = 0;
	if (P->o_procs != P->o_nprocs && P->o_bad == P->nbad)
		head_error(P, &P->oh, P->oh.col[0],
		           "OBJFILE declares %u %s, found %u", P->o_nprocs,
		           plural(P->o_nprocs, "procedure", "procedures"),
		           P->o_procs);
}

static void close_prog(xp_tx_parser *P)
{
	if (!P->in_prog)
		return;
	P->in_prog = 0;
	if (P->g_bad != P->nbad)
		return;
	if (P->g_objref != P->g_nobjref)
		head_error(P, &P->gh, P->gh.col[0],
		           "PROGRAM declares %u OBJREF %s, found %u",
		           P->g_nobjref, plural(P->g_nobjref, "line", "lines"),
		           P->g_objref);
	if (P->g_comdat != P->g_ncomdat)
		head_error(P, &P->gh, P->gh.col[1],
		           "PROGRAM declares %u COMDAT_PROC %s, found %u",
		           P->g_ncomdat, plural(P->g_ncomdat, "line", "lines"),
		           P->g_comdat);
}

static void close_sline(xp_tx_parser *P)
{
	if (!P->in_sline)
		return;
	P->in_sline = 0;
	if (P->l_refs != P->l_nrefs && P->l_bad == P->nbad)
		head_error(P, &P->lh, P->lh.col[2],
		           "SRCLINE declares %u block %s, found %u", P->l_nrefs,
		           plural(P->l_nrefs, "ref", "refs"), P->l_refs);
}

static void close_src(xp_tx_parser *P)
{
	close_sline(P);
	if (!P->in_src)
		return;
	P->in_src = 0;
	if (P->s_lines != P->s_nlines && P->s_bad == P->nbad)
		head_error(P, &P->sh, P->sh.col[0],
		           "SRCFILE declares %u SRCLINE %s, found %u",
		           P->s_nlines, plural(P->s_nlines, "line", "lines"),
		           P->s_lines);
}

static void close_all(xp_tx_parser *P)
{
	close_obj(P);
	close_prog(P);
	close_src(P);
}

/* ------------------------------------------------------------------ */
/* Header                                                               */
/* ------------------------------------------------------------------ */

/* Keeps a copy of the line of a header token. */
static void tok_keep(xp_tx_parser *P, headcopy *h, const xp_tx_loc *loc)
{
	xp_tx_line l;
	memset(&l, 0, sizeof l);
	l.lstart = loc->lstart;
	l.loff = loc->loff;
	l.line = loc->line;
	head_keep(P, h, &l);
	head_fetch(P, h);
	h->scol = loc->col;
}

void xp_tx_on_header_count(xp_tx_parser *P, const xp_tx_tok *t, const xp_tx_loc *loc)
{
	unsigned i = P->ncounts++;
	if (i >= 4) {
		if (i == 4)
			tok_keep(P, &P->hextra, loc);
		return;
	}
	P->hcount[i] = t->ovf ? UINT64_MAX : t->v;
	tok_keep(P, &P->hcopy[i], loc);
}

static const char *const count_names[4] = {
	"n_objfiles", "n_programs", "n_proc_names", "n_srcfiles"
};

void xp_tx_on_header(xp_tx_parser *P, const xp_tx_tok *ver,
                   const xp_tx_loc *vloc, const xp_tx_tok *type,
                   const xp_tx_loc *tloc)
{
	P->have_header = 1;
	int ok = 1;
	unsigned minor = 0;
	if (ver->len == 3 && ver->s[0] == '4' && ver->s[1] == '.' &&
	    (ver->s[2] == '3' || ver->s[2] == '4')) {
		minor = (unsigned)(ver->s[2] - '0');
	} else {
		xp_tx_report(P, vloc->lstart, vloc->loff, vloc->line, vloc->col,
		          "unsupported version \"%.*s\" (expecting 4.3 or 4.4)",
		          (int)(ver->len > 20 ? 20 : ver->len), ver->s);
		ok = 0;
	}
	/* The type is copied before anything else can overwrite the
	 * scanner's hold byte in its line. */
	if (type->s)
		tok_keep(P, &P->htype, tloc);
	unsigned need = minor == 3 ? 3 : 4;
	if (ok && P->ncounts != need) {
		if (P->ncounts < need) {
			xp_tx_report(P, vloc->lstart, vloc->loff, vloc->line,
			          vloc->col,
			          "version 4.%u header needs %u counts, found %u",
			          minor, need, P->ncounts);
		} else {
			headcopy *h = need < 4 ? &P->hcopy[need] : &P->hextra;
			head_error(P, h, h->scol,
			           "version 4.%u header needs %u counts, found %u",
			           minor, need, P->ncounts);
		}
		ok = 0;
	}
	for (unsigned i = 0; i < P->ncounts && i < need; i++) {
		if (P->hcount[i] > UINT32_MAX) {
			head_error(P, &P->hcopy[i], P->hcopy[i].scol,
			           "%s does not fit 32 bits", count_names[i]);
			ok = 0;
		}
	}
	xp_datatype dt = XP_DT_FEEDBACK;
	if (type->s) {
		char tn[16];
		if (type->len < sizeof tn) {
			memcpy(tn, type->s, type->len);
			tn[type->len] = 0;
		} else {
			tn[0] = 0;
		}
		if (xp_datatype_parse(tn, &dt) != 0 || dt == XP_DT_FEEDBACK) {
			head_error(P, &P->htype, P->htype.scol,
			           "unknown data type \"%.*s\" (expecting tcovd, "
			           "objfd or tcovsd)",
			           (int)(type->len > 20 ? 20 : type->len),
			           type->s);
			ok = 0;
		}
	}
	if (!ok)
		return;
	P->minor = minor;
	P->type = dt;
	P->hcount_ok = 1;
	if (P->ncounts == 3)
		P->hcount[3] = 0;
	P->b = xp_fbb_new(dt, minor, (uint32_t)P->hcount[2]);
	if (!P->b)
		set_fatal(P, XP_E_NOMEM);
}

/* ------------------------------------------------------------------ */
/* Sections                                                             */
/* ------------------------------------------------------------------ */

/* Checks that a section path is new; adds it.  Returns its id. */
static xp_str section_path(xp_tx_parser *P, const xp_tx_line *l, u32map *seen,
                           const char *kw)
{
	xp_str id = intern(P, l->s, l->slen);
	if (id == XP_NOSTR)
		return id;
	uint32_t old;
	int r = map_add(seen, id, l->line, &old);
	if (r < 0) {
		set_fatal(P, XP_E_NOMEM);
	} else if (r > 0) {
		LERR(l, l->scol, "duplicate %s %.*s (first at line %u)", kw,
		     (int)(l->slen > 200 ? 200 : l->slen), l->s, old);
	}
	return id;
}

void xp_tx_on_objfile(xp_tx_parser *P, const xp_tx_line *l)
{
	close_all(P);
	P->broken = 0;
	P->n_obj++;
	if (P->type == XP_DT_OBJFD && P->n_obj == 2)
		LERR(l, 1, "objfd data holds exactly one OBJFILE section");
	xp_str path = section_path(P, l, &P->objpaths, "OBJFILE");
	if (P->part && xp_buf_append(&P->objs, &path, sizeof path) != XP_E_OK)
		set_fatal(P, XP_E_NOMEM);
	int ok = 1;
	for (int i = 0; i < XP_TXF_objfile_NF; i++) {
		const char *w = what_objfile(i);
		/* The signature has 64 bits, every other field 32. */
		ok &= i == XP_TXF_objfile_signature ? u64f(P, l, i, w)
		                                  : u32f(P, l, i, w);
	}
	P->in_obj = 1;
	P->o_bad = P->nbad;
	head_keep(P, &P->oh, l);
	P->o_nprocs = (uint32_t)l->v[0];
	P->o_nvpv = (uint32_t)l->v[3];
	P->o_procs = 0;
	map_clear(&P->procnames);
	ids_clear(&P->procids, P->o_nprocs);
	if (!ok)
		return;
	xp_objfile o;
	memset(&o, 0, sizeof o);
	o.path = path;
	o.tv_sec = (uint32_t)l->v[1];
	o.tv_usec = (uint32_t)l->v[2];
	o.n_values_per_vp = (uint32_t)l->v[3];
	o.signature = l->v[4];
	o.n_srcfile_names = (uint32_t)l->v[5];
	BUILD(xp_fbb_begin_objfile(P->b, &o));
}

void xp_tx_on_proc(xp_tx_parser *P, const xp_tx_line *l)
{
	close_proc(P);
	if (!in_section(P, l, P->in_obj, "PROC outside an OBJFILE section"))
		return;
	P->broken = 0;
	P->o_procs++;
	int ok = 1;
	for (int i = 0; i < XP_TXF_proc_NF; i++) {
		const char *w = what_proc(i);
		/* The signature has 64 bits, every other field 32. */
		ok &= i == XP_TXF_proc_signature ? u64f(P, l, i, w)
		                               : u32f(P, l, i, w);
	}
	xp_str name = intern(P, l->s, l->slen);
	if (P->b && name != XP_NOSTR) {
		uint32_t old;
		int r = map_add(&P->procnames, name, l->line, &old);
		if (r < 0)
			set_fatal(P, XP_E_NOMEM);
		else if (r > 0)
			LERR(l, l->scol,
			     "duplicate procedure %.*s in this OBJFILE (first at "
			     "line %u)", (int)(l->slen > 200 ? 200 : l->slen),
			     l->s, old);
	}
	if (ok && rangef(P, l, F(proc, proc_id), 1, P->o_nprocs))
		idset_dup(P, &P->procids, l, F(proc, proc_id));
	if (ok && l->v[3] > 0 && P->o_nvpv == 0)
		LERR(l, l->col[3],
		     "n_vp_records is %llu but the OBJFILE's n_values_per_vp "
		     "is 0", (unsigned long long)l->v[3]);
	P->in_proc = 1;
	P->p_bad = P->nbad;
	head_keep(P, &P->ph, l);
	P->p_ncnt = (uint32_t)l->v[1];
	P->p_nvprec = (uint32_t)l->v[3];
	P->p_nblk = (uint32_t)l->v[5];
	P->p_nedge = (uint32_t)l->v[6];
	P->p_nsrcmap = (uint32_t)l->v[7];
	if (!ok) {
		/* Counts that did not fit are not checked at the end. */
		P->in_proc = 0;
		return;
	}
	P->p_cnt = P->p_vplines = P->p_blk = P->p_edge = P->p_tup = 0;
	P->phase = PH_STATS;
	ids_clear(&P->cntids, P->p_ncnt);
	ids_clear(&P->blkids, P->p_nblk);
	ids_clear(&P->edgeids, P->p_nedge);
	ids_clear(&P->tupids, P->p_nsrcmap);
	xp_proc pr;
	memset(&pr, 0, sizeof pr);
	pr.name = name;
	pr.signature = l->v[0];
	pr.proc_id = (uint32_t)l->v[4];
	pr.n_vp_sites = (uint32_t)l->v[2];
	pr.n_srcmap_ops = (uint32_t)l->v[7];
	BUILD(xp_fbb_begin_proc(P->b, &pr));
}

void xp_tx_on_stat(xp_tx_parser *P, const xp_tx_line *l)
{
	const char *kw = l->kind == XP_STAT_MAX ? "max" : "sum";
	if (P->in_proc) {
		if (P->phase != PH_STATS) {
			LERR(l, 1, "%s stat after %s of the PROC", kw,
			     phase_names[P->phase]);
			return;
		}
	} else if (P->in_obj) {
		if (P->o_procs > 0) {
			/* The PROC that would hold it had errors. */
			return;
		}
	} else if (P->in_prog) {
		if (P->g_phase != 0) {
			LERR(l, 1, "%s stat after %s lines of the PROGRAM", kw,
			     P->g_phase == 1 ? "OBJREF" : "COMDAT_PROC");
			return;
		}
	} else if (P->in_src) {
		LERR(l, 1, "%s stat in a SRCFILE section", kw);
		return;
	} else {
		if (!P->broken)
			LERR(l, 1, "%s stat outside any section", kw);
		return;
	}
	if (!u64f(P, l, F(stat, value)))
		return;
	BUILD(xp_fbb_add_stat(P->b, (xp_statkind)l->kind, l->v[0]));
}

/*
 * A record of a PROC: checks that one is open and the order, and counts
 * the record in *count (if not NULL) towards the declared number, out of
 * order or not.  Returns -1 when no PROC is open, 0 when the record is out
 * of order, 1 when all is well.
 */
static int proc_record(xp_tx_parser *P, const xp_tx_line *l, int phase,
                       const char *what, uint32_t *count)
{
	if (!P->in_proc) {
		if (!(P->in_obj && P->o_procs > 0) && !P->broken)
			LERR(l, 1, "%s outside a PROC section", what);
		return -1;
	}
	if (count)
		(*count)++;
	if (phase < P->phase) {
		LERR(l, 1, "%s after %s", what,
		     phase_names[P->phase > PH_TUPLES ? PH_TUPLES : P->phase]);
		return 0;
	}
	P->phase = phase;
	return 1;
}

void xp_tx_on_counter(xp_tx_parser *P, const xp_tx_line *l)
{
	if (proc_record(P, l, PH_COUNTERS, "counter record", &P->p_cnt) <= 0)
		return;
	if (!u32f(P, l, F(counter, id)) ||
	    !rangef(P, l, F(counter, id), 1, P->p_ncnt) ||
	    idset_dup(P, &P->cntids, l, F(counter, id)) ||
	    !u64f(P, l, F(counter, value)))
		return;
	BUILD(xp_fbb_add_counter(P->b, (uint32_t)l->v[0], l->v[1]));
}

static const char *const vp_names[] = {
	"VP_INT", "VP_LLONG", "VP_FLOAT", "VP_DOUBLE", "VP_PROC"
};

/* Signed decimal with optional sign; 0 bad, 1 ok, 2 out of range. */
static int parse_int(const char *s, size_t n, int64_t lo, int64_t hi,
                     int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	if (n > 0 && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		return 0;
	uint64_t v = 0;
	int big = 0;
	for (; i < n; i++) {
		if ((unsigned)(s[i] - '0') >= 10u)
			return 0;
		if (v > (UINT64_MAX - 9) / 10)
			big = 1;
		else
			v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (big)
		return 2;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1 || -(int64_t)(v - 1) - 1 < lo)
			return 2;
		*out = -(int64_t)(v - 1) - 1;
		if (v == 0)
			*out = 0;
	} else {
		if (v > (uint64_t)hi)
			return 2;
		*out = (int64_t)v;
	}
	return 1;
}

/* The result of xp_parse_float/double (0 ok, 1 out of range, -1 not a
 * number) in parse_int's terms (1 ok, 2 out of range, 0 not a number). */
static int float_result(int r)
{
	return r == 0 ? 1 : r == 1 ? 2 : 0;
}

void xp_tx_on_vp(xp_tx_parser *P, const xp_tx_line *l)
{
	int ok = proc_record(P, l, PH_VPS, "value profile line", NULL);
	if (ok < 0)
		return;
	const char *tn = vp_names[l->kind];
	if (P->o_nvpv == 0) {
		LERR(l, 1, "value profile line in an OBJFILE with "
		           "n_values_per_vp 0");
		return;
	}
	uint32_t pos = P->p_vplines % P->o_nvpv;
	P->p_vplines++;
	if (!ok)
		return;
	if (!u32f(P, l, F(vp, expr_id)) || !u64f(P, l, F(vp, count)))
		return;
	if (pos == 0) {
		P->vp_expr = (uint32_t)l->v[0];
		P->vp_type = l->kind;
		BUILD(xp_fbb_add_vp(P->b, P->vp_expr, (xp_vptype)l->kind));
	} else if (l->kind != P->vp_type) {
		/* A record whose first line had a syntax error has no type
		 * (vp_type -1, see vp_lost), and no expr id to compare. */
		if (P->vp_type >= 0) {
			LERR(l, 1, "%s line in a %s value profile record", tn,
			     vp_names[P->vp_type]);
			return;
		}
	} else if (l->v[0] != P->vp_expr) {
		LERR(l, l->col[0],
		     "expr id %llu differs from the record's expr id %u",
		     (unsigned long long)l->v[0], P->vp_expr);
		return;
	}
	xp_vpval v;
	memset(&v, 0, sizeof v);
	v.count = l->v[1];
	if (!l->has_s) {
		if (l->v[1] > 0 && l->kind != XP_VP_PROC) {
			LERR(l, l->col[1],
			     "%s value missing (only VP_PROC may omit it when "
			     "the count is not 0)", tn);
			return;
		}
		BUILD(xp_fbb_add_vpval(P->b, &v));
		return;
	}
	v.has_value = 1;
	int r;
	int64_t iv;
	switch (l->kind) {
	case XP_VP_INT:
	case XP_VP_LLONG:
		r = parse_int(l->s, l->slen,
		              l->kind == XP_VP_INT ? INT32_MIN : INT64_MIN,
		              l->kind == XP_VP_INT ? INT32_MAX : INT64_MAX, &iv);
		if (r != 1)
			goto bad;
		if (l->kind == XP_VP_INT)
			v.v.i = (int32_t)iv;
		else
			v.v.ll = iv;
		break;
	case XP_VP_FLOAT:
		r = float_result(xp_parse_float(l->s, l->slen, &v.v.f));
		if (r != 1)
			goto bad;
		break;
	case XP_VP_DOUBLE:
		r = float_result(xp_parse_double(l->s, l->slen, &v.v.d));
		if (r != 1)
			goto bad;
		break;
	default: {
		size_t plen;
		if (!split_pair(P, l, "VP_PROC value", &plen))
			return;
		v.v.proc.name = intern(P, l->s, plen);
		v.v.proc.objfile = intern(P, l->s + plen + 1,
		                          l->slen - plen - 1);
		break;
	}
	}
	BUILD(xp_fbb_add_vpval(P->b, &v));
	return;
bad:
	LERR(l, l->scol, r == 2 ? "%s value %.*s out of range"
	                        : "%s value \"%.*s\" is not a number", tn,
	     (int)(l->slen > 60 ? 60 : l->slen), l->s);
}

void xp_tx_on_block(xp_tx_parser *P, const xp_tx_line *l)
{
	if (proc_record(P, l, PH_BLOCKS, "block record", &P->p_blk) <= 0)
		return;
	if (!u32f(P, l, F(block, id)) ||
	    !rangef(P, l, F(block, id), 1, P->p_nblk) ||
	    idset_dup(P, &P->blkids, l, F(block, id)) ||
	    !u32f(P, l, F(block, counter)) ||
	    !rangef(P, l, F(block, counter), 0, P->p_ncnt))
		return;
	BUILD(xp_fbb_add_block(P->b, (uint32_t)l->v[0], (uint32_t)l->v[1]));
}

void xp_tx_on_edge(xp_tx_parser *P, const xp_tx_line *l)
{
	if (proc_record(P, l, PH_EDGES, "edge record", &P->p_edge) <= 0)
		return;
	if (!u32f(P, l, F(edge, id)) ||
	    !rangef(P, l, F(edge, id), 1, P->p_nedge) ||
	    idset_dup(P, &P->edgeids, l, F(edge, id)) ||
	    !u32f(P, l, F(edge, counter)) ||
	    !rangef(P, l, F(edge, counter), 0, P->p_ncnt) ||
	    !u32f(P, l, F(edge, from)) ||
	    !rangef(P, l, F(edge, from), 1, P->p_nblk) ||
	    !u32f(P, l, F(edge, to)) ||
	    !rangef(P, l, F(edge, to), 1, P->p_nblk))
		return;
	xp_edge e = { (uint32_t)l->v[0], (uint32_t)l->v[1], (uint32_t)l->v[2],
	              (uint32_t)l->v[3] };
	BUILD(xp_fbb_add_edge(P->b, &e));
}

/* A line number (field i, named what) and an optional column (field
 * i + 1, named what2). */
static int line_col(xp_tx_parser *P, const xp_tx_line *l, int i,
                    const char *what, const char *what2)
{
	if (!u32f(P, l, i, what))
		return 0;
	if (l->v[i] == 0) {
		LERR(l, l->col[i], "%s 0 (lines start at 1)", what);
		return 0;
	}
	if (l->nv) {
		if (!u32f(P, l, i + 1, what2))
			return 0;
		if (l->v[i + 1] == 0) {
			LERR(l, l->col[i + 1], "%s 0 (columns start at 1)",
			     what2);
			return 0;
		}
	}
	return 1;
}

void xp_tx_on_tuple(xp_tx_parser *P, const xp_tx_line *l)
{
	if (proc_record(P, l, PH_TUPLES, "source mapping tuple", &P->p_tup) <= 0)
		return;
	if (!u32f(P, l, F(tuple, id)) ||
	    !rangef(P, l, F(tuple, id), 1, P->p_nsrcmap) ||
	    idset_dup(P, &P->tupids, l, F(tuple, id)) ||
	    !u32f(P, l, F(tuple, block)) ||
	    !rangef(P, l, F(tuple, block), 1, P->p_nblk) ||
	    !line_col(P, l, F(tuple, line), what_tuple(XP_TXF_tuple_col)))
		return;
	xp_tuple t;
	t.id = (uint32_t)l->v[0];
	t.block = (uint32_t)l->v[1];
	t.line = (uint32_t)l->v[2];
	t.col = l->nv ? (uint32_t)l->v[3] : 0;
	t.srcfile = l->has_s ? intern_again(P, &P->m_src, l->s, l->slen)
	                     : XP_NOSTR;
	BUILD(xp_fbb_add_tuple(P->b, &t));
}

void xp_tx_on_program(xp_tx_parser *P, const xp_tx_line *l)
{
	close_all(P);
	P->broken = 0;
	P->n_prog++;
	xp_str path = section_path(P, l, &P->progpaths, "PROGRAM");
	int ok = u32f(P, l, F(program, n_objrefs));
	ok &= u32f(P, l, F(program, n_comdats));
	if (!ok)
		return;
	P->in_prog = 1;
	P->g_bad = P->nbad;
	head_keep(P, &P->gh, l);
	P->g_nobjref = (uint32_t)l->v[0];
	P->g_ncomdat = (uint32_t)l->v[1];
	P->g_objref = P->g_comdat = 0;
	P->g_phase = 0;
	BUILD(xp_fbb_begin_program(P->b, path));
}

void xp_tx_on_objref(xp_tx_parser *P, const xp_tx_line *l)
{
	if (!in_section(P, l, P->in_prog, "OBJREF outside a PROGRAM section"))
		return;
	P->g_objref++;
	if (P->g_phase > 1) {
		LERR(l, 1, "OBJREF after COMDAT_PROC lines");
		return;
	}
	P->g_phase = 1;
	xp_str id = intern(P, l->s, l->slen);
	uint32_t line;
	if (P->b && id != XP_NOSTR && !P->obj_lost &&
	    !map_get(&P->objpaths, id, &line)) {
		/* A part leaves the OBJFILE sections of the parts before it
		 * to the join. */
		if (P->part) {
			if (xp_buf_append(&P->late, &id, sizeof id) != XP_E_OK)
				set_fatal(P, XP_E_NOMEM);
			BUILD(xp_fbb_add_objref(P->b, id));
			return;
		}
		LERR(l, l->scol,
		     "OBJREF %.*s names no OBJFILE defined earlier",
		     (int)(l->slen > 200 ? 200 : l->slen), l->s);
		return;
	}
	BUILD(xp_fbb_add_objref(P->b, id));
}

void xp_tx_on_comdat(xp_tx_parser *P, const xp_tx_line *l)
{
	if (!in_section(P, l, P->in_prog,
	                "COMDAT_PROC outside a PROGRAM section"))
		return;
	P->g_phase = 2;
	P->g_comdat++;
	size_t plen;
	if (!split_pair(P, l, what_comdat(NAMEF), &plen))
		return;
	xp_str pn = intern(P, l->s, plen);
	xp_str on = intern(P, l->s + plen + 1, l->slen - plen - 1);
	BUILD(xp_fbb_add_comdat(P->b, pn, on));
}

void xp_tx_on_srcfile(xp_tx_parser *P, const xp_tx_line *l)
{
	close_all(P);
	P->broken = 0;
	if (P->have_header && P->minor == 3)
		LERR(l, 1, "SRCFILE section in a version 4.3 file");
	P->n_src++;
	xp_str path = section_path(P, l, &P->srcpaths, "SRCFILE");
	if (!u32f(P, l, F(srcfile, n_srclines)))
		return;
	P->in_src = 1;
	P->s_bad = P->nbad;
	head_keep(P, &P->sh, l);
	P->s_nlines = (uint32_t)l->v[0];
	P->s_lines = 0;
	BUILD(xp_fbb_begin_srcfile(P->b, path));
}

void xp_tx_on_srcline(xp_tx_parser *P, const xp_tx_line *l)
{
	close_sline(P);
	if (!in_section(P, l, P->in_src, "SRCLINE outside a SRCFILE section"))
		return;
	P->broken = 0;
	P->s_lines++;
	if (!line_col(P, l, F(srcline, line),
	              what_srcline(XP_TXF_srcline_col)) ||
	    !u32f(P, l, F(srcline, n_refs)))
		return;
	if (l->v[2] == 0) {
		LERR(l, l->col[2], "%s is 0 (must be 1 or more)",
		     what_srcline(XP_TXF_srcline_n_refs));
		return;
	}
	P->in_sline = 1;
	P->l_bad = P->nbad;
	head_keep(P, &P->lh, l);
	P->l_nrefs = (uint32_t)l->v[2];
	P->l_refs = 0;
	BUILD(xp_fbb_begin_srcline(P->b, (uint32_t)l->v[0],
	                           l->nv ? (uint32_t)l->v[1] : 0));
}

void xp_tx_on_blockref(xp_tx_parser *P, const xp_tx_line *l)
{
	if (!P->in_sline) {
		if ((!P->in_src || P->s_lines == 0) && !P->broken)
			LERR(l, 1, "block ref outside a SRCLINE");
		return;
	}
	P->l_refs++;
	size_t plen;
	if (!u32f(P, l, F(blockref, block)) ||
	    !u64f(P, l, F(blockref, count)) ||
	    !split_pair(P, l, what_blockref(NAMEF), &plen))
		return;
	/* Block refs of one procedure follow each other, and those of one
	 * object file. */
	xp_blockref r = { (uint32_t)l->v[0], l->v[1],
	                  intern_again(P, &P->m_proc, l->s, plen),
	                  intern_again(P, &P->m_obj, l->s + plen + 1,
	                               l->slen - plen - 1) };
	BUILD(xp_fbb_add_blockref(P->b, &r));
}

/* ------------------------------------------------------------------ */
/* Recovery from errors in lines                                        */
/* ------------------------------------------------------------------ */

/* The record keywords; the kind of the record each begins. */
static const struct {
	char kw[16];
	xp_tx_kind kind;
} keywords[] = {
	{ "OBJFILE:", XP_TXK_objfile },
	{ "PROC:", XP_TXK_proc },
	{ "max", XP_TXK_stat },
	{ "sum", XP_TXK_stat },
	{ "VP_INT", XP_TXK_vp },
	{ "VP_LLONG", XP_TXK_vp },
	{ "VP_FLOAT", XP_TXK_vp },
	{ "VP_DOUBLE", XP_TXK_vp },
	{ "VP_PROC", XP_TXK_vp },
	{ "PROGRAM:", XP_TXK_program },
	{ "OBJREF:", XP_TXK_objref },
	{ "COMDAT_PROC:", XP_TXK_comdat },
	{ "SRCFILE:", XP_TXK_srcfile },
	{ "SRCLINE:", XP_TXK_srcline },
};
#define NKEYWORDS (sizeof keywords / sizeof keywords[0])
/* One more than the longest keyword and a word two bytes longer, which
 * is as far as suggest() looks. */
#define KW_ROOM (sizeof keywords[0].kw + 3)

xp_tx_kind xp_tx_keyword(const char *s, size_t n)
{
	for (size_t i = 0; i < NKEYWORDS; i++)
		if (strlen(keywords[i].kw) == n &&
		    memcmp(keywords[i].kw, s, n) == 0)
			return keywords[i].kind;
	return XP_TXK_NONE;
}

static int fold(unsigned char c)
{
	return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/*
 * The Damerau-Levenshtein distance of a and b (m, n < KW_ROOM bytes) in
 * its usual restricted form (optimal string alignment: a byte dropped,
 * added or changed, or two neighbours swapped, each counting 1, no part
 * edited twice), ignoring the case of ASCII letters.
 */
static unsigned typo_distance(const char *a, size_t m, const char *b,
                              size_t n)
{
	unsigned d[KW_ROOM][KW_ROOM];
	for (size_t i = 0; i <= m; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= n; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= m; i++) {
		for (size_t j = 1; j <= n; j++) {
			int ai = fold((unsigned char)a[i - 1]);
			int bj = fold((unsigned char)b[j - 1]);
			unsigned v = d[i - 1][j - 1] + (ai != bj);
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 &&
			    ai == fold((unsigned char)b[j - 2]) &&
			    fold((unsigned char)a[i - 2]) == bj &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[m][n];
}

/*
 * The keyword that the word s (n bytes) is most likely a typo of, or -1:
 * the nearest one at a distance of at most 2, and less than half the
 * keyword's length (so that "a" is no typo of max, while "mx" is); the
 * first in the list of the nearest.  Case alone does not count ("proc:"
 * is PROC:).
 */
static int suggest(const char *s, size_t n)
{
	int best = -1;
	unsigned bestd = 3;
	for (size_t i = 0; i < NKEYWORDS; i++) {
		size_t kn = strlen(keywords[i].kw);
		if (n > kn + 2 || kn > n + 2)
			continue;
		unsigned dist = typo_distance(s, n, keywords[i].kw, kn);
		if (dist < bestd && 2 * dist < kn) {
			best = (int)i;
			bestd = dist;
		}
	}
	return best;
}

/*
 * A value profile line had a syntax error.  It still takes its place in
 * its record, so that the records after it stay in step; when it was the
 * record's first line, the record's type and expr id are unknown, and its
 * other lines are not compared with them.
 */
static void vp_lost(xp_tx_parser *P)
{
	if (!P->in_proc || P->o_nvpv == 0)
		return;
	if (P->p_vplines % P->o_nvpv == 0)
		P->vp_type = -1;
	P->p_vplines++;
}

/*
 * A line had an error that leaves its record unknown (a syntax error, or
 * an unknown keyword); kind is what its keyword names.  Had the line
 * been a head line, the records after it are its own, and checking them
 * against the section open before it would give an error for each
 * (counter records "after source mapping tuples" of the PROC before a
 * misspelt PROC:).  So the sections it would have closed are closed
 * here, unchecked: a section that holds a broken line, or whose head was
 * one, is not checked against its declared counts, since the error would
 * only repeat what was said.  Until the next head line, records that
 * find no section open are dropped without a word (broken), and so are
 * the records of a PROC in an OBJFILE that has had PROCs (see
 * proc_record); a syntax error in them is still reported by the grammar.
 *
 *  - OBJFILE:, PROGRAM: and SRCFILE:: every section closes; everything up
 *    to the next of these three goes, PROC: lines and their records too.
 *    After a lost OBJFILE, OBJREF lines are no longer checked against
 *    the OBJFILE paths (obj_lost).
 *  - PROC: and SRCLINE:: the PROC or SRCLINE open closes; its records
 *    up to the next PROC:, SRCLINE: or section line go.
 *  - An unknown keyword like no keyword: as PROC: and SRCLINE: both,
 *    since it may have been either (xp_tx_on_unknown takes one glued to
 *    more text for an OBJFILE:, the one keyword written so).  Taking it
 *    for a section head would drop the most lines, and a word that is no
 *    typo of a keyword is as likely a line of junk among the records.
 *  - Any other line: only the line itself; its section goes on (a value
 *    profile line keeps its place in its record, see vp_lost).
 */
void xp_tx_on_bad_line(xp_tx_parser *P, xp_tx_kind kind)
{
	P->broken = 1;
	P->nbad++;
	switch (kind) {
	case XP_TXK_objfile:
		P->obj_lost = 1;
		close_all(P);
		break;
	case XP_TXK_program:
	case XP_TXK_srcfile:
		close_all(P);
		break;
	case XP_TXK_proc:
		close_proc(P);
		break;
	case XP_TXK_srcline:
		close_sline(P);
		break;
	case XP_TXK_UNKNOWN:
		close_proc(P);
		close_sline(P);
		break;
	case XP_TXK_vp:
		vp_lost(P);
		break;
	default:
		break;
	}
}

void xp_tx_on_unknown(xp_tx_parser *P, const xp_tx_line *l)
{
	int k = suggest(l->s, l->slen);
	int len = (int)(l->slen > 40 ? 40 : l->slen);
	if (k >= 0)
		LERR(l, l->scol, "unknown keyword \"%.*s\" (did you mean %s?)",
		     len, l->s, keywords[k].kw);
	else
		LERR(l, l->scol, "unknown keyword \"%.*s%s\"", len, l->s,
		     (size_t)len < l->slen ? "..." : "");
	xp_tx_on_bad_line(P, k >= 0 ? keywords[k].kind
	                     : l->kind ? XP_TXK_objfile : XP_TXK_UNKNOWN);
}

void xp_tx_on_end(xp_tx_parser *P)
{
	if (P->stop)
		return;
	close_all(P);
	/* A part's sections are counted when the parts are joined. */
	if (!P->hcount_ok || P->nbad > 0 || P->part)
		return;
	static const char *const what[] = {
		"OBJFILE", "PROGRAM", NULL, "SRCFILE"
	};
	uint32_t found[4] = { P->n_obj, P->n_prog, 0, P->n_src };
	for (int i = 0; i < 4; i++) {
		if (!what[i] || (i == 3 && P->minor == 3))
			continue;
		if (P->hcount[i] != found[i])
			head_error(P, &P->hcopy[i], P->hcopy[i].scol,
			           "header declares %llu %s %s, found %u",
			           (unsigned long long)P->hcount[i], what[i],
			           plural(P->hcount[i], "section", "sections"),
			           found[i]);
	}
	if (P->type == XP_DT_OBJFD && P->n_obj == 0)
		head_error(P, &P->htype, P->htype.scol,
		           "objfd data holds exactly one OBJFILE section, "
		           "found none");
}

/* ------------------------------------------------------------------ */
/* Entry points                                                         */
/* ------------------------------------------------------------------ */

static void headcopy_free(headcopy *h)
{
	xp_buf_free(&h->text);
}

static void parser_free(xp_tx_parser *P)
{
	xp_tx_scanner_free(P->scanner);
	xp_fbb_free(P->b);
	xp_buf_free(&P->carry);
	free(P->cbuf[0]);
	free(P->cbuf[1]);
	xp_buf_free(&P->scratch);
	xp_buf_free(&P->m_proc.bytes);
	xp_buf_free(&P->m_obj.bytes);
	xp_buf_free(&P->m_src.bytes);
	xp_buf_free(&P->late);
	xp_buf_free(&P->objs);
	for (int i = 0; i < 4; i++)
		headcopy_free(&P->hcopy[i]);
	headcopy_free(&P->htype);
	headcopy_free(&P->hextra);
	headcopy_free(&P->oh);
	headcopy_free(&P->ph);
	headcopy_free(&P->gh);
	headcopy_free(&P->sh);
	headcopy_free(&P->lh);
	map_free(&P->objpaths);
	map_free(&P->progpaths);
	map_free(&P->srcpaths);
	map_free(&P->procnames);
	ids_free(&P->procids);
	ids_free(&P->cntids);
	ids_free(&P->blkids);
	ids_free(&P->edgeids);
	ids_free(&P->tupids);
	free(P);
}

static xp_err run(xp_tx_parser *P, const xp_parse_opts *opts, xp_fb **out)
{
	if (xp_tx_scanner_new(P, opts ? opts->slow_only : 0, &P->scanner) != 0)
		return XP_E_NOMEM;
	if (!xp_tx_next_chunk(P, P->scanner)) {
		if (P->fatal)
			return P->fatal;
		/* An empty input still needs a buffer, or flex would read
		 * its default input. */
		P->cbuf[0] = calloc(1, 2 + XP_TX_PAD);
		if (!P->cbuf[0])
			return XP_E_NOMEM;
		P->ccap[0] = 2 + XP_TX_PAD;
		P->cur = 0;
		xp_tx_scanner_chunk(P->scanner, P->cbuf[0], 0, 0);
	}
	int r = xp_tx_parse(P->scanner, P);
	if (P->fatal)
		return P->fatal;
	if (r == 2)
		return XP_E_NOMEM;
	if (P->nerr > 0 || r != 0)
		return XP_E_SYNTAX;
	if (!P->b)
		return XP_E_SYNTAX;
	/* A part's builder stays open for the join. */
	return out ? xp_fbb_finish(P->b, out) : XP_E_OK;
}

/* Runs the parser; only flex's fatal errors come back to the setjmp
 * (what they leave behind is freed with the parser). */
static xp_err run_guarded(xp_tx_parser *P, const xp_parse_opts *opts,
                          xp_fb **out)
{
	if (setjmp(P->fatal_jmp) != 0)
		return XP_E_NOMEM;
	return run(P, opts, out);
}

/* fd mode from a stream: head (n bytes) was read from fd before, and
 * comes first. */
static xp_err parse_after(int fd, const void *head, size_t n, const char *name,
                          const xp_parse_opts *opts, xp_bytesum *sum,
                          xp_fb **out, xp_diags *d);

static xp_err parse(int fd, const void *buf, size_t len, const char *name,
                    const xp_parse_opts *opts, xp_fb **out, xp_diags *d)
{
	return parse_after(fd, buf, fd < 0 ? len : 0, name, opts, NULL, out, d);
}

static xp_err parse_after(int fd, const void *buf, size_t len,
                          const char *name, const xp_parse_opts *opts,
                          xp_bytesum *sum, xp_fb **out, xp_diags *d)
{
	*out = NULL;
	xp_tx_parser *P = calloc(1, sizeof *P);
	if (!P)
		return XP_E_NOMEM;
	P->d = d;
	P->name = name;
	P->fd = fd;
	P->sum = sum;
	P->max_errors = opts && opts->max_errors ? opts->max_errors : 20;
	if (fd < 0) {
		P->in = buf;
		P->in_len = len;
	} else if (len > 0) {
		/* Read ahead from a stream: the first partial "line". */
		if (xp_buf_append(&P->carry, buf, len) != XP_E_OK) {
			parser_free(P);
			return XP_E_NOMEM;
		}
	} else {
		/* A regular file is taken at the size it has now, from where
		 * its offset stands, with pread(2). */
		struct stat st;
		off_t at = lseek(fd, 0, SEEK_CUR);
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && at >= 0 &&
		    st.st_size > at && (uint64_t)st.st_size <= SIZE_MAX) {
			P->pread_mode = 1;
			P->in_pos = (size_t)at;
			P->in_len = (size_t)st.st_size;
		}
	}
	/* On threads, when asked and the input can be read anywhere; a
	 * text that has errors, or does not split, is parsed here. */
	if (opts && opts->jobs > 1 && !sum && (fd < 0 || P->pread_mode) &&
	    !opts->slow_only &&
	    xp_tx_parse_jobs(fd, buf, P->in_pos, P->in_len, name, opts->jobs,
	                     out)) {
		parser_free(P);
		return XP_E_OK;
	}
	xp_err e = run_guarded(P, opts, out);
	if (e != XP_E_OK) {
		xp_fb_free(*out);
		*out = NULL;
	}
	parser_free(P);
	return e;
}

xp_err xp_tx_parse_part(int fd, const void *buf, const char *name,
                        xp_tx_part *pt)
{
	xp_tx_parser *P = calloc(1, sizeof *P);
	xp_diags *d = xp_diags_new(1);
	xp_err e = XP_E_NOMEM;
	if (!P || !d)
		goto out;
	P->d = d;
	P->name = name;
	P->fd = fd;
	P->pread_mode = fd >= 0;
	P->in = buf;
	/* The first error ends it: a text with any is parsed again on one
	 * thread, for its diagnostics. */
	P->max_errors = 1;
	P->part = 1;
	P->in_pos = pt->hstart;
	P->in_len = pt->hend;
	P->part_pos = pt->start;
	P->part_len = pt->end;
	if ((e = run_guarded(P, NULL, NULL)) != XP_E_OK)
		goto out;
	pt->b = P->b;
	P->b = NULL;
	pt->minor = P->minor;
	pt->type = P->type;
	pt->ncounts = P->ncounts;
	memcpy(pt->hcount, P->hcount, sizeof pt->hcount);
	pt->n_obj = P->n_obj;
	pt->n_prog = P->n_prog;
	pt->n_src = P->n_src;
	pt->late = (uint32_t *)P->late.p;
	pt->nlate = P->late.len / sizeof *pt->late;
	P->late = (xp_buf){0};
	pt->objs = (uint32_t *)P->objs.p;
	P->objs = (xp_buf){0};
out:
	if (P)
		parser_free(P);
	xp_diags_free(d);
	return e;
}

xp_err xp_text_parse_mem(const void *buf, size_t len, const char *name,
                         const xp_parse_opts *opts, xp_fb **out, xp_diags *d)
{
	return parse(-1, buf, len, name, opts, out, d);
}

xp_err xp_text_parse_fd_after(int fd, const void *head, size_t n,
                              const char *name, const xp_parse_opts *opts,
                              xp_bytesum *sum, xp_fb **out, xp_diags *d)
{
	return parse_after(fd, head, n, name, opts, sum, out, d);
}

xp_err xp_text_parse_fd(int fd, const char *name, const xp_parse_opts *opts,
                        xp_fb **out, xp_diags *d)
{
	if (fd < 0) {
		*out = NULL;
		return XP_E_INVAL;
	}
	return parse(fd, NULL, 0, name, opts, out, d);
}
