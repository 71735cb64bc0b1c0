/*
 * cpuprof/model.c - the in-memory model of a gperftools CPU profile
 * (xprof_cpuprof.h) and the parser of its mapped-objects text.
 *
 * The text after the binary trailer is a copy of /proc/self/maps plus
 * optional "build=PATH" lines (cpuprofile(5)).  The model keeps the text
 * byte for byte and, beside it, the mapping lines parsed, with every
 * "$build" followed by a non-word character (or the end of the path)
 * replaced by the path of the last build line before it.
 */
#include <stdio.h>

#include "cpuprof/cpuprof.h"

xp_cpuprof *xp_cp_new(unsigned slot, int big)
{
	xp_cpuprof *p = calloc(1, sizeof *p);

	if (p != NULL) {
		p->slot = slot;
		p->big = big;
	}
	return p;
}

void xp_cp_free(xp_cpuprof *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nmaps; i++)
		free((char *)p->maps[i].path);
	XP_FREE(p->maps, p->home, p->stray, p->hdr, p->recs, p->pcs, p->text,
	        p);
}

/* Room in the array *pp of n elements of sz bytes (capacity *cap) for
 * more after them. */
static xp_err room(void *pp, size_t *cap, size_t n, size_t more, size_t sz)
{
	void **p = pp, *q;

	if (more <= *cap - n)
		return XP_E_OK;
	if (more > SIZE_MAX / sz - n || (q = realloc(*p, (n + more) * sz)) == NULL)
		return XP_E_NOMEM;
	*p = q;
	*cap = n + more;
	return XP_E_OK;
}

xp_err xp_cp_reserve(xp_cpuprof *p, size_t nrec, size_t npc)
{
	if (room(&p->recs, &p->reccap, p->nrec, nrec, sizeof *p->recs) ||
	    room(&p->pcs, &p->pccap, p->npc, npc, sizeof *p->pcs))
		return XP_E_NOMEM;
	return XP_E_OK;
}

xp_err xp_cp_add_record(xp_cpuprof *p, uint64_t count, const uint64_t *pcs,
                     size_t n)
{
	if (p->nrec == p->reccap) {
		size_t cap = p->reccap ? 2 * p->reccap : 64;
		xp_cp_rec *r = realloc(p->recs, cap * sizeof *r);
		if (r == NULL)
			return XP_E_NOMEM;
		p->recs = r;
		p->reccap = cap;
	}
	if (n > p->pccap - p->npc) {
		size_t cap = p->pccap ? p->pccap : 256;
		while (cap - p->npc < n) {
			if (cap > SIZE_MAX / 2 / sizeof(uint64_t))
				return XP_E_NOMEM;
			cap *= 2;
		}
		uint64_t *q = realloc(p->pcs, cap * sizeof *q);
		if (q == NULL)
			return XP_E_NOMEM;
		p->pcs = q;
		p->pccap = cap;
	}
	/* pcs may be where they go already (xp_cp_reserve made room). */
	if (n > 0 && pcs != p->pcs + p->npc)
		memcpy(p->pcs + p->npc, pcs, n * sizeof *pcs);
	p->recs[p->nrec].count = count;
	p->recs[p->nrec].first = p->npc;
	p->recs[p->nrec].npcs = n;
	p->nrec++;
	p->npc += n;
	return XP_E_OK;
}

/* A run of hex digits at s[*i] (1..16 of them) into *v. */
static int hexrun(const char *s, size_t len, size_t *i, uint64_t *v)
{
	size_t st = *i;

	*v = 0;
	while (*i < len && xp_hexval((unsigned char)s[*i]) >= 0) {
		if (*i - st == 16)
			return -1;
		*v = *v << 4 | (uint64_t)xp_hexval((unsigned char)s[*i]);
		(*i)++;
	}
	return *i > st ? 0 : -1;
}

static size_t blanks(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

#define BAD(msg) do { *why = (msg); *col = i; return CP_LINE_BAD; } while (0)

int xp_cp_line(const char *s, size_t len, xp_cpuprof_map *m, const char **path,
            size_t *pathlen, const char **why, size_t *col)
{
	size_t i = 0, j;
	uint64_t v;

	*path = NULL;
	*pathlen = 0;
	for (j = 0; j < len; j++) {
		unsigned char c = (unsigned char)s[j];
		if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
			*why = "binary data in the mapped objects text";
			*col = j;
			return CP_LINE_BAD;
		}
	}
	j = blanks(s, len, 0);
	if (len - j >= 6 && memcmp(s + j, "build=", 6) == 0) {
		*path = s + j + 6;
		*pathlen = len - j - 6;
		return CP_LINE_BUILD;
	}
	/* A mapping line: hex digits at the start of the line, then '-'. */
	while (i < len && xp_hexval((unsigned char)s[i]) >= 0)
		i++;
	if (i == 0 || i >= len || s[i] != '-')
		return CP_LINE_OTHER;
	memset(m, 0, sizeof *m);
	i = 0;
	if (hexrun(s, len, &i, &m->start) != 0)
		BAD("mapping start address longer than 16 hex digits");
	i++;
	if (hexrun(s, len, &i, &m->end) != 0)
		BAD("expected the mapping end address");
	if (m->end <= m->start)
		BAD("mapping end address not above its start");
	if (i < len && s[i] == ':') {
		/* pprof's "cooked" form: start-end: path */
		i = blanks(s, len, i + 1);
		memcpy(m->perms, "r-xp", 5);
		goto path;
	}
	if ((j = blanks(s, len, i)) == i)
		BAD("expected a blank after the address range");
	i = j;
	if (len - i < 4 || (s[i] != 'r' && s[i] != '-') ||
	    (s[i + 1] != 'w' && s[i + 1] != '-') ||
	    (s[i + 2] != 'x' && s[i + 2] != '-') ||
	    (s[i + 3] != 'p' && s[i + 3] != 's'))
		BAD("expected permissions like r-xp");
	memcpy(m->perms, s + i, 4);
	m->perms[4] = '\0';
	i += 4;
	if ((j = blanks(s, len, i)) == i)
		BAD("expected a blank after the permissions");
	i = j;
	if (hexrun(s, len, &i, &m->offset) != 0)
		BAD("expected a hexadecimal file offset");
	if ((j = blanks(s, len, i)) == i)
		BAD("expected a blank after the file offset");
	i = j;
	if (hexrun(s, len, &i, &v) != 0 || i >= len || s[i] != ':')
		BAD("expected a device major:minor");
	i++;
	if (hexrun(s, len, &i, &v) != 0)
		BAD("expected a device major:minor");
	if ((j = blanks(s, len, i)) == i)
		BAD("expected a blank after the device");
	i = j;
	if (i >= len || s[i] < '0' || s[i] > '9')
		BAD("expected a decimal inode number");
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	if (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
		BAD("expected a blank after the inode number");
	i = blanks(s, len, i);
path:
	j = len;
	while (j > i && (s[j - 1] == ' ' || s[j - 1] == '\t' ||
	                 s[j - 1] == '\r'))
		j--;
	*path = s + i;
	*pathlen = j - i;
	return CP_LINE_MAP;
}

#undef BAD

static int is_word(int c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* path with "$build" replaced by build (NULL: none seen yet). */
static char *subst_build(const char *path, size_t len, const char *build,
                         size_t blen)
{
	xp_buf b = {0};
	size_t i = 0;

	while (i < len) {
		if (build != NULL && len - i >= 6 &&
		    memcmp(path + i, "$build", 6) == 0 &&
		    (i + 6 == len || !is_word((unsigned char)path[i + 6]))) {
			if (xp_buf_append(&b, build, blen) != XP_E_OK)
				goto fail;
			i += 6;
			continue;
		}
		if (xp_buf_append(&b, path + i, 1) != XP_E_OK)
			goto fail;
		i++;
	}
	if (xp_buf_append(&b, "", 1) != XP_E_OK)
		goto fail;
	return (char *)b.p;
fail:
	xp_buf_free(&b);
	return NULL;
}

xp_err xp_cp_set_text(xp_cpuprof *p, const char *text, size_t len)
{
	const char *build = NULL, *s = text;
	const char *end = text != NULL ? text + len : text;
	size_t blen = 0, cap = 0, lineno = 0;

	free(p->text);
	p->text = NULL;
	p->textlen = 0;
	if (len > 0) {
		p->text = malloc(len);
		if (p->text == NULL)
			return XP_E_NOMEM;
		memcpy(p->text, text, len);
		p->textlen = len;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t ll = (size_t)((nl != NULL ? nl : end) - s);
		const char *path, *why;
		size_t plen, col;
		xp_cpuprof_map m;
		int kind = xp_cp_line(s, ll, &m, &path, &plen, &why, &col);

		lineno++;
		if (kind == CP_LINE_BUILD) {
			build = path;
			blen = plen;
		} else if (kind == CP_LINE_MAP) {
			if (p->nmaps == cap) {
				size_t nc = cap ? 2 * cap : 32;
				xp_cpuprof_map *q = realloc(p->maps, nc * sizeof *q);
				if (q == NULL)
					return XP_E_NOMEM;
				p->maps = q;
				cap = nc;
			}
			m.line = lineno;
			m.path = subst_build(path, plen, build, blen);
			if (m.path == NULL)
				return XP_E_NOMEM;
			p->maps[p->nmaps++] = m;
		}
		s = nl != NULL ? nl + 1 : end;
	}
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Accessors                                                           */
/* ------------------------------------------------------------------ */

unsigned xp_cpuprof_slot_bytes(const xp_cpuprof *p)
{
	return p->slot;
}

int xp_cpuprof_big_endian(const xp_cpuprof *p)
{
	return p->big;
}

uint64_t xp_cpuprof_version(const xp_cpuprof *p)
{
	return p->hdr[2];
}

uint64_t xp_cpuprof_period(const xp_cpuprof *p)
{
	return p->hdr[3];
}

size_t xp_cpuprof_n_header(const xp_cpuprof *p)
{
	return p->nhdr;
}

uint64_t xp_cpuprof_header(const xp_cpuprof *p, size_t i)
{
	return p->hdr[i];
}

size_t xp_cpuprof_n_records(const xp_cpuprof *p)
{
	return p->nrec;
}

void xp_cpuprof_record(const xp_cpuprof *p, size_t i, xp_cpuprof_rec *r)
{
	r->count = p->recs[i].count;
	r->npcs = p->recs[i].npcs;
	r->pcs = p->pcs + p->recs[i].first;
}

uint64_t xp_cpuprof_total(const xp_cpuprof *p)
{
	uint64_t t = 0;

	for (size_t i = 0; i < p->nrec; i++)
		t = p->recs[i].count > UINT64_MAX - t ? UINT64_MAX
		                                      : t + p->recs[i].count;
	return t;
}

const char *xp_cpuprof_maptext(const xp_cpuprof *p, size_t *len)
{
	*len = p->textlen;
	return p->text != NULL ? p->text : "";
}

size_t xp_cpuprof_n_maps(const xp_cpuprof *p)
{
	return p->nmaps;
}

const xp_cpuprof_map *xp_cpuprof_map_get(const xp_cpuprof *p, size_t i)
{
	return &p->maps[i];
}
