/*
 * xprof_llvm.h - the model of an LLVM text profile (the .proftext that
 * `llvm-profdata merge --text` writes and reads), as xp_prof_model()
 * returns it for XP_FMT_LLVM and XP_FMT_LLVM_TEXT.  llvm(5) describes
 * the file, its text form, the merge and the conversion to feedback.
 *
 * The model holds the header's flags, the temporal profile traces and
 * every function record (name, structural hash, counters, bitmap bytes,
 * value-profile sites) in file order.  Reading does not merge records of
 * one name and hash, and writing puts records in llvm-profdata's order
 * (by name, then hash), so a file that llvm-profdata wrote reads and
 * writes back to the same bytes.  Callers only read the model; it
 * belongs to the xp_prof it came from.
 */
#ifndef XPROF_LLVM_H
#define XPROF_LLVM_H

#include <stddef.h>
#include <stdint.h>

#include "xprof.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Value kinds, numbered as LLVM's InstrProfValueKind. */
enum {
	XP_LLVM_VK_INDIRECT_CALL = 0,  /* IPVK_IndirectCallTarget */
	XP_LLVM_VK_MEMOP_SIZE = 1,     /* IPVK_MemOPSize */
	XP_LLVM_VK_VTABLE = 2,         /* IPVK_VTableTarget */
	XP_LLVM_N_KINDS = 3
};

/* The header's flags (":ir", ":csir", ...). */
#define XP_LLVM_IR 0x1u           /* IR-level instrumentation */
#define XP_LLVM_CS 0x2u           /* context sensitive (":csir") */
#define XP_LLVM_ENTRY_FIRST 0x4u  /* the entry block's count first */
#define XP_LLVM_SINGLE_BYTE 0x8u  /* block coverage, one byte a block */
#define XP_LLVM_TEMPORAL 0x10u    /* temporal profile traces follow */

/* The name LLVM writes for a call target it cannot name. */
#define XP_LLVM_EXTERNAL "** External Symbol **"

/* One profiled value of a site and how often it was seen. */
typedef struct {
	/* Target kinds (indirect calls, vtables): the target's name; NULL
	 * for the other kinds. */
	const char *name;
	/* Target kinds: the key LLVM merges and orders by, the low 64 bits
	 * of the MD5 of the name (0 for XP_LLVM_EXTERNAL); otherwise the
	 * value itself (a memory operation's size). */
	uint64_t value;
	uint64_t count;
} xp_llvm_value;

typedef struct {
	uint32_t n_values;
	xp_llvm_value *values;
} xp_llvm_site;

/* One function record. */
typedef struct {
	const char *name;         /* as LLVM names it: "file.c:static_fn" */
	uint64_t hash;            /* the structural hash */
	size_t n_counts;          /* at least 1 */
	uint64_t *counts;
	size_t n_bitmap;          /* bitmap bytes (MC/DC), often none */
	unsigned char *bitmap;
	uint32_t n_sites[XP_LLVM_N_KINDS];
	xp_llvm_site *sites[XP_LLVM_N_KINDS];
} xp_llvm_func;

/* A temporal profile trace: the functions in the order they first ran. */
typedef struct {
	uint64_t weight;
	size_t n_names;
	const char **names;
} xp_llvm_trace;

typedef struct xp_llvm {
	unsigned flags;           /* XP_LLVM_* */
	uint64_t trace_stream_size;
	size_t n_traces;
	xp_llvm_trace *traces;
	size_t n_funcs;
	xp_llvm_func *funcs;      /* file order; a merge's by name, hash */
	/* A merge's result: written as llvm-profdata writes a merge, with
	 * call targets that name no function of the profile written as
	 * XP_LLVM_EXTERNAL. */
	int merged;
} xp_llvm;

/* The key of a call target's name: the low 64 bits of its MD5 digest,
 * read little-endian (LLVM's IndexedInstrProf::ComputeHash). */
uint64_t xp_llvm_name_key(const char *name, size_t len);

#ifdef __cplusplus
}
#endif

#endif
