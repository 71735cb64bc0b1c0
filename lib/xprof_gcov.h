/*
 * xprof_gcov.h - the model of GCC's coverage and profile files (gcov(5)
 * of xprof): the notes (.gcno) that the compiler writes and the data
 * (.gcda) that the instrumented program writes.
 *
 * xp_prof_model() of a profile whose xp_prof_format() is XP_FMT_GCOV
 * points to an xp_gcov: one file, notes or data.  Records are kept in
 * file order with every field of every record, so that writing the
 * model gives the same bytes; a record whose tag this program does not
 * know keeps its bytes.
 */
#ifndef XPROF_GCOV_H
#define XPROF_GCOV_H

#include <stddef.h>
#include <stdint.h>

#include "xprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The two kinds of file: magic "gcno" and "gcda". */
typedef enum {
	XP_GCOV_NOTES = 0,
	XP_GCOV_DATA = 1
} xp_gcov_kind;

/* Record kinds. */
typedef enum {
	XP_GCOV_FUNCTION = 0,   /* both kinds: tag 0x01000000 */
	XP_GCOV_BLOCKS,         /* notes: the number of blocks */
	XP_GCOV_ARCS,           /* notes: the arcs out of one block */
	XP_GCOV_LINES,          /* notes: the source lines of one block */
	XP_GCOV_SUMMARY,        /* data: the object summary */
	XP_GCOV_COUNTERS,       /* data: one kind of counter of a function */
	XP_GCOV_UNKNOWN         /* a tag this program does not know */
} xp_gcov_rectype;

/* Arc flags. */
#define XP_GCOV_ARC_ON_TREE 0x1u  /* on the spanning tree: not counted */
#define XP_GCOV_ARC_FAKE 0x2u     /* an exit by exception or longjmp */
#define XP_GCOV_ARC_FALL 0x4u     /* the fall-through */

/* The kinds of counter of GCC 11 to 12 (GCOV_COUNTER_*), by index. */
typedef enum {
	XP_GCOV_C_ARCS = 0,
	XP_GCOV_C_INTERVAL,
	XP_GCOV_C_POW2,
	XP_GCOV_C_TOPN,
	XP_GCOV_C_INDIRECT_CALL,
	XP_GCOV_C_AVERAGE,
	XP_GCOV_C_IOR,
	XP_GCOV_C_TIME_PROFILER,
	XP_GCOV_C_COUNT_
} xp_gcov_counter;

/* A FUNCTION record.  In data files only the first three fields are
 * there, and a function of another program is announced with no fields
 * at all (placeholder). */
typedef struct {
	uint32_t ident, lineno_checksum, cfg_checksum;
	int placeholder;
	/* Notes: NULL for a string the file gives as absent. */
	const char *name, *source;
	uint32_t artificial;
	uint32_t start_line, start_column, end_line, end_column;
} xp_gcov_fn;

typedef struct {
	uint32_t dest, flags;
} xp_gcov_arc;

/* One item of a LINES record: a line number, or (line 0) the source
 * file that the following numbers are in; file NULL ends the block. */
typedef struct {
	uint32_t line;
	const char *file;
} xp_gcov_item;

/*
 * A record in file order.  FUNCTION: fns[index].  BLOCKS: a is the
 * number of blocks.  ARCS: a is the source block, arcs[index .. +n).
 * LINES: a is the block, items[index .. +n).  SUMMARY: a is the runs,
 * b the sum of the runs' largest counters.  COUNTERS: a is the kind of
 * counter (xp_gcov_counter), values[index .. +n), or n counters that
 * are all zero when zero is set (GCC writes no values then).  UNKNOWN:
 * raw[index .. +n) are its bytes.
 */
typedef struct {
	xp_gcov_rectype type;
	uint32_t tag;
	uint32_t a;
	uint64_t b;
	int zero;
	size_t index, n;
} xp_gcov_rec;

typedef struct xp_gcov {
	xp_gcov_kind kind;
	int big;                   /* big-endian words */
	uint32_t version;          /* "B22*" read as a big-endian word */
	unsigned major;            /* the GCC release: 12 */
	uint32_t stamp, checksum;  /* checksum: GCC 12 on */
	/* Notes: the working directory of the compilation (NULL when
	 * absent) and whether blocks say they hold unexecuted code. */
	const char *cwd;
	uint32_t unexecuted_blocks;
	xp_gcov_rec *recs;
	size_t n_recs;
	xp_gcov_fn *fns;
	size_t n_fns;
	xp_gcov_arc *arcs;
	size_t n_arcs;
	xp_gcov_item *items;
	size_t n_items;
	uint64_t *values;          /* gcov_type, two's complement */
	size_t n_values;
	unsigned char *raw;
	size_t n_raw;
	int end;                   /* the file ends with a zero tag */
	const char *path;          /* the name it was read as, or NULL */
} xp_gcov;

/* "arcs", "interval", ... "time_profiler" (gcov-dump's names); NULL
 * past the last. */
const char *xp_gcov_counter_name(unsigned kind);

/*
 * GCC data from feedback (gcov(5), DATA FROM FEEDBACK): object file
 * objfile of fb (below xp_fb_count(fb, XP_T_OBJFILES)), which came from
 * a data file of the compilation whose notes are notes (named nname in
 * diagnostics), as a data file: *out, a profile of format XP_FMT_GCOV
 * whose model is an xp_gcov of kind data, owned by the caller.
 * XP_E_INVAL, naming the object file and the function, when its
 * signature is not the notes' stamp, a PROC's signature or number of
 * counters is not its function's, or a PROC is no function of the notes.
 */
xp_err xp_gcov_from_feedback(const xp_fb *fb, uint32_t objfile,
                             const xp_gcov *notes, const char *nname,
                             xp_prof **out, xp_diags *d);
/*
 * The same with the notes that where names: a notes file, a directory
 * that holds them under the object file's relative path (else under its
 * base name) with .gcno for .gcda, or NULL: beside the object file's
 * path.
 */
xp_err xp_gcov_data_from_feedback(const xp_fb *fb, uint32_t objfile,
                                  const char *where, xp_prof **out,
                                  xp_diags *d);

#ifdef __cplusplus
}
#endif

#endif
