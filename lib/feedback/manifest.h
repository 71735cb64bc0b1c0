/*
 * feedback/manifest.h - what the files of the manifest share: its model
 * (manifest.c: records, the union of manifests, the summary beyond the
 * bound), its text form (manifest_text.c: writing, strict reading, the
 * files beside databases) and what profile directories need to write it
 * with a database (profdir.c).
 */
#ifndef XP_FEEDBACK_MANIFEST_H
#define XP_FEEDBACK_MANIFEST_H

#include "feedback/db.h"
#include "xprof_manifest.h"

/* The most totals a record holds (a format names at most XP_PROF_TOTALS,
 * feedback four). */
#define XP_MAN_TOTALS 8

typedef struct {
	unsigned n;
	const char *name[XP_MAN_TOTALS];   /* owned */
	uint64_t value[XP_MAN_TOTALS];
} xp_mtot;

/* One input. */
typedef struct {
	char *path, *format;
	uint64_t size;
	uint32_t crc;
	double weight;
	xp_mtot t;
} xp_mrec;

/* The summary of one format. */
typedef struct {
	char *format;
	uint64_t inputs, bytes;
	xp_mtot t;
} xp_mfmt;

struct xp_manifest {
	char *tool_name, *tool_version, *tool;   /* tool: "name version" */
	char **oname, **ovalue;                  /* sorted by name */
	size_t nopt;
	int has_db;
	uint64_t db_size;
	uint32_t db_crc;
	xp_mrec *rec;                            /* sorted (rec_cmp) */
	size_t nrec, reccap;
	int summarized;
	uint64_t s_inputs, s_bytes, s_fp;
	xp_mfmt *fmt;                            /* sorted by format */
	size_t nfmt, fmtcap;
};

/* manifest.c */
/* Adds r (its strings taken over, freed on failure too). */
xp_err xp_man_add_rec(xp_manifest *man, xp_mrec *r);
/* Adds a summary: its counts and fingerprint, then one format (f's
 * strings are copied). */
xp_err xp_man_add_summary(xp_manifest *man, uint64_t inputs, uint64_t bytes,
                          uint64_t fp);
xp_err xp_man_add_fmt(xp_manifest *man, const xp_mfmt *f);
void xp_man_rec_free(xp_mrec *r);
/* Sets a total of t (the name is copied); XP_E_INVAL when t is full. */
xp_err xp_mtot_add(xp_mtot *t, const char *name, uint64_t v);

/* manifest_text.c */
/*
 * The text of man (xprof_db(5), MANIFEST) describing the database of
 * size bytes and CRC-32C crc (has_db), or none, into out.
 */
xp_err xp_manifest_text(const xp_manifest *man, int has_db, uint64_t size,
                        uint32_t crc, xp_buf *out);
/*
 * Reads the manifest file path.  XP_E_NOTFOUND without a diagnostic when
 * it does not exist.
 */
xp_err xp_manifest_read(const char *path, xp_manifest **out, xp_diags *d);
/* Writes n bytes of p to fd; 0, or -1 with errno set. */
int xp_manifest_write_all(int fd, const void *p, size_t n);
/*
 * xp_profdir_write_with() that writes man (when not NULL) beside the
 * database, describing it, and otherwise removes the manifest that
 * described the database replaced (profdir.c).
 */
xp_err xp_profdir_write_with_manifest(xp_lock *l, xp_datatype t,
                                      uint32_t nobj, const char *objfile,
                                      xp_profdir_write_fn write, void *ctx,
                                      const xp_manifest *man, xp_diags *d);
/* path followed by ".manifest", malloc'd. */
char *xp_manifest_beside(const char *path);
/* The manifest of the data of type t in dir: DIR/NAME.manifest (NAME
 * the data type, objfd-KEY for objfd data), malloc'd. */
char *xp_profdir_manifest(const char *dir, xp_datatype t,
                          const char *objfile);

#endif
