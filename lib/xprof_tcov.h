/*
 * xprof_tcov.h - source line and basic block coverage computed from
 * feedback profiles, the library side of xprof_tcov(1).
 *
 * A coverage (xp_tcov) holds, for every source file a profile names, the
 * basic blocks compiled from it with their execution counts, the lines
 * they were compiled from and the procedures they belong to.  It is built
 * from one profile of any data type (the SRCFILE sections and the
 * procedures' source mapping tuples with their counters), or from Sun's
 * pair of test coverage run time data (tcovd) and object file compilation
 * data (objfd), and it can be written back as test coverage source data
 * (tcovsd).  xprof_tcov(1) documents every rule used here; the functions
 * below only compute, the tool prints.
 *
 * Conventions are those of xprof.h: functions return an xp_err, problems
 * and warnings go to a caller-owned xp_diags list, strings returned by
 * accessors live as long as the xp_tcov they came from.
 */
#ifndef XPROF_TCOV_H
#define XPROF_TCOV_H

#include <stddef.h>
#include <stdint.h>

#include "xprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xp_tcov xp_tcov;

/*
 * One basic block as seen from one source file.  A block is named by its
 * object file, procedure and block id; its leader line is the smallest
 * line of this file it was compiled from, col the smallest column given
 * for it on that line (0: none given).
 */
typedef struct {
	const char *objfile;
	const char *proc;
	uint32_t id;
	uint32_t line, col;
	uint64_t count;
} xp_tcov_block;

/*
 * One line that at least one block was compiled from.  count is the count
 * tcov shows for the line: that of the first block that begins on it
 * (n_leaders > 0), otherwise that of the block covering it whose leader
 * line is nearest above.  max is the largest count of the blocks covering
 * it (the line executed when max > 0).
 */
typedef struct {
	uint32_t line;
	uint32_t n_blocks;   /* blocks compiled (partly) from this line */
	uint32_t n_leaders;  /* of those, the ones whose leader line it is */
	uint64_t count;
	uint64_t max;
} xp_tcov_line;

/* A procedure with blocks in the file: its first leader line and the
 * count of its entry block (copies in several object files summed). */
typedef struct {
	const char *name;
	uint32_t line;
	uint64_t count;
} xp_tcov_func;

/*
 * One branch: an outgoing edge of a block that has two or more outgoing
 * edges (a decision), placed at the line where the block ends, that of
 * its last source mapping tuple.  Only procedures' control flow graphs
 * give branches (SRCFILE sections hold no edges).  The same branch of a
 * procedure compiled into several object files is one branch whose
 * counts are summed.
 */
typedef struct {
	uint32_t line;
	const char *proc;
	uint32_t block;        /* the deciding block's id */
	uint32_t edge;         /* the edge among the block's outgoing edges,
	                          from 0 in the procedure's edge order */
	uint64_t block_count;  /* times the deciding block ran */
	uint64_t count;        /* times the edge was taken */
} xp_tcov_branch;

/* One source location of one block, as a tcovsd SRCLINE records it. */
typedef struct {
	uint32_t line, col;
	uint32_t block;  /* index into the file's blocks */
} xp_tcov_loc;

typedef struct {
	const char *path;  /* as the profile names the source file */
	/* Blocks, by leader line, col, object file, procedure, id. */
	size_t n_blocks, n_blocks_hit;
	const xp_tcov_block *blocks;
	uint64_t sum;      /* of the block counts, saturating */
	/* Lines, ascending. */
	size_t n_lines, n_lines_hit;
	const xp_tcov_line *lines;
	/* Procedures, by line, then name. */
	size_t n_funcs, n_funcs_hit;
	const xp_tcov_func *funcs;
	/* Every (line, col, block), by line, col, then block order. */
	size_t n_locs;
	const xp_tcov_loc *locs;
	/* Branches, by line, procedure, block, edge; taken: count > 0. */
	size_t n_branches, n_branches_hit;
	const xp_tcov_branch *branches;
} xp_tcov_file;

/*
 * Coverage from one profile: its SRCFILE sections and the source mapping
 * tuples of its procedures, whose block counts come from the procedures'
 * counters (see xprof_tcov(1) for the blocks without a counter).  name
 * names the profile in diagnostics.
 */
xp_err xp_tcov_new(const xp_fb *fb, const char *name, xp_tcov **out,
                   xp_diags *d);

/*
 * Coverage from Sun's split data: the counters of run time data (tcovd)
 * laid over the blocks, edges and tuples of the compilation data of each
 * object file (objfd, n of them, any of them may be NULL).  Object files
 * whose compilation data is missing use what the run time data itself
 * holds; a mismatched signature drops the run time counts of that object
 * file or procedure with a warning.  dir names the data in diagnostics.
 */
xp_err xp_tcov_combine(const xp_fb *tcovd, const xp_fb *const *objfd,
                       size_t n, const char *dir, xp_tcov **out,
                       xp_diags *d);

void xp_tcov_free(xp_tcov *c);

/* Source files, sorted by path (byte-wise). */
size_t xp_tcov_n_files(const xp_tcov *c);
const xp_tcov_file *xp_tcov_file_at(const xp_tcov *c, size_t i);

/* A path remapping, tcov -p: a profile path that starts with from (a
 * whole number of path components) is read with to in its place. */
typedef struct {
	const char *from, *to;
} xp_tcov_map;

#define XP_TCOV_NONE SIZE_MAX

/*
 * The file of the coverage that a source file given on the command line
 * is: the first (remapped) profile path equal to path as given, else the
 * first whose absolute form (symbolic links resolved where the file
 * exists, "." and ".." removed otherwise) equals that of path.  Returns
 * its index or XP_TCOV_NONE.
 */
size_t xp_tcov_find(const xp_tcov *c, const char *path,
                    const xp_tcov_map *maps, size_t n_maps);

/*
 * The blocks of a file with a count above zero, at most n of them, as
 * indexes into f->blocks ordered by count descending, then by their order
 * in f->blocks: *out (the caller frees it) and *count.
 */
xp_err xp_tcov_top(const xp_tcov_file *f, size_t n, size_t **out,
                   size_t *count);

/* The coverage as test coverage source data (tcovsd): one SRCFILE section
 * per file, one SRCLINE per (line, col), one block ref per block. */
xp_err xp_tcov_to_fb(const xp_tcov *c, xp_fb **out);

/* What xp_tcov_open() found. */
typedef struct {
	xp_datatype source;   /* the data the coverage came from: TCOVD (with
	                         objfd), TCOVSD or FEEDBACK; for a file, its
	                         type */
	int updated;          /* the directory's tcovsd was written */
	int has_mtime;        /* 0: read from standard input */
	int64_t mtime_sec;    /* the newest input data file's modification */
	long mtime_nsec;      /* time */
} xp_tcov_info;

/*
 * Opens coverage however it is given.  A profile directory is read as
 * Sun's tcov reads it: run time data (tcovd) with the compilation data of
 * objfd/ when there is tcovd; its tcovsd when that is at least as new as
 * tcovd and every objfd file, otherwise tcovsd is recomputed and, when
 * update is set, written back under the directory's lock (a failure to
 * write is a warning); without tcovd, tcovsd; without either, the
 * feedback data.  Anything else is opened with xp_open_any() and read
 * with xp_tcov_new().  info may be NULL.
 */
xp_err xp_tcov_open(const char *path, int update, xp_tcov **out,
                    xp_tcov_info *info, xp_diags *d);

/*
 * Several coverages as one, for profiles of several builds or test
 * programs: the union of their files; in each file the lines of all,
 * each line's count and largest count the sums of the coverages' (a line
 * ran when any ran it), blocks of the same object file, procedure, id,
 * leader line and column summed, procedures of the same name and
 * branches of the same line, procedure, block and edge too.  *out is a
 * new coverage; the inputs are left as they are.
 */
xp_err xp_tcov_union(const xp_tcov *const *v, size_t n, xp_tcov **out);

/* ------------------------------------------------------------------ */
/* Reported source files and the exports                              */
/* ------------------------------------------------------------------ */

/* Marks of a source line (xp_tcov_src.excl), from its exclusion markers. */
#define XP_TCOV_EXCL_LINE   1u  /* the line is left out, its branches too */
#define XP_TCOV_EXCL_BRANCH 2u  /* its branches are left out */

/*
 * One source file as every report shows it: the coverage of the file
 * limited to the lines the source has and without what its exclusion
 * markers (LCOV_EXCL_LINE, LCOV_EXCL_START ... LCOV_EXCL_STOP,
 * LCOV_EXCL_BR_LINE, LCOV_EXCL_BR_START ... LCOV_EXCL_BR_STOP, and the
 * same with XPROF_ in place of LCOV_) leave out, with its figures:
 *  - a line counts when it is one of the source's and not excluded;
 *  - a block counts unless every line it covers in the file is excluded;
 *  - a procedure counts when its line counts;
 *  - a branch counts when its line counts and its branches are not
 *    excluded.
 */
typedef struct {
	const xp_tcov_file *f;
	char *path;               /* the source's absolute path (a copy) */
	uint32_t n_lines;         /* lines the source has */
	unsigned char *excl;      /* [n_lines + 1]: each line's marks */
	unsigned char *block_in;  /* [f->n_blocks]: 1 when the block counts */
	size_t lf, lh;            /* lines with blocks, executed */
	size_t nb, nbh;           /* blocks, executed */
	uint64_t sum;             /* executions of those blocks, saturating */
	size_t fnf, fnh;          /* procedures, executed */
	size_t brf, brh;          /* branches, taken */
} xp_tcov_src;

/*
 * Fills s for file f, whose source (text, len bytes; lines end with a
 * newline, the last may not) is at the absolute path path.  name names
 * the source in the warnings: an LCOV_EXCL_START without its STOP (the
 * lines up to the end are excluded), a STOP without a START (ignored).
 * xp_tcov_src_free() releases what s holds, also after a failure.
 */
xp_err xp_tcov_src_init(xp_tcov_src *s, const xp_tcov_file *f,
                        const char *path, const char *text, size_t len,
                        const char *name, xp_diags *d);
void xp_tcov_src_free(xp_tcov_src *s);

/* 1 when line counts (see above), 0 otherwise. */
int xp_tcov_src_line(const xp_tcov_src *s, uint32_t line);
/* 1 when the branches of line count. */
int xp_tcov_src_branches(const xp_tcov_src *s, uint32_t line);
/* xp_tcov_top() over the blocks that count. */
xp_err xp_tcov_src_top(const xp_tcov_src *s, size_t n, size_t **out,
                       size_t *count);

/*
 * The exports of sources s[0..n) in that order, as xprof_tcov(1)
 * describes them: *buf (the caller frees it) and its length *len.  root
 * is the absolute directory that the XML exports give paths relative to
 * (a file outside it keeps its absolute path); timestamp is Cobertura's,
 * in seconds since the epoch.
 */
xp_err xp_tcov_lcov(const xp_tcov_src *s, size_t n, char **buf,
                    size_t *len);
xp_err xp_tcov_cobertura(const xp_tcov_src *s, size_t n, const char *root,
                         int64_t timestamp, char **buf, size_t *len);
xp_err xp_tcov_sonarqube(const xp_tcov_src *s, size_t n, const char *root,
                         char **buf, size_t *len);

/* ------------------------------------------------------------------ */
/* Patches                                                             */
/* ------------------------------------------------------------------ */

/*
 * A unified diff, as git diff and diff -u write it, read for the lines
 * it changes (xprof_tcov(1), --diff-file, gives every rule): for each
 * file the lines of the new version that it adds (added or modified
 * lines) and the lines of the old version that it removes.
 */
typedef struct xp_patch xp_patch;

/* A line of the new version that the patch shows (context or added),
 * with its text, for checking the patch against the source. */
typedef struct {
	uint32_t line;      /* in the new version */
	uint32_t at;        /* the patch's line */
	const char *text;   /* without the '+' or ' ' and the newline */
	size_t len;
} xp_patch_line;

typedef struct {
	const char *old_path;  /* NULL: /dev/null (the patch creates the file) */
	const char *new_path;  /* NULL: /dev/null (the patch deletes it) */
	int renamed;           /* git's "rename from" or "copy from" names
	                          old_path, the file this one was */
	uint32_t at;           /* the patch's line where the file's diff begins */
	size_t n_added;        /* lines of the new version added, ascending */
	const uint32_t *added;
	size_t n_removed;      /* lines of the old version removed, ascending */
	const uint32_t *removed;
	size_t n_shown;        /* lines of the new version shown, ascending */
	const xp_patch_line *shown;
} xp_patch_file;

/*
 * Reads the patch text[0..len), named name in diagnostics.  strip < 0
 * removes the a/ and b/ prefixes of git's file names (see
 * xprof_tcov(1)), strip >= 0 that many leading components of every
 * name, as patch -p does.  A malformed patch is XP_E_SYNTAX with its
 * line and column in d.  *out is freed with xp_patch_free().
 */
xp_err xp_patch_parse(const char *text, size_t len, const char *name,
                      int strip, xp_patch **out, xp_diags *d);
void xp_patch_free(xp_patch *p);

/* The patch's files (a file it deletes included), in patch order. */
size_t xp_patch_n_files(const xp_patch *p);
const xp_patch_file *xp_patch_file_at(const xp_patch *p, size_t i);

/*
 * The file of the patch that is the source at the absolute path path:
 * the one whose new name, read from dir (an absolute directory) or from
 * one of the directories above it, is path; when several are, the
 * longest name.  Returns its index or XP_TCOV_NONE.
 */
size_t xp_patch_find(const xp_patch *p, const char *path, const char *dir);

/*
 * Where the old version of f was, when f (found with xp_patch_find())
 * is at path: path with f's new name replaced by its old name when git
 * renamed or copied the file, path itself otherwise; NULL (*out) for a
 * file the patch creates.  The caller frees *out.
 */
xp_err xp_patch_old_path(const xp_patch_file *f, const char *path,
                         char **out);

/*
 * Checks the lines f shows against the source text[0..len): the first
 * line that differs, or that lies past the source's end, is a warning
 * in d under srcname, naming the patch's line.  Returns 1 when they all
 * match, 0 otherwise.
 */
int xp_patch_check(const xp_patch_file *f, const char *text, size_t len,
                   const char *patchname, const char *srcname, xp_diags *d);

/* ------------------------------------------------------------------ */
/* Differential coverage                                               */
/* ------------------------------------------------------------------ */

/*
 * The categories of a line against a baseline, those of lcov's genhtml
 * (--baseline-file), in the order reports list them.  A line is code
 * when it counts (xp_tcov_src: blocks cover it, no marker excludes it;
 * in the baseline: blocks covered it) and covered when its count is
 * above 0.  A new line is one the patch adds; the other lines of the
 * source are lines of the baseline's source, moved by the patch.
 */
enum {
	XP_TCOV_GNC,  /* new code, covered */
	XP_TCOV_UNC,  /* new code, not covered */
	XP_TCOV_GBC,  /* code in both, covered now, not in the baseline */
	XP_TCOV_LBC,  /* code in both, covered in the baseline, not now */
	XP_TCOV_GIC,  /* code now, not code in the baseline, covered */
	XP_TCOV_UIC,  /* code now, not code in the baseline, not covered */
	XP_TCOV_CBC,  /* code in both, covered in both */
	XP_TCOV_UBC,  /* code in both, covered in neither */
	XP_TCOV_ECB,  /* code in the baseline, covered; now excluded or
	                 not code */
	XP_TCOV_EUB,  /* the same, not covered in the baseline */
	XP_TCOV_DCB,  /* a line of the baseline's source that is gone,
	                 covered in the baseline */
	XP_TCOV_DUB,  /* the same, not covered in the baseline */
	XP_TCOV_NCAT
};
#define XP_TCOV_NOCAT 255  /* a line in no category */

/* "GNC" and so on; NULL for a number out of range. */
const char *xp_tcov_cat_name(unsigned cat);
/* 1 when lines of category cat are code in the source (count), 0 when
 * they are not; the same for the baseline. */
int xp_tcov_cat_code(unsigned cat);
int xp_tcov_cat_base_code(unsigned cat);

/* One line in a category. */
typedef struct {
	uint32_t line;       /* in the source; 0: a line that is gone */
	uint32_t base_line;  /* in the baseline's source; 0: a new line */
	unsigned cat;
	uint64_t count;      /* the line's count as lcov has it (max) */
	uint64_t base_count; /* the same in the baseline */
} xp_tcov_dline;

typedef struct {
	size_t n;
	xp_tcov_dline *lines;    /* in source order, gone lines where they
	                            were */
	unsigned char *cat;      /* [s->n_lines + 1]: each source line's
	                            category, XP_TCOV_NOCAT when none */
	size_t counts[XP_TCOV_NCAT];
} xp_tcov_dcov;

/*
 * The categories of the lines of s against base, the same source file
 * in the baseline's coverage (NULL: the baseline has no data for it),
 * through f, the patch's diff of the file from the baseline's version
 * to the source (NULL: the lines did not move).  Without f, a line of
 * the baseline past the source's end is gone.
 * xp_tcov_dcov_free() releases what dc holds, also after a failure.
 */
xp_err xp_tcov_dcov_init(xp_tcov_dcov *dc, const xp_tcov_src *s,
                         const xp_tcov_file *base, const xp_patch_file *f);
void xp_tcov_dcov_free(xp_tcov_dcov *dc);

/*
 * The lines of s that f adds and that count: *lf of them, *lh covered,
 * and the others, ascending, in *missed (lf - lh of them; the caller
 * frees it).  f NULL: none.
 */
xp_err xp_tcov_changed(const xp_tcov_src *s, const xp_patch_file *f,
                       size_t *lf, size_t *lh, uint32_t **missed);

#ifdef __cplusplus
}
#endif

#endif /* XPROF_TCOV_H */
