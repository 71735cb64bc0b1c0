/*
 * cpuprof/merge_maps.c - where a sum of CPU profiles maps each object,
 * and the mapped-objects text of the sum (cpuprofile(5), MERGING).
 *
 * Each executable mapping line that names a file is a segment, known
 * across profiles by its key: path, file offset, size and permissions.
 * The sum maps every segment once, at its home: the lowest address at
 * which any of the profiles maps it, a choice that depends neither on
 * the order of the profiles nor on how they were grouped.  A PC inside a
 * segment of its own profile moves with it; any other PC (a stray) stays
 * as it is.
 *
 * Taking the segments by home, then key, a segment stays at its home
 * unless a segment before it that stayed overlaps it, or a stray PC lies
 * there: placed over a stray, the segment would claim it, and would carry
 * it along when it moved in a later merge.  Such a segment moves to the
 * lowest multiple of 4096 at or above its home that overlaps no other
 * segment's home, no segment moved before it and no stray PC.  So a sum
 * never covers a stray, and the strays of a sum are exactly its PCs
 * outside its segments (which a sum made here keeps, xp_cpuprof.stray,
 * for the next).  A sum remembers the homes of its moved segments
 * (xp_cpuprof.home), so that adding profiles one at a time gives the
 * same sum in any order; a file does not, so a sum of merged files may
 * place a segment that moved in one of them elsewhere than a sum of the
 * profiles they came from.
 *
 * The text of the sum is one line per segment, by address, written as
 * "start-end perms offset 00:00 0 path" ($build already substituted),
 * then the distinct lines of the inputs that are neither mapping nor
 * build lines nor blank, sorted byte-wise.  Mappings that are not
 * executable or name no file are left out: neither google-pprof nor go
 * tool pprof reads them, and they differ in every process; so are those
 * of a 32-bit profile that reach past 4 GiB, where no PC can be.
 */
#include <stdio.h>

#include "cpuprof/cpuprof.h"

/* The key of a mapping, and how it compares. */
static int cmp_key(const xp_cpuprof_map *a, const xp_cpuprof_map *b)
{
	int c = strcmp(a->path, b->path);

	if (c != 0)
		return c;
	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	if (a->end - a->start != b->end - b->start)
		return a->end - a->start < b->end - b->start ? -1 : 1;
	return strcmp(a->perms, b->perms);
}

static int cmp_seg_key(const void *x, const void *y)
{
	const xp_cp_seg *a = x, *b = y;

	return cmp_key(a->m, b->m);
}

/* By key, the lowest home first. */
static int cmp_cand(const void *x, const void *y)
{
	const xp_cp_seg *a = x, *b = y;
	int c = cmp_key(a->m, b->m);

	if (c != 0)
		return c;
	return a->home < b->home ? -1 : a->home > b->home;
}

static int cmp_seg_home(const void *x, const void *y)
{
	const xp_cp_seg *a = x, *b = y;

	if (a->home != b->home)
		return a->home < b->home ? -1 : 1;
	return cmp_key(a->m, b->m);
}

static int cmp_seg_at(const void *x, const void *y)
{
	const xp_cp_seg *a = x, *b = y;

	return a->at < b->at ? -1 : a->at > b->at;
}

static int cmp_reloc(const void *x, const void *y)
{
	const xp_cp_reloc *a = x, *b = y;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/* Whether a mapping of a profile with slots up to max is a segment. */
static int is_segment(const xp_cpuprof_map *m, uint64_t max)
{
	return xp_cp_map_exec(m) && m->path[0] != '\0' && m->end <= max;
}

/* The segment of p's mappings containing addr, or NULL. */
static const xp_cp_reloc *find(const xp_cp_reloc *rl, size_t n,
                               uint64_t addr)
{
	size_t lo = 0, hi = n;

	/* The last one starting at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (rl[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= rl[lo - 1].end)
		return NULL;
	return &rl[lo - 1];
}

/* The address that finds the mapping of the k-th PC of a call chain:
 * a caller's return address minus 1, so that it falls in the call. */
static uint64_t lookup_addr(uint64_t pc, size_t k)
{
	return k > 0 && pc > 0 ? pc - 1 : pc;
}

/* The segments of p (which: 0 the sum so far, 1 the input) into L:
 * their candidates appended to *cand and their relocations to rl. */
static xp_err collect(xp_cp_layout *L, int which, const xp_cpuprof *p,
                      xp_cp_seg **cand, size_t *ncand)
{
	size_t n = 0;
	xp_cp_seg *c;

	for (size_t i = 0; i < p->nmaps; i++)
		n += is_segment(&p->maps[i], L->max);
	L->rl[which] = malloc((n ? n : 1) * sizeof *L->rl[which]);
	c = realloc(*cand, (*ncand + n + 1) * sizeof *c);
	if (L->rl[which] == NULL || c == NULL) {
		if (c != NULL)
			*cand = c;
		return XP_E_NOMEM;
	}
	*cand = c;
	for (size_t i = 0; i < p->nmaps; i++) {
		const xp_cpuprof_map *m = &p->maps[i];
		if (!is_segment(m, L->max))
			continue;
		L->rl[which][L->nrl[which]++] =
			(xp_cp_reloc){m->start, m->end, 0, m};
		c[(*ncand)++] = (xp_cp_seg){
			m, p->home != NULL ? p->home[i] : m->start, 0, 0};
	}
	xp_qsort(L->rl[which], L->nrl[which], sizeof *L->rl[which], cmp_reloc);
	return XP_E_OK;
}

/* Every segment once, at its lowest home, sorted by key. */
static void unify(xp_cp_layout *L, xp_cp_seg *cand, size_t ncand)
{
	xp_qsort(cand, ncand, sizeof *cand, cmp_cand);
	L->nseg = 0;
	for (size_t i = 0; i < ncand; i++)
		if (L->nseg == 0 || cmp_key(cand[L->nseg - 1].m, cand[i].m) != 0)
			cand[L->nseg++] = cand[i];
	L->seg = cand;
}

/* The lookup addresses of p's PCs that lie in none of its segments,
 * appended to L->stray. */
static xp_err strays(xp_cp_layout *L, int which, const xp_cpuprof *p,
                     size_t *cap)
{
	const xp_cp_reloc *rl = L->rl[which], *last = NULL;
	size_t n = L->nrl[which];

	/* A sum made here knows its own. */
	if (p->sum) {
		uint64_t *q;
		if (p->nstray == 0)
			return XP_E_OK;
		if ((q = realloc(L->stray, (L->nstray + p->nstray) *
		                           sizeof *q)) == NULL)
			return XP_E_NOMEM;
		memcpy(q + L->nstray, p->stray, p->nstray * sizeof *q);
		L->stray = q;
		L->nstray += p->nstray;
		*cap = L->nstray;
		return XP_E_OK;
	}
	for (size_t i = 0; i < p->nrec; i++)
		for (size_t k = 0; k < p->recs[i].npcs; k++) {
			uint64_t a = lookup_addr(p->pcs[p->recs[i].first + k], k);
			/* Most PCs are in the segment of the one before, which
			 * find() gives when no later one starts at or below. */
			if (last != NULL && a >= last->start && a < last->end &&
			    (last == rl + n - 1 || a < last[1].start))
				continue;
			if ((last = find(rl, n, a)) != NULL)
				continue;
			if (L->nstray == *cap) {
				size_t nc = *cap ? 2 * *cap : 64;
				uint64_t *q = realloc(L->stray, nc * sizeof *q);
				if (q == NULL)
					return XP_E_NOMEM;
				L->stray = q;
				*cap = nc;
			}
			L->stray[L->nstray++] = a;
		}
	return XP_E_OK;
}

/* The first stray PC at or above addr, or NULL. */
static const uint64_t *stray_from(const xp_cp_layout *L, uint64_t addr)
{
	size_t lo = 0, hi = L->nstray;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (L->stray[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < L->nstray ? &L->stray[lo] : NULL;
}

static uint64_t seg_size(const xp_cp_seg *s)
{
	return s->m->end - s->m->start;
}

/* Rounds *a up to a multiple of 4096; -1 when that does not fit. */
static int page_up(uint64_t *a)
{
	if (*a > UINT64_MAX - 0xfffu)
		return -1;
	*a = (*a + 0xfffu) & ~(uint64_t)0xfffu;
	return 0;
}

/*
 * Whether something is in the way of segment i at [at, end): a stray PC,
 * another segment's home, or where a segment before it (by home) moved.
 * *past gets the address just past the first such thing found.
 */
static int in_way(const xp_cp_layout *L, size_t i, uint64_t at,
                  uint64_t end, uint64_t *past)
{
	const xp_cp_seg *s = L->seg;
	const uint64_t *st = stray_from(L, at);

	if (st != NULL && *st < end) {
		*past = *st + 1;
		return 1;
	}
	for (size_t j = 0; j < L->nseg; j++) {
		uint64_t size = seg_size(&s[j]);
		if (j != i && s[j].home < end && at < s[j].home + size) {
			*past = s[j].home + size;
			return 1;
		}
		if (j < i && s[j].moved && s[j].at < end &&
		    at < s[j].at + size) {
			*past = s[j].at + size;
			return 1;
		}
	}
	return 0;
}

/* Where moved segment i goes: the lowest multiple of 4096 at or above
 * its home where nothing is in its way. */
static xp_err move_segment(xp_cp_layout *L, size_t i, const char *name,
                           xp_diags *d)
{
	uint64_t at = L->seg[i].home, size = seg_size(&L->seg[i]), past;

	for (;;) {
		if (page_up(&at) != 0 || at > L->max || size > L->max - at)
			return xp_diag_file(d, XP_E_LIMIT, name,
			                    "no room in the address space for %s",
			                    L->seg[i].m->path);
		if (!in_way(L, i, at, at + size, &past))
			break;
		/* past is above at: each turn gets higher. */
		if (past == 0)
			at = UINT64_MAX;
		else
			at = past;
	}
	L->seg[i].at = at;
	return XP_E_OK;
}

/* Each segment's address: its home, unless a segment with a lower home
 * (or the same home and a lower key) kept its own there, or a stray PC
 * lies there; then it moves. */
static xp_err place(xp_cp_layout *L, const char *name, xp_diags *d)
{
	uint64_t kept_end = 0;
	xp_cp_seg *s = L->seg;
	xp_err err;

	xp_qsort(s, L->nseg, sizeof *s, cmp_seg_home);
	for (size_t i = 0; i < L->nseg; i++) {
		uint64_t end = s[i].home + seg_size(&s[i]);
		const uint64_t *st = stray_from(L, s[i].home);

		s[i].moved = s[i].home < kept_end || (st != NULL && *st < end);
		s[i].at = s[i].home;
		if (!s[i].moved)
			kept_end = end > kept_end ? end : kept_end;
	}
	for (size_t i = 0; i < L->nseg; i++)
		if (s[i].moved && (err = move_segment(L, i, name, d)) != XP_E_OK)
			return err;
	xp_qsort(s, L->nseg, sizeof *s, cmp_seg_key);
	return XP_E_OK;
}

/* How much each segment of each profile moves. */
static void deltas(xp_cp_layout *L)
{
	for (int w = 0; w < 2; w++)
		for (size_t i = 0; i < L->nrl[w]; i++) {
			xp_cp_seg key = {L->rl[w][i].m, 0, 0, 0};
			const xp_cp_seg *s = bsearch(&key, L->seg, L->nseg,
			                             sizeof *s, cmp_seg_key);
			/* Every mapping of rl has its segment. */
			L->rl[w][i].delta = s->at - L->rl[w][i].start;
		}
}

xp_err xp_cp_layout_plan(xp_cp_layout *L, const xp_cpuprof *a,
                         const xp_cpuprof *in, const char *name,
                         xp_diags *d)
{
	xp_cp_seg *cand = NULL;
	size_t ncand = 0, cap = 0;
	xp_err err;

	L->max = xp_cp_slot_max(in->slot);
	if ((a != NULL && (err = collect(L, 0, a, &cand, &ncand)) != XP_E_OK) ||
	    (err = collect(L, 1, in, &cand, &ncand)) != XP_E_OK) {
		free(cand);
		return err;
	}
	unify(L, cand, ncand);
	if ((a != NULL && (err = strays(L, 0, a, &cap)) != XP_E_OK) ||
	    (err = strays(L, 1, in, &cap)) != XP_E_OK)
		return err;
	if ((err = xp_sort_records(L->stray, L->nstray, sizeof *L->stray,
	                           (const size_t[]){0}, 1)) != XP_E_OK ||
	    (err = place(L, name, d)) != XP_E_OK)
		return err;
	deltas(L);
	return XP_E_OK;
}

int xp_cp_layout_still(const xp_cp_layout *L, int which)
{
	/* A PC in a mapping moves by its delta, any other stays. */
	for (size_t i = 0; i < L->nrl[which]; i++)
		if (L->rl[which][i].delta != 0)
			return 0;
	return 1;
}

uint64_t xp_cp_layout_move(const xp_cp_layout *L, int which, uint64_t pc,
                           size_t k)
{
	const xp_cp_reloc *r = find(L->rl[which], L->nrl[which],
	                            lookup_addr(pc, k));

	return r != NULL ? (pc + r->delta) & L->max : pc;
}

/* A line of a text, without its newline. */
typedef struct {
	const char *s;
	size_t len;
} tline;

static int cmp_tline(const void *x, const void *y)
{
	const tline *a = x, *b = y;
	int c = memcmp(a->s, b->s, a->len < b->len ? a->len : b->len);

	if (c != 0)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/* Whether a line holds nothing but blanks. */
static int blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

/* The lines of p's text that are neither mapping nor build lines nor
 * blank, appended to *v. */
static xp_err other_lines(const xp_cpuprof *p, tline **v, size_t *n,
                          size_t *cap)
{
	const char *s = p->text, *end;

	if (s == NULL)      /* no text at all: no lines */
		return XP_E_OK;
	end = s + p->textlen;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = (size_t)((nl != NULL ? nl : end) - s);
		xp_cpuprof_map m;
		const char *path, *why;
		size_t plen, col;

		if (xp_cp_line(s, len, &m, &path, &plen, &why, &col) ==
		    CP_LINE_OTHER && !blank(s, len)) {
			if (*n == *cap) {
				size_t nc = *cap ? 2 * *cap : 16;
				tline *q = realloc(*v, nc * sizeof *q);
				if (q == NULL)
					return XP_E_NOMEM;
				*v = q;
				*cap = nc;
			}
			(*v)[(*n)++] = (tline){s, len};
		}
		s = nl != NULL ? nl + 1 : end;
	}
	return XP_E_OK;
}

/* One mapping line per segment, by address. */
static xp_err segment_lines(xp_cp_layout *L, xp_buf *text)
{
	xp_qsort(L->seg, L->nseg, sizeof *L->seg, cmp_seg_at);
	for (size_t i = 0; i < L->nseg; i++) {
		const xp_cpuprof_map *m = L->seg[i].m;
		char head[96];
		int len = snprintf(head, sizeof head,
		                   "%08llx-%08llx %s %08llx 00:00 0 ",
		                   (unsigned long long)L->seg[i].at,
		                   (unsigned long long)(L->seg[i].at +
		                                        (m->end - m->start)),
		                   m->perms, (unsigned long long)m->offset);
		if (xp_buf_append(text, head, (size_t)len) != XP_E_OK ||
		    xp_buf_append(text, m->path, strlen(m->path)) != XP_E_OK ||
		    xp_buf_append(text, "\n", 1) != XP_E_OK)
			return XP_E_NOMEM;
	}
	return XP_E_OK;
}

xp_err xp_cp_layout_text(xp_cp_layout *L, const xp_cpuprof *a,
                         const xp_cpuprof *in, xp_buf *text)
{
	tline *v = NULL;
	size_t n = 0, cap = 0;
	xp_err err;

	if ((err = segment_lines(L, text)) != XP_E_OK ||
	    (a != NULL && (err = other_lines(a, &v, &n, &cap)) != XP_E_OK) ||
	    (err = other_lines(in, &v, &n, &cap)) != XP_E_OK)
		goto out;
	xp_qsort(v, n, sizeof *v, cmp_tline);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && cmp_tline(&v[i - 1], &v[i]) == 0)
			continue;
		if (xp_buf_append(text, v[i].s, v[i].len) != XP_E_OK ||
		    xp_buf_append(text, "\n", 1) != XP_E_OK) {
			err = XP_E_NOMEM;
			goto out;
		}
	}
out:
	free(v);
	return err;
}

xp_err xp_cp_layout_homes(const xp_cp_layout *L, xp_cpuprof *n)
{
	size_t moved = 0;

	/* No segment of the sum holds a stray PC, and stray PCs stay where
	 * they are: the sum's are the profiles'. */
	if (L->nstray > 0 &&
	    (n->stray = malloc(L->nstray * sizeof *n->stray)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < L->nstray; i++)
		if (n->nstray == 0 || n->stray[n->nstray - 1] != L->stray[i])
			n->stray[n->nstray++] = L->stray[i];
	for (size_t i = 0; i < L->nseg; i++)
		moved += L->seg[i].moved;
	if (moved == 0)
		return XP_E_OK;
	/* The text was made from the segments in this order. */
	if (n->nmaps != L->nseg)
		return XP_E_INVAL;
	n->home = malloc(L->nseg * sizeof *n->home);
	if (n->home == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < L->nseg; i++)
		n->home[i] = L->seg[i].home;
	return XP_E_OK;
}

void xp_cp_layout_free(xp_cp_layout *L)
{
	XP_FREE(L->seg, L->rl[0], L->rl[1], L->stray);
}
