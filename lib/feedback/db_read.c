/*
 * feedback/db_read.c - opens and validates a feedback database (xprof_db(5)).
 *
 * The reader trusts nothing.  It checks the header and the checksum,
 * then that every table the directory describes lies inside the file at
 * exactly the offset the writer would have chosen, and only then looks
 * at records: every string reference, every id range, every
 * first_x/n_x slice against a running sum in text order, every index.
 * The rule is that the reader accepts exactly what db_write.c produces
 * for some profile the text parser accepts, so that writing an accepted
 * database again gives the same bytes.  The first problem found is
 * reported with the offset of the offending field and reading stops.
 * A file that may have the shape of a database already checked (inputs
 * of one binary, xp_db_open_fd_like()) is first compared with it byte
 * for byte, which accepts exactly the same files.
 *
 * A profile opened here reads straight from the file's bytes: nothing is
 * copied, and the scratch memory used while checking is freed before
 * returning.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feedback/db.h"

/* The state of one validation. */
typedef struct {
	const unsigned char *base;
	uint64_t len;
	const char *name;
	xp_diags *d;
	xp_fb *fb;
	uint64_t off[XP_DB_NENTRIES]; /* where each entry's bytes start */
	unsigned char *smark;          /* per string: SM_* bits */
	uint32_t *stamp;               /* per id: seen in the current slice */
	uint32_t nstamp;
	uint32_t *sortbuf;             /* tuple ids of one procedure */
} rd;

enum { SM_USED = 1, SM_OBJFILE = 2, SM_COLON = 4 };

static xp_err bad(rd *r, xp_err code, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static xp_err bad(rd *r, xp_err code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	xp_diag_vbin(r->d, code, r->name, off, fmt, ap);
	va_end(ap);
	return code;
}

#define CORRUPT(r, off, ...) bad((r), XP_E_CORRUPT, (off), __VA_ARGS__)

static const char *tname(xp_table t)
{
	return xp_db_entry_name(XP_DBE_TABLE0 + (unsigned)t);
}

/* The file offset of field f of record i of table t. */
static inline uint64_t foff(const rd *r, xp_table t, uint32_t i, unsigned f)
{
	return r->off[XP_DBE_TABLE0 + t] +
	       (uint64_t)i * xp_db_entry_recsize(XP_DBE_TABLE0 + t) + f;
}

/* Field f of record i of table t; every table of the file has storage. */
static inline __attribute__((always_inline)) uint32_t
get32(const rd *r, xp_table t, uint32_t i, unsigned f)
{
	return xp_get_le32(r->fb->tab[t] + (size_t)i * xp_recsize(t) + f);
}

static inline uint64_t get64(const rd *r, xp_table t, uint32_t i,
                             unsigned f)
{
	return xp_get_le64(r->fb->tab[t] + (size_t)i * xp_recsize(t) + f);
}

/* The directory field of entry e at field f. */
static uint64_t dirfield(unsigned e, unsigned f)
{
	return XP_DB_HEADER_SIZE + (uint64_t)e * XP_DB_ENTRY_SIZE + f;
}

/* ------------------------------------------------------------------ */
/* Header, directory, strings                                          */
/* ------------------------------------------------------------------ */

static xp_err check_header(rd *r, uint32_t *type, uint32_t *minor)
{
	const unsigned char *h = r->base;
	size_t m = r->len < XP_DB_MAGIC_LEN ? (size_t)r->len : XP_DB_MAGIC_LEN;
	if (memcmp(h, XP_DB_MAGIC, m) != 0)
		return bad(r, XP_E_FORMAT, 0,
		           "not a feedback database (bad magic number)");
	if (r->len < XP_DB_DIR_END)
		return CORRUPT(r, r->len,
		               "file is truncated: %llu bytes, the header and "
		               "directory alone take %llu",
		               (unsigned long long)r->len,
		               (unsigned long long)XP_DB_DIR_END);
	uint32_t v = xp_get_le32(h + XP_DBH_VERSION);
	if (v != XP_DB_FORMAT_VERSION)
		return bad(r, XP_E_VERSION, XP_DBH_VERSION,
		           "format version is %u, only %u is supported", v,
		           XP_DB_FORMAT_VERSION);
	uint64_t size = xp_get_le64(h + XP_DBH_FILESIZE);
	if (size != r->len)
		return CORRUPT(r, XP_DBH_FILESIZE,
		               "file size field is %llu, the file has %llu bytes",
		               (unsigned long long)size,
		               (unsigned long long)r->len);

	/* The checksum covers the whole file with its own field zero. */
	static const unsigned char zero4[4];
	uint32_t crc = xp_crc32c(0, h, XP_DBH_CRC);
	crc = xp_crc32c(crc, zero4, 4);
	crc = xp_crc32c(crc, h + XP_DBH_CRC + 4,
	                (size_t)(r->len - XP_DBH_CRC - 4));
	uint32_t stored = xp_get_le32(h + XP_DBH_CRC);
	if (crc != stored)
		return CORRUPT(r, XP_DBH_CRC,
		               "checksum is 0x%08x, the data gives 0x%08x", stored,
		               crc);

	*type = xp_get_le32(h + XP_DBH_TYPE);
	if (*type > XP_DT_TCOVSD)
		return CORRUPT(r, XP_DBH_TYPE, "data type is %u, expected 0 to 3",
		               *type);
	uint32_t major = xp_get_le32(h + XP_DBH_MAJOR);
	if (major != 4)
		return CORRUPT(r, XP_DBH_MAJOR, "text major version is %u, expected 4",
		               major);
	*minor = xp_get_le32(h + XP_DBH_MINOR);
	if (*minor != 3 && *minor != 4)
		return CORRUPT(r, XP_DBH_MINOR,
		               "text minor version is %u, expected 3 or 4", *minor);
	uint32_t ne = xp_get_le32(h + XP_DBH_NENTRIES);
	if (ne != XP_DB_NENTRIES)
		return CORRUPT(r, XP_DBH_NENTRIES,
		               "directory has %u entries, expected %u", ne,
		               XP_DB_NENTRIES);
	for (unsigned i = XP_DBH_RESERVED; i < XP_DB_HEADER_SIZE; i++)
		if (h[i])
			return CORRUPT(r, i, "reserved header byte is 0x%02x, "
			               "expected 0", h[i]);
	return XP_E_OK;
}

static xp_err check_directory(rd *r)
{
	uint64_t pos = XP_DB_DIR_END;
	for (unsigned e = 0; e < XP_DB_NENTRIES; e++) {
		const unsigned char *de = r->base + dirfield(e, 0);
		const char *nm = xp_db_entry_name(e);
		uint32_t id = xp_get_le32(de + XP_DBE_ID);
		uint32_t rs = xp_get_le32(de + XP_DBE_RECSIZE);
		uint64_t off = xp_get_le64(de + XP_DBE_OFFSET);
		uint64_t count = xp_get_le64(de + XP_DBE_COUNT);
		uint32_t want_rs = xp_db_entry_recsize(e);
		uint64_t want_off = xp_db_align8(pos);

		if (id != e)
			return CORRUPT(r, dirfield(e, XP_DBE_ID),
			               "directory entry %u has id %u, expected %u", e,
			               id, e);
		if (rs != want_rs)
			return CORRUPT(r, dirfield(e, XP_DBE_RECSIZE),
			               "%s record size is %u, expected %u", nm, rs,
			               want_rs);
		if (off != want_off)
			return CORRUPT(r, dirfield(e, XP_DBE_OFFSET),
			               "%s offset is %llu, expected %llu", nm,
			               (unsigned long long)off,
			               (unsigned long long)want_off);
		if (count > UINT32_MAX)
			return CORRUPT(r, dirfield(e, XP_DBE_COUNT),
			               "%s count is %llu, more than 2^32-1", nm,
			               (unsigned long long)count);
		/* Both factors are below 2^32 and 2^7: no overflow. */
		uint64_t bytes = count * rs;
		if (off > r->len || bytes > r->len - off)
			return CORRUPT(r, dirfield(e, XP_DBE_COUNT),
			               "%s count is %llu: %llu bytes at offset %llu "
			               "go past the end of the file (%llu bytes)",
			               nm, (unsigned long long)count,
			               (unsigned long long)bytes,
			               (unsigned long long)off,
			               (unsigned long long)r->len);
		for (uint64_t p = pos; p < off; p++)
			if (r->base[p])
				return CORRUPT(r, p, "padding byte before %s is 0x%02x, "
				               "expected 0", nm, r->base[p]);
		r->off[e] = off;
		pos = off + bytes;
	}
	if (pos != r->len)
		return CORRUPT(r, pos, "%llu bytes after the last table",
		               (unsigned long long)(r->len - pos));
	return XP_E_OK;
}

static int str_is_valid_byte(unsigned char c)
{
	return c != ' ' && c != '\t' && c != '\r' && c != '\n';
}

static xp_err check_strings(rd *r)
{
	xp_fb *fb = r->fb;
	uint64_t obase = r->off[XP_DBE_STROFFS], sbase = r->off[XP_DBE_STRINGS];
	const unsigned char *s = (const unsigned char *)fb->strtab;
	uint32_t slen = fb->strtab_len, pos = 0;
	const unsigned char *prev = NULL;
	size_t prevlen = 0;

	for (uint32_t i = 0; i < fb->nstr; i++) {
		uint32_t o = xp_get_le32(fb->stroff + (size_t)i * 4);
		if (o != pos)
			return CORRUPT(r, obase + (uint64_t)i * 4,
			               "STRING_OFFSETS[%u] is %u, expected %u", i, o,
			               pos);
		const unsigned char *nul = pos < slen
		                               ? memchr(s + pos, 0, slen - pos)
		                               : NULL;
		if (!nul)
			return CORRUPT(r, sbase + pos,
			               "string %u has no terminating NUL byte", i);
		size_t n = (size_t)(nul - (s + pos));
		if (n == 0)
			return CORRUPT(r, sbase + pos, "string %u is empty", i);
		/* Most names hold none of the bytes looked for below; the
		 * C library finds that fastest. */
		size_t k = strcspn((const char *)s + pos, " \t\r\n:");
		for (; k < n; k++) {
			if (!str_is_valid_byte(s[pos + k]))
				return CORRUPT(r, sbase + pos + k,
				               "string %u holds byte 0x%02x (space, tab, "
				               "CR and LF cannot appear in names)",
				               i, s[pos + k]);
			/* Remembered here so that checking the many
			 * <proc>:<objfile> pairs needs no second scan. */
			if (s[pos + k] == ':')
				r->smark[i] |= SM_COLON;
		}
		if (prev) {
			size_t m = prevlen < n ? prevlen : n;
			int c = memcmp(prev, s + pos, m);
			if (c > 0 || (c == 0 && prevlen >= n))
				return CORRUPT(r, sbase + pos,
				               "string %u \"%.40s\" does not sort after "
				               "string %u \"%.40s\"",
				               i, (const char *)(s + pos), i - 1,
				               (const char *)prev);
		}
		prev = s + pos;
		prevlen = n;
		pos += (uint32_t)n + 1;
	}
	if (pos != slen)
		return CORRUPT(r, sbase + pos,
		               "STRINGS has %u bytes after the last string",
		               slen - pos);
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

/* The report of a string reference out of range (out of line, as the
 * other failures of the checks on the hot path). */
static xp_err __attribute__((noinline, cold))
str_fail(rd *r, xp_table t, uint32_t i, unsigned f, const char *field,
         uint32_t s)
{
	return CORRUPT(r, foff(r, t, i, f), "%s[%u].%s is %u, there are %u "
	               "strings", tname(t), i, field, s, r->fb->nstr);
}

/* Checks a string reference at field f of record i of table t. */
static inline __attribute__((always_inline)) xp_err
str_ref(rd *r, xp_table t, uint32_t i, unsigned f, const char *field,
        uint32_t s, int optional)
{
	if (optional && s == XP_NOSTR)
		return XP_E_OK;
	if (__builtin_expect(s >= r->fb->nstr, 0))
		return str_fail(r, t, i, f, field, s);
	r->smark[s] |= SM_USED;
	return XP_E_OK;
}

static xp_err __attribute__((noinline, cold))
colon_fail(rd *r, xp_table t, uint32_t i, unsigned f, const char *field,
           uint32_t s)
{
	return CORRUPT(r, foff(r, t, i, f), "%s[%u].%s \"%.40s\" holds ':'",
	               tname(t), i, field, xp_fb_str(r->fb, s));
}

/* A procedure name of a <proc_name>:<objfile> pair cannot hold ':',
 * or the text would split the pair elsewhere. */
static inline __attribute__((always_inline)) xp_err
pair_name(rd *r, xp_table t, uint32_t i, unsigned f, const char *field,
          uint32_t s)
{
	xp_err err = str_ref(r, t, i, f, field, s, 0);
	if (err)
		return err;
	if (__builtin_expect(r->smark[s] & SM_COLON, 0))
		return colon_fail(r, t, i, f, field, s);
	return XP_E_OK;
}

static xp_err __attribute__((noinline, cold))
slice_fail(rd *r, xp_table pt, uint32_t pi, unsigned ffirst,
           const char *fname, uint32_t n, xp_table ct, uint32_t cur)
{
	uint32_t first = get32(r, pt, pi, ffirst);
	if (first != cur)
		return CORRUPT(r, foff(r, pt, pi, ffirst),
		               "%s[%u].%s is %u, expected %u", tname(pt), pi, fname,
		               first, cur);
	return CORRUPT(r, foff(r, pt, pi, ffirst + 4),
	               "%s[%u] has %u %s from %u, but %s has %u records",
	               tname(pt), pi, n, tname(ct), first, tname(ct),
	               r->fb->n[ct]);
}

/*
 * Checks that a parent's slice of a child table starts at the running
 * sum *cur and fits in the table, then advances *cur.
 */
static inline __attribute__((always_inline)) xp_err
slice(rd *r, xp_table pt, uint32_t pi, unsigned ffirst, const char *fname,
      uint32_t n, xp_table ct, uint32_t *cur)
{
	if (__builtin_expect(get32(r, pt, pi, ffirst) != *cur ||
	                     n > r->fb->n[ct] - *cur, 0))
		return slice_fail(r, pt, pi, ffirst, fname, n, ct, *cur);
	*cur += n;
	return XP_E_OK;
}

/* Running sums of every child table while walking in text order. */
typedef struct {
	uint32_t stat, proc, counter, vp, vpval, block, edge, tuple;
	uint32_t objref, comdat, line, ref;
	uint32_t sec[4]; /* by xp_seckind */
} cursors;

static xp_err check_stats(rd *r, xp_table pt, uint32_t pi, unsigned ffirst,
                          cursors *c)
{
	uint32_t n = get32(r, pt, pi, ffirst + 4);
	uint32_t first = c->stat;
	xp_err err = slice(r, pt, pi, ffirst, "first_stat", n, XP_T_STATS,
	                   &c->stat);
	for (uint32_t i = first; !err && i < first + n; i++) {
		uint32_t k = get32(r, XP_T_STATS, i, XP_ST_KIND);
		if (k > XP_STAT_SUM)
			err = CORRUPT(r, foff(r, XP_T_STATS, i, XP_ST_KIND),
			              "STATS[%u].kind is %u, expected 0 or 1", i, k);
	}
	return err;
}

/* Adds the values of n counter records at p to the sum of fb's counts. */
static void add_counts(xp_fb *fb, const unsigned char *p, uint32_t n)
{
	uint64_t lo = fb->sum_lo, hi = fb->sum_hi;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = xp_get_le64(p + (size_t)i * XP_RS_COUNTER +
		                         XP_CN_VALUE);
		lo += v;
		hi += lo < v;
	}
	fb->sum_lo = lo;
	fb->sum_hi = hi;
}

/* The check of unique_ids() for ids that do not increase. */
static xp_err __attribute__((noinline))
stamped_ids(rd *r, xp_table t, uint32_t first, uint32_t n, unsigned f,
            const char *field, uint32_t max)
{
	xp_err err = XP_E_OK;
	uint32_t i;

	for (i = first; i < first + n; i++) {
		uint32_t id = get32(r, t, i, f);
		if (id < 1 || id > max) {
			err = CORRUPT(r, foff(r, t, i, f),
			              "%s[%u].%s is %u, expected 1 to %u", tname(t), i,
			              field, id, max);
			break;
		}
		if (r->stamp[id]) {
			err = CORRUPT(r, foff(r, t, i, f),
			              "%s[%u].%s %u repeats %s[%u].%s", tname(t), i,
			              field, id, tname(t), r->stamp[id] - 1, field);
			break;
		}
		r->stamp[id] = i + 1;
	}
	/* Leave the stamps clear for the next slice. */
	for (uint32_t j = first; j < i; j++)
		r->stamp[get32(r, t, j, f)] = 0;
	return err;
}

/*
 * Ids of a slice must lie in [1..max] and be unique.  max never exceeds
 * the size of the stamp array, which is sized by the largest table.
 */
static inline __attribute__((always_inline)) xp_err
unique_ids(rd *r, xp_table t, uint32_t first, uint32_t n, unsigned f,
           const char *field, uint32_t max)
{
	/* Ids written in increasing order, the usual case, are unique and
	 * need no stamps: only the first and the last are range-checked. */
	uint32_t prev = 0, i;
	for (i = first; i < first + n; i++) {
		uint32_t id = get32(r, t, i, f);
		if (id <= prev)
			break;
		prev = id;
	}
	if (i == first + n && (n == 0 || prev <= max))
		return XP_E_OK;
	return stamped_ids(r, t, first, n, f, field, max);
}

/* The report of a field found out of range; kept out of line so that
 * the checks on the hot path stay small. */
static xp_err __attribute__((noinline, cold))
range_fail(rd *r, xp_table t, uint32_t i, unsigned f, const char *field,
           uint32_t lo, uint32_t hi)
{
	uint32_t v = get32(r, t, i, f);
	if (hi == UINT32_MAX)
		return CORRUPT(r, foff(r, t, i, f),
		               "%s[%u].%s is %u, expected %u or more",
		               tname(t), i, field, v, lo);
	if (lo > hi)
		return CORRUPT(r, foff(r, t, i, f),
		               "%s[%u].%s is %u, but there is nothing it can "
		               "refer to", tname(t), i, field, v);
	return CORRUPT(r, foff(r, t, i, f), "%s[%u].%s is %u, expected %u to %u",
	               tname(t), i, field, v, lo, hi);
}

static inline __attribute__((always_inline)) xp_err
check_range(rd *r, xp_table t, uint32_t i, unsigned f, const char *field,
            uint32_t lo, uint32_t hi)
{
	uint32_t v = get32(r, t, i, f);
	if (__builtin_expect(v < lo || v > hi, 0))
		return range_fail(r, t, i, f, field, lo, hi);
	return XP_E_OK;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static xp_err check_vpval(rd *r, uint32_t i, uint32_t type)
{
	uint32_t flags = get32(r, XP_T_VPVALS, i, XP_VV_FLAGS);
	uint64_t count = get64(r, XP_T_VPVALS, i, XP_VV_COUNT);
	uint64_t v = get64(r, XP_T_VPVALS, i, XP_VV_VALUE);
	uint64_t voff = foff(r, XP_T_VPVALS, i, XP_VV_VALUE);

	if (flags & ~XP_VVF_HAS_VALUE)
		return CORRUPT(r, foff(r, XP_T_VPVALS, i, XP_VV_FLAGS),
		               "VPVALS[%u].flags is 0x%x, only bit 0 is defined", i,
		               flags);
	if (!(flags & XP_VVF_HAS_VALUE)) {
		if (v != 0)
			return CORRUPT(r, voff, "VPVALS[%u] has no value, but its value "
			               "field is 0x%llx, expected 0", i,
			               (unsigned long long)v);
		if (count > 0 && type != XP_VP_PROC)
			return CORRUPT(r, voff, "VPVALS[%u] has count %llu but no value "
			               "(only VP_PROC values may be empty)", i,
			               (unsigned long long)count);
		return XP_E_OK;
	}
	switch (type) {
	case XP_VP_INT:
		if (v != (uint64_t)(int64_t)(int32_t)(uint32_t)v)
			return CORRUPT(r, voff, "VPVALS[%u] VP_INT value 0x%llx is not "
			               "a sign-extended 32-bit integer", i,
			               (unsigned long long)v);
		break;
	case XP_VP_FLOAT:
		if (v >> 32)
			return CORRUPT(r, voff, "VPVALS[%u] VP_FLOAT value 0x%llx has "
			               "high bits set", i, (unsigned long long)v);
		if ((v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu) &&
		    (v & 0x7fffffffu) != 0x7fc00000u)
			return CORRUPT(r, voff, "VPVALS[%u] VP_FLOAT value 0x%08llx is "
			               "a NaN other than the default one", i,
			               (unsigned long long)v);
		break;
	case XP_VP_DOUBLE: {
		const uint64_t exp = 0x7ff0000000000000u;
		const uint64_t man = 0x000fffffffffffffu;
		if ((v & exp) == exp && (v & man) &&
		    (v & ~(1ull << 63)) != 0x7ff8000000000000u)
			return CORRUPT(r, voff, "VPVALS[%u] VP_DOUBLE value 0x%016llx "
			               "is a NaN other than the default one", i,
			               (unsigned long long)v);
		break;
	}
	case XP_VP_PROC: {
		xp_err err = pair_name(r, XP_T_VPVALS, i, XP_VV_VALUE,
		                       "value.name", (uint32_t)v);
		if (!err)
			err = str_ref(r, XP_T_VPVALS, i, XP_VV_VALUE + 4,
			              "value.objfile", (uint32_t)(v >> 32), 0);
		return err;
	}
	default:
		break;
	}
	return XP_E_OK;
}

static xp_err check_proc(rd *r, uint32_t p, uint32_t o, uint32_t nvpv,
                         cursors *c)
{
	xp_err err;
	const xp_table P = XP_T_PROCS;

	if ((err = str_ref(r, P, p, XP_PR_NAME, "name",
	                   get32(r, P, p, XP_PR_NAME), 0)))
		return err;
	uint32_t obj = get32(r, P, p, XP_PR_OBJFILE);
	if (obj != o)
		return CORRUPT(r, foff(r, P, p, XP_PR_OBJFILE),
		               "PROCS[%u].objfile is %u, expected %u", p, obj, o);
	if ((err = check_stats(r, P, p, XP_PR_FSTAT, c)))
		return err;

	uint32_t ncnt = get32(r, P, p, XP_PR_NCNT), fcnt = c->counter;
	if ((err = slice(r, P, p, XP_PR_FCNT, "first_counter", ncnt,
	                 XP_T_COUNTERS, &c->counter)) ||
	    (err = unique_ids(r, XP_T_COUNTERS, fcnt, ncnt, XP_CN_ID, "id", ncnt)))
		return err;
	add_counts(r->fb, xp_rec(r->fb, XP_T_COUNTERS, fcnt), ncnt);

	uint32_t nvp = get32(r, P, p, XP_PR_NVP), fvp = c->vp;
	if ((err = slice(r, P, p, XP_PR_FVP, "first_vp", nvp, XP_T_VPS, &c->vp)))
		return err;
	if (nvp > 0 && nvpv == 0)
		return CORRUPT(r, foff(r, P, p, XP_PR_NVP),
		               "PROCS[%u].n_vps is %u, but its object file has 0 "
		               "values per record", p, nvp);
	uint32_t fvv = get32(r, P, p, XP_PR_FVPVAL);
	if (fvv != c->vpval)
		return CORRUPT(r, foff(r, P, p, XP_PR_FVPVAL),
		               "PROCS[%u].first_vpval is %u, expected %u", p, fvv,
		               c->vpval);
	uint64_t nvv = (uint64_t)nvp * nvpv;
	if (nvv > (uint64_t)r->fb->n[XP_T_VPVALS] - c->vpval)
		return CORRUPT(r, foff(r, P, p, XP_PR_NVP),
		               "PROCS[%u] has %u value profile records of %u values "
		               "from %u, but VPVALS has %u records",
		               p, nvp, nvpv, fvv, r->fb->n[XP_T_VPVALS]);
	for (uint32_t j = 0; j < nvp; j++) {
		uint32_t type = get32(r, XP_T_VPS, fvp + j, XP_VP_TYPE);
		if (type > XP_VP_PROC)
			return CORRUPT(r, foff(r, XP_T_VPS, fvp + j, XP_VP_TYPE),
			               "VPS[%u].type is %u, expected 0 to 4", fvp + j,
			               type);
		for (uint32_t k = 0; k < nvpv; k++)
			if ((err = check_vpval(r, c->vpval + j * nvpv + k, type)))
				return err;
	}
	c->vpval += (uint32_t)nvv;

	uint32_t nblk = get32(r, P, p, XP_PR_NBLK), fblk = c->block;
	if ((err = slice(r, P, p, XP_PR_FBLK, "first_block", nblk, XP_T_BLOCKS,
	                 &c->block)) ||
	    (err = unique_ids(r, XP_T_BLOCKS, fblk, nblk, XP_BK_ID, "id", nblk)))
		return err;
	for (uint32_t j = fblk; j < fblk + nblk; j++)
		if ((err = check_range(r, XP_T_BLOCKS, j, XP_BK_COUNTER, "counter",
		                       0, ncnt)))
			return err;

	uint32_t nedge = get32(r, P, p, XP_PR_NEDGE), fedge = c->edge;
	if ((err = slice(r, P, p, XP_PR_FEDGE, "first_edge", nedge, XP_T_EDGES,
	                 &c->edge)) ||
	    (err = unique_ids(r, XP_T_EDGES, fedge, nedge, XP_ED_ID, "id",
	                      nedge)))
		return err;
	for (uint32_t j = fedge; j < fedge + nedge; j++)
		if ((err = check_range(r, XP_T_EDGES, j, XP_ED_COUNTER, "counter", 0,
		                       ncnt)) ||
		    (err = check_range(r, XP_T_EDGES, j, XP_ED_FROM, "from", 1,
		                       nblk)) ||
		    (err = check_range(r, XP_T_EDGES, j, XP_ED_TO, "to", 1, nblk)))
			return err;

	uint32_t ntup = get32(r, P, p, XP_PR_NTUP), ftup = c->tuple;
	uint32_t nops = get32(r, P, p, XP_PR_NSRCMAP);
	if ((err = slice(r, P, p, XP_PR_FTUP, "first_tuple", ntup, XP_T_TUPLES,
	                 &c->tuple)))
		return err;
	if (ntup > nops)
		return CORRUPT(r, foff(r, P, p, XP_PR_NTUP),
		               "PROCS[%u].n_tuples is %u, more than n_srcmap_ops %u",
		               p, ntup, nops);
	int increasing = 1;
	for (uint32_t j = ftup; j < ftup + ntup; j++) {
		const xp_table T = XP_T_TUPLES;
		if ((err = check_range(r, T, j, XP_TU_ID, "id", 1, nops)) ||
		    (err = check_range(r, T, j, XP_TU_BLOCK, "block", 1, nblk)) ||
		    (err = check_range(r, T, j, XP_TU_LINE, "line", 1, UINT32_MAX)) ||
		    (err = str_ref(r, T, j, XP_TU_FILE, "srcfile",
		                   get32(r, T, j, XP_TU_FILE), 1)))
			return err;
		r->sortbuf[j - ftup] = get32(r, T, j, XP_TU_ID);
		if (j > ftup && r->sortbuf[j - ftup] <= r->sortbuf[j - ftup - 1])
			increasing = 0;
	}
	if (increasing)
		return XP_E_OK;
	/* Tuple ids range up to n_srcmap_ops, which the file does not bound,
	 * so they are checked for repeats by sorting rather than stamping. */
	xp_qsort(r->sortbuf, ntup, sizeof *r->sortbuf, cmp_u32);
	for (uint32_t j = 1; j < ntup; j++) {
		if (r->sortbuf[j] != r->sortbuf[j - 1])
			continue;
		uint32_t id = r->sortbuf[j], seen = UINT32_MAX;
		for (uint32_t k = ftup; k < ftup + ntup; k++) {
			if (get32(r, XP_T_TUPLES, k, XP_TU_ID) != id)
				continue;
			if (seen != UINT32_MAX)
				return CORRUPT(r, foff(r, XP_T_TUPLES, k, XP_TU_ID),
				               "TUPLES[%u].id %u repeats TUPLES[%u].id", k,
				               id, seen);
			seen = k;
		}
	}
	return XP_E_OK;
}

static xp_err check_objfile(rd *r, uint32_t o, cursors *c)
{
	xp_err err;
	const xp_table O = XP_T_OBJFILES;
	uint32_t path = get32(r, O, o, XP_OF_PATH);
	if ((err = str_ref(r, O, o, XP_OF_PATH, "path", path, 0)) ||
	    (err = check_stats(r, O, o, XP_OF_FSTAT, c)))
		return err;
	uint32_t np = get32(r, O, o, XP_OF_NPROC), fp = c->proc;
	uint32_t nvpv = get32(r, O, o, XP_OF_NVPV);
	if ((err = slice(r, O, o, XP_OF_FPROC, "first_proc", np, XP_T_PROCS,
	                 &c->proc)))
		return err;
	for (uint32_t p = fp; p < fp + np; p++)
		if ((err = check_proc(r, p, o, nvpv, c)))
			return err;
	if ((err = unique_ids(r, XP_T_PROCS, fp, np, XP_PR_ID, "proc_id", np)))
		return err;
	r->smark[path] |= SM_OBJFILE;
	return XP_E_OK;
}

static xp_err check_program(rd *r, uint32_t g, cursors *c)
{
	xp_err err;
	const xp_table G = XP_T_PROGRAMS;
	if ((err = str_ref(r, G, g, XP_PG_PATH, "path",
	                   get32(r, G, g, XP_PG_PATH), 0)) ||
	    (err = check_stats(r, G, g, XP_PG_FSTAT, c)))
		return err;
	uint32_t n = get32(r, G, g, XP_PG_NOBJREF), f = c->objref;
	if ((err = slice(r, G, g, XP_PG_FOBJREF, "first_objref", n, XP_T_OBJREFS,
	                 &c->objref)))
		return err;
	for (uint32_t i = f; i < f + n; i++) {
		uint32_t s = get32(r, XP_T_OBJREFS, i, 0);
		if ((err = str_ref(r, XP_T_OBJREFS, i, 0, "path", s, 0)))
			return err;
		if (!(r->smark[s] & SM_OBJFILE))
			return CORRUPT(r, foff(r, XP_T_OBJREFS, i, 0),
			               "OBJREFS[%u] names \"%.60s\", which is not an "
			               "object file defined before it",
			               i, xp_fb_str(r->fb, s));
	}
	n = get32(r, G, g, XP_PG_NCOMDAT);
	f = c->comdat;
	if ((err = slice(r, G, g, XP_PG_FCOMDAT, "first_comdat", n, XP_T_COMDATS,
	                 &c->comdat)))
		return err;
	for (uint32_t i = f; i < f + n; i++)
		if ((err = pair_name(r, XP_T_COMDATS, i, XP_CD_PROC, "proc",
		                     get32(r, XP_T_COMDATS, i, XP_CD_PROC))) ||
		    (err = str_ref(r, XP_T_COMDATS, i, XP_CD_OBJFILE, "objfile",
		                   get32(r, XP_T_COMDATS, i, XP_CD_OBJFILE), 0)))
			return err;
	return XP_E_OK;
}

static xp_err check_srcfile(rd *r, uint32_t s, cursors *c)
{
	xp_err err;
	const xp_table S = XP_T_SRCFILES, L = XP_T_SRCLINES;
	if ((err = str_ref(r, S, s, XP_SF_PATH, "path",
	                   get32(r, S, s, XP_SF_PATH), 0)))
		return err;
	uint32_t n = get32(r, S, s, XP_SF_NLINE), f = c->line;
	if ((err = slice(r, S, s, XP_SF_FLINE, "first_line", n, L, &c->line)))
		return err;
	for (uint32_t l = f; l < f + n; l++) {
		uint32_t nr = get32(r, L, l, XP_SL_NREF), fr = c->ref;
		if ((err = check_range(r, L, l, XP_SL_LINE, "line", 1, UINT32_MAX)) ||
		    (err = slice(r, L, l, XP_SL_FREF, "first_ref", nr,
		                 XP_T_BLOCKREFS, &c->ref)))
			return err;
		if (nr == 0)
			return CORRUPT(r, foff(r, L, l, XP_SL_NREF),
			               "SRCLINES[%u].n_refs is 0, expected 1 or more", l);
		for (uint32_t i = fr; i < fr + nr; i++) {
			const xp_table B = XP_T_BLOCKREFS;
			if ((err = pair_name(r, B, i, XP_BR_PROC, "proc",
			                     get32(r, B, i, XP_BR_PROC))) ||
			    (err = str_ref(r, B, i, XP_BR_OBJFILE, "objfile",
			                   get32(r, B, i, XP_BR_OBJFILE), 0)))
				return err;
		}
	}
	return XP_E_OK;
}

/* The table whose records are the sections of a run kind. */
static const xp_table sec_table[4] = {XP_T_RUNS, XP_T_OBJFILES,
                                      XP_T_PROGRAMS, XP_T_SRCFILES};

static xp_err walk(rd *r)
{
	xp_err err;
	cursors c;
	memset(&c, 0, sizeof c);
	uint32_t prev = 0;
	for (uint32_t i = 0; i < r->fb->n[XP_T_RUNS]; i++) {
		uint32_t kind = get32(r, XP_T_RUNS, i, XP_RUN_KIND);
		uint32_t count = get32(r, XP_T_RUNS, i, XP_RUN_COUNT);
		if (kind < XP_SEC_OBJFILE || kind > XP_SEC_SRCFILE)
			return CORRUPT(r, foff(r, XP_T_RUNS, i, XP_RUN_KIND),
			               "RUNS[%u].kind is %u, expected 1 to 3", i, kind);
		if (kind == prev)
			return CORRUPT(r, foff(r, XP_T_RUNS, i, XP_RUN_KIND),
			               "RUNS[%u].kind is %u, the same as the run before "
			               "it", i, kind);
		prev = kind;
		xp_table t = sec_table[kind];
		if (count == 0 || count > r->fb->n[t] - c.sec[kind])
			return CORRUPT(r, foff(r, XP_T_RUNS, i, XP_RUN_COUNT),
			               "RUNS[%u].count is %u, expected 1 to %u", i, count,
			               r->fb->n[t] - c.sec[kind]);
		for (uint32_t k = 0; k < count; k++) {
			uint32_t s = c.sec[kind]++;
			if (kind == XP_SEC_OBJFILE)
				err = check_objfile(r, s, &c);
			else if (kind == XP_SEC_PROGRAM)
				err = check_program(r, s, &c);
			else
				err = check_srcfile(r, s, &c);
			if (err)
				return err;
		}
	}

	/* Every record of every table must belong to some parent. */
	const struct {
		xp_table t;
		uint32_t got;
		const char *what;
	} used[] = {
		{XP_T_OBJFILES, c.sec[XP_SEC_OBJFILE], "RUNS"},
		{XP_T_PROGRAMS, c.sec[XP_SEC_PROGRAM], "RUNS"},
		{XP_T_SRCFILES, c.sec[XP_SEC_SRCFILE], "RUNS"},
		{XP_T_STATS, c.stat, "object files, procedures and programs"},
		{XP_T_PROCS, c.proc, "object files"},
		{XP_T_COUNTERS, c.counter, "procedures"},
		{XP_T_VPS, c.vp, "procedures"},
		{XP_T_VPVALS, c.vpval, "procedures"},
		{XP_T_BLOCKS, c.block, "procedures"},
		{XP_T_EDGES, c.edge, "procedures"},
		{XP_T_TUPLES, c.tuple, "procedures"},
		{XP_T_OBJREFS, c.objref, "programs"},
		{XP_T_COMDATS, c.comdat, "programs"},
		{XP_T_SRCLINES, c.line, "source files"},
		{XP_T_BLOCKREFS, c.ref, "source lines"},
	};
	for (size_t k = 0; k < sizeof used / sizeof used[0]; k++)
		if (used[k].got != r->fb->n[used[k].t])
			return CORRUPT(r, dirfield(XP_DBE_TABLE0 + used[k].t,
			                           XP_DBE_COUNT),
			               "%s count is %u, but the %s hold %u",
			               tname(used[k].t), r->fb->n[used[k].t],
			               used[k].what, used[k].got);
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Indexes and the last string check                                   */
/* ------------------------------------------------------------------ */

/* The sort key of record i of an indexed table: (major, minor). */
static void idx_key(rd *r, xp_table t, uint32_t i, uint32_t *major,
                    uint32_t *minor)
{
	switch (t) {
	case XP_T_PROCS:
		*major = get32(r, XP_T_OBJFILES, get32(r, t, i, XP_PR_OBJFILE),
		               XP_OF_PATH);
		*minor = get32(r, t, i, XP_PR_NAME);
		break;
	case XP_T_OBJFILES:
		*major = 0;
		*minor = get32(r, t, i, XP_OF_PATH);
		break;
	case XP_T_PROGRAMS:
		*major = 0;
		*minor = get32(r, t, i, XP_PG_PATH);
		break;
	default:
		*major = 0;
		*minor = get32(r, t, i, XP_SF_PATH);
		break;
	}
}

/*
 * An index must list its table's records by key.  Because the strings
 * are sorted, comparing string ids compares the strings.  Keys are unique
 * (paths, and procedure names within an object file), so a strictly
 * increasing list of in-range entries is the one sorted permutation.
 */
static xp_err check_index(rd *r, xp_table idx, xp_table t)
{
	uint32_t n = r->fb->n[t];
	if (r->fb->n[idx] != n)
		return CORRUPT(r, dirfield(XP_DBE_TABLE0 + idx, XP_DBE_COUNT),
		               "%s count is %u, expected %u (the %s count)",
		               tname(idx), r->fb->n[idx], n, tname(t));
	uint32_t pj = 0, pmaj = 0, pmin = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = get32(r, idx, i, 0), maj, min;
		if (j >= n)
			return CORRUPT(r, foff(r, idx, i, 0),
			               "%s[%u] is %u, expected below %u", tname(idx), i,
			               j, n);
		idx_key(r, t, j, &maj, &min);
		if (i > 0) {
			if (j == pj)
				return CORRUPT(r, foff(r, idx, i, 0),
				               "%s[%u] is %u, the same as the entry before "
				               "it", tname(idx), i, j);
			if (maj == pmaj && min == pmin) {
				uint32_t later = j > pj ? j : pj, earlier = j > pj ? pj : j;
				unsigned f = t == XP_T_PROCS ? XP_PR_NAME : 0;
				return CORRUPT(r, foff(r, t, later, f),
				               "%s[%u] \"%.60s\" repeats %s[%u]%s", tname(t),
				               later, xp_fb_str(r->fb, min), tname(t),
				               earlier,
				               t == XP_T_PROCS ? " in the same object file"
				                               : "");
			}
			if (maj < pmaj || (maj == pmaj && min < pmin))
				return CORRUPT(r, foff(r, idx, i, 0),
				               "%s[%u] is %u, out of order", tname(idx), i,
				               j);
		}
		pj = j;
		pmaj = maj;
		pmin = min;
	}
	return XP_E_OK;
}

static xp_err check_all(rd *r)
{
	xp_fb *fb = r->fb;
	xp_err err;

	if (fb->type == XP_DT_OBJFD && fb->n[XP_T_OBJFILES] != 1)
		return CORRUPT(r, dirfield(XP_DBE_TABLE0 + XP_T_OBJFILES,
		                           XP_DBE_COUNT),
		               "OBJFILES count is %u, objfd data holds exactly one",
		               fb->n[XP_T_OBJFILES]);
	if (fb->minor == 3 && fb->n[XP_T_SRCFILES] != 0)
		return CORRUPT(r, dirfield(XP_DBE_TABLE0 + XP_T_SRCFILES,
		                           XP_DBE_COUNT),
		               "SRCFILES count is %u, version 4.3 has no source "
		               "files", fb->n[XP_T_SRCFILES]);

	/* Scratch sized by the largest slice any check may see. */
	uint32_t m = 0;
	static const xp_table stamped[] = {XP_T_PROCS, XP_T_COUNTERS,
	                                   XP_T_BLOCKS, XP_T_EDGES};
	for (size_t k = 0; k < sizeof stamped / sizeof stamped[0]; k++)
		if (fb->n[stamped[k]] > m)
			m = fb->n[stamped[k]];
	r->stamp = calloc((size_t)m + 1, sizeof *r->stamp);
	r->sortbuf = malloc(((size_t)fb->n[XP_T_TUPLES] + 1) *
	                    sizeof *r->sortbuf);
	if (!r->stamp || !r->sortbuf)
		return XP_E_NOMEM;

	if ((err = walk(r)) ||
	    (err = check_index(r, XP_T_IDX_OBJFILES, XP_T_OBJFILES)) ||
	    (err = check_index(r, XP_T_IDX_PROCS, XP_T_PROCS)) ||
	    (err = check_index(r, XP_T_IDX_PROGRAMS, XP_T_PROGRAMS)) ||
	    (err = check_index(r, XP_T_IDX_SRCFILES, XP_T_SRCFILES)))
		return err;

	for (uint32_t i = 0; i < fb->nstr; i++)
		if (!(r->smark[i] & SM_USED))
			return CORRUPT(r, r->off[XP_DBE_STRINGS] +
			                      xp_get_le32(fb->stroff + (size_t)i * 4),
			               "string %u \"%.60s\" is not referenced", i,
			               xp_fb_str(fb, i));
	return XP_E_OK;
}

/* ------------------------------------------------------------------ */
/* Opening                                                             */
/* ------------------------------------------------------------------ */

/*
 * The value profile type of every VPVALS record of fb (the template the
 * file being read is compared with: by the time its VPVALS are compared,
 * the file's object files, procedures and VPS are fb's); NULL when out
 * of memory.
 */
static unsigned char *vpval_types(const xp_fb *fb)
{
	unsigned char *ty = malloc((size_t)fb->n[XP_T_VPVALS] + 1);
	if (!ty)
		return NULL;
	for (uint32_t o = 0; o < fb->n[XP_T_OBJFILES]; o++) {
		xp_objfile of;
		xp_fb_objfile(fb, o, &of);
		for (uint32_t k = 0; k < of.n_procs; k++) {
			xp_proc p;
			xp_fb_proc(fb, of.first_proc + k, &p);
			for (uint32_t v = 0; v < p.n_vps; v++) {
				xp_vp vp;
				xp_fb_vp(fb, p.first_vp + v, &vp);
				memset(ty + p.first_vpval + (size_t)v * of.n_values_per_vp,
				       (int)vp.type, of.n_values_per_vp);
			}
		}
	}
	return ty;
}

/* What same_shape() learns of the VPVALS records as it goes. */
typedef struct {
	const xp_fb *like;
	unsigned char *types;  /* per record: its type, once needed */
	int proc_values;       /* a VP_PROC value differs from like's */
	int checked;           /* the file passed every check too: its
	                          checksum and VPVALS need no look */
	xp_fb *sum;            /* the profile being read, whose sum of
	                          counts is added up, or NULL */
} vvstate;

/*
 * Whether a VP_PROC record ra with a value other than like's passes the
 * checks of check_vpval(), which its strings (fb's, like's) passed or
 * failed alike: whether a name holds ':' is found in its bytes.
 */
static int proc_value_ok(const xp_fb *fb, const unsigned char *ra)
{
	uint32_t flags = xp_get_le32(ra + XP_VV_FLAGS);
	uint64_t v = xp_get_le64(ra + XP_VV_VALUE);
	if (flags & ~XP_VVF_HAS_VALUE)
		return 0;
	if (!(flags & XP_VVF_HAS_VALUE))
		return v == 0;
	uint32_t name = (uint32_t)v, objfile = (uint32_t)(v >> 32);
	return name < fb->nstr && objfile < fb->nstr &&
	       !memchr(xp_fb_str(fb, name), ':', xp_fb_strlen(fb, name));
}

enum { NAMED = 1, WANTED = 2 };

/*
 * Marks the strings that fb's VP_PROC values name (ty: the records'
 * types): NAMED, or with want WANTED where not NAMED.
 */
static void mark_proc_values(const xp_fb *fb, const unsigned char *ty,
                             unsigned char *marks, int want)
{
	for (uint32_t i = 0; i < fb->n[XP_T_VPVALS]; i++) {
		const unsigned char *rec = xp_rec(fb, XP_T_VPVALS, i);
		if (ty[i] != XP_VP_PROC ||
		    !(xp_get_le32(rec + XP_VV_FLAGS) & XP_VVF_HAS_VALUE))
			continue;
		uint64_t v = xp_get_le64(rec + XP_VV_VALUE);
		uint32_t s[2] = {(uint32_t)v, (uint32_t)(v >> 32)};
		for (int k = 0; k < 2; k++) {
			if (!want)
				marks[s[k]] |= NAMED;
			else if (!(marks[s[k]] & NAMED))
				marks[s[k]] |= WANTED;
		}
	}
}

/*
 * Whether every string is still used, as the full check demands, now
 * that VP_PROC values differ from like's, whose strings are the file's:
 * a string that like's values name and the file's do not must be named
 * by some other field, which the file has as like has it.  No memory: 0,
 * and the full check decides.
 */
static int proc_strings_used(const rd *r, const xp_fb *like,
                             const unsigned char *ty)
{
	const xp_fb *fb = r->fb;
	unsigned char *marks = calloc((size_t)fb->nstr + 1, 1);
	if (!marks)
		return 0;
	mark_proc_values(fb, ty, marks, 0);
	mark_proc_values(like, ty, marks, 1);
	uint32_t wanted = 0;
	for (uint32_t s = 0; s < fb->nstr; s++)
		wanted += (marks[s] & WANTED) != 0;
	for (unsigned t = 0; wanted && t < XP_T_COUNT_; t++) {
		const xp_tabdesc *td = &xp_tabdescs[t];
		for (uint32_t i = 0; wanted && i < fb->n[t]; i++) {
			const unsigned char *rec = xp_rec(fb, (xp_table)t, i);
			for (unsigned f = 0; f < td->nstr; f++) {
				uint32_t s = xp_get_le32(rec + td->str[f]);
				if (s < fb->nstr && (marks[s] & WANTED)) {
					marks[s] &= (unsigned char)~WANTED;
					wanted--;
				}
			}
		}
	}
	free(marks);
	return wanted == 0;
}

/*
 * Whether the n VPVALS records at a (the file being read, from record
 * first on) pass the checks like's records at b passed.  A record with
 * like's value and flags does when its count is 0 or like's is not, or
 * it is of VP_PROC (the only type whose count may lack a value).  One
 * with another
 * value is checked as the full check would; for a VP_PROC value, which
 * names strings, whether every string is still used is left to the end
 * (proc_strings_used()).
 */
static int same_vpvals(const unsigned char *a, const unsigned char *b,
                       uint32_t n, uint32_t first, vvstate *vs)
{
	unsigned char *ty = vs->types;
	int same = 1;
	for (uint32_t i = 0; same && i < n; i++) {
		const unsigned char *ra = a + (size_t)i * XP_RS_VPVAL;
		const unsigned char *rb = b + (size_t)i * XP_RS_VPVAL;
		uint32_t flags = xp_get_le32(ra + XP_VV_FLAGS);
		int equal = flags == xp_get_le32(rb + XP_VV_FLAGS) &&
		            xp_get_le64(ra + XP_VV_VALUE) ==
		                xp_get_le64(rb + XP_VV_VALUE);
		if (equal && ((flags & XP_VVF_HAS_VALUE) ||
		              xp_get_le64(ra + XP_VV_COUNT) == 0 ||
		              xp_get_le64(rb + XP_VV_COUNT) != 0))
			continue;
		if (!ty && !(ty = vs->types = vpval_types(vs->like)))
			return 0;
		if (equal) {
			/* A count without a value: VP_PROC only. */
			same = ty[first + i] == XP_VP_PROC;
			continue;
		}
		if (ty[first + i] == XP_VP_PROC) {
			vs->proc_values = 1;
			same = proc_value_ok(vs->like, ra);
			continue;
		}
		/* The record alone, as record 0 of a profile of its own:
		 * no message is made, so its place does not matter. */
		xp_fb one = *vs->like;
		one.tab[XP_T_VPVALS] = ra;
		rd quiet;
		memset(&quiet, 0, sizeof quiet);
		quiet.fb = &one;
		same = check_vpval(&quiet, 0, ty[first + i]) == XP_E_OK;
	}
	return same;
}

/* Bytes checksummed and compared per step of same_shape(): few enough
 * that they are still in cache when compared. */
#define STEP 65536

/*
 * Where same_shape() finds the bytes of the file being read: in memory
 * (base), or through a read window (w).
 */
typedef struct {
	const unsigned char *base;
	xp_win *w;
} bytes_of;

static const unsigned char *get_bytes(const bytes_of *f, uint64_t from,
                                      uint64_t to)
{
	return f->base ? f->base + from : xp_win_get(f->w, from, to);
}

/*
 * Bytes [from, to) of the file being read, at a, a record boundary of
 * table t (XP_T_COUNT_: bytes outside the tables whose values may
 * differ) away from the start of t at offset toff, are added to *crc
 * (unless the file was checked) and compared with like's image: equal,
 * or as same_shape() allows.
 */
static int step(const unsigned char *a, const xp_fb *like, uint64_t from,
                uint64_t to, unsigned t, uint64_t toff, uint32_t *crc,
                vvstate *vs)
{
	const unsigned char *b = like->image + from;
	if (!vs->checked)
		*crc = xp_crc32c(*crc, a, (size_t)(to - from));
	if (t == XP_T_COUNT_)
		return memcmp(a, b, (size_t)(to - from)) == 0;
	size_t rs = xp_tabdescs[t].size;
	uint32_t n = (uint32_t)((to - from) / rs);
	switch (t) {
	case XP_T_STATS:
		return xp_same_but_u64(a, b, n, XP_RS_STAT, XP_ST_VALUE);
	case XP_T_COUNTERS:
		if (vs->sum)
			add_counts(vs->sum, a, n);
		return xp_same_but_u64(a, b, n, XP_RS_COUNTER, XP_CN_VALUE);
	case XP_T_VPVALS:
		return vs->checked ||
		       same_vpvals(a, b, n, (uint32_t)((from - toff) / rs), vs);
	default:
		return xp_same_but_u64(a, b, n, XP_RS_BLOCKREF, XP_BR_COUNT);
	}
}

/*
 * Whether the file being read (len bytes, from f) has the shape of like,
 * a database that passed every check, and a correct checksum: the same
 * bytes but for the checksum, the values of STATS, COUNTERS and
 * BLOCKREFS and the counts and values of VPVALS.  Of those the checks
 * read only the VPVALS records, which same_vpvals() and
 * proc_strings_used() check.  Such a file passes every check like
 * passed, and the checks are not run: inputs of one binary with the same
 * coverage differ in nothing else.  The checksum and the comparison are
 * one pass over the file.  r, when not NULL, reads the whole file (laid
 * out as like): without it, a file whose VP_PROC values differ from
 * like's, which proc_strings_used() would need to read whole, is not
 * found to have like's shape.  checked: the file passed every check
 * too, and only its layout is compared (not its checksum, nor anything
 * of VPVALS).  take, when not NULL, is given the records of the tables
 * whose values may differ as they are found to have like's shape.
 */
static int same_shape(const rd *r, const xp_fb *like, const bytes_of *f,
                      uint64_t len, int checked, const xp_db_take *take)
{
	static const unsigned char zero4[4];
	const unsigned char *b = like->image;
	const unsigned char *a = get_bytes(f, 0, XP_DB_DIR_END);
	if (!a || memcmp(a, b, XP_DBH_CRC) != 0 ||
	    memcmp(a + XP_DBH_CRC + 4, b + XP_DBH_CRC + 4,
	           XP_DB_DIR_END - XP_DBH_CRC - 4) != 0)
		return 0;
	uint32_t want = xp_get_le32(a + XP_DBH_CRC);
	uint32_t crc = xp_crc32c(0, a, XP_DBH_CRC);
	crc = xp_crc32c(crc, zero4, 4);
	crc = xp_crc32c(crc, a + XP_DBH_CRC + 4, XP_DB_DIR_END - XP_DBH_CRC - 4);
	uint64_t pos = XP_DB_DIR_END;
	vvstate vs = {like, NULL, 0, checked, r ? r->fb : NULL};
	for (unsigned e = 0; e < XP_DB_NENTRIES; e++) {
		uint64_t off = xp_get_le64(b + dirfield(e, XP_DBE_OFFSET));
		uint64_t end = off + xp_db_entry_recsize(e) *
		                         xp_get_le64(b + dirfield(e, XP_DBE_COUNT));
		unsigned t = e >= XP_DBE_TABLE0 ? e - XP_DBE_TABLE0 : XP_T_COUNT_;
		if (t != XP_T_STATS && t != XP_T_COUNTERS && t != XP_T_VPVALS &&
		    t != XP_T_BLOCKREFS)
			t = XP_T_COUNT_;
		/* The padding before the table, then the table in steps of
		 * whole records. */
		if (pos < off &&
		    (!(a = get_bytes(f, pos, off)) ||
		     !step(a, like, pos, off, XP_T_COUNT_, 0, &crc, &vs)))
			break;
		uint64_t whole = STEP - STEP % xp_db_entry_recsize(e);
		for (pos = off; pos < end;) {
			uint64_t to = end - pos > whole ? pos + whole : end;
			if (!(a = get_bytes(f, pos, to)) ||
			    !step(a, like, pos, to, t, off, &crc, &vs) ||
			    (vs.proc_values && !r))
				break;
			if (take && t != XP_T_COUNT_)
				take->fn(take->ctx, like, (xp_table)t,
				         (uint32_t)((pos - off) /
				                    xp_db_entry_recsize(e)),
				         a, (uint32_t)((to - pos) /
				                       xp_db_entry_recsize(e)));
			pos = to;
		}
		if (pos != end)
			break;
	}
	int same = pos == len && (checked || crc == want);
	if (same && vs.proc_values)
		same = proc_strings_used(r, like, vs.types);
	free(vs.types);
	return same;
}

int xp_db_check_like(xp_win *w, uint64_t len, const xp_fb *const *like,
                     unsigned nlike, uint32_t *crc, const xp_db_take *take)
{
	bytes_of f = {NULL, w};
	const unsigned char *head = xp_win_get(w, 0, XP_DB_DIR_END);
	for (unsigned k = 0; head && k < nlike; k++) {
		const xp_fb *lk = like[k];
		/* The first of like's layout is the one: another of the same
		 * header and directory is left to the full open. */
		if (!lk || !lk->image || lk->image_len != len ||
		    memcmp(head + XP_DBH_CRC + 4, lk->image + XP_DBH_CRC + 4,
		           XP_DB_DIR_END - XP_DBH_CRC - 4) != 0)
			continue;
		*crc = xp_get_le32(head + XP_DBH_CRC);
		return same_shape(NULL, lk, &f, len, 0, take) ? (int)k + 1 : 0;
	}
	return 0;
}

/* A profile reading the tables the directory of r gives (r->off). */
static xp_fb *layout(rd *r, xp_datatype type, unsigned minor,
                     uint32_t n_proc_names)
{
	xp_fb *fb = xp_fb_alloc(type, minor, n_proc_names);
	if (!fb)
		return NULL;
	r->fb = fb;
	fb->image = r->base;
	fb->image_len = (size_t)r->len;
	fb->nstr = (uint32_t)xp_get_le64(r->base + dirfield(XP_DBE_STROFFS,
	                                                    XP_DBE_COUNT));
	fb->stroff = r->base + r->off[XP_DBE_STROFFS];
	fb->strtab = (const char *)r->base + r->off[XP_DBE_STRINGS];
	fb->strtab_len = (uint32_t)xp_get_le64(
	    r->base + dirfield(XP_DBE_STRINGS, XP_DBE_COUNT));
	for (unsigned t = 0; t < XP_T_COUNT_; t++) {
		fb->tab[t] = r->base + r->off[XP_DBE_TABLE0 + t];
		fb->n[t] = (uint32_t)xp_get_le64(
		    r->base + dirfield(XP_DBE_TABLE0 + t, XP_DBE_COUNT));
	}
	return fb;
}

/*
 * Opens the database in buf.  With like (databases that passed every
 * check) and a file of the shape of one (same_shape), *same is set to 1
 * + its index and the checks of the records are skipped.
 */
static xp_err open_mem(const void *buf, size_t len, const char *name,
                       const xp_fb *const *like, unsigned nlike, int *same,
                       xp_fb **out, xp_diags *d)
{
	rd r;
	memset(&r, 0, sizeof r);
	r.base = buf;
	r.len = len;
	r.name = name;
	r.d = d;
	*out = NULL;
	if (same)
		*same = 0;

	for (unsigned k = 0; same && k < nlike; k++) {
		const xp_fb *lk = like[k];
		if (!lk || !lk->image || lk->image_len != len)
			continue;
		/* Laid out as lk, if it has lk's shape. */
		for (unsigned e = 0; e < XP_DB_NENTRIES; e++)
			r.off[e] = xp_get_le64(lk->image +
			                       dirfield(e, XP_DBE_OFFSET));
		xp_fb *fb = layout(&r, lk->type, lk->minor, lk->n_proc_names);
		if (!fb)
			return XP_E_NOMEM;
		bytes_of f = {r.base, NULL};
		if (same_shape(&r, lk, &f, r.len, 0, NULL)) {
			*same = (int)k + 1;
			fb->like = lk;
			fb->sum_known = 1;
			*out = fb;
			return XP_E_OK;
		}
		xp_fb_free(fb);
		r.fb = NULL;
	}

	uint32_t type = 0, minor = 0;
	xp_err err = check_header(&r, &type, &minor);
	if (!err)
		err = check_directory(&r);
	if (err)
		return err;

	xp_fb *fb = layout(&r, (xp_datatype)type, minor,
	                   xp_get_le32(r.base + XP_DBH_NPROCNAMES));
	if (!fb)
		return XP_E_NOMEM;
	r.smark = calloc((size_t)fb->nstr + 1, 1);
	err = r.smark ? check_strings(&r) : XP_E_NOMEM;
	if (!err)
		err = check_all(&r);
	XP_FREE(r.stamp, r.sortbuf, r.smark);
	if (err) {
		xp_fb_free(fb);
		return err;
	}
	fb->sum_known = 1;
	*out = fb;
	return XP_E_OK;
}

xp_err xp_db_open_mem(const void *buf, size_t len, const char *name,
                      xp_fb **out, xp_diags *d)
{
	return open_mem(buf, len, name, NULL, 0, NULL, out, d);
}

xp_err xp_db_open_mem_like(const void *buf, size_t len, const char *name,
                           const xp_fb *const *like, unsigned nlike,
                           int *same, xp_fb **out, xp_diags *d)
{
	return open_mem(buf, len, name, like, nlike, same, out, d);
}

xp_err xp_db_open_fd(int fd, const char *path, xp_fb **out, xp_diags *d)
{
	return xp_db_open_fd_like(fd, path, NULL, 0, NULL, out, d);
}

xp_err xp_db_open_fd_like(int fd, const char *path, const xp_fb *const *like,
                          unsigned nlike, int *same, xp_fb **out,
                          xp_diags *d)
{
	*out = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return xp_diag_file(d, XP_E_IO, path, "cannot stat: %s",
		                    strerror(errno));
	if (!S_ISREG(st.st_mode))
		return xp_diag_file(d, XP_E_IO, path, "not a regular file");
	if ((uint64_t)st.st_size > SIZE_MAX)
		return xp_diag_file(d, XP_E_LIMIT, path, "file too large to map");
	size_t len = (size_t)st.st_size;
	void *map = NULL;
	if (len > 0) {
		/*
		 * The mapping is private and read-only.  Writers never change
		 * a database in place (they rename a new file over it), so the
		 * bytes cannot change under the mapping.
		 */
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			int e = errno;
			return xp_diag_file(d, e == ENOMEM ? XP_E_NOMEM : XP_E_IO,
			                    path, "cannot map: %s", strerror(e));
		}
#ifdef MADV_HUGEPAGE
		/*
		 * A database is read whole (its checksum covers every byte),
		 * so it is asked for in huge pages: what is not yet cached is
		 * read into the page cache in pieces of 2 MiB where the file
		 * system allows, and this mapping and every later one map a
		 * piece at once, without a fault and a page table entry for
		 * each 4 KiB (a tenth of xprof_diff's time on two databases
		 * of 69 MB).  Only advice: a mapping without it works alike.
		 */
		if (len >= XP_HUGE_PAGE)
			(void)madvise(map, len, MADV_HUGEPAGE);
#endif
	}
	static const unsigned char empty[1];
	xp_err err = open_mem(map ? map : empty, len, path, like, nlike, same,
	                      out, d);
	if (err) {
		if (map)
			munmap(map, len);
		return err;
	}
	(*out)->map = map;
	(*out)->maplen = len;
	return XP_E_OK;
}

int xp_db_same_layout(const xp_fb *a, const xp_fb *b)
{
	bytes_of f = {a->image, NULL};
	return a->image && b->image && a->image_len == b->image_len &&
	       same_shape(NULL, b, &f, a->image_len, 1, NULL);
}

void xp_fb_let_go(const xp_fb *fb, xp_table t)
{
	if (!fb->map || !fb->tab[t])
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)fb->tab[t];
	uintptr_t b = a + (uintptr_t)fb->n[t] * xp_tabdescs[t].size;
	a = (a + page - 1) & ~(page - 1);
	b &= ~(page - 1);
	/* The mapping is private and never written: what it lets go is
	 * read from the file again if it is touched. */
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

xp_err xp_db_open(const char *path, xp_fb **out, xp_diags *d)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		return xp_diag_file(d, e == ENOENT ? XP_E_NOTFOUND : XP_E_IO, path,
		                    "cannot open: %s", strerror(e));
	}
	xp_err err = xp_db_open_fd(fd, path, out, d);
	close(fd);
	return err;
}
