/*
 * feedback/tcov_src.c - a source file as every coverage report shows it
 * (xp_tcov_src, xprof_tcov.h): the coverage of the file limited to the
 * lines the source has, less what its exclusion markers leave out, and
 * the figures that the listing, the exports and the gate all print.
 *
 * The markers are those of lcov and gcovr, anywhere on a line (in a
 * comment, usually), with the prefix LCOV_ or XPROF_:
 *   EXCL_LINE                 the line
 *   EXCL_START ... EXCL_STOP  the lines from the one with START to the
 *                             one with STOP, both included
 *   EXCL_BR_LINE              the branches of the line
 *   EXCL_BR_START ... EXCL_BR_STOP   the branches of those lines
 * A region opened with one prefix may be closed with the other.
 */
#include <inttypes.h>
#include <stdio.h>

#include "feedback/tcov_int.h"

enum { M_LINE, M_START, M_STOP, M_BR_LINE, M_BR_START, M_BR_STOP, M_N };

static const char *const marker_names[M_N] = {
	"LINE", "START", "STOP", "BR_LINE", "BR_START", "BR_STOP",
};

/*
 * The markers on line p[0..len): bit k set for marker k.  Where a marker
 * was found, *pfx tells its prefix for messages.
 */
static unsigned line_markers(const char *p, size_t len, const char **pfx)
{
	static const char tag[] = "_EXCL_";
	unsigned m = 0;
	for (size_t i = 0; i + sizeof tag - 1 <= len; i++) {
		if (p[i] != '_' || memcmp(p + i, tag, sizeof tag - 1) != 0)
			continue;
		const char *prefix = NULL;
		if (i >= 4 && memcmp(p + i - 4, "LCOV", 4) == 0)
			prefix = "LCOV";
		else if (i >= 5 && memcmp(p + i - 5, "XPROF", 5) == 0)
			prefix = "XPROF";
		if (!prefix)
			continue;
		size_t at = i + sizeof tag - 1;
		for (int k = 0; k < M_N; k++) {
			size_t nl = strlen(marker_names[k]);
			if (at + nl <= len && memcmp(p + at, marker_names[k], nl) == 0) {
				m |= 1u << k;
				*pfx = prefix;
				break;
			}
		}
	}
	return m;
}

/* One kind of region (lines or branches) while the markers are read. */
typedef struct {
	uint32_t open;       /* the line that opened it, 0: not open */
	const char *pfx;
	unsigned char mark;  /* what the region's lines get */
	const char *start, *stop;  /* marker names for messages */
} region;

/* Applies one line's START and STOP marks of a region; returns the
 * line's mark from it. */
static unsigned char region_step(region *r, int start, int stop,
                                 uint32_t line, const char *pfx,
                                 const char *name, xp_diags *d)
{
	unsigned char mark = 0;
	if (start && !r->open) {
		r->open = line;
		r->pfx = pfx;
	}
	if (r->open)
		mark = r->mark;
	if (stop) {
		if (!r->open)
			xp_diag_warn(d, name,
			             "line %" PRIu32 ": %s_EXCL_%s without %s_EXCL_%s "
			             "before it; ignored", line, pfx, r->stop, pfx,
			             r->start);
		r->open = 0;
	}
	return mark;
}

static void region_end(const region *r, const char *name, xp_diags *d)
{
	if (r->open)
		xp_diag_warn(d, name,
		             "line %" PRIu32 ": %s_EXCL_%s without %s_EXCL_%s; "
		             "excluded to the end of the file", r->open, r->pfx,
		             r->start, r->pfx, r->stop);
}

/* The number of lines of text, and (excl non-NULL) their marks. */
static uint32_t scan(const char *text, size_t len, unsigned char *excl,
                     const char *name, xp_diags *d)
{
	region lines = {0, NULL, XP_TCOV_EXCL_LINE | XP_TCOV_EXCL_BRANCH,
	                "START", "STOP"};
	region brs = {0, NULL, XP_TCOV_EXCL_BRANCH, "BR_START", "BR_STOP"};
	uint32_t n = 0;
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		n++;
		if (excl) {
			const char *pfx = "LCOV";
			unsigned m = line_markers(text + at, end - at, &pfx);
			unsigned char e = 0;
			if (m & 1u << M_LINE)
				e |= XP_TCOV_EXCL_LINE | XP_TCOV_EXCL_BRANCH;
			if (m & 1u << M_BR_LINE)
				e |= XP_TCOV_EXCL_BRANCH;
			e |= region_step(&lines, !!(m & 1u << M_START),
			                 !!(m & 1u << M_STOP), n, pfx, name, d);
			e |= region_step(&brs, !!(m & 1u << M_BR_START),
			                 !!(m & 1u << M_BR_STOP), n, pfx, name, d);
			excl[n] = e;
		}
		at = end + 1;
	}
	if (excl) {
		/* By line, as the other warnings come. */
		int brs_first = brs.open && (!lines.open || brs.open < lines.open);
		region_end(brs_first ? &brs : &lines, name, d);
		region_end(brs_first ? &lines : &brs, name, d);
	}
	return n;
}

int xp_tcov_src_line(const xp_tcov_src *s, uint32_t line)
{
	return line >= 1 && line <= s->n_lines &&
	       !(s->excl[line] & XP_TCOV_EXCL_LINE);
}

int xp_tcov_src_branches(const xp_tcov_src *s, uint32_t line)
{
	return line >= 1 && line <= s->n_lines &&
	       !(s->excl[line] & (XP_TCOV_EXCL_LINE | XP_TCOV_EXCL_BRANCH));
}

/* A block is left out when every line it covers in the file is
 * excluded (lines past the end are not). */
static void count_blocks(xp_tcov_src *s)
{
	const xp_tcov_file *f = s->f;
	for (size_t i = 0; i < f->n_locs; i++) {
		uint32_t line = f->locs[i].line;
		if (line < 1 || line > s->n_lines ||
		    !(s->excl[line] & XP_TCOV_EXCL_LINE))
			s->block_in[f->locs[i].block] = 1;
	}
	for (size_t i = 0; i < f->n_blocks; i++) {
		if (!s->block_in[i])
			continue;
		s->nb++;
		if (f->blocks[i].count > 0)
			s->nbh++;
		s->sum = xp_sat_add(s->sum, f->blocks[i].count);
	}
}

xp_err xp_tcov_src_init(xp_tcov_src *s, const xp_tcov_file *f,
                        const char *path, const char *text, size_t len,
                        const char *name, xp_diags *d)
{
	memset(s, 0, sizeof *s);
	s->f = f;
	s->n_lines = scan(text, len, NULL, name, d);
	s->path = strdup(path);
	s->excl = calloc((size_t)s->n_lines + 1, 1);
	s->block_in = calloc(f->n_blocks ? f->n_blocks : 1, 1);
	if (!s->path || !s->excl || !s->block_in)
		return XP_E_NOMEM;
	scan(text, len, s->excl, name, d);
	for (size_t i = 0; i < f->n_lines; i++) {
		if (!xp_tcov_src_line(s, f->lines[i].line))
			continue;
		s->lf++;
		if (f->lines[i].max > 0)
			s->lh++;
	}
	for (size_t i = 0; i < f->n_funcs; i++) {
		if (!xp_tcov_src_line(s, f->funcs[i].line))
			continue;
		s->fnf++;
		if (f->funcs[i].count > 0)
			s->fnh++;
	}
	for (size_t i = 0; i < f->n_branches; i++) {
		if (!xp_tcov_src_branches(s, f->branches[i].line))
			continue;
		s->brf++;
		if (f->branches[i].count > 0)
			s->brh++;
	}
	count_blocks(s);
	return XP_E_OK;
}

void xp_tcov_src_free(xp_tcov_src *s)
{
	if (!s)
		return;
	XP_FREE(s->path, s->excl, s->block_in);
	s->path = NULL;
	s->excl = s->block_in = NULL;
}

xp_err xp_tcov_src_top(const xp_tcov_src *s, size_t n, size_t **out,
                       size_t *count)
{
	return xp_tcov_top_in(s->f, s->block_in, n, out, count);
}
