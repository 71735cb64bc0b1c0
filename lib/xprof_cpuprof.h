/*
 * xprof_cpuprof.h - gperftools CPU profiles (cpuprofile(5)): the model
 * that xp_prof_model() returns for XP_FMT_CPUPROF and
 * XP_FMT_CPUPROF_TEXT, and the pprof-style analysis behind
 * xprof_show(1) and the conversion to feedback.
 *
 * A profile keeps everything the file held, as written: the slot size and
 * byte order, every header slot, every record (identical call chains are
 * not summed: that is the analysis' business) and the text of mapped
 * objects after the trailer, byte for byte.  The mapping lines of that
 * text are parsed for convenience ($build substituted).
 */
#ifndef XPROF_CPUPROF_H
#define XPROF_CPUPROF_H

#include <stddef.h>
#include <stdint.h>

#include "xprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xp_cpuprof xp_cpuprof;

/* 4 or 8: the size of a slot. */
unsigned xp_cpuprof_slot_bytes(const xp_cpuprof *p);
/* 1 when slots are big-endian. */
int xp_cpuprof_big_endian(const xp_cpuprof *p);
/* Header slot 2: 0 for C/C++ profiles, 1 for the Java variant. */
uint64_t xp_cpuprof_version(const xp_cpuprof *p);
/* Header slot 3: the sampling period in microseconds (never 0). */
uint64_t xp_cpuprof_period(const xp_cpuprof *p);
/* Every header slot, slots 0 and 1 included (at least 5). */
size_t xp_cpuprof_n_header(const xp_cpuprof *p);
uint64_t xp_cpuprof_header(const xp_cpuprof *p, size_t i);

/* One profile record: count samples with the call chain pcs[0..npcs-1],
 * most recently called function first.  pcs lives as long as p. */
typedef struct {
	uint64_t count;
	size_t npcs;
	const uint64_t *pcs;
} xp_cpuprof_rec;

size_t xp_cpuprof_n_records(const xp_cpuprof *p);
void xp_cpuprof_record(const xp_cpuprof *p, size_t i, xp_cpuprof_rec *r);
/* The sum of all sample counts (saturating). */
uint64_t xp_cpuprof_total(const xp_cpuprof *p);

/* The text after the trailer, byte for byte (not NUL-terminated). */
const char *xp_cpuprof_maptext(const xp_cpuprof *p, size_t *len);

/* One mapping line of that text ("start-end perms offset dev inode
 * path"), with $build replaced in path. */
typedef struct {
	uint64_t start, end, offset;
	char perms[5];        /* "r-xp" */
	const char *path;     /* "" for anonymous mappings */
	size_t line;          /* 1-based line number in the text */
} xp_cpuprof_map;

size_t xp_cpuprof_n_maps(const xp_cpuprof *p);
const xp_cpuprof_map *xp_cpuprof_map_get(const xp_cpuprof *p, size_t i);

/* ------------------------------------------------------------------ */
/* Analysis (what pprof --text reports)                                 */
/* ------------------------------------------------------------------ */

/*
 * Flat and cumulative samples per function (or per function and source
 * line), computed as google-pprof does (cpuprofile(5) says how: caller
 * PCs minus one, objects found through the mapping lines, the
 * profiler's signal frames dropped, recursion counted once).
 */
typedef struct {
	const char *name;     /* function, or the address when unknown */
	const char *file;     /* by line: source file, or NULL */
	unsigned line;        /* by line: 0 when unknown */
	const char *object;   /* the object file it was found in, or NULL */
	uint64_t flat, cum;
} xp_cpuprof_entry;

typedef struct xp_cpuprof_report xp_cpuprof_report;

typedef struct {
	const char *exe;      /* the main program, or NULL */
	int by_line;          /* one entry per function and source line */
} xp_cpuprof_report_opts;

/* The entries come sorted as pprof --text prints them: flat samples
 * descending, then key ascending (byte-wise). */
xp_err xp_cpuprof_report_new(const xp_cpuprof *p,
                             const xp_cpuprof_report_opts *o,
                             xp_cpuprof_report **out, xp_diags *d);
void xp_cpuprof_report_free(xp_cpuprof_report *r);
/* xp_prof_report() of a CPU profile computes the same report (exe and
 * lines of xp_report_opts as exe and by_line here; a call graph, an
 * order by counts and a stack depth are not pprof --text's and are
 * refused), and xp_report_model() returns the xp_cpuprof_report. */
uint64_t xp_cpuprof_report_total(const xp_cpuprof_report *r);
size_t xp_cpuprof_report_n(const xp_cpuprof_report *r);
const xp_cpuprof_entry *xp_cpuprof_report_get(const xp_cpuprof_report *r,
                                              size_t i);
/* Frames removed as the profiler's own signal handling ("Removing X
 * from all stack traces" in pprof), in order; NULL past the end. */
const char *xp_cpuprof_report_removed(const xp_cpuprof_report *r, size_t i);

#ifdef __cplusplus
}
#endif

#endif
