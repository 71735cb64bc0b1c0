/*
 * feedback/manifest_text.c - the text form of a manifest (xprof_db(5),
 * MANIFEST): writing it, reading it strictly, and finding it beside a
 * database.
 *
 * The form is lines of fields separated by one space.  Paths, names and
 * values are written with every byte that is not printable ASCII, and
 * '%', as %XX (upper-case hexadecimal), so that any path fits in a
 * field.  The reader parses a line at a time, then writes what it read
 * and compares: only the bytes the writer gives are accepted, and the
 * first difference is reported where it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feedback/manifest.h"

#define MAGIC "XPROF-MANIFEST 1"
/* A manifest holds at most a thousand records of a few paths' length. */
#define MAX_FILE ((size_t)64 << 20)

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

static void put(xp_buf *b, xp_err *err, const char *s, size_t n)
{
	if (*err == XP_E_OK)
		*err = xp_buf_append(b, s, n);
}

static void puts_(xp_buf *b, xp_err *err, const char *s)
{
	put(b, err, s, strlen(s));
}

/* A space, then s encoded. */
static void put_enc(xp_buf *b, xp_err *err, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	put(b, err, " ", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p > 0x20 && *p < 0x7f && *p != '%') {
			put(b, err, (const char *)p, 1);
		} else {
			char e[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			put(b, err, e, 3);
		}
	}
}

/* A space, then v in decimal. */
static void put_u64(xp_buf *b, xp_err *err, uint64_t v)
{
	char s[24];

	s[0] = ' ';
	put(b, err, s, 1 + xp_fmt_u64(s + 1, v));
}

static void put_hex(xp_buf *b, xp_err *err, uint64_t v, int digits)
{
	char s[24];

	snprintf(s, sizeof s, " %0*llx", digits, (unsigned long long)v);
	puts_(b, err, s);
}

static void put_totals(xp_buf *b, xp_err *err, const xp_mtot *t)
{
	for (unsigned k = 0; k < t->n; k++) {
		put(b, err, " ", 1);
		puts_(b, err, t->name[k]);
		put(b, err, "=", 1);
		char s[24];
		put(b, err, s, xp_fmt_u64(s, t->value[k]));
	}
	put(b, err, "\n", 1);
}

xp_err xp_manifest_text(const xp_manifest *man, int has_db, uint64_t size,
                        uint32_t crc, xp_buf *out)
{
	xp_err err = XP_E_OK;
	char w[48];

	puts_(out, &err, MAGIC "\ndatabase");
	if (has_db) {
		put_u64(out, &err, size);
		put_hex(out, &err, crc, 8);
		put(out, &err, "\n", 1);
	} else {
		puts_(out, &err, " -\n");
	}
	puts_(out, &err, "tool");
	put_enc(out, &err, man->tool_name);
	put_enc(out, &err, man->tool_version);
	put(out, &err, "\n", 1);
	for (size_t i = 0; i < man->nopt; i++) {
		puts_(out, &err, "option");
		put_enc(out, &err, man->oname[i]);
		put_enc(out, &err, man->ovalue[i]);
		put(out, &err, "\n", 1);
	}
	for (size_t i = 0; i < man->nrec; i++) {
		const xp_mrec *r = &man->rec[i];
		puts_(out, &err, "input");
		put_enc(out, &err, r->path);
		put_hex(out, &err, r->crc, 8);
		put_u64(out, &err, r->size);
		w[0] = ' ';
		put(out, &err, w, 1 + xp_fmt_double(w + 1, r->weight));
		put_enc(out, &err, r->format);
		put_totals(out, &err, &r->t);
	}
	if (man->summarized) {
		puts_(out, &err, "summary");
		put_u64(out, &err, man->s_inputs);
		put_u64(out, &err, man->s_bytes);
		put_hex(out, &err, man->s_fp, 16);
		put(out, &err, "\n", 1);
	}
	for (size_t i = 0; i < man->nfmt; i++) {
		const xp_mfmt *f = &man->fmt[i];
		puts_(out, &err, "format");
		put_enc(out, &err, f->format);
		put_u64(out, &err, f->inputs);
		put_u64(out, &err, f->bytes);
		put_totals(out, &err, &f->t);
	}
	puts_(out, &err, "end\n");
	return err;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
	const char *name;
	xp_diags *d;
	const char *line;      /* the line being read */
	size_t len;            /* its length, without the newline */
	uint32_t lineno;
	uint64_t off;          /* its offset in the file */
	size_t pos;            /* the next field's start in the line */
	size_t fstart;         /* the last field's start */
} mreader;

static xp_err bad(mreader *R, size_t col, const char *msg)
{
	return xp_diag_text(R->d, XP_E_SYNTAX, R->name, R->lineno,
	                    (uint32_t)col + 1, R->off, R->line, R->len, "%s",
	                    msg);
}

/* The next field of the line: *f and *n; -1 at the end of the line. */
static int field(mreader *R, const char **f, size_t *n)
{
	size_t e = R->pos;

	if (R->pos > R->len)
		return -1;
	while (e < R->len && R->line[e] != ' ')
		e++;
	*f = R->line + R->pos;
	*n = e - R->pos;
	R->fstart = R->pos;
	R->pos = e + 1;
	return 0;
}

/* The next field, which must be there and not be empty. */
static xp_err need(mreader *R, const char **f, size_t *n, const char *what)
{
	char msg[80];

	if (field(R, f, n) == 0 && *n > 0)
		return XP_E_OK;
	snprintf(msg, sizeof msg, "expected %s", what);
	return bad(R, R->pos > R->len ? R->len : R->fstart, msg);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The next field decoded, malloc'd, into *out. */
static xp_err need_str(mreader *R, char **out, const char *what)
{
	const char *f;
	size_t n, k = 0;
	xp_err err = need(R, &f, &n, what);
	char *s;

	*out = NULL;
	if (err != XP_E_OK)
		return err;
	if ((s = malloc(n + 1)) == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		int h = -1, l = -1;
		if (f[i] != '%') {
			s[k++] = f[i];
			continue;
		}
		if (i + 2 < n) {
			h = hexval((unsigned char)f[i + 1]);
			l = hexval((unsigned char)f[i + 2]);
		}
		if (h < 0 || l < 0 || (h == 0 && l == 0)) {
			free(s);
			return bad(R, R->fstart + i, "bad %-escape");
		}
		s[k++] = (char)(h * 16 + l);
		i += 2;
	}
	s[k] = 0;
	*out = s;
	return XP_E_OK;
}

/* The next field as a number in base 10 or 16. */
static xp_err need_num(mreader *R, int base, uint64_t *v, const char *what)
{
	const char *f;
	size_t n;
	xp_err err = need(R, &f, &n, what);
	uint64_t x = 0;

	if (err != XP_E_OK)
		return err;
	for (size_t i = 0; i < n; i++) {
		int c = hexval((unsigned char)f[i]);
		if (c < 0 || c >= base || (base == 16 && f[i] < 'a' && c > 9) ||
		    x > (UINT64_MAX - (uint64_t)c) / (uint64_t)base) {
			char msg[80];
			snprintf(msg, sizeof msg, "expected %s", what);
			return bad(R, R->fstart, msg);
		}
		x = x * (uint64_t)base + (uint64_t)c;
	}
	*v = x;
	return XP_E_OK;
}

/* The rest of the line: NAME=VALUE totals. */
static xp_err need_totals(mreader *R, xp_mtot *t)
{
	const char *f;
	size_t n;

	while (field(R, &f, &n) == 0) {
		const char *eq = memchr(f, '=', n);
		char name[32];
		uint64_t v = 0;
		size_t nl = eq ? (size_t)(eq - f) : 0;
		int ok = eq && nl > 0 && nl < sizeof name && (size_t)(eq - f) + 1 < n;
		for (size_t i = 0; ok && i < nl; i++)
			ok = (f[i] >= 'a' && f[i] <= 'z') ||
			     (f[i] >= '0' && f[i] <= '9') || f[i] == '-';
		for (size_t i = nl + 1; ok && i < n; i++) {
			ok = f[i] >= '0' && f[i] <= '9' &&
			     v <= (UINT64_MAX - (uint64_t)(f[i] - '0')) / 10;
			v = v * 10 + (uint64_t)(f[i] - '0');
		}
		if (!ok)
			return bad(R, R->fstart, "expected NAME=COUNT");
		memcpy(name, f, nl);
		name[nl] = 0;
		if (xp_mtot_add(t, name, v) != XP_E_OK)
			return bad(R, R->fstart, "too many totals");
	}
	return XP_E_OK;
}

/* An input line (after its keyword). */
static xp_err read_input(mreader *R, xp_manifest *man)
{
	xp_mrec r;
	uint64_t crc = 0;
	const char *f;
	size_t n;
	xp_err err;

	memset(&r, 0, sizeof r);
	if ((err = need_str(R, &r.path, "the input's path")) ||
	    (err = need_num(R, 16, &crc, "a CRC-32C in hexadecimal")) ||
	    (err = need_num(R, 10, &r.size, "a size")) ||
	    (err = need(R, &f, &n, "a weight")))
		goto fail;
	r.crc = (uint32_t)crc;
	if (xp_parse_double(f, n, &r.weight) != 0 || !(r.weight > 0) ||
	    r.weight > 1e308) {
		err = bad(R, R->fstart, "expected a positive weight");
		goto fail;
	}
	if ((err = need_str(R, &r.format, "a format")) ||
	    (err = need_totals(R, &r.t)))
		goto fail;
	if (crc > UINT32_MAX) {
		err = bad(R, 0, "CRC-32C out of range");
		goto fail;
	}
	if (man->nrec == XP_MANIFEST_MAX_INPUTS) {
		err = bad(R, 0, "more inputs than a manifest holds without a "
		          "summary");
		goto fail;
	}
	/* Sorted already when canonical; the comparison below says where
	 * it is not. */
	return xp_man_add_rec(man, &r);
fail:
	xp_man_rec_free(&r);
	return err;
}

/* A format line (after its keyword). */
static xp_err read_format(mreader *R, xp_manifest *man)
{
	xp_mfmt fm;
	xp_err err;

	memset(&fm, 0, sizeof fm);
	if (!(err = need_str(R, &fm.format, "a format")) &&
	    !(err = need_num(R, 10, &fm.inputs, "a count of inputs")) &&
	    !(err = need_num(R, 10, &fm.bytes, "a count of bytes")) &&
	    !(err = need_totals(R, &fm.t)))
		err = xp_man_add_fmt(man, &fm);
	free(fm.format);
	for (unsigned k = 0; k < fm.t.n; k++)
		free((char *)fm.t.name[k]);
	return err;
}

/* The kinds of lines, and after which kinds each may come (bits of
 * kinds; MAGIC_LINE is the first line). */
enum { DATABASE, TOOL, OPTION, INPUT, SUMMARY, FORMAT, END, MAGIC_LINE };
static const char *const kinds[] = {
	"database", "tool", "option", "input", "summary", "format", "end"
};
#define B(k) (1u << (k))
static const unsigned after[] = {
	[DATABASE] = B(MAGIC_LINE), [TOOL] = B(DATABASE),
	[OPTION] = B(TOOL) | B(OPTION),
	[INPUT] = B(TOOL) | B(OPTION) | B(INPUT),
	[SUMMARY] = B(TOOL) | B(OPTION), [FORMAT] = B(SUMMARY) | B(FORMAT),
	[END] = B(TOOL) | B(OPTION) | B(INPUT) | B(FORMAT),
};

/* One line; *last is the kind of the line before. */
static xp_err read_line(mreader *R, xp_manifest *man, int *last)
{
	const char *f;
	size_t n;
	int k = 0;
	uint64_t a, b, c;
	xp_err err = XP_E_OK;

	field(R, &f, &n);
	while (k < END + 1 && (strlen(kinds[k]) != n || memcmp(f, kinds[k], n)))
		k++;
	if (k > END)
		return bad(R, 0, "unknown kind of line");
	if (!(after[k] & B(*last)))
		return bad(R, 0, "a line out of place");
	*last = k;
	switch (k) {
	case 0:
		if (R->len == strlen("database -") &&
		    memcmp(R->line, "database -", R->len) == 0)
			return XP_E_OK;
		if ((err = need_num(R, 10, &a, "a size")) ||
		    (err = need_num(R, 16, &b, "a CRC-32C in hexadecimal")))
			return err;
		if (b > UINT32_MAX)
			return bad(R, R->fstart, "CRC-32C out of range");
		man->has_db = 1;
		man->db_size = a;
		man->db_crc = (uint32_t)b;
		break;
	case 1:
		free(man->tool_name);
		free(man->tool_version);
		man->tool_name = man->tool_version = NULL;
		if ((err = need_str(R, &man->tool_name, "the tool's name")) ||
		    (err = need_str(R, &man->tool_version, "its version")))
			return err;
		free(man->tool);
		if ((man->tool = malloc(strlen(man->tool_name) +
		                        strlen(man->tool_version) + 2)) == NULL)
			return XP_E_NOMEM;
		sprintf(man->tool, "%s %s", man->tool_name, man->tool_version);
		break;
	case 2: {
		char *on = NULL, *ov = NULL;
		if (!(err = need_str(R, &on, "an option's name")) &&
		    !(err = need_str(R, &ov, "its value")))
			err = xp_manifest_option(man, on, ov);
		free(on);
		free(ov);
		if (err)
			return err;
		break;
	}
	case 3:
		return read_input(R, man);
	case 4:
		if ((err = need_num(R, 10, &a, "a count of inputs")) ||
		    (err = need_num(R, 10, &b, "a count of bytes")) ||
		    (err = need_num(R, 16, &c, "a fingerprint")))
			return err;
		if (a <= XP_MANIFEST_MAX_INPUTS)
			return bad(R, 8, "a summary of no more inputs than a "
			           "manifest lists");
		xp_man_add_summary(man, a, b, c);
		break;
	case 5:
		return read_format(R, man);
	}
	if (field(R, &f, &n) == 0)
		return bad(R, R->fstart, "unexpected field");
	return XP_E_OK;
}

/* Reports the first line where buf differs from the canonical text. */
static xp_err check_canonical(mreader *R, const xp_manifest *man,
                              const unsigned char *buf, size_t len)
{
	xp_buf t;
	size_t i = 0, ls = 0;
	uint32_t line = 1;
	xp_err err;

	memset(&t, 0, sizeof t);
	if ((err = xp_manifest_text(man, man->has_db, man->db_size,
	                            man->db_crc, &t)) != XP_E_OK) {
		xp_buf_free(&t);
		return err;
	}
	while (i < len && i < t.len && buf[i] == t.p[i]) {
		if (buf[i] == '\n') {
			line++;
			ls = i + 1;
		}
		i++;
	}
	int same = i == len && i == t.len;
	xp_buf_free(&t);
	if (same)
		return XP_E_OK;
	const unsigned char *e = memchr(buf + ls, '\n', len - ls);
	R->line = (const char *)buf + ls;
	R->len = e ? (size_t)(e - (buf + ls)) : len - ls;
	R->lineno = line;
	R->off = ls;
	return bad(R, i - ls, "not in canonical form (records sorted, "
	           "numbers and escapes as xprof_merge writes them)");
}

/* The first line: the magic and the version. */
static xp_err magic_line(mreader *R, int *last)
{
	size_t n = strlen(MAGIC) - 1;

	if (R->len == n + 1 && memcmp(R->line, MAGIC, n + 1) == 0) {
		*last = MAGIC_LINE;
		return XP_E_OK;
	}
	if (R->len > n && memcmp(R->line, MAGIC, n) == 0)
		return xp_diag_text(R->d, XP_E_VERSION, R->name, 1,
		                    (uint32_t)n + 1, 0, R->line, R->len,
		                    "unsupported manifest version");
	return bad(R, 0, "not a manifest (\"" MAGIC "\" expected)");
}

static xp_err parse(const unsigned char *buf, size_t len, const char *name,
                    xp_manifest **out, xp_diags *d)
{
	xp_manifest *man = xp_manifest_new("", "");
	mreader R = { .name = name, .d = d };
	size_t at = 0;
	int last = -1;
	xp_err err = XP_E_OK;

	*out = NULL;
	if (man == NULL)
		return XP_E_NOMEM;
	while (at < len && err == XP_E_OK) {
		const unsigned char *nl = memchr(buf + at, '\n', len - at);
		R.line = (const char *)buf + at;
		R.len = nl ? (size_t)(nl - (buf + at)) : len - at;
		R.lineno++;
		R.off = at;
		R.pos = 0;
		if (nl == NULL)
			err = bad(&R, R.len, "missing newline at the end");
		else if (memchr(R.line, 0, R.len) != NULL)
			err = bad(&R, (size_t)((const char *)memchr(R.line, 0, R.len) -
			                       R.line), "NUL byte");
		else if (last == END)
			err = bad(&R, 0, "text after the end line");
		else if (last == -1)
			err = magic_line(&R, &last);
		else
			err = read_line(&R, man, &last);
		at += R.len + 1;
	}
	if (err == XP_E_OK && last != END)
		err = xp_diag_file(d, XP_E_SYNTAX, name, "truncated: no end "
		                   "line");
	if (err == XP_E_OK)
		err = check_canonical(&R, man, buf, len);
	if (err != XP_E_OK) {
		xp_manifest_free(man);
		return err;
	}
	*out = man;
	return XP_E_OK;
}

xp_err xp_manifest_read(const char *path, xp_manifest **out, xp_diags *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map = NULL;
	xp_err err;

	*out = NULL;
	if (fd < 0)
		return errno == ENOENT ? XP_E_NOTFOUND
		       : xp_diag_file(d, XP_E_IO, path, "%s", strerror(errno));
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return xp_diag_file(d, XP_E_IO, path, "%s", strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return xp_diag_file(d, XP_E_FORMAT, path, "not a regular file");
	}
	if ((uint64_t)st.st_size > MAX_FILE) {
		close(fd);
		return xp_diag_file(d, XP_E_LIMIT, path, "larger than a manifest "
		                    "can be");
	}
	if (st.st_size > 0 &&
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
	                0)) == MAP_FAILED) {
		int e = errno;
		close(fd);
		return xp_diag_file(d, XP_E_IO, path, "%s", strerror(e));
	}
	close(fd);
	err = parse(map ? map : "", (size_t)st.st_size, path, out, d);
	if (map)
		munmap(map, (size_t)st.st_size);
	return err;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

/* Writes n bytes of p to fd; 0, or -1 with errno set. */
int xp_manifest_write_all(int fd, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n > 0) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

char *xp_manifest_beside(const char *path)
{
	size_t n = strlen(path) + sizeof ".manifest";
	char *s = malloc(n);

	if (s)
		snprintf(s, n, "%s.manifest", path);
	return s;
}

xp_err xp_manifest_write_file(const xp_manifest *man, const char *path,
                              xp_diags *d)
{
	xp_buf t;
	xp_afile *f;
	xp_err err;

	memset(&t, 0, sizeof t);
	if ((err = xp_manifest_text(man, 0, 0, 0, &t)) == XP_E_OK &&
	    (err = xp_afile_open(path, &f, d)) == XP_E_OK) {
		if (xp_manifest_write_all(xp_afile_fd(f), t.p, t.len) != 0) {
			err = xp_diag_file(d, XP_E_IO, path, "cannot write: %s",
			                   strerror(errno));
			xp_afile_abort(f);
		} else {
			err = xp_afile_commit(f, d);
		}
	}
	xp_buf_free(&t);
	return err;
}

/* The size and CRC-32C of the file at path. */
static xp_err file_sum(const char *path, uint64_t *size, uint32_t *crc,
                       xp_diags *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map;

	if (fd < 0 || fstat(fd, &st) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return xp_diag_file(d, e == ENOENT ? XP_E_NOTFOUND : XP_E_IO,
		                    path, "%s", strerror(e));
	}
	*size = (uint64_t)st.st_size;
	*crc = 0;
	if (st.st_size > 0) {
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
		           0);
		if (map == MAP_FAILED) {
			int e = errno;
			close(fd);
			return xp_diag_file(d, XP_E_IO, path, "%s", strerror(e));
		}
		*crc = xp_crc32c(0, map, (size_t)st.st_size);
		munmap(map, (size_t)st.st_size);
	}
	close(fd);
	return XP_E_OK;
}

/* The manifest at mpath of the database at db, which it must describe. */
static xp_err open_beside(const char *db, const char *mpath,
                          xp_manifest **out, xp_diags *d)
{
	uint64_t size = 0;
	uint32_t crc = 0;
	xp_err err = xp_manifest_read(mpath, out, d);

	if (err == XP_E_NOTFOUND)
		return xp_diag_file(d, XP_E_NOTFOUND, db, "no manifest (%s: %s)",
		                    mpath, strerror(ENOENT));
	if (err == XP_E_OK && (err = file_sum(db, &size, &crc, d)) == XP_E_OK &&
	    (!(*out)->has_db || (*out)->db_size != size ||
	     (*out)->db_crc != crc))
		err = xp_diag_file(d, XP_E_NOTFOUND, db, "no manifest: %s "
		                   "describes another database (the database "
		                   "was replaced since)", mpath);
	if (err != XP_E_OK) {
		xp_manifest_free(*out);
		*out = NULL;
	}
	return err;
}

xp_err xp_manifest_open(const char *path, xp_manifest **out, xp_diags *d)
{
	char head[sizeof MAGIC];
	struct stat st;
	char *db = NULL, *mpath = NULL;
	xp_err err;
	ssize_t got;
	int fd;

	*out = NULL;
	if (stat(path, &st) != 0)
		return xp_diag_file(d, errno == ENOENT ? XP_E_NOTFOUND : XP_E_IO,
		                    path, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		db = xp_profdir_file(path, XP_DT_FEEDBACK, NULL);
		mpath = xp_profdir_manifest(path, XP_DT_FEEDBACK, NULL);
	} else {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return xp_diag_file(d, XP_E_IO, path, "%s",
			                    strerror(errno));
		got = read(fd, head, sizeof head - 1);
		close(fd);
		if (got == (ssize_t)strlen(MAGIC) &&
		    memcmp(head, MAGIC, strlen(MAGIC)) == 0)
			return xp_manifest_read(path, out, d);
		if (got < 8 || memcmp(head, "XPROFDB\x1a", 8) != 0)
			return xp_diag_file(d, XP_E_FORMAT, path, "not a profile "
			                    "directory, database or manifest");
		db = strdup(path);
		mpath = xp_manifest_beside(path);
	}
	err = db && mpath ? open_beside(db, mpath, out, d) : XP_E_NOMEM;
	free(db);
	free(mpath);
	return err;
}
