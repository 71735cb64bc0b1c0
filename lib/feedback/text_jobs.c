/*
 * feedback/text_jobs.c - a feedback text (xprof_text(5)) parsed on several
 * threads: cut into parts at section lines, each part parsed by a parser
 * of its own after the text's header, and the parts' records joined in
 * their order.
 *
 * Why that gives the bytes one parser gives: after the header, the
 * scanner starts every line in the same state (a line end ends whatever
 * the line before held, errors included), and a section line (OBJFILE:,
 * PROGRAM:, SRCFILE:) closes every section open before it, so the records
 * of a part depend on nothing before its first line but the header, which
 * each part's parser reads first.  The rules that reach across sections
 * are checked at the join, over all parts: the section counts the header
 * declares, the one OBJFILE of objfd data, the OBJFILE an OBJREF names
 * (defined in the part or a part before it), and paths that two parts
 * define (the sealing of the joined records refuses them).  The builders'
 * records are appended in order (xp_fbb_append), as one builder given
 * every line in turn holds them, and sealed once.
 *
 * Errors: a part stops at its first error, and a text with any error, in
 * a part or at the join, is parsed again on one thread, which reports
 * what it has to say as always: the same diagnostics, in the same order,
 * whatever the number of threads.  Only a text without errors is built
 * from parts.
 *
 * The parts are cut near equal shares of the work, each at the first
 * line after its share's start that starts with a section keyword (the
 * one the header ends at excepted); the input is read a window at a time
 * to find them.  The work is estimated from samples of the input: a line
 * costs about as much as LINE_BYTES bytes (what a parse of generated
 * texts took, by lines and bytes), and lines are much shorter in some
 * sections (counter records) than in others (block refs).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "feedback/text_parse.h"

#define WIN ((size_t)64 << 10)
#define SAMPLES 256
#define SAMPLE ((size_t)4 << 10)
#define LINE_BYTES 56
/* The most parts, and threads: each part has a parser and chunk buffers
 * of its own, and the join is done on one thread. */
#define MAX_PARTS 64

/* ------------------------------------------------------------------ */
/* Where to cut                                                        */
/* ------------------------------------------------------------------ */

/* The input a window at a time: buf in memory, or the file fd. */
typedef struct {
	int fd;
	const unsigned char *mem;
	size_t end;
	unsigned char *win;
	size_t off, len;
} cursor;

/*
 * Bytes from pos in a window, at least need of them (need <= n <= WIN,
 * fewer only at the end of the input) and up to *n: *n is set to how
 * many there are.  What the window holds from pos is taken without
 * reading again, so that a scan line after line reads each byte once;
 * a new window reads *n bytes, or SAMPLE when that is more.  NULL at the
 * end or after a read error.
 */
static const unsigned char *at(cursor *c, size_t pos, size_t need, size_t *n)
{
	if (pos >= c->end)
		return NULL;
	if (*n > c->end - pos)
		*n = c->end - pos;
	if (need > *n)
		need = *n;
	if (c->mem)
		return c->mem + pos;
	if (pos >= c->off && pos + need <= c->off + c->len) {
		if (*n > c->off + c->len - pos)
			*n = c->off + c->len - pos;
	} else {
		size_t want = *n > SAMPLE ? *n : SAMPLE;
		if (want > c->end - pos)
			want = c->end - pos;
		c->off = pos;
		c->len = 0;
		while (c->len < want) {
			ssize_t r = pread(c->fd, c->win + c->len, want - c->len,
			                  (off_t)(pos + c->len));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			c->len += (size_t)r;
		}
		if (*n > c->len)
			*n = c->len;
		if (*n == 0)
			return NULL;
	}
	return c->win + (pos - c->off);
}

/* The line at x starts with a section keyword, after blanks if blanks
 * is set (as the line that ends the header may). */
static int section_line(cursor *c, size_t x, int blanks)
{
	static const char kw[][8] = {
		{'O', 'B', 'J', 'F', 'I', 'L', 'E', ':'},
		{'P', 'R', 'O', 'G', 'R', 'A', 'M', ':'},
		{'S', 'R', 'C', 'F', 'I', 'L', 'E', ':'},
	};
	const unsigned char *p;
	size_t n = 1;
	while (blanks && (p = at(c, x, 1, &n)) && (*p == ' ' || *p == '\t'))
		x++;
	n = 8;
	if (!(p = at(c, x, 8, &n)) || n < 8)
		return 0;
	for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
		if (memcmp(p, kw[k], 8) == 0)
			return 1;
	return 0;
}

/* The start of the line after the first line end at or after q, or lim
 * when none comes before lim, or within the longest line a text may
 * have (the parse refuses a longer one). */
static size_t line_after(cursor *c, size_t q, size_t lim)
{
	size_t from = q;
	while (q < lim && q - from <= XP_TX_MAX_LINE) {
		size_t n = WIN;
		const unsigned char *p = at(c, q, 1, &n);
		if (!p)
			return lim;
		const unsigned char *nl = memchr(p, '\n', n);
		if (nl)
			return q + (size_t)(nl - p) + 1;
		q += n;
	}
	return lim;
}

/*
 * The start of the first section line at or after pos and before lim
 * (pos itself counts when a line starts there: at the text's start, or
 * after a line end), or lim when there is none.
 */
static size_t next_section(cursor *c, size_t start, size_t pos, size_t lim,
                           int blanks)
{
	size_t x = pos > start ? line_after(c, pos - 1, lim) : pos;
	for (; x < lim; x = line_after(c, x, lim))
		if (section_line(c, x, blanks))
			return x;
	return lim;
}

/*
 * Where the shares of the work of parsing bytes [start, end) in jobs
 * parts begin: share[k] for k from 1 to jobs - 1, and share[jobs] = end.
 * The bytes are cut in SAMPLES regions, each weighed by its bytes and,
 * at LINE_BYTES bytes a line, the lines of a sample at its start.
 */
static void shares(cursor *c, size_t start, size_t end, unsigned jobs,
                   size_t *share)
{
	double w[SAMPLES], total = 0;
	size_t span = end - start;
	for (size_t i = 0; i < SAMPLES; i++) {
		size_t from = start + (size_t)((double)span * i / SAMPLES);
		size_t to = start + (size_t)((double)span * (i + 1) / SAMPLES);
		size_t n = SAMPLE, lines = 0;
		const unsigned char *p = at(c, from, SAMPLE, &n);
		for (size_t k = 0; p && k < n; k++)
			lines += p[k] == '\n';
		w[i] = (double)(to - from) *
		       (1 + (n ? (double)LINE_BYTES * lines / n : 0));
		total += w[i];
	}
	double sum = 0;
	size_t i = 0;
	for (unsigned k = 1; k < jobs; k++) {
		double want = total * k / jobs;
		while (i < SAMPLES - 1 && sum + w[i] < want)
			sum += w[i++];
		/* Within region i, in proportion. */
		double at_ = w[i] > 0 ? (want - sum) / w[i] : 0;
		share[k] = start + (size_t)((double)span * (i + at_) / SAMPLES);
		if (share[k] > end)
			share[k] = end;
	}
	share[jobs] = end;
}

/* ------------------------------------------------------------------ */
/* The parts                                                           */
/* ------------------------------------------------------------------ */

typedef struct {
	xp_tx_part pt;
	int fd;
	const void *buf;
	const char *name;
	xp_err err;
	pthread_t thread;
	int started;
} job;

static void *run_part(void *arg)
{
	job *j = arg;
	j->err = xp_tx_parse_part(j->fd, j->buf, j->name, &j->pt);
	return NULL;
}

static void part_free(xp_tx_part *pt)
{
	xp_fbb_free(pt->b);
	XP_FREE(pt->objs, pt->late);
}

/* Part k's header is part 0's. */
static int same_header(const xp_tx_part *a, const xp_tx_part *b)
{
	return a->minor == b->minor && a->type == b->type &&
	       a->ncounts == b->ncounts &&
	       memcmp(a->hcount, b->hcount, sizeof a->hcount) == 0;
}

/*
 * The rules across parts that xp_tx_on_end and the OBJFILE sections
 * check on one thread: the header's section counts, and the one OBJFILE
 * section of objfd data.
 */
static int counts_hold(const job *j, unsigned n)
{
	const xp_tx_part *p0 = &j[0].pt;
	uint64_t obj = 0, prog = 0, src = 0;
	for (unsigned k = 0; k < n; k++) {
		if (j[k].err != XP_E_OK || !same_header(p0, &j[k].pt))
			return 0;
		obj += j[k].pt.n_obj;
		prog += j[k].pt.n_prog;
		src += j[k].pt.n_src;
	}
	if (p0->type == XP_DT_OBJFD && obj != 1)
		return 0;
	return p0->hcount[0] == obj && p0->hcount[1] == prog &&
	       (p0->minor == 3 || p0->hcount[3] == src);
}

/* Marks the string ids ids[0..n) (through map when not NULL) in the set
 * of OBJFILE paths; -1 without memory. */
static int mark_paths(xp_buf *set, const uint32_t *ids, size_t n,
                      const uint32_t *map)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t id = map ? map[ids[i]] : ids[i];
		if (id >= set->len) {
			size_t more = (size_t)id + 1 - set->len;
			unsigned char *p = xp_buf_grow(set, more);
			if (!p)
				return -1;
			memset(p, 0, more);
			set->len += more;
		}
		set->p[id] = 1;
	}
	return 0;
}

/* Each OBJREF a part left open names an OBJFILE of a part before it. */
static int late_found(const xp_buf *set, const xp_tx_part *pt,
                      const uint32_t *map)
{
	for (size_t i = 0; i < pt->nlate; i++) {
		uint32_t id = map ? map[pt->late[i]] : pt->late[i];
		if (id >= set->len || !set->p[id])
			return 0;
	}
	return 1;
}

/* Joins the parts' records into part 0's builder and seals them; 1 with
 * *out set, or 0. */
static int join(job *j, unsigned n, xp_fb **out)
{
	xp_fbb *b = j[0].pt.b;
	xp_buf objs = {0};
	uint32_t *map = NULL;
	int ok = 0;

	if (!counts_hold(j, n) || !late_found(&objs, &j[0].pt, NULL) ||
	    mark_paths(&objs, j[0].pt.objs, j[0].pt.n_obj, NULL) != 0)
		goto out;
	for (unsigned k = 1; k < n; k++) {
		xp_tx_part *pt = &j[k].pt;
		if (xp_fbb_append(b, pt->b, &map) != XP_E_OK ||
		    !late_found(&objs, pt, map) ||
		    mark_paths(&objs, pt->objs, pt->n_obj, map) != 0)
			goto out;
		free(map);
		map = NULL;
		xp_fbb_free(pt->b);
		pt->b = NULL;
	}
	ok = xp_fbb_finish(b, out) == XP_E_OK;
out:
	free(map);
	xp_buf_free(&objs);
	return ok;
}

int xp_tx_parse_jobs(int fd, const void *buf, size_t start, size_t end,
                     const char *name, unsigned jobs, xp_fb **out)
{
	cursor c = { fd, fd < 0 ? buf : NULL, end, NULL, 0, 0 };
	job *j = NULL;
	size_t *share = NULL;
	unsigned n = 0;
	int ok = 0;

	*out = NULL;
	if (jobs > MAX_PARTS)
		jobs = MAX_PARTS;
	if (jobs < 2 || end - start < 2 ||
	    (fd >= 0 && !(c.win = malloc(WIN))))
		goto out;
	/* The header ends at the first section line. */
	size_t hend = next_section(&c, start, start, end, 1);
	if (hend == end || !(j = calloc(jobs, sizeof *j)) ||
	    !(share = malloc(((size_t)jobs + 1) * sizeof *share)))
		goto out;
	shares(&c, start, end, jobs, share);
	j[0].pt.hstart = j[0].pt.hend = j[0].pt.start = start;
	n = 1;
	for (unsigned k = 1; k < jobs; k++) {
		size_t lim = share[k + 1];
		size_t from = j[n - 1].pt.start + 1;
		if (from <= hend)
			from = hend + 1;
		if (share[k] > from)
			from = share[k];
		size_t s = next_section(&c, start, from, lim, 0);
		if (s >= lim)
			continue;
		j[n - 1].pt.end = s;
		j[n].pt.hstart = start;
		j[n].pt.hend = hend;
		j[n].pt.start = s;
		n++;
	}
	j[n - 1].pt.end = end;
	if (n < 2)
		goto out;
	for (unsigned k = 0; k < n; k++) {
		j[k].fd = fd;
		j[k].buf = buf;
		j[k].name = name;
	}
	for (unsigned k = 1; k < n; k++)
		j[k].started = pthread_create(&j[k].thread, NULL, run_part,
		                              &j[k]) == 0;
	run_part(&j[0]);
	for (unsigned k = 1; k < n; k++) {
		if (j[k].started)
			pthread_join(j[k].thread, NULL);
		else
			run_part(&j[k]);
	}
	ok = join(j, n, out);
out:
	for (unsigned k = 0; j && k < n; k++)
		part_free(&j[k].pt);
	XP_FREE(j, share, c.win);
	return ok;
}
