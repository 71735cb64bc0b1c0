/*
 * xprof_manifest.h - the manifest of a merge: what went into a merged
 * profile (xprof_db(5), MANIFEST).
 *
 * A manifest records every input of a merge: its path as given, size,
 * CRC-32C of its bytes, weight, format and the totals of its format,
 * with the options of the merge and the tool that made it.  An input that
 * has a manifest of its own (a profile directory or database written by
 * a merge) brings its records instead of one of its own, their weights
 * multiplied by its weight, so a merge of merges keeps the union of its
 * inputs' records.  Beyond XP_MANIFEST_MAX_INPUTS records the manifest
 * keeps a summary instead: counts per format.  It is written in one
 * canonical order, so the same inputs in any order give the same bytes.
 *
 * A profile directory keeps the manifest of a database NAME beside it,
 * as NAME.manifest, written with the database under the directory's lock
 * (xp_merger_set_manifest(), xp_profdir_write_manifest()).
 *
 * Conventions are those of xprof.h: problems go to a caller-owned
 * xp_diags list; strings returned by accessors live as long as the
 * manifest.
 */
#ifndef XPROF_MANIFEST_H
#define XPROF_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "xprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most input records a manifest holds; beyond, a summary. */
#define XP_MANIFEST_MAX_INPUTS 1000

typedef struct xp_manifest xp_manifest;

/* A new, empty manifest of a merge made by tool (its name and
 * version); NULL when out of memory. */
xp_manifest *xp_manifest_new(const char *tool, const char *version);
void xp_manifest_free(xp_manifest *man);
/* Records an option of the merge (they are kept sorted by name). */
xp_err xp_manifest_option(xp_manifest *man, const char *name,
                          const char *value);

/*
 * Records in, once it was merged with weight (xp_merger_add_input() or
 * xp_prof_open_input(); p is that profile for a foreign format, NULL
 * for feedback).  A profile directory or database with a manifest that
 * describes it brings that manifest's records; a manifest that describes
 * another database (the database was replaced by a writer that keeps
 * none) gives a warning and in is recorded alone; a manifest that cannot
 * be read is an error.
 */
xp_err xp_manifest_add_input(xp_manifest *man, xp_input *in,
                             const xp_prof *p, double weight, xp_diags *d);
/*
 * How messages call the first format among man's inputs whose conversion
 * to feedback counts PC samples, not executions ("a CPU profile", "a
 * DCPI profile"), or NULL when there is none: coverage from such a
 * profile is a lower bound (xprof_tcov says so).
 */
const char *xp_manifest_sampled(const xp_manifest *man);
/* Adds the records of sub to man, as a merge of the inputs of both
 * records them (a merge split over threads). */
xp_err xp_manifest_absorb(xp_manifest *man, const xp_manifest *sub);
/* The same for the database at path, read into fb (xprof_merge -a). */
xp_err xp_manifest_add_db(xp_manifest *man, const char *path,
                          const xp_fb *fb, double weight, xp_diags *d);

/*
 * The merger writes man (which must outlive it) with its database, in
 * the same profile directory, under its lock.
 */
void xp_merger_set_manifest(xp_merger *m, const xp_manifest *man);
/* xp_profdir_write() of fb with man beside it. */
xp_err xp_profdir_write_manifest(const char *dir, const xp_fb *fb,
                                 const xp_manifest *man, xp_diags *d);
/*
 * Writes man alone to path, replaced atomically (xp_afile_open()), for
 * an output that has no room for it: it describes no database.
 */
xp_err xp_manifest_write_file(const xp_manifest *man, const char *path,
                              xp_diags *d);

/*
 * Reads the manifest of path: a profile directory (the manifest of its
 * feedback data), a database (NAME.manifest beside it) or a manifest
 * file.  A manifest beside a database must describe it, byte for byte.
 * XP_E_NOTFOUND (with a diagnostic) when there is none.
 */
xp_err xp_manifest_open(const char *path, xp_manifest **out, xp_diags *d);

/* ------------------------------------------------------------------ */
/* What a manifest holds                                               */
/* ------------------------------------------------------------------ */

/* The tool that made it: "xprof_merge 0.1.0". */
const char *xp_manifest_tool(const xp_manifest *man);
/* The options, sorted by name. */
size_t xp_manifest_n_options(const xp_manifest *man);
void xp_manifest_get_option(const xp_manifest *man, size_t i,
                            const char **name, const char **value);
/* The database it describes: 1 with its size and CRC-32C, or 0 for a
 * manifest written alone. */
int xp_manifest_database(const xp_manifest *man, uint64_t *size,
                         uint32_t *crc32c);

/* A format's totals (the names as xprof_db(5) lists them). */
typedef struct {
	size_t n;
	const char *const *names;
	const uint64_t *values;
} xp_manifest_totals;

/* One input. */
typedef struct {
	const char *path;      /* as given to the merge that read it */
	uint64_t size;
	uint32_t crc32c;
	double weight;         /* times the weights of the merges between */
	const char *format;    /* "feedback", "feedback-text", "gmon", ... */
	xp_manifest_totals totals;
} xp_manifest_input;

/* The inputs in canonical order (none when summarized). */
size_t xp_manifest_n_inputs(const xp_manifest *man);
void xp_manifest_get_input(const xp_manifest *man, size_t i,
                           xp_manifest_input *out);

/* The summary of more than XP_MANIFEST_MAX_INPUTS inputs, per format. */
typedef struct {
	const char *format;
	uint64_t inputs, bytes;
	xp_manifest_totals totals;   /* summed, saturating */
} xp_manifest_format;

/*
 * 1 when the manifest holds a summary instead of its inputs: how many
 * inputs, their bytes and a fingerprint of the set (the sum of a hash
 * of each input's path, size, checksum and format), then per format.
 */
int xp_manifest_summary(const xp_manifest *man, uint64_t *inputs,
                        uint64_t *bytes, uint64_t *fingerprint);
size_t xp_manifest_n_formats(const xp_manifest *man);
void xp_manifest_get_format(const xp_manifest *man, size_t i,
                            xp_manifest_format *out);

#ifdef __cplusplus
}
#endif

#endif
