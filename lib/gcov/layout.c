/*
 * gcov/layout.c - the layouts of the GCC releases whose coverage files
 * this module reads, one row per release.
 *
 * The version word of a file is four characters, written as a word:
 * GCC X.Y gives 'A' + X / 10, '0' + X % 10, '0' + Y and '*' for a
 * release ("B22*" is GCC 12.2; another last character marks an
 * experimental compiler).  Files of one release share one layout
 * whatever the minor number, so rows are looked up by the major number.
 *
 * What changed between releases, and what a new row says:
 *  - GCC 12 counts record lengths in bytes and writes a string as its
 *    length in bytes (the NUL included) and its bytes, unpadded; GCC 11
 *    and before count 4-byte words and pad strings with NULs to a word;
 *  - GCC 12 writes a checksum word after the stamp of both files;
 *  - GCC 11 and 12 end a FUNCTION note with the end column (GCC 8 to
 *    10 do not);
 *  - the kinds of counter and their merge functions
 *    (gcc/gcov-counter.def): GCC 11 and 12 have the same eight, with
 *    top-N counters of any length up to 32 pairs; GCC 8 and 9 had
 *    "single" and "delta" counters and GCC 10 top-N counters of a fixed
 *    length, which would be rows of their own.
 */
#include "gcov/gcov.h"

static const xp_gcov_ctrdesc counters_11[] = {
	{ "arcs", XP_GCOV_M_ADD },
	{ "interval", XP_GCOV_M_ADD },
	{ "pow2", XP_GCOV_M_ADD },
	{ "topn", XP_GCOV_M_TOPN },
	{ "indirect_call", XP_GCOV_M_TOPN },
	{ "average", XP_GCOV_M_ADD },
	{ "ior", XP_GCOV_M_IOR },
	{ "time_profiler", XP_GCOV_M_TIME },
};

#define N_COUNTERS_11 (sizeof counters_11 / sizeof counters_11[0])

static const xp_gcov_layout layouts[] = {
	{ 11, 0, 0, 1, N_COUNTERS_11, counters_11, 32 },
	{ 12, 1, 1, 1, N_COUNTERS_11, counters_11, 32 },
};

const xp_gcov_layout *xp_gcov_layout_of(uint32_t version, unsigned *major,
                                        unsigned *minor)
{
	unsigned c0 = version >> 24 & 0xff, c1 = version >> 16 & 0xff;
	unsigned c2 = version >> 8 & 0xff;

	*major = *minor = 0;
	if (c0 < 'A' || c0 > 'Z' || c1 < '0' || c1 > '9' || c2 < '0' ||
	    c2 > '9')
		return NULL;
	*major = 10 * (c0 - 'A') + (c1 - '0');
	*minor = c2 - '0';
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
		if (layouts[i].major == *major)
			return &layouts[i];
	return NULL;
}

const char *xp_gcov_releases(void)
{
	return "GCC 11 and 12";
}

const char *xp_gcov_counter_name(unsigned kind)
{
	return kind < N_COUNTERS_11 ? counters_11[kind].name : NULL;
}
