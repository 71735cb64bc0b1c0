/*
 * mkbad.c - makes the corrupted databases of tests/bad/db from base.db.
 *
 *   mkbad BASE.db OUTDIR      writes OUTDIR/<case>.db for every case
 *
 * base.db is what xprof_atob writes for base.text.  Each case changes a
 * few bytes of it (or its length).  Where the change is meant to be
 * caught by a structural check, the checksum is recomputed afterwards so
 * that the checksum does not catch it first; the cases about the
 * checksum leave it alone.  Fields are located through the directory, so
 * the cases name what they break ("PROCS[1].first_counter") rather than
 * raw offsets.  tests/db.sh runs xprof_btoa on each file and compares its
 * stderr with <case>.db.err.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "feedback/db.h"

static unsigned char *buf;
static size_t len;

static size_t dirat(unsigned e, unsigned f)
{
	return XP_DB_HEADER_SIZE + e * XP_DB_ENTRY_SIZE + f;
}

static uint64_t dir64(unsigned e, unsigned f)
{
	return xp_get_le64(buf + XP_DB_HEADER_SIZE + e * XP_DB_ENTRY_SIZE + f);
}

/* Offset of field f of record i of table t. */
static size_t at(xp_table t, uint32_t i, unsigned f)
{
	unsigned e = XP_DBE_TABLE0 + t;
	return (size_t)(dir64(e, XP_DBE_OFFSET) +
	                (uint64_t)i * xp_db_entry_recsize(e) + f);
}


static uint32_t get(size_t off) { return xp_get_le32(buf + off); }
static void put(size_t off, uint32_t v) { xp_put_le32(buf + off, v); }
static void put64(size_t off, uint64_t v) { xp_put_le64(buf + off, v); }

/* Offset of the first byte of string s. */
static size_t str_at(uint32_t s)
{
	return (size_t)(dir64(XP_DBE_STRINGS, XP_DBE_OFFSET) +
	                get((size_t)dir64(XP_DBE_STROFFS, XP_DBE_OFFSET) +
	                    4 * s));
}

/*
 * Adds one record of zero bytes at the end of directory entry e and lays
 * the file out again as the writer would (later tables move, padding
 * follows), so that only the extra record is wrong.
 */
static void grow(unsigned e)
{
	static unsigned char out[1 << 16];
	uint64_t pos = XP_DB_DIR_END;
	memcpy(out, buf, XP_DB_DIR_END);
	for (unsigned k = 0; k < XP_DB_NENTRIES; k++) {
		uint64_t off = dir64(k, XP_DBE_OFFSET);
		uint64_t count = dir64(k, XP_DBE_COUNT);
		uint64_t size = count * xp_db_entry_recsize(k);
		uint64_t at_ = xp_db_align8(pos);
		memset(out + pos, 0, (size_t)(at_ - pos));
		memcpy(out + at_, buf + off, (size_t)size);
		if (k == e) {
			memset(out + at_ + size, 0, xp_db_entry_recsize(k));
			size += xp_db_entry_recsize(k);
			count++;
		}
		xp_put_le64(out + dirat(k, XP_DBE_OFFSET), at_);
		xp_put_le64(out + dirat(k, XP_DBE_COUNT), count);
		pos = at_ + size;
	}
	xp_put_le64(out + XP_DBH_FILESIZE, pos);
	memcpy(buf, out, (size_t)pos);
	len = (size_t)pos;
}

enum { FIX_CRC = 1, KEEP_CRC = 0 };

/* Applies case k; returns its name, or NULL past the last case.  *fix
 * says whether to recompute the checksum. */
static const char *apply(int k, int *fix)
{
	*fix = FIX_CRC;
	switch (k) {
	case 0: len = 0; *fix = KEEP_CRC; return "empty";
	case 1: len = 40; *fix = KEEP_CRC; return "truncated-header";
	case 2: len = 300; *fix = KEEP_CRC; return "truncated-directory";
	case 3: len -= 10; *fix = KEEP_CRC; return "truncated-tables";
	case 4: buf[0] = 'Y'; *fix = KEEP_CRC; return "bad-magic";
	case 5: put(XP_DBH_VERSION, 2); return "bad-format-version";
	case 6: buf[at(XP_T_COUNTERS, 0, XP_CN_VALUE)] ^= 0x10;
		*fix = KEEP_CRC; return "flipped-bit";
	case 7: put(XP_DBH_CRC, get(XP_DBH_CRC) + 1);
		*fix = KEEP_CRC; return "bad-checksum";
	case 8: put(XP_DBH_TYPE, 9); return "bad-data-type";
	case 9: put(XP_DBH_MAJOR, 5); return "bad-major";
	case 10: put(XP_DBH_MINOR, 5); return "bad-minor";
	case 11: buf[50] = 1; return "nonzero-reserved";
	case 12: put(XP_DBH_NENTRIES, 21); return "bad-entry-count";
	case 13: put(dirat(3, XP_DBE_ID), 4); return "bad-entry-id";
	case 14: put(dirat(4, XP_DBE_RECSIZE), 81); return "bad-record-size";
	case 15: put64(dirat(5, XP_DBE_OFFSET), dir64(5, XP_DBE_OFFSET) + 8);
		return "bad-offset";
	case 16: put64(dirat(XP_DBE_TABLE0 + XP_T_COUNTERS, XP_DBE_COUNT),
		       1000000);
		return "count-past-end";
	case 17: put64(dirat(XP_DBE_TABLE0 + XP_T_VPVALS, XP_DBE_COUNT),
		       (uint64_t)1 << 40);
		return "count-too-big";
	case 18: memset(buf + len, 0, 8);
		len += 8;
		put64(XP_DBH_FILESIZE, len);
		return "trailing-bytes";
	case 19: /* The first padding byte after the strings. */
		buf[dir64(XP_DBE_STRINGS, XP_DBE_OFFSET) +
		    dir64(XP_DBE_STRINGS, XP_DBE_COUNT)] = 1;
		return "nonzero-padding";
	case 20: put((size_t)dir64(XP_DBE_STROFFS, XP_DBE_OFFSET) + 4,
		     get((size_t)dir64(XP_DBE_STROFFS, XP_DBE_OFFSET) + 4) + 1);
		return "bad-string-offset";
	case 21: buf[dir64(XP_DBE_STRINGS, XP_DBE_OFFSET) +
		     dir64(XP_DBE_STRINGS, XP_DBE_COUNT) - 1] = 'x';
		return "string-without-nul";
	case 22: /* "/src/main.c" and "/src/main.o" change places. */
		buf[str_at(1) + 10] = 'o';
		buf[str_at(2) + 10] = 'c';
		return "unsorted-strings";
	case 23: buf[str_at(2) + 10] = 'c'; return "duplicate-string";
	case 24: buf[str_at(5) + 2] = ' '; return "space-in-string";
	case 25: buf[str_at(5) + 2] = 0; return "nul-in-string";
	case 26: put(at(XP_T_COMDATS, 0, XP_CD_PROC), 6);
		return "unreferenced-string";
	case 27: put(at(XP_T_PROCS, 0, XP_PR_NAME), 9);
		return "string-ref-out-of-range";
	case 28: put(at(XP_T_OBJFILES, 0, XP_OF_PATH), XP_NOSTR);
		return "missing-required-string";
	case 29: put(at(XP_T_PROCS, 1, XP_PR_FCNT),
		     get(at(XP_T_PROCS, 1, XP_PR_FCNT)) + 1);
		return "bad-first-counter";
	case 30: put(at(XP_T_PROCS, 0, XP_PR_NCNT), 2); return "bad-n-counters";
	case 31: put(at(XP_T_PROCS, 1, XP_PR_OBJFILE), 1);
		return "bad-proc-objfile";
	case 32: put(at(XP_T_RUNS, 0, XP_RUN_KIND), 7); return "bad-run-kind";
	case 33: put(at(XP_T_RUNS, 0, XP_RUN_COUNT), 3); return "bad-run-count";
	case 34: put(at(XP_T_RUNS, 1, XP_RUN_KIND), 1); return "unmerged-runs";
	case 35: put(at(XP_T_COUNTERS, 0, XP_CN_ID), 0);
		return "counter-id-zero";
	case 36: put(at(XP_T_COUNTERS, 1, XP_CN_ID), 1);
		return "duplicate-counter-id";
	case 37: put(at(XP_T_BLOCKS, 0, XP_BK_COUNTER), 4);
		return "block-counter-out-of-range";
	case 38: put(at(XP_T_EDGES, 1, XP_ED_TO), 0);
		return "edge-to-out-of-range";
	case 39: put(at(XP_T_TUPLES, 1, XP_TU_ID), 4);
		return "tuple-id-out-of-range";
	case 40: put(at(XP_T_TUPLES, 1, XP_TU_ID), 1);
		return "duplicate-tuple-id";
	case 41: put(at(XP_T_TUPLES, 0, XP_TU_LINE), 0); return "tuple-line-zero";
	case 42: put(at(XP_T_VPS, 0, XP_VP_TYPE), 5); return "bad-vp-type";
	case 43: put(at(XP_T_VPVALS, 0, XP_VV_FLAGS), 3); return "bad-vpval-flags";
	case 44: put(at(XP_T_VPVALS, 0, XP_VV_FLAGS), 0);
		return "empty-value-not-zero";
	case 45: put(at(XP_T_VPVALS, 0, XP_VV_FLAGS), 0);
		put64(at(XP_T_VPVALS, 0, XP_VV_VALUE), 0);
		return "empty-value-with-count";
	case 46: put(at(XP_T_VPVALS, 0, XP_VV_VALUE) + 4, 0);
		return "vp-int-not-sign-extended";
	case 47: put64(at(XP_T_VPVALS, 5, XP_VV_VALUE), 0x7ff0000000000001u);
		return "vp-double-signalling-nan";
	case 48: put(at(XP_T_VPVALS, 6, XP_VV_VALUE) + 4, 1);
		return "vp-float-high-bits";
	case 49: put(at(XP_T_VPVALS, 2, XP_VV_VALUE), 12);
		return "vp-proc-bad-name";
	case 50: put(at(XP_T_OBJREFS, 1, 0), 3); return "objref-not-objfile";
	case 51: put(at(XP_T_SRCLINES, 0, XP_SL_NREF), 0);
		return "srcline-without-refs";
	case 52: put(at(XP_T_PROCS, 1, XP_PR_ID), 2); return "duplicate-proc-id";
	case 53: put(at(XP_T_PROCS, 1, XP_PR_ID), 3);
		return "proc-id-out-of-range";
	case 54: { /* Swap the two entries of the first object file. */
		uint32_t a = get(at(XP_T_IDX_PROCS, 0, 0));
		put(at(XP_T_IDX_PROCS, 0, 0), get(at(XP_T_IDX_PROCS, 1, 0)));
		put(at(XP_T_IDX_PROCS, 1, 0), a);
		return "index-out-of-order";
	}
	case 55: put(at(XP_T_IDX_OBJFILES, 1, 0), get(at(XP_T_IDX_OBJFILES, 0, 0)));
		return "index-repeats-entry";
	case 56: put(at(XP_T_IDX_OBJFILES, 1, 0), 2);
		return "index-out-of-range";
	case 57: put(at(XP_T_PROCS, 1, XP_PR_NAME), 8);
		return "duplicate-proc-name";
	case 58: put(XP_DBH_TYPE, XP_DT_OBJFD); return "objfd-two-objfiles";
	case 59: put(XP_DBH_MINOR, 3); return "v43-with-srcfiles";
	case 60: put(at(XP_T_STATS, 0, XP_ST_KIND), 2); return "bad-stat-kind";
	case 61: put(at(XP_T_OBJFILES, 0, XP_OF_NVPV), 0);
		return "vps-without-values";
	case 62: put(at(XP_T_OBJFILES, 0, XP_OF_NVPV), 3);
		return "values-per-vp-mismatch";
	case 63: put(at(XP_T_PROCS, 0, XP_PR_NSRCMAP), 1);
		return "more-tuples-than-srcmap-ops";
	case 64: put(at(XP_T_PROGRAMS, 0, XP_PG_FSTAT), 0);
		return "bad-program-first-stat";
	case 65: buf[str_at(5) + 2] = ':'; /* "he:per" */
		return "colon-in-pair-name";
	case 66: grow(XP_DBE_TABLE0 + XP_T_COUNTERS);
		return "counter-outside-procedures";
	case 67: grow(XP_DBE_TABLE0 + XP_T_STATS); return "stat-outside-parents";
	case 68: grow(XP_DBE_TABLE0 + XP_T_IDX_SRCFILES);
		return "index-too-long";
	case 69: grow(XP_DBE_STROFFS); return "string-offsets-too-long";
	case 70: grow(XP_DBE_TABLE0 + XP_T_OBJFILES);
		return "objfile-outside-runs";
	case 71: put(at(XP_T_PROCS, 2, XP_PR_NCNT), 2);
		return "counters-past-table";
	case 72: buf[str_at(5) + 1] = ':'; /* "h:l\tper" */
		buf[str_at(5) + 3] = '\t';
		return "tab-after-colon";
	default: return NULL;
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: mkbad BASE.db OUTDIR\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	unsigned char base[1 << 16];
	size_t blen = fread(base, 1, sizeof base - 16, f);
	fclose(f);
	buf = malloc(sizeof base);
	for (int k = 0;; k++) {
		int fix;
		memcpy(buf, base, blen);
		len = blen;
		const char *name = apply(k, &fix);
		if (!name)
			break;
		if (fix) {
			put(XP_DBH_CRC, 0);
			put(XP_DBH_CRC, xp_crc32c(0, buf, len));
		}
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.db", argv[2], name);
		FILE *o = fopen(path, "wb");
		if (!o || fwrite(buf, 1, len, o) != len || fclose(o) != 0) {
			perror(path);
			return 2;
		}
	}
	free(buf);
	return 0;
}
