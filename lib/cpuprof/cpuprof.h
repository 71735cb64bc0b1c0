/*
 * cpuprof/cpuprof.h - what the files of the CPU profile module share: the
 * model behind xprof_cpuprof.h, the parser of the mapped-objects text and
 * the analysis of the call chains.  The module's files: module.c (the
 * module, recognition, the binary form), model.c (the model and the
 * mapped-objects text), text.c (the text form), merge.c and
 * merge_maps.c (sums, and where a sum maps each object), report.c
 * (google-pprof's analysis and report), feedback.c (the conversion to
 * feedback), names.c (pprof's names of PCs), offsets.c (the conversion's
 * names of PCs without symbols) and exe.c (whether the executable given
 * is the one profiled).
 */
#ifndef XP_CPUPROF_INTERNAL_H
#define XP_CPUPROF_INTERNAL_H

#include "registry/module.h"
#include "base/rd.h"
#include "xprof_cpuprof.h"

typedef struct {
	uint64_t count;
	size_t first, npcs;    /* a slice of pcs */
} xp_cp_rec;

struct xp_cpuprof {
	unsigned slot;         /* 4 or 8 */
	int big;
	uint64_t *hdr;         /* every header slot */
	size_t nhdr;
	xp_cp_rec *recs;
	size_t nrec, reccap;
	uint64_t *pcs;
	size_t npc, pccap;
	char *text;            /* mapped objects, not NUL-terminated */
	size_t textlen;
	xp_cpuprof_map *maps;
	size_t nmaps;
	/* In a sum made here: where each mapping would be had no other
	 * been in its way (merge_maps.c); NULL when each is at its home. */
	uint64_t *home;
	/* A sum made here: its records are in the order of their chains,
	 * PC by PC, no two with the same chain (merge.c), and stray holds
	 * the addresses that find the mappings of its PCs (a caller's less
	 * 1) that lie in none of its segments, sorted and distinct
	 * (merge_maps.c). */
	int sum;
	uint64_t *stray;
	size_t nstray;
};

/* Largest header we accept: slot 1 counts the slots after it. */
#define CP_MAX_HDR 4096u

xp_cpuprof *xp_cp_new(unsigned slot, int big);
void xp_cp_free(xp_cpuprof *p);
xp_err xp_cp_add_record(xp_cpuprof *p, uint64_t count, const uint64_t *pcs,
                     size_t n);
/* Room for nrec more records and npc more PCs. */
xp_err xp_cp_reserve(xp_cpuprof *p, size_t nrec, size_t npc);
/* Copies the text and parses its mapping lines (checked before). */
xp_err xp_cp_set_text(xp_cpuprof *p, const char *text, size_t len);

/* What one line of the mapped-objects text is. */
enum { CP_LINE_OTHER = 0, CP_LINE_MAP, CP_LINE_BUILD, CP_LINE_BAD = -1 };

/*
 * Classifies a line (no newline) and, for a mapping line, fills m (not
 * its path) and *path and *pathlen; for a build line, *path is what follows
 * "build=".  CP_LINE_BAD sets *why and *col (0-based) to what is wrong.
 */
int xp_cp_line(const char *s, size_t len, xp_cpuprof_map *m, const char **path,
            size_t *pathlen, const char **why, size_t *col);

/* The executable flag of a mapping ("r-xp"). */
static inline int xp_cp_map_exec(const xp_cpuprof_map *m)
{
	return m->perms[2] == 'x';
}

/* The largest value a slot of p holds. */
static inline uint64_t xp_cp_slot_max(unsigned slot)
{
	return slot == 8 ? UINT64_MAX : UINT32_MAX;
}

/* pprof's test for a shared object: ".so", then optional ".N" groups
 * (exe.c). */
int xp_cp_is_shlib(const char *path);
/* Whether m maps the executable whose real path is exereal: the same
 * path, or the same base name (exe.c). */
int xp_cp_is_exe_map(const xp_cpuprof_map *m, const char *exereal);

/* Module entry points living in other files. */
int xp_cp_detect_text(const unsigned char *head, size_t len);
xp_err xp_cp_read_text(const unsigned char *buf, size_t len, const char *name,
                    const xp_load_opts *o, void **out, xp_diags *d);
xp_err xp_cp_write_text(const void *m, xp_wbuf *w);
xp_err xp_cp_merge(void **acc, const void *in, double weight,
                const xp_prof_merge_opts *o, const char *name,
                xp_diags *d);
xp_err xp_cp_to_feedback(const void *m, const xp_conv_opts *o, xp_fb **out,
                      xp_diags *d);
xp_err xp_cp_check_exe(const void *m, const xp_sym *s, const char *exe,
                       const char *name, xp_diags *d);

/* Merging (merge_maps.c): where the sum maps each executable segment
 * of an object (path, file offset, size, permissions). */
typedef struct {
	const xp_cpuprof_map *m;   /* its key, from one of the profiles */
	uint64_t home;             /* the lowest start among the profiles */
	uint64_t at;               /* where the sum maps it */
	int moved;                 /* at is not home */
} xp_cp_seg;

/* How a mapping of one profile moves into the sum. */
typedef struct {
	uint64_t start, end, delta;
	const xp_cpuprof_map *m;
} xp_cp_reloc;

typedef struct {
	uint64_t max;              /* the largest value of a slot */
	xp_cp_seg *seg;            /* every segment once */
	size_t nseg;
	xp_cp_reloc *rl[2];        /* of the sum so far (0) and of the input
	                            * (1), by start */
	size_t nrl[2];
	uint64_t *stray;           /* where PCs in no segment of their
	                            * profile are looked up, sorted */
	size_t nstray;
} xp_cp_layout;

/* Places every segment of a (the sum so far, or NULL) and in; L starts
 * zeroed and is freed with xp_cp_layout_free whatever the result. */
xp_err xp_cp_layout_plan(xp_cp_layout *L, const xp_cpuprof *a,
                         const xp_cpuprof *in, const char *name,
                         xp_diags *d);
/* Whether every PC of profile which (0: a, 1: in) stays where it is. */
int xp_cp_layout_still(const xp_cp_layout *L, int which);
/* Where the k-th PC of a chain of profile which (0: a, 1: in) goes. */
uint64_t xp_cp_layout_move(const xp_cp_layout *L, int which, uint64_t pc,
                           size_t k);
/* Appends the mapped-objects text of the sum to text. */
xp_err xp_cp_layout_text(xp_cp_layout *L, const xp_cpuprof *a,
                         const xp_cpuprof *in, xp_buf *text);
/* Sets n->home and n->stray, n being the sum with that text. */
xp_err xp_cp_layout_homes(const xp_cp_layout *L, xp_cpuprof *n);
void xp_cp_layout_free(xp_cp_layout *L);

/*
 * What an address turned into: the function whose code it is and the
 * position in that function (when other functions were inlined there,
 * the outermost frame of addr2line -i: the position of the call that
 * inlined them), and the frames of the inlined calls.  An inlined frame
 * is an addrinfo too, with the same addr, its function's name and
 * position, and " (inline)" ending disp.
 */
typedef struct {
	uint64_t addr;
	uint32_t key;      /* the report's key: function, or function+line */
	uint32_t name, file, obj;  /* pool ids; UINT32_MAX: none */
	uint32_t full;     /* the routine's tagged name, when it named it */
	uint32_t disp;     /* the name shown: name, or name@address */
	uint32_t lname;    /* pprof's full name (demangled, not shortened,
	                    * or the table's tagged one); not when keyed or
	                    * unknown */
	uint32_t sym;      /* the linker name of the symbol holding addr */
	uint64_t symaddr;  /* and its address (sym UINT32_MAX: none) */
	unsigned line;
	int unknown;       /* pprof's "??": no name from anywhere */
	int keyed;         /* key set (unopened object, Java) */
	int skip;          /* a profiler's frame, which pprof leaves out */
	size_t in;         /* the inlined frames: xp_cp_an.in[in, in + nin), */
	size_t nin;        /* the innermost first */
} addrinfo;

/* A call chain being reduced. */
typedef struct {
	uint64_t count;
	size_t off, n;
} chain;

/* The chains of a profile after steps 1 to 4 (see the top). */
typedef struct {
	xp_strpool sp;
	addrinfo *ai;
	size_t na;
	addrinfo *in;      /* the inlined frames of all addresses */
	size_t nin;
	uint64_t *ad;      /* every chain's addresses, caller PCs minus 1 */
	chain *ch;
	size_t nch;
	uint64_t total;
	char **removed;
	size_t nremoved;
	/* ai by address: hmask + 1 slots of index + 1 (0: empty) */
	uint32_t *hslot;
	size_t hmask;
} xp_cp_an;

/*
 * The analysis behind both the report and the conversion to feedback
 * (report.c): the chains with every address named as google-pprof names
 * it, per function or (by_line) per function and source line.
 */
xp_err xp_cp_analyze(const xp_cpuprof *p, const char *exe, int by_line,
                     xp_cp_an *an);
void xp_cp_an_free(xp_cp_an *an);
/* The conversion's names for PCs that no symbol names: the mapped
 * file's base name and the offset in it, "prog+0x1186", in the object
 * file of the mapping's path (offsets.c). */
xp_err xp_cp_offset_names(const xp_cpuprof *p, xp_cp_an *an);
/* Whether frame a (slot bytes wide), an address of one of the chains,
 * counts: not a skipped address nor one of the profiler's own functions
 * (nor, then, an address the analysis does not hold); *x gets its
 * addrinfo when it counts. */
int xp_cp_frame_ok(const xp_cp_an *an, unsigned slot, uint64_t a, size_t *x);

/* The module's export entry (export.c). */
xp_err xp_cp_export(const void *m, xp_export_kind k, const xp_export_opts *o,
                    const char *name, xp_xs *x, xp_diags *d);

/* The module's report entry (report.c). */
xp_err xp_cp_report_new(const void *m, const xp_report_opts *o, const char *name,
                    void **handle, const void **model, xp_diags *d);
void xp_cp_report_free(void *handle);

/* google-pprof's names for PCs (cpuprof/names.c). */
typedef struct {
	char *name;            /* as pprof keys it: "name<address>" or "name" */
	uint64_t start, end;
} xp_cp_routine;

typedef struct {
	xp_cp_routine *r;         /* by start */
	size_t n;
	/* nm lists "_fini" at an address of its own: pprof then separates
	 * addr2line's answers with it and runs addr2line -i, so the
	 * object's addresses get their chains of inlined calls. */
	int inlines;
} xp_cp_names;

/* pprof's table of routines of an object, from its symbols as nm
 * --demangle lists them. */
xp_err xp_cp_names_build(const xp_sym *s, xp_cp_names *t);
void xp_cp_names_free(xp_cp_names *t);
/* The routine pprof gives pc to, or NULL. */
const char *xp_cp_names_find(const xp_cp_names *t, uint64_t pc);
/* pprof's ShortFunctionName: no argument lists, address tag, template
 * arguments or leading return type; malloc'd. */
char *xp_cp_short_name(const char *full);

#endif
