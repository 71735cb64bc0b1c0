/*
 * xprof.h - the public interface of libxprof, the xprof profile-feedback
 * library.
 *
 * libxprof reads and writes Sun profile-feedback data: the text form
 * described in xprof_text(5) and the binary feedback database described in
 * xprof_db(5), kept in a profile directory.  Every external symbol starts
 * with "xp_" (functions, types) or "XP_" (constants).
 *
 * Conventions kept throughout:
 *  - The library never prints and never exits.  Functions return an
 *    xp_err; problems found in input files are added to a caller-owned
 *    xp_diags list, each with a precise position.
 *  - Handles are opaque; every xxx_new/xxx_open has a matching xxx_free
 *    that accepts NULL.
 *  - Strings returned by accessors belong to the handle they came from and
 *    live as long as it does.  Functions that return memory the caller
 *    must free say so.
 *  - No mutable global state: any number of handles may be used from
 *    different threads at once, one thread per handle.
 */
#ifndef XPROF_H
#define XPROF_H

#include <stddef.h>
#include <stdint.h>

#include "xprof_formats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XP_VERSION_STRING "0.1.0"

/*
 * Error codes.  One list generates the enum and the names returned by
 * xp_errname() and xp_strerror().
 */
#define XP_ERROR_LIST(X)                                                  \
	X(OK, "success")                                                      \
	X(NOMEM, "out of memory")                                             \
	X(IO, "input/output error")                                           \
	X(SYNTAX, "invalid text")                                             \
	X(CORRUPT, "corrupt or invalid database")                             \
	X(VERSION, "unsupported format version")                              \
	X(LIMIT, "size limit exceeded")                                       \
	X(NOTFOUND, "no such profile data")                                   \
	X(EXISTS, "already exists")                                           \
	X(INVAL, "invalid argument")                                          \
	X(LOCK, "cannot lock profile directory")                              \
	X(FORMAT, "unrecognised file format")

typedef enum {
#define XP_ERR_ENUM_(name, text) XP_E_##name,
	XP_ERROR_LIST(XP_ERR_ENUM_)
#undef XP_ERR_ENUM_
	XP_E_COUNT_
} xp_err;

/* "XP_E_SYNTAX" etc.; "XP_E_?" for an unknown code. */
const char *xp_errname(xp_err e);
/* A short human description: "invalid text" etc. */
const char *xp_strerror(xp_err e);

/* ------------------------------------------------------------------ */
/* Diagnostics                                                         */
/* ------------------------------------------------------------------ */

/*
 * One problem found in an input.  For text input line and col are 1-based
 * (col counts bytes; a tab is one column) and text holds the offending line
 * without its newline.  For binary input line and col are 0, text is NULL
 * and offset is the byte offset of the offending field.  A problem with a
 * file as a whole (cannot open it, say) has line 0 and offset
 * XP_NOPOS.
 */
#define XP_NOPOS UINT64_MAX
typedef enum { XP_SEV_ERROR = 0, XP_SEV_WARNING = 1 } xp_severity;

typedef struct {
	xp_err code;
	xp_severity severity; /* warnings do not make a call fail */
	const char *file;    /* the name the input was given */
	uint64_t offset;     /* binary: offset of the field; text: of line start */
	uint32_t line, col;  /* text only */
	const char *msg;     /* what is wrong, no trailing newline */
	const char *text;    /* text only: the source line, or NULL */
} xp_diag;

typedef struct xp_diags xp_diags;

/* A list that keeps at most max_errors diagnostics (0: a default of 20). */
xp_diags *xp_diags_new(unsigned max_errors);
void xp_diags_free(xp_diags *d);
size_t xp_diags_count(const xp_diags *d);
const xp_diag *xp_diags_get(const xp_diags *d, size_t i);
/* How many further problems were found after the list was full. */
size_t xp_diags_dropped(const xp_diags *d);
/* True once the list holds max_errors entries. */
int xp_diags_full(const xp_diags *d);
/* Sort by file, then line and column (text) or offset (binary). */
void xp_diags_sort(xp_diags *d);
/*
 * Format one diagnostic the way the tools print it:
 *   "prog: file:line:col: msg\n<source line>\n<caret line>\n"   (text)
 *   "prog: file: offset 0x1a2b: msg\n"                          (binary)
 *   "prog: file: msg\n"                                         (XP_NOPOS)
 *   "prog: msg\n"                                   (XP_NOPOS, file "")
 * with "warning: " before msg for warnings.  A source line longer than
 * XP_DIAG_WINDOW bytes is shown as a window of that many bytes around the
 * column, with "..." where it was cut, and the caret under the column.
 * Returns a string the caller frees, or NULL when out of memory.
 */
#define XP_DIAG_WINDOW 120
char *xp_diag_format(const xp_diag *dg, const char *prog);

/* ------------------------------------------------------------------ */
/* The feedback model                                                   */
/* ------------------------------------------------------------------ */

/* The four data types of xprof_btoa(1) -t. */
typedef enum {
	XP_DT_FEEDBACK = 0,  /* header type (none) */
	XP_DT_TCOVD = 1,
	XP_DT_OBJFD = 2,
	XP_DT_TCOVSD = 3
} xp_datatype;

/* "feedback", "tcovd", "objfd", "tcovsd". */
const char *xp_datatype_name(xp_datatype t);
/* Parses one of those names; returns 0 on success, -1 otherwise. */
int xp_datatype_parse(const char *name, xp_datatype *t);

/* Kinds of top-level section, in the order the text gave them. */
typedef enum {
	XP_SEC_OBJFILE = 1,
	XP_SEC_PROGRAM = 2,
	XP_SEC_SRCFILE = 3
} xp_seckind;

typedef enum { XP_STAT_MAX = 0, XP_STAT_SUM = 1 } xp_statkind;

typedef enum {
	XP_VP_INT = 0,
	XP_VP_LLONG = 1,
	XP_VP_FLOAT = 2,
	XP_VP_DOUBLE = 3,
	XP_VP_PROC = 4
} xp_vptype;
/* "VP_INT" ... "VP_PROC". */
const char *xp_vptype_name(xp_vptype t);

/* A string: an index into the profile's string table. */
typedef uint32_t xp_str;
#define XP_NOSTR UINT32_MAX

/*
 * The tables of a feedback profile.  Every record of every table has a
 * fixed width; records keep the order in which the text gave them, and
 * the first_x/n_x fields of a parent give the slice of a child table that
 * belongs to it.
 */
typedef enum {
	XP_T_RUNS,      /* xp_run: the order of top-level sections */
	XP_T_OBJFILES,  /* xp_objfile */
	XP_T_PROCS,     /* xp_proc */
	XP_T_STATS,     /* xp_stat */
	XP_T_COUNTERS,  /* xp_counter */
	XP_T_VPS,       /* xp_vp */
	XP_T_VPVALS,    /* xp_vpval */
	XP_T_BLOCKS,    /* xp_block */
	XP_T_EDGES,     /* xp_edge */
	XP_T_TUPLES,    /* xp_tuple */
	XP_T_PROGRAMS,  /* xp_program */
	XP_T_OBJREFS,   /* xp_str */
	XP_T_COMDATS,   /* xp_comdat */
	XP_T_SRCFILES,  /* xp_srcfile */
	XP_T_SRCLINES,  /* xp_srcline */
	XP_T_BLOCKREFS, /* xp_blockref */
	XP_T_IDX_OBJFILES, /* uint32_t: objfiles sorted by path */
	XP_T_IDX_PROCS,    /* uint32_t: procs sorted by objfile path, name */
	XP_T_IDX_PROGRAMS, /* uint32_t: programs sorted by path */
	XP_T_IDX_SRCFILES, /* uint32_t: source files sorted by path */
	XP_T_COUNT_
} xp_table;

typedef struct {
	xp_seckind kind;
	uint32_t count;  /* that many consecutive sections of this kind */
} xp_run;

typedef struct {
	xp_str path;
	uint32_t tv_sec, tv_usec;
	uint32_t n_values_per_vp;
	uint64_t signature;
	uint32_t n_srcfile_names;
	uint32_t first_stat, n_stats;
	uint32_t first_proc, n_procs;
} xp_objfile;

typedef struct {
	xp_str name;
	uint32_t objfile;  /* index of the containing object file */
	uint64_t signature;
	uint32_t proc_id;
	uint32_t n_vp_sites;   /* the PROC line's n_vp_sites, kept as given */
	uint32_t n_srcmap_ops; /* may exceed n_tuples */
	uint32_t first_stat, n_stats;
	uint32_t first_counter, n_counters;
	uint32_t first_vp, n_vps;       /* value profile records */
	uint32_t first_vpval;           /* n_vps * n_values_per_vp values */
	uint32_t first_block, n_blocks;
	uint32_t first_edge, n_edges;
	uint32_t first_tuple, n_tuples;
} xp_proc;

typedef struct {
	xp_statkind kind;
	uint64_t value;
} xp_stat;

typedef struct {
	uint32_t id;
	uint64_t value;
} xp_counter;

/* A value profile record; its values are n_values_per_vp xp_vpval. */
typedef struct {
	uint32_t expr_id;
	xp_vptype type;
} xp_vp;

typedef struct {
	uint64_t count;
	int has_value; /* 0: the value field was empty */
	union {
		int32_t i;      /* VP_INT */
		int64_t ll;     /* VP_LLONG */
		float f;        /* VP_FLOAT */
		double d;       /* VP_DOUBLE */
		struct {
			xp_str name, objfile;
		} proc;         /* VP_PROC */
	} v;
} xp_vpval;

typedef struct {
	uint32_t id;
	uint32_t counter; /* 0 or a counter id */
} xp_block;

typedef struct {
	uint32_t id, counter, from, to;
} xp_edge;

typedef struct {
	uint32_t id, block, line;
	uint32_t col;     /* 0: no column given */
	xp_str srcfile;   /* XP_NOSTR: no file given (the previous tuple's) */
} xp_tuple;

typedef struct {
	xp_str path;
	uint32_t first_stat, n_stats;
	uint32_t first_objref, n_objrefs;
	uint32_t first_comdat, n_comdats;
} xp_program;

typedef struct {
	xp_str proc, objfile;
} xp_comdat;

typedef struct {
	xp_str path;
	uint32_t first_line, n_lines;
} xp_srcfile;

typedef struct {
	uint32_t line;
	uint32_t col; /* 0: no column given */
	uint32_t first_ref, n_refs;
} xp_srcline;

typedef struct {
	uint32_t block;
	uint64_t count;
	xp_str proc, objfile;
} xp_blockref;

/* A feedback profile: built in memory, or mapped from a database file. */
typedef struct xp_fb xp_fb;

void xp_fb_free(xp_fb *fb);

xp_datatype xp_fb_datatype(const xp_fb *fb);
/* Text format version: major is always 4; minor is 3 or 4. */
unsigned xp_fb_minor(const xp_fb *fb);
/* The header's n_proc_names, kept as given. */
uint32_t xp_fb_n_proc_names(const xp_fb *fb);

/* Number of records in a table. */
uint32_t xp_fb_count(const xp_fb *fb, xp_table t);
/* Number of strings; their ids are 0..n-1 in byte-wise sorted order. */
uint32_t xp_fb_nstrings(const xp_fb *fb);
/* The string with id s (NUL-terminated), or "" for XP_NOSTR. */
const char *xp_fb_str(const xp_fb *fb, xp_str s);
/* Its length in bytes. */
size_t xp_fb_strlen(const xp_fb *fb, xp_str s);
/* Finds a string by its bytes; returns XP_NOSTR if absent. */
xp_str xp_fb_find_str(const xp_fb *fb, const char *s, size_t len);

/*
 * Record accessors: decode record i of a table.  i must be below
 * xp_fb_count() of that table.
 */
void xp_fb_run(const xp_fb *fb, uint32_t i, xp_run *r);
void xp_fb_objfile(const xp_fb *fb, uint32_t i, xp_objfile *r);
void xp_fb_proc(const xp_fb *fb, uint32_t i, xp_proc *r);
void xp_fb_stat(const xp_fb *fb, uint32_t i, xp_stat *r);
void xp_fb_counter(const xp_fb *fb, uint32_t i, xp_counter *r);
void xp_fb_vp(const xp_fb *fb, uint32_t i, xp_vp *r);
/* Value i, decoded according to type (the type of its record). */
void xp_fb_vpval(const xp_fb *fb, uint32_t i, xp_vptype type, xp_vpval *r);
void xp_fb_block(const xp_fb *fb, uint32_t i, xp_block *r);
void xp_fb_edge(const xp_fb *fb, uint32_t i, xp_edge *r);
void xp_fb_tuple(const xp_fb *fb, uint32_t i, xp_tuple *r);
void xp_fb_program(const xp_fb *fb, uint32_t i, xp_program *r);
xp_str xp_fb_objref(const xp_fb *fb, uint32_t i);
void xp_fb_comdat(const xp_fb *fb, uint32_t i, xp_comdat *r);
void xp_fb_srcfile(const xp_fb *fb, uint32_t i, xp_srcfile *r);
void xp_fb_srcline(const xp_fb *fb, uint32_t i, xp_srcline *r);
void xp_fb_blockref(const xp_fb *fb, uint32_t i, xp_blockref *r);
/* Entry i of one of the XP_T_IDX_* tables. */
uint32_t xp_fb_index(const xp_fb *fb, xp_table idx, uint32_t i);

/* Object file whose path is the given string; UINT32_MAX if none. */
uint32_t xp_fb_find_objfile(const xp_fb *fb, const char *path);

/* ------------------------------------------------------------------ */
/* Building a profile                                                   */
/* ------------------------------------------------------------------ */

/*
 * A builder collects records in text order and produces a sealed xp_fb.
 * Sections are opened with the begin_ calls; records are added to the
 * innermost open section, and add_stat() adds to the object file,
 * procedure or program opened last.  The builder checks what it needs to
 * stay consistent (a record added with no section to hold it gives
 * XP_E_INVAL, a table past 2^32-1 records XP_E_LIMIT) and the names
 * without which the text or the database could not be read back
 * (XP_E_INVAL, explained in the diagnostics given to xp_fbb_set_diags):
 * a string that is empty or holds a space, tab, CR, LF or NUL; a
 * procedure named in a <proc_name>:<objfile> pair (a VP_PROC value, a
 * COMDAT_PROC, a block reference) that holds ':'; two object files,
 * programs or source files of one path, two procedures of one name in an
 * object file (at xp_fbb_finish).  The text parser and the database
 * reader check the other rules of the format.
 */
typedef struct xp_fbb xp_fbb;

xp_fbb *xp_fbb_new(xp_datatype type, unsigned minor, uint32_t n_proc_names);
void xp_fbb_free(xp_fbb *b);
/* Where the builder explains what it refuses: d (kept, not owned), or
 * nowhere (NULL, the default). */
void xp_fbb_set_diags(xp_fbb *b, xp_diags *d);

/* Interns a string (len bytes); *out gets its id.  XP_E_INVAL for a
 * string no profile can hold (see above). */
xp_err xp_fbb_intern(xp_fbb *b, const char *s, size_t len, xp_str *out);
/*
 * Interns the name of a procedure from another profile format by the
 * conversions' rule (xprof_text(5), NAMES FROM OTHER FORMATS): name as
 * it is, except that each byte a procedure name cannot hold (space, tab,
 * CR, LF, ':') and '%' become '%' and two upper-case hex digits, so that
 * distinct names stay distinct.  Linker symbol names, the names the
 * conversions give, hold none of them.
 */
xp_err xp_fbb_intern_proc(xp_fbb *b, const char *name, xp_str *out);
/* The bytes of an interned string, NUL-terminated. */
const char *xp_fbb_str(const xp_fbb *b, xp_str s);

/* Only path, tv_sec, tv_usec, n_values_per_vp, signature and
 * n_srcfile_names are read from o. */
xp_err xp_fbb_begin_objfile(xp_fbb *b, const xp_objfile *o);
/* Only name, signature, proc_id, n_vp_sites and n_srcmap_ops are read. */
xp_err xp_fbb_begin_proc(xp_fbb *b, const xp_proc *p);
xp_err xp_fbb_add_stat(xp_fbb *b, xp_statkind kind, uint64_t value);
xp_err xp_fbb_add_counter(xp_fbb *b, uint32_t id, uint64_t value);
/* Starts a value profile record; then add n_values_per_vp values. */
xp_err xp_fbb_add_vp(xp_fbb *b, uint32_t expr_id, xp_vptype type);
xp_err xp_fbb_add_vpval(xp_fbb *b, const xp_vpval *v);
xp_err xp_fbb_add_block(xp_fbb *b, uint32_t id, uint32_t counter);
xp_err xp_fbb_add_edge(xp_fbb *b, const xp_edge *e);
xp_err xp_fbb_add_tuple(xp_fbb *b, const xp_tuple *t);
xp_err xp_fbb_begin_program(xp_fbb *b, xp_str path);
xp_err xp_fbb_add_objref(xp_fbb *b, xp_str path);
xp_err xp_fbb_add_comdat(xp_fbb *b, xp_str proc, xp_str objfile);
xp_err xp_fbb_begin_srcfile(xp_fbb *b, xp_str path);
xp_err xp_fbb_begin_srcline(xp_fbb *b, uint32_t line, uint32_t col);
xp_err xp_fbb_add_blockref(xp_fbb *b, const xp_blockref *r);

/* Counts of what has been added so far (for count checks while parsing). */
uint32_t xp_fbb_count(const xp_fbb *b, xp_table t);

/*
 * Seals the profile: sorts the string table, renumbers every string
 * reference, drops unused strings and builds the sorted indexes.  On
 * success *out owns everything and the builder is left empty (it must
 * still be freed).
 */
xp_err xp_fbb_finish(xp_fbb *b, xp_fb **out);

/* ------------------------------------------------------------------ */
/* Feedback text (xprof_text(5))                                        */
/* ------------------------------------------------------------------ */

typedef struct {
	unsigned max_errors;  /* 0: 20 */
	int slow_only;        /* testing: skip the whole-line fast path */
	/* Threads: 0 or 1, one; more, up to that many (at most 64) parts
	 * of a text in memory or in a regular file, cut at section lines,
	 * parsed at once and joined, giving the same profile.  A text with errors is
	 * parsed again on one thread, which reports them, so the
	 * diagnostics are the same too. */
	unsigned jobs;
} xp_parse_opts;

/*
 * Parses a feedback text.  name is used in diagnostics.  On success *out
 * gets the profile; on failure (XP_E_SYNTAX, XP_E_IO, XP_E_NOMEM, ...)
 * *out is NULL and the problems are in d.  opts may be NULL.
 */
xp_err xp_text_parse_mem(const void *buf, size_t len, const char *name,
                         const xp_parse_opts *opts, xp_fb **out, xp_diags *d);
/* The same, reading from a file descriptor in chunks (not kept whole). */
xp_err xp_text_parse_fd(int fd, const char *name, const xp_parse_opts *opts,
                        xp_fb **out, xp_diags *d);

/* Writes the canonical text of a profile to fd.  XP_E_IO: errno tells. */
xp_err xp_text_write_fd(const xp_fb *fb, int fd);
/* The same into memory: *buf (malloc'd, caller frees) and *len. */
xp_err xp_text_write_mem(const xp_fb *fb, char **buf, size_t *len);

/* ------------------------------------------------------------------ */
/* The feedback database (xprof_db(5)) and profile directories          */
/* ------------------------------------------------------------------ */

/*
 * Opens a database file: maps it, checks it completely (checksum, layout,
 * every count, offset, id and string reference) and returns a profile that
 * reads straight from the mapping.  Problems go to d with byte offsets.
 */
xp_err xp_db_open(const char *path, xp_fb **out, xp_diags *d);
/* The same over memory the caller keeps alive until xp_fb_free(). */
xp_err xp_db_open_mem(const void *buf, size_t len, const char *name,
                      xp_fb **out, xp_diags *d);
/* Writes the database form of a profile to fd (from its current offset). */
xp_err xp_db_write_fd(const xp_fb *fb, int fd);
/* The same into memory: *buf (malloc'd, caller frees) and *len. */
xp_err xp_db_write_mem(const xp_fb *fb, unsigned char **buf, size_t *len);

/*
 * Profile directories.  Data of each type lives in its own database file:
 * DIR/feedback, DIR/tcovd, DIR/tcovsd, and DIR/objfd/<key> with one file
 * per object file.  Writers hold an exclusive flock(2) on the directory;
 * files are replaced atomically (temporary file, fsync, rename, fsync of
 * the directory), so readers never see a partial file.
 */

/* The database file that holds data of type t (objfile: for objfd only).
 * Returns a string the caller frees, or NULL when out of memory. */
char *xp_profdir_file(const char *dir, xp_datatype t, const char *objfile);

/*
 * Stores a profile in a directory, creating the directory if needed.
 * Replaces the data of the profile's type (for objfd, of its one object
 * file); other data in the directory is untouched.  Problems with the
 * directory itself are reported in d under the directory's name.
 */
xp_err xp_profdir_write(const char *dir, const xp_fb *fb, xp_diags *d);

/* Opens the data of type t (objfile: for objfd only) from a directory. */
xp_err xp_profdir_open(const char *dir, xp_datatype t, const char *objfile,
                       xp_fb **out, xp_diags *d);

/* An exclusive lock on a directory, for read-modify-write updates. */
typedef struct xp_lock xp_lock;
/*
 * Taking the lock removes the temporary files (".NAME.HEX.tmp") that a
 * writer killed between naming its new file and renaming it left in the
 * directory and in its objfd/.  With create, a missing directory is made.
 */
xp_err xp_profdir_lock(const char *dir, int create, xp_lock **out,
                       xp_diags *d);
void xp_profdir_unlock(xp_lock *l);
/* Unlocks after a failed write: a directory that this lock created is
 * removed again if nothing was written into it. */
void xp_profdir_unlock_failed(xp_lock *l);
/*
 * The same exclusive lock for a file that is replaced atomically on each
 * update (an output of another format that runs add to): an flock(2) of
 * PATH.lock beside it (beside the file a symbolic link names), created
 * when missing and left in place.  Only writers that update PATH take
 * it; readers of PATH need none, as every update renames a whole new
 * file over it.  Released by xp_profdir_unlock().
 */
xp_err xp_file_lock(const char *path, xp_lock **out, xp_diags *d);
/* Stores a profile in a directory whose lock the caller holds. */
xp_err xp_profdir_write_locked(xp_lock *l, const xp_fb *fb, xp_diags *d);

/*
 * Atomic output files: a temporary file beside PATH that replaces PATH
 * only on commit (fsync, rename, fsync of the directory).  Abort, or a
 * crash, leaves PATH as it was.  Problems go to d under PATH's name.
 */
typedef struct xp_afile xp_afile;
xp_err xp_afile_open(const char *path, xp_afile **out, xp_diags *d);
int xp_afile_fd(const xp_afile *f);
/* Commits and frees f (also on failure). */
xp_err xp_afile_commit(xp_afile *f, xp_diags *d);
/* Removes the temporary file and frees f; accepts NULL. */
void xp_afile_abort(xp_afile *f);

/* ------------------------------------------------------------------ */
/* Opening any profile                                                 */
/* ------------------------------------------------------------------ */

/*
 * Opens a profile however it is given: a profile directory (its feedback
 * data), a database file, or a feedback text (parsed; "-" reads a text
 * from standard input).  The format is recognised from the content, not
 * the name.  Problems go to d.
 */
xp_err xp_open_any(const char *path, xp_fb **out, xp_diags *d);

/* ------------------------------------------------------------------ */
/* Merging (xprof_merge(1))                                            */
/* ------------------------------------------------------------------ */

typedef enum { XP_MERGE_SUM = 0, XP_MERGE_MAX, XP_MERGE_MIN } xp_merge_mode;

typedef enum {
	XP_MISMATCH_ERROR = 0, /* a mismatch makes the merge fail */
	XP_MISMATCH_SKIP,      /* the losing data is dropped quietly */
	XP_MISMATCH_WARN       /* dropped, with a warning saying why */
} xp_mismatch;

typedef struct {
	xp_merge_mode mode;
	xp_mismatch mismatch;
	double scale;   /* applied to every count at the end; 0 means 1 */
	int sparse;     /* drop procedures whose counters are all zero */
	unsigned threads; /* threads the result may be planned on (0 or 1:
	                     the caller's alone); the same result either way */
} xp_merge_opts;

/*
 * A merger accumulates inputs one at a time; its memory is proportional to
 * the merged result, not to the number of inputs.  The result does not
 * depend on the order of the inputs.  Warnings (dropped data, saturated
 * counters) and errors go to d.
 */
typedef struct xp_merger xp_merger;
/* An opened input of any format (xp_input_open(), below). */
typedef struct xp_input xp_input;

xp_merger *xp_merger_new(const xp_merge_opts *opts);
void xp_merger_free(xp_merger *m);
/* Adds one input with a weight > 0; name is used in messages. */
xp_err xp_merger_add(xp_merger *m, const xp_fb *in, double weight,
                     const char *name, xp_diags *d);
/*
 * Opens path as xp_open_any() does and adds it, as xp_merger_add().
 * Inputs of one binary are added far faster this way: a database that
 * differs from one of the last four databases added in full only in its
 * counts and value profile values is checked against that one byte for
 * byte as it is read (through a buffer; nothing of it is mapped), and
 * only its counts are kept.  Those databases stay open (mapped) until
 * inputs of four other layouts have come, an input added in full changes
 * the versions of procedures they hold, or the merge finishes; the first
 * database of a merge is not even added in full while nothing else is.
 * The result, and what goes to d, are those of xp_merger_add(); a
 * warning that an input's procedure was dropped is given for each such
 * input.
 */
xp_err xp_merger_add_path(xp_merger *m, const char *path, double weight,
                          const char *name, xp_diags *d);
/* The same for an input of feedback format opened with xp_input_open(). */
xp_err xp_merger_add_input(xp_merger *m, xp_input *in, double weight,
                           const char *name, xp_diags *d);
/* Number of inputs added so far. */
uint64_t xp_merger_count(const xp_merger *m);
/*
 * True once an input failed after it had changed the accumulator: the
 * merger then refuses every call.  An input that failed while this stays
 * false (it could not be read, or holds another data type) left the
 * merger as it was, so that the merge may go on without it.
 */
int xp_merger_failed(const xp_merger *m);
/*
 * The data type of the inputs, and for objfd data the path of their
 * object file (NULL otherwise); once an input was added.
 */
xp_datatype xp_merger_datatype(const xp_merger *m);
const char *xp_merger_objfile(const xp_merger *m);
/* Produces the merged profile in canonical order (xprof_merge(1)). */
xp_err xp_merger_finish(xp_merger *m, xp_fb **out, xp_diags *d);
/*
 * As xp_merger_finish() followed by xp_profdir_write() of the result into
 * dir, or by xp_profdir_write_locked() under l, but the merger writes the
 * database's records as it produces them, without the profile in memory.
 * The files written are the same.
 */
xp_err xp_merger_write(xp_merger *m, const char *dir, xp_diags *d);
xp_err xp_merger_write_locked(xp_merger *m, xp_lock *l, xp_diags *d);
/*
 * A merge on several threads: each thread adds its share of the inputs to
 * a merger of its own, made by xp_merger_new_like() once m holds the
 * first input (it has m's options and refuses what adding to m would
 * refuse, with the same messages), and m then absorbs the others one by
 * one.  xp_merger_absorb() adds everything from has accumulated into m,
 * as if m had been given from's inputs after its own: value profiles
 * keep all their values until the result is produced, so the result is
 * that of one merger given every input, byte for byte, however the
 * inputs were shared out.  Warnings about dropped versions are given
 * once per version that each merger holds (not once per input).  from
 * is only to be freed afterwards.
 */
xp_merger *xp_merger_new_like(const xp_merger *m);
xp_err xp_merger_absorb(xp_merger *m, xp_merger *from, xp_diags *d);

/* ------------------------------------------------------------------ */
/* Format recognition                                                  */
/* ------------------------------------------------------------------ */

/*
 * Every format comes in a binary form and a text form; for the foreign
 * formats (everything but feedback) the text form is the lossless one of
 * that format's man page, and both forms load into the same model.
 */
typedef enum {
	XP_FMT_UNKNOWN = 0,
	XP_FMT_FEEDBACK_TEXT = 1,
	XP_FMT_FEEDBACK_DB = 2,
	/*
	 * The formats of the modules, from lib/modules.list through
	 * xprof_formats.h: XP_FMT_GMON = 3 (gmon(5)), XP_FMT_CPUPROF = 5
	 * (cpuprofile(5): gperftools CPU profiles), XP_FMT_DCPI = 7
	 * (dcpi(5)), XP_FMT_MPATROL = 9 (mpatrol(5)), XP_FMT_LLVM = 13
	 * (llvm(5): LLVM's .proftext), each followed by its
	 * text form (XP_FMT_GMON_TEXT = 4, ...); then XP_FMT_COUNT_.
	 */
	XP_FMT_MODULES_
} xp_format;

/* Recognises a format from the first bytes of a file (any length). */
xp_format xp_format_detect(const void *head, size_t len);
/* "feedback text", "feedback database", "gmon.out", "gmon.out text",
 * ..., "unknown". */
const char *xp_format_name(xp_format f);
/* The name with its indefinite article, for messages: "a gmon.out",
 * "an mpatrol profile", "an unknown format". */
const char *xp_format_a(xp_format f);
/*
 * The formats of the modules (every format but feedback), for messages
 * that name them all: each one's name with its article, in registry
 * order, the last after the word last ("a CPU profile, a DCPI profile,
 * ... or an LLVM profile" for "or").  Written into buf as snprintf()
 * writes; returns the length of the whole list.
 */
size_t xp_format_list(char *buf, size_t size, const char *last);
/* The binary form of a format: XP_FMT_GMON for XP_FMT_GMON_TEXT, and so
 * on; XP_FMT_FEEDBACK_DB for XP_FMT_FEEDBACK_TEXT. */
xp_format xp_format_binary(xp_format f);
/* True for the text forms. */
int xp_format_is_text(xp_format f);
/*
 * Recognises the format of a file.  A directory is a profile directory
 * and gives XP_FMT_FEEDBACK_DB; a pipe, terminal or other file that cannot
 * be read twice gives XP_FMT_FEEDBACK_TEXT, the one format that is parsed
 * while it is read (and is not opened, so that a FIFO keeps its writer).
 * XP_E_FORMAT (with a diagnostic) when nothing matches.
 */
xp_err xp_format_probe(const char *path, xp_format *f, xp_diags *d);

/*
 * The one open: opens path and recognises its format from the content,
 * once, as xp_format_probe() does ("-" is a feedback text on standard
 * input; a regular file stays open until xp_input_free()).  The handle
 * is then read by xp_input_feedback() or xp_merger_add_input() when the
 * format is feedback (xp_format_module() NULL), by xp_prof_open_input()
 * otherwise.  XP_E_FORMAT (with a diagnostic) when nothing matches.
 */
xp_err xp_input_open(const char *path, xp_input **out, xp_diags *d);
void xp_input_free(xp_input *in);
xp_format xp_input_format(const xp_input *in);
/* The path as given to xp_input_open(). */
const char *xp_input_path(const xp_input *in);
/* Reads a feedback input as xp_open_any() does. */
xp_err xp_input_feedback(xp_input *in, xp_fb **out, xp_diags *d);
/*
 * The same for the second of two profiles to compare (xp_cmp_new()).
 * A database with the layout of like, a database opened from a file
 * (the training runs of one program have one layout), is checked
 * against like byte for byte, which accepts exactly the same files far
 * faster, and a comparison of the two skips what they share.  like must
 * stay open as long as *out.
 */
xp_err xp_input_feedback_as(xp_input *in, const xp_fb *like, xp_fb **out,
                            xp_diags *d);

/* ------------------------------------------------------------------ */
/* Profiles of the other formats                                       */
/* ------------------------------------------------------------------ */

/*
 * An xp_prof holds one profile of a foreign format, one of those that
 * xp_format_list() names.  Each format's module
 * has its own header (xprof_gmon.h, ...) with the accessors of its model,
 * which xp_prof_model() returns.
 */
typedef struct xp_prof xp_prof;

/* How to read a file whose layout the bytes do not settle. */
typedef struct {
	/* An executable or shared object that the profile belongs to, or
	 * NULL: modules take byte order and word size from it, and
	 * symbolize with it.  The profile read is compared with it (the
	 * format's man page, THE EXECUTABLE): warnings say what does not
	 * fit, and XP_E_INVAL when no PC of the profile falls inside one
	 * of its functions. */
	const char *exe;
	/* A layout forced by the user, in the module's own syntax (see its
	 * man page), or NULL to detect it. */
	const char *layout;
	/* exe's symbols when the caller opened them once for many
	 * profiles (xp_sym_open), or NULL: the comparison opens exe. */
	const struct xp_sym *exe_sym;
} xp_load_opts;

/* Opens a file of any foreign format, binary or text, recognised from
 * the content.  XP_E_FORMAT for feedback and unknown files. */
xp_err xp_prof_open(const char *path, const xp_load_opts *o, xp_prof **out,
                    xp_diags *d);
/* The same for an input opened with xp_input_open(). */
xp_err xp_prof_open_input(xp_input *in, const xp_load_opts *o,
                          xp_prof **out, xp_diags *d);
/* The same from memory; name is used in diagnostics. */
xp_err xp_prof_open_mem(const void *buf, size_t len, const char *name,
                        const xp_load_opts *o, xp_prof **out, xp_diags *d);
void xp_prof_free(xp_prof *p);
/* The binary format (XP_FMT_GMON, ...), whichever form was read. */
xp_format xp_prof_format(const xp_prof *p);
/* The form that was read (XP_FMT_GMON or XP_FMT_GMON_TEXT, ...). */
xp_format xp_prof_source_format(const xp_prof *p);
/* The module's model; its header says what it points to. */
const void *xp_prof_model(const xp_prof *p);
/* The file name a binary profile of this format usually has:
 * "gmon.out", ...; the text form's default is "<module name>.text". */
const char *xp_prof_default_name(xp_format f);
/* The short name of a format's module: "gmon", "cpuprof", "dcpi",
 * "mpatrol"; NULL for feedback and unknown formats. */
const char *xp_format_module(xp_format f);

/* Writes the binary form (text == 0) or the lossless text form. */
xp_err xp_prof_write_fd(const xp_prof *p, int text, int fd);
xp_err xp_prof_write_mem(const xp_prof *p, int text, unsigned char **buf,
                         size_t *len);

/* Options of xp_prof_merge; all zero gives a plain sum. */
typedef struct {
	/* An executable for merges that need symbols (gmon.out by
	 * function, like gprof -s), or NULL. */
	const char *exe;
	/* exe's symbols when the caller opened them once for many merges
	 * (xp_sym_open), or NULL: a merge that needs them opens exe. */
	const struct xp_sym *exe_sym;
	/* gmon.out: merge arcs by function (gprof -s) instead of by pc. */
	int by_function;
	/* CPU profiles: rescale to a common sampling period instead of
	 * refusing different periods. */
	int rescale;
	/* How weighted counts combine, for the formats whose page says
	 * (LLVM profiles); the others refuse all but XP_MERGE_SUM. */
	xp_merge_mode mode;
} xp_prof_merge_opts;

/*
 * Adds in, scaled by weight (> 0), into *acc; when *acc is NULL it
 * becomes a new profile holding in scaled by weight.  Profiles of
 * different formats, or that the format's rules say cannot be summed
 * (different histogram ranges, images, allocation bounds...), give an
 * error and leave *acc as it was.  name names in in diagnostics.
 */
xp_err xp_prof_merge(xp_prof **acc, const xp_prof *in, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d);

/* Options of the conversion to feedback. */
typedef struct {
	/* The executable or shared object to symbolize with (NULL: the
	 * module uses what the profile names, or addresses as names); for
	 * GCC data, where its notes are: the notes file, or the directory
	 * that holds them (NULL: beside the data, gcov(5)). */
	const char *exe;
	/* The path of the object file the result holds, for the formats
	 * whose page says it comes from the input's name (GCC data: the
	 * data file's); NULL: the input's name. */
	const char *name;
} xp_conv_opts;

/*
 * Converts a profile into the feedback model (procs with counters, a
 * source file section with per-line counts, as the format's man page
 * says), so that xprof_tcov, xprof_diff and xprof_show work on it.
 * XP_E_INVAL with a diagnostic for formats that have no such conversion.
 */
xp_err xp_prof_to_feedback(const xp_prof *p, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d);

/*
 * Options of a report; all zero gives the real tool's default report.
 * A format refuses (XP_E_INVAL, with a diagnostic) what its real tool
 * cannot do: a gmon.out report takes exe and call_graph, a CPU profile's
 * and a DCPI profile's exe and lines, an mpatrol profile's every option
 * (it has no use for exe, and ignores it).
 */
typedef struct {
	/* The executable the profile belongs to, or NULL (the module uses
	 * what the profile names, or addresses as names). */
	const char *exe;
	/* Per function and source line where the real tool has such a
	 * report (google-pprof --lines); mpatrol: call sites told apart by
	 * address (mprof --addresses). */
	int lines;
	/* mpatrol: the tables sorted by counts instead of bytes (mprof
	 * --counts). */
	int counts;
	/* The call graph too: gprof's (a gmon.out report always has it),
	 * mprof's allocation call graph (mprof --call-graph). */
	int call_graph;
	/* mpatrol: when stack_depth_given, the depth of the call stacks
	 * that tell leaks apart and are shown, 0 meaning whole stacks
	 * (mprof --stack-depth); otherwise mprof's default, 1. */
	int stack_depth_given;
	uint64_t stack_depth;
} xp_report_opts;

/* What the real tool of a format reports on a profile: gprof's flat
 * profile and call graph, pprof's top list, mprof's tables, dcpiprof's
 * procedures.  The format's header says what xp_report_model() points
 * to. */
typedef struct xp_report xp_report;

/*
 * Computes the report of p (name names it in diagnostics).  XP_E_INVAL
 * with a diagnostic for options the format's report cannot honour, and
 * for formats without a report of their own.
 */
xp_err xp_prof_report(const xp_prof *p, const xp_report_opts *o,
                      const char *name, xp_report **out, xp_diags *d);
/* The format of the profile the report is of (XP_FMT_GMON, ...). */
xp_format xp_report_format(const xp_report *r);
const void *xp_report_model(const xp_report *r);
void xp_report_free(xp_report *r);

/* ------------------------------------------------------------------ */
/* Plans: a merge as a tree of merges for make or ninja                */
/* ------------------------------------------------------------------ */

typedef enum {
	XP_PLAN_MAKE = 1,     /* a Makefile for GNU make */
	XP_PLAN_NINJA         /* a build.ninja */
} xp_plan_kind;

typedef struct {
	xp_plan_kind kind;
	unsigned fan_in;      /* K >= 2: the inputs of one merge at most */
	const char *merge;    /* the xprof_merge the plan runs */
	const char *out;      /* the result: the last merge's -o */
	const char *work;     /* the directory of the intermediate results */
	/* Arguments of every merge, of the merges of the inputs only, and
	 * of the last merge only. */
	const char *const *every;
	size_t n_every;
	const char *const *leaf;
	size_t n_leaf;
	const char *const *root;
	size_t n_root;
} xp_plan_opts;

/* One input of a plan, and its weight as given (NULL: weight 1). */
typedef struct {
	const char *path;
	const char *weight;
} xp_plan_input;

/*
 * Writes the plan of merging the n inputs (n > 0) as a K-ary tree of
 * merges: *buf (the caller frees it) holds a Makefile or a build.ninja
 * whose merges write WORK/L-I (level L, index I) and, last, OUT.  A path
 * that the syntax cannot hold gives XP_E_INVAL with a diagnostic.
 */
xp_err xp_plan_write(const xp_plan_opts *o, const xp_plan_input *in,
                     size_t n, unsigned char **buf, size_t *len,
                     xp_diags *d);

/* ------------------------------------------------------------------ */
/* Symbolization (GNU libbfd)                                          */
/* ------------------------------------------------------------------ */

typedef struct xp_sym xp_sym;

/* One symbol of an object file's symbol table (static, then dynamic
 * when there is no static one), as libbfd gives it. */
typedef struct {
	uint64_t addr;     /* its value: section vma + offset */
	/* Its extent: up to the next higher symbol address in the same
	 * section, or to the section's end.  (gprof and pprof too give an
	 * address to the symbol below it, whatever st_size says.) */
	uint64_t size;
	const char *name;
	unsigned flags;    /* XP_SYMF_* */
	uint32_t seq;      /* its position in the object's symbol table */
} xp_symbol;

#define XP_SYMF_GLOBAL   0x01u
#define XP_SYMF_LOCAL    0x02u
#define XP_SYMF_WEAK     0x04u
#define XP_SYMF_FUNCTION 0x08u  /* typed STT_FUNC (or STT_GNU_IFUNC) */
#define XP_SYMF_CODE     0x10u  /* defined in a section with code */
#define XP_SYMF_DEBUG    0x20u  /* a debugging or section symbol */
#define XP_SYMF_FILE     0x40u  /* a file name (STT_FILE) */
#define XP_SYMF_OBJECT   0x80u  /* a data object (STT_OBJECT) */
#define XP_SYMF_IFUNC    0x100u /* an indirect function (STT_GNU_IFUNC) */

/* Opens an executable or shared object.  XP_E_FORMAT when libbfd does
 * not know the file as an object file. */
xp_err xp_sym_open(const char *path, xp_sym **out, xp_diags *d);
void xp_sym_free(xp_sym *s);
/* 1 for a big-endian object, 0 for little-endian. */
int xp_sym_big_endian(const xp_sym *s);
/* 4 or 8: the size of an address. */
unsigned xp_sym_addr_bytes(const xp_sym *s);
/* 1 for a position-independent executable or shared object (ET_DYN). */
int xp_sym_is_pic(const xp_sym *s);
/* The target's name as libbfd calls it: "elf64-x86-64", ... */
const char *xp_sym_target(const xp_sym *s);
/* The machine's name: "i386:x86-64", "powerpc:common", "s390:64-bit". */
const char *xp_sym_arch(const xp_sym *s);
/* Start and end (exclusive) of the lowest and highest code sections. */
void xp_sym_text_range(const xp_sym *s, uint64_t *lo, uint64_t *hi);
/* 1 when the object has no static symbol table (stripped: its functions
 * are the few its dynamic symbols name) or no code symbol at all. */
int xp_sym_stripped(const xp_sym *s);

/* A loadable segment (ELF PT_LOAD) of an object file. */
typedef struct {
	uint64_t offset, vaddr;    /* in the file, and where it is linked */
	uint64_t filesz, memsz;
	unsigned flags;            /* XP_SEG_R, XP_SEG_W, XP_SEG_X */
} xp_sym_segment;

#define XP_SEG_X 0x1u
#define XP_SEG_W 0x2u
#define XP_SEG_R 0x4u

/* The loadable segments of an ELF object in the order of its program
 * headers: fills at most max and returns how many it has; 0 for other
 * object formats or when the headers cannot be read. */
size_t xp_sym_segments(const xp_sym *s, xp_sym_segment *v, size_t max);
/* The build id (the descriptor of the NT_GNU_BUILD_ID note) in lower-case
 * hexadecimal into buf: 0, or -1 (buf "") when the object has none or it
 * does not fit size bytes with its NUL. */
int xp_sym_build_id(const xp_sym *s, char *buf, size_t size);
/* The n bytes of the object's contents at address addr (all in one
 * section): 0, or -1 when they are not in the file. */
int xp_sym_read(const xp_sym *s, uint64_t addr, void *buf, size_t n);

/* Every symbol, sorted by address, then name. */
size_t xp_sym_count(const xp_sym *s);
const xp_symbol *xp_sym_get(const xp_sym *s, size_t i);
/*
 * The function containing addr: among the symbols with XP_SYMF_FUNCTION
 * or XP_SYMF_CODE (and neither XP_SYMF_DEBUG nor XP_SYMF_FILE), the one
 * at the highest address <= addr, when addr is below its end; NULL when
 * none.  Among several symbols at one address a global one is preferred,
 * then a weak one, then the first by name.
 */
const xp_symbol *xp_sym_lookup(const xp_sym *s, uint64_t addr);
/*
 * The source position of addr from the debugging information
 * (bfd_find_nearest_line): file (NULL when unknown), the function name
 * from the debugging information (NULL when unknown) and line (0 when
 * unknown).  Returns 0 when found, -1 otherwise.  Strings live as long
 * as s.  Not const: libbfd caches what it reads.
 */
int xp_sym_line(xp_sym *s, uint64_t addr, const char **file,
                const char **func, unsigned *line);

/* One frame of the chain of inlined calls at an address. */
typedef struct {
	const char *file;  /* NULL when unknown */
	const char *func;  /* from the debugging information; NULL: unknown */
	unsigned line;     /* 0 when unknown */
} xp_sym_frame;

/*
 * The chain of inlined calls at addr, innermost first, as addr2line -i
 * prints it: frame 0 is what xp_sym_line() gives (the function whose code
 * addr is, inlined or not, and the position in it); each next frame is the
 * function that inlined the one before it, with the position of that call
 * (bfd_find_inliner_info).  Fills at most max frames and returns how many
 * the chain has, which may be more than max; 0 when addr has no debugging
 * information.  Strings live as long as s.
 */
size_t xp_sym_inlined(xp_sym *s, uint64_t addr, xp_sym_frame *frames,
                      size_t max);

/* ------------------------------------------------------------------ */
/* Comparing and summarizing (xprof_diff(1), xprof_show(1))            */
/* ------------------------------------------------------------------ */

/*
 * A comparison of two profiles A and B.  Object files are matched by
 * path, procedures by (object file path, name), counters by id; counts
 * are compared exactly.  Order that carries no meaning is ignored: the
 * order of sections, of procedures, of records keyed by an id (counters,
 * blocks, edges, tuples), of stats, value profile values, object file
 * references, COMDAT procedures, source lines and block references.  A
 * tuple's source file is compared as resolved (a tuple with none takes
 * the previous tuple's in its object file).
 *
 * The overlap of two count vectors a and b (a counter missing on one side
 * counts as 0) is the sum over counters of min(a_i/sum_a, b_i/sum_b), a
 * number in [0, 1]: 1 when both sums are 0 or the vectors are
 * proportional, and only then; 0 when exactly one sum is 0.  It is
 * summed exactly, in integers, and divided once, so the order of the
 * counters does not change it.
 */

/* What differs between the two versions of an entity (xp_cmp_entry). */
#define XP_CMP_SIGNATURE 0x01u /* the signature */
#define XP_CMP_FIELDS 0x02u    /* object file: tv_sec, tv_usec,
                                  n_values_per_vp, n_srcfile_names;
                                  procedure: proc_id (only where its
                                  object file holds the same procedures
                                  on both sides), n_vp_sites,
                                  n_srcmap_ops */
#define XP_CMP_STATS 0x04u     /* the max and sum stat lines */
#define XP_CMP_COUNTERS 0x08u  /* a counter value or the set of ids */
#define XP_CMP_VALUES 0x10u    /* value profile records */
#define XP_CMP_STRUCTURE 0x20u /* blocks, edges, source mapping tuples */
#define XP_CMP_PROCS 0x40u     /* procedures present on one side only */

/*
 * The comparison of the whole profile, of one object file, or of one
 * procedure.  For an object file or the whole profile, diff also holds
 * the bits of everything inside it, and the counter figures add up those
 * of its procedures.
 */
typedef struct {
	const char *objfile;  /* NULL for the whole profile */
	const char *name;     /* procedure name; NULL otherwise */
	int in_a, in_b;       /* present in A, in B */
	uint64_t sig_a, sig_b;        /* signatures (0 when absent) */
	uint64_t sum_a, sum_b;        /* sums of counts, saturating */
	uint64_t n_counters_a, n_counters_b;
	uint64_t n_matched;   /* counter ids present on both sides */
	uint64_t n_differ;    /* of those, how many differ in value */
	double overlap;       /* see above */
	unsigned diff;        /* XP_CMP_* bits; 0 when equal */
} xp_cmp_entry;

/* Differences outside object files. */
typedef enum {
	XP_CMP_NOTE_TYPE = 0,    /* the data types differ */
	XP_CMP_NOTE_VERSION,     /* the format versions (4.3, 4.4) differ */
	XP_CMP_NOTE_PROC_NAMES,  /* the headers' n_proc_names differ */
	XP_CMP_NOTE_PROGRAM,     /* a program (name) differs or is one-sided */
	XP_CMP_NOTE_SRCFILE      /* a source file section likewise */
} xp_cmp_note_kind;

typedef struct {
	xp_cmp_note_kind kind;
	const char *name;  /* program or source file path; NULL otherwise */
	int in_a, in_b;    /* programs and source files: present in A, in B */
} xp_cmp_note;

/* One counter of a procedure on both sides; a missing side reads 0. */
typedef struct {
	uint32_t id;
	int in_a, in_b;
	uint64_t a, b;
} xp_cmp_counter;

/* Rankings of procedures (xp_cmp_top). */
typedef enum {
	XP_RANK_ABSOLUTE = 0, /* |sum_b - sum_a| descending */
	XP_RANK_RELATIVE,     /* |sum_b - sum_a| / sum_a descending */
	XP_RANK_OVERLAP       /* overlap ascending */
} xp_cmp_rank;

typedef struct xp_cmp xp_cmp;

/* Compares two profiles; both must stay alive as long as the result. */
xp_err xp_cmp_new(const xp_fb *a, const xp_fb *b, xp_cmp **out);
void xp_cmp_free(xp_cmp *c);
/* 1 when the profiles have the same content, 0 otherwise. */
int xp_cmp_equal(const xp_cmp *c);
const xp_cmp_entry *xp_cmp_total(const xp_cmp *c);
/* Object files of either side, sorted by path. */
size_t xp_cmp_n_objfiles(const xp_cmp *c);
const xp_cmp_entry *xp_cmp_objfile(const xp_cmp *c, size_t i);
/* Procedures of either side, sorted by object file path, then name. */
size_t xp_cmp_n_procs(const xp_cmp *c);
const xp_cmp_entry *xp_cmp_proc(const xp_cmp *c, size_t i);
/* Differences outside object files, in the order type, version,
 * n_proc_names, programs by path, source files by path. */
size_t xp_cmp_n_notes(const xp_cmp *c);
const xp_cmp_note *xp_cmp_get_note(const xp_cmp *c, size_t i);
/*
 * The counters of procedure i (either side), sorted by id: *out (the
 * caller frees it) and *n.
 */
xp_err xp_cmp_counters(const xp_cmp *c, size_t i, xp_cmp_counter **out,
                       size_t *n);
/*
 * The first at most n procedures of a ranking, as indexes for
 * xp_cmp_proc(): *out (the caller frees it) and *count.  Only procedures
 * present on both sides are ranked: for ABSOLUTE and RELATIVE those whose
 * sums differ, for OVERLAP those whose overlap is below 1.  Ties go to the
 * larger absolute change (RELATIVE), then to the earlier procedure in
 * xp_cmp_proc() order.
 */
xp_err xp_cmp_top(const xp_cmp *c, xp_cmp_rank by, size_t n, size_t **out,
                  size_t *count);
/* (sum_b - sum_a) / sum_a: 0 when both are 0, +infinity when only sum_a
 * is. */
double xp_cmp_relative(const xp_cmp_entry *e);
/* The overlap of two count vectors of n elements (see above). */
double xp_overlap(const uint64_t *a, const uint64_t *b, size_t n);
/*
 * An overlap v (0 to 1) as the reports give it, in buf (at least
 * XP_OVERLAP_LEN bytes): the text of printf's "%.6f", or of "%.*f" with
 * as many more decimals, up to 17, as it takes to show that an overlap
 * below 1 is not 1 (0.99999996, not 1.000000).  Made without printf and
 * with a '.' in any locale; a value outside 0 to 1 (or -0) is given to
 * snprintf's "%.6f".  Returns buf.
 */
#define XP_OVERLAP_LEN 24
char *xp_fmt_overlap(char *buf, double v);

/*
 * A summary of one profile (xprof_show(1)).  "Hottest" orders by count
 * descending, ties by object file path, procedure name and block id
 * ascending (byte-wise).
 */
typedef struct {
	uint64_t n_objfiles, n_procs, n_counters;
	uint64_t sum, max;          /* of all counter values; sum saturates */
	uint64_t n_vp_records, n_blocks, n_edges, n_tuples;
	uint64_t n_programs, n_srcfiles, n_srclines;
} xp_totals;

typedef struct {
	const char *path;
	uint64_t n_procs, n_counters, sum, max;
} xp_sum_objfile;

typedef struct {
	const char *objfile, *name;
	uint64_t n_counters, sum, max;
} xp_sum_proc;

/* A block's count is the value of its counter; blocks without a counter
 * are not ranked.  The source line is that of the procedure's first tuple
 * for the block. */
typedef struct {
	const char *objfile, *proc;
	uint32_t block;
	uint64_t count;
	uint32_t line, col;   /* 0: unknown (col: not given) */
	const char *srcfile;  /* NULL: unknown */
} xp_sum_block;

/*
 * How many of the hottest procedures (by sum) and counters (by value) it
 * takes to cover a share of all counts: the smallest k such that the k
 * largest sum to at least cutoff_ppm / 1000000 of the total, computed
 * exactly; 0 when the total is 0.  min_* is the smallest of those k
 * values (0 when k is 0).
 */
typedef struct {
	uint32_t cutoff_ppm;
	uint64_t n_procs, min_proc_sum;
	uint64_t n_counters, min_count;
} xp_cover;

typedef struct xp_summary xp_summary;

/* Summarizes a profile, keeping the top_n hottest procedures and blocks;
 * the profile must stay alive as long as the summary. */
xp_err xp_summary_new(const xp_fb *fb, size_t top_n, xp_summary **out);
void xp_summary_free(xp_summary *s);
const xp_totals *xp_summary_totals(const xp_summary *s);
/* Object files sorted by path. */
size_t xp_summary_n_objfiles(const xp_summary *s);
const xp_sum_objfile *xp_summary_objfile(const xp_summary *s, size_t i);
size_t xp_summary_n_hot_procs(const xp_summary *s);
const xp_sum_proc *xp_summary_hot_proc(const xp_summary *s, size_t i);
size_t xp_summary_n_hot_blocks(const xp_summary *s);
const xp_sum_block *xp_summary_hot_block(const xp_summary *s, size_t i);
/* The cutoffs 90%, 99% and 99.9%, in that order. */
size_t xp_summary_n_covers(const xp_summary *s);
const xp_cover *xp_summary_cover(const xp_summary *s, size_t i);
/*
 * The cover of a list of counts sorted in descending order: returns k as
 * defined for xp_cover and stores the k-th value in *min (may be NULL).
 */
uint64_t xp_cover_count(const uint64_t *desc, size_t n, uint32_t cutoff_ppm,
                        uint64_t *min);

#ifdef __cplusplus
}
#endif

#endif /* XPROF_H */
