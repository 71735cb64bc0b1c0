/*
 * feedback/text_records.h - the shape of every record line of the feedback
 * text (xprof_text(5)), written once.
 *
 * Each XP_TX_REC_<kind>(R) lists the items of one canonical line in
 * order: its literal keyword, its fields and the single blanks and colons
 * between them.  Whoever includes this file defines the TF_* item macros
 * for what it needs and expands the lists, so that one list drives:
 *
 *  - the canonical-line decoder (text_decode.c), which checks each item
 *    and decodes the fields into an xp_tx_line;
 *  - the writer (text_write.c), which prints the same items;
 *  - the names of numeric fields in the diagnostics (text_parse.c);
 *  - the field numbers (XP_TXF_<kind>_<field>, below), with which the
 *    grammar's actions (grammar/xprof_text.y) and the checks index a line.
 *
 * Items (R is the record kind, i a field number of xp_tx_line.v, id the
 * field's name in XP_TXF_*, what its name in diagnostics):
 *
 *   TF_LIT(R, s)         the literal s (the keyword and its blank)
 *   TF_KIND(R, fn)       the keyword of the line's kind k, fn(k) (max, sum,
 *                        VP_INT, ...)
 *   TF_SP(R)             one blank
 *   TF_COLON(R)          one colon
 *   TF_NUM(R, i, id, what)   a decimal, no leading zero
 *   TF_ID(R, i, id, what)    a decimal glued to a one-byte keyword (B<n>,
 *                            E<n>, S<n>); reported at the line's column 1
 *   TF_HEX(R, i, id, what)   0x and lower-case hex digits
 *   TF_BREF(R, i, id, what)  B and a decimal
 *   TF_LINECOL(R, i, id, what, id2, what2)
 *                        a decimal line (field i), optionally followed by a
 *                        colon and a decimal column (field i + 1, nv = 1)
 *   TF_NAME(R, what)     a name: a run of bytes other than blank, tab, CR,
 *                        LF and NUL
 *   TF_PAIR(R, what)     a name written <proc_name>:<objfile>
 *   TF_OPTNAME(R, what)  optionally a blank and a name
 *   TF_VPVAL(R, what)    optionally a blank and a value profile value (a
 *                        name whose type the kind tells)
 *
 * Every line ends with LF after its last item.
 */
#ifndef XPROF_TEXT_RECORDS_H
#define XPROF_TEXT_RECORDS_H

#include "xprof.h"

/* Room for the numeric fields of a line (checked below). */
#define XP_TX_NF 9

/* The keyword of a stat line. */
static inline const char *xp_tx_stat_kw(int k)
{
	return k == XP_STAT_MAX ? "max" : "sum";
}

/* OBJFILE:<path> <n_procs> <tv_sec> <tv_usec> <n_vpv> 0x<sig> <n_names> */
#define XP_TX_REC_objfile(R)                                              \
	TF_LIT(R, "OBJFILE:") TF_NAME(R, "path")                          \
	TF_SP(R) TF_NUM(R, 0, n_procs, "n_procs")                         \
	TF_SP(R) TF_NUM(R, 1, tv_sec, "tv_sec")                           \
	TF_SP(R) TF_NUM(R, 2, tv_usec, "tv_usec")                         \
	TF_SP(R) TF_NUM(R, 3, n_values_per_vp, "n_values_per_vp")         \
	TF_SP(R) TF_HEX(R, 4, signature, "signature")                     \
	TF_SP(R) TF_NUM(R, 5, n_srcfile_names, "n_srcfile_names")

/* PROC: <name> 0x<sig> and seven counts and ids. */
#define XP_TX_REC_proc(R)                                                 \
	TF_LIT(R, "PROC: ") TF_NAME(R, "procedure name")                  \
	TF_SP(R) TF_HEX(R, 0, signature, "signature")                     \
	TF_SP(R) TF_NUM(R, 1, n_counters, "n_counters")                   \
	TF_SP(R) TF_NUM(R, 2, n_vp_sites, "n_vp_sites")                   \
	TF_SP(R) TF_NUM(R, 3, n_vp_records, "n_vp_records")               \
	TF_SP(R) TF_NUM(R, 4, proc_id, "proc id")                         \
	TF_SP(R) TF_NUM(R, 5, n_blocks, "n_blocks")                       \
	TF_SP(R) TF_NUM(R, 6, n_edges, "n_edges")                         \
	TF_SP(R) TF_NUM(R, 7, n_srcmap_ops, "n_srcmap_ops")

/* max <u64> | sum <u64> */
#define XP_TX_REC_stat(R)                                                 \
	TF_KIND(R, xp_tx_stat_kw)                                         \
	TF_SP(R) TF_NUM(R, 0, value, "stat value")

/* <counter_id> <value> */
#define XP_TX_REC_counter(R)                                              \
	TF_NUM(R, 0, id, "counter id")                                    \
	TF_SP(R) TF_NUM(R, 1, value, "counter value")

/* VP_<type> <expr_id> <count>[ <value>] */
#define XP_TX_REC_vp(R)                                                   \
	TF_KIND(R, xp_vptype_name)                                        \
	TF_SP(R) TF_NUM(R, 0, expr_id, "expr id")                         \
	TF_SP(R) TF_NUM(R, 1, count, "count")                             \
	TF_VPVAL(R, "value")

/* B<block_id>: <counter_id> */
#define XP_TX_REC_block(R)                                                \
	TF_LIT(R, "B") TF_ID(R, 0, id, "block id") TF_COLON(R)            \
	TF_SP(R) TF_NUM(R, 1, counter, "counter id")

/* E<edge_id> <counter_id> B<from> B<to> */
#define XP_TX_REC_edge(R)                                                 \
	TF_LIT(R, "E") TF_ID(R, 0, id, "edge id")                         \
	TF_SP(R) TF_NUM(R, 1, counter, "counter id")                      \
	TF_SP(R) TF_BREF(R, 2, from, "from block")                        \
	TF_SP(R) TF_BREF(R, 3, to, "to block")

/* S<tuple_id>: B<block_id> <line>[:<col>][ <srcfile>] */
#define XP_TX_REC_tuple(R)                                                \
	TF_LIT(R, "S") TF_ID(R, 0, id, "tuple id") TF_COLON(R)            \
	TF_SP(R) TF_BREF(R, 1, block, "block id")                         \
	TF_SP(R) TF_LINECOL(R, 2, line, "line number",                    \
	                    col, "column number")                         \
	TF_OPTNAME(R, "source file")

/* PROGRAM: <path> <n_objfile_refs> <n_comdat_procs> */
#define XP_TX_REC_program(R)                                              \
	TF_LIT(R, "PROGRAM: ") TF_NAME(R, "path")                         \
	TF_SP(R) TF_NUM(R, 0, n_objrefs, "n_objfile_refs")                \
	TF_SP(R) TF_NUM(R, 1, n_comdats, "n_comdat_procs")

/* OBJREF: <path> */
#define XP_TX_REC_objref(R)                                               \
	TF_LIT(R, "OBJREF: ") TF_NAME(R, "path")

/* COMDAT_PROC: <proc_name>:<objfile> */
#define XP_TX_REC_comdat(R)                                               \
	TF_LIT(R, "COMDAT_PROC: ") TF_PAIR(R, "COMDAT_PROC")

/* SRCFILE: <path> <n_srclines> */
#define XP_TX_REC_srcfile(R)                                              \
	TF_LIT(R, "SRCFILE: ") TF_NAME(R, "path")                         \
	TF_SP(R) TF_NUM(R, 0, n_srclines, "n_srclines")

/* SRCLINE: <line>[:<col>] <n_block_refs> */
#define XP_TX_REC_srcline(R)                                              \
	TF_LIT(R, "SRCLINE: ")                                            \
	TF_LINECOL(R, 0, line, "line number", col, "column number")       \
	TF_SP(R) TF_NUM(R, 2, n_refs, "n_block_refs")

/* B<block_id> <count> <proc_name>:<objfile> */
#define XP_TX_REC_blockref(R)                                             \
	TF_LIT(R, "B") TF_ID(R, 0, block, "block id")                     \
	TF_SP(R) TF_NUM(R, 1, count, "count")                             \
	TF_SP(R) TF_PAIR(R, "block ref")

/* Every record kind, for expansions over all of them. */
#define XP_TX_RECORDS(X)                                                  \
	X(objfile) X(proc) X(stat) X(counter) X(vp) X(block) X(edge)      \
	X(tuple) X(program) X(objref) X(comdat) X(srcfile) X(srcline)     \
	X(blockref)

/*
 * The field numbers, XP_TXF_<kind>_<id>: where field id of a <kind> line
 * sits in xp_tx_line.v and .col; XP_TXF_<kind>_NF is one more than the
 * last (0 for a line without numbers).
 */
#define TF_LIT(R, s)
#define TF_KIND(R, fn)
#define TF_SP(R)
#define TF_COLON(R)
#define TF_NUM(R, i, id, what) XP_TXF_##R##_##id = (i),
#define TF_ID TF_NUM
#define TF_HEX TF_NUM
#define TF_BREF TF_NUM
#define TF_LINECOL(R, i, id, what, id2, what2)                            \
	XP_TXF_##R##_##id = (i), XP_TXF_##R##_##id2 = (i) + 1,
#define TF_NAME(R, what)
#define TF_PAIR(R, what)
#define TF_OPTNAME(R, what)
#define TF_VPVAL(R, what)
#define XP_TX_FIELD_ENUM(R) enum { XP_TX_REC_##R(R) XP_TXF_##R##_NF };
XP_TX_RECORDS(XP_TX_FIELD_ENUM)
#undef XP_TX_FIELD_ENUM
#define XP_TX_FIELD_ROOM(R) _Static_assert(XP_TXF_##R##_NF <= XP_TX_NF, \
                                           #R " has too many fields");
XP_TX_RECORDS(XP_TX_FIELD_ROOM)
#undef XP_TX_FIELD_ROOM
#include "feedback/text_records_undef.h"

#endif /* XPROF_TEXT_RECORDS_H */
