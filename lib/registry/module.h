/*
 * registry/module.h - the interface between the registry (prof.c,
 * registry.c) and the module of each foreign format (lib/modules.list).
 *
 * A module is a folder lib/NAME/ that defines `const xp_module
 * xp_module_NAME` in its module.c; lib/modules.list names the modules in
 * the order in which they recognise a file, and the build turns it into
 * the generated header modules.h.  Adding a format is adding its folder
 * and its line in that list.
 *
 * A module's model is an opaque pointer to the registry; the module's
 * public header (xprof_NAME.h) gives callers its accessors.  Buffers
 * handed to read and read_text stay valid only during the call: a model
 * copies what it keeps.
 */
#ifndef XP_MODULE_H
#define XP_MODULE_H

#include <sys/stat.h>

#include "base/internal.h"
#include "export/xs.h"

/* The totals of a profile that the manifest of a merge records
 * (xprof_db(5), MANIFEST): named counts, in a fixed order per format. */
#define XP_PROF_TOTALS 4
typedef struct {
	unsigned n;
	const char *name[XP_PROF_TOTALS];   /* lower case, digits, '-' */
	uint64_t value[XP_PROF_TOTALS];
} xp_prof_totals;

/* Appends the total name, of value v, to t. */
static inline void xp_prof_total(xp_prof_totals *t, const char *name,
                                 uint64_t v)
{
	t->name[t->n] = name;
	t->value[t->n++] = v;
}

typedef struct xp_module {
	const char *name;        /* "gmon": also the text form's file stem */
	xp_format fmt;           /* the binary form */
	xp_format text_fmt;      /* the text form */
	const char *default_name; /* usual binary file name: "gmon.out" */
	/* What messages call the two forms (xp_format_name), alone and
	 * with their article (xp_format_a): "gmon.out", "a gmon.out",
	 * "gmon.out text", "a gmon.out text". */
	const char *display, *display_a;
	const char *text_display, *text_display_a;

	/* Recognition from the first bytes of a file (len may be short). */
	int (*detect)(const unsigned char *head, size_t len);
	int (*detect_text)(const unsigned char *head, size_t len);

	xp_err (*read)(const unsigned char *buf, size_t len, const char *name,
	               const xp_load_opts *o, void **out, xp_diags *d);
	xp_err (*read_text)(const unsigned char *buf, size_t len,
	                    const char *name, const xp_load_opts *o,
	                    void **out, xp_diags *d);
	/* Both append to w; errors only for memory or I/O. */
	xp_err (*write)(const void *m, xp_wbuf *w);
	xp_err (*write_text)(const void *m, xp_wbuf *w);

	/*
	 * Adds in, scaled by weight, into *acc (a new model when *acc is
	 * NULL).  On error *acc must be left as it was.
	 */
	xp_err (*merge)(void **acc, const void *in, double weight,
	                const xp_prof_merge_opts *o, const char *name,
	                xp_diags *d);
	/* NULL when the format has no conversion to feedback. */
	xp_err (*to_feedback)(const void *m, const xp_conv_opts *o,
	                      xp_fb **out, xp_diags *d);
	/*
	 * What the format's real tool reports (gprof, pprof, mprof,
	 * dcpiprof): *model gets the report that the module's public header
	 * describes, *handle what report_free frees (the report and what it
	 * needs to live, such as the executable's symbols); name names the
	 * profile in diagnostics.  NULL when the format has no report here.
	 */
	xp_err (*report)(const void *m, const xp_report_opts *o,
	                 const char *name, void **handle, const void **model,
	                 xp_diags *d);
	void (*report_free)(void *handle);
	/*
	 * Compares the profile with the executable s that the user gave
	 * (path exe) and says what does not fit (exe.c): warnings, or an
	 * error when the profile cannot be of it.  NULL when the format has
	 * nothing to compare.
	 */
	xp_err (*check_exe)(const void *m, const xp_sym *s, const char *exe,
	                    const char *name, xp_diags *d);
	/*
	 * Fills x (zeroed) with what the export k of the model carries
	 * (export/xs.h), computed by the module's report so that names and
	 * totals are the report's; refuses (XP_E_INVAL, a diagnostic naming
	 * name) the options that mean nothing for the format.
	 */
	xp_err (*export)(const void *m, xp_export_kind k,
	                 const xp_export_opts *o, const char *name, xp_xs *x,
	                 xp_diags *d);
	/* The options of xp_report_opts the report takes (XP_REPORT_*:
	 * exe always), and what refusals call it: "gprof's report of a
	 * gmon.out" has no lines. */
	unsigned report_takes;
	const char *report_of;
	/* The totals of a model (t is empty when called). */
	void (*totals)(const void *m, xp_prof_totals *t);
	/* The merge takes xp_prof_merge_opts.mode (max, min); others
	 * refuse all but a sum. */
	int merge_modes;
	/* Its conversion to feedback counts PC samples, not executions
	 * (xp_manifest_sampled). */
	int sampled;
	void (*free)(void *m);
} xp_module;

/* The modules in registry order: the first for NULL, then the one
 * after m; NULL after the last. */
const xp_module *xp_module_next(const xp_module *m);

/*
 * The entry points of a module, named after one prefix P the same way in
 * every module: P_detect, P_detect_text, P_read, P_read_text, P_write,
 * P_write_text, P_merge, P_to_feedback, P_report_new, P_report_free,
 * P_export, P_totals and P_free_model.  A module's descriptor is
 * XP_MODULE_NAMES(...) and XP_MODULE_ENTRIES(P).
 */
/*
 * A module's names: NAME (its folder), the stem of its XP_FMT_ constants,
 * the usual file name of its binary form, and how messages call it, with
 * its indefinite article ("a", "an"); the text form is the same words
 * followed by "text".
 */
#define XP_MODULE_NAMES(NAME, STEM, DEFAULT, DISPLAY, A)                 \
	.name = NAME, .fmt = XP_FMT_##STEM, .text_fmt = XP_FMT_##STEM##_TEXT, \
	.default_name = DEFAULT, .display = DISPLAY,                     \
	.display_a = A " " DISPLAY, .text_display = DISPLAY " text",     \
	.text_display_a = A " " DISPLAY " text"

#define XP_MODULE_ENTRIES(P)                                             \
	.detect = P##_detect, .detect_text = P##_detect_text,            \
	.read = P##_read, .read_text = P##_read_text,                    \
	.write = P##_write, .write_text = P##_write_text,                \
	.merge = P##_merge, .to_feedback = P##_to_feedback,              \
	.report = P##_report_new, .report_free = P##_report_free,        \
	.export = P##_export, .totals = P##_totals,                      \
	.free = P##_free_model

/* The options of a report beyond exe (xp_module.report_takes). */
#define XP_REPORT_LINES 0x1u
#define XP_REPORT_CALL_GRAPH 0x2u
#define XP_REPORT_COUNTS 0x4u
#define XP_REPORT_STACK_DEPTH 0x8u

/*
 * The PCs of a profile that belong to the executable, weighted by their
 * samples or calls, and how many of them fall inside one of its functions
 * (inside its code when it has no symbol table); and the return addresses
 * among them, which in the right build follow a call instruction (exe.c).
 * PCs and return addresses are kept as they come and looked up at the
 * verdict, sorted, each distinct address once.
 */
typedef struct {
	const xp_sym *sym;
	int stripped;
	uint64_t lo, hi;           /* its code */
	size_t at;                 /* where the last lookup ended */
	uint64_t total, in;
	uint64_t out_addr;         /* the lowest PC outside */
	int have_out;
	xp_kv *pc, *ra;            /* PCs and return addresses (key) with
	                            * their weights (val), as added */
	size_t npc, pccap, nra, racap;
	int nomem;                 /* an addition ran out of memory */
} xp_exe_tally;

void xp_exe_tally_init(xp_exe_tally *t, const xp_sym *s);
void xp_exe_tally_free(xp_exe_tally *t);
/* Whether addr (a link-time address of the executable) is inside; fast
 * for addresses in ascending order. */
int xp_exe_inside(xp_exe_tally *t, uint64_t addr);
/* A PC counted at once, inside or not, weight times. */
void xp_exe_tally_add(xp_exe_tally *t, uint64_t addr, int inside,
                      uint64_t weight);
/* Room for n more PCs (ra 0) or return addresses (ra 1) that the caller
 * fills with addresses (key) and weights (val); NULL when n is 0 or
 * memory ran out (the verdict then says so). */
xp_kv *xp_exe_tally_room(xp_exe_tally *t, int ra, size_t n);
/* A PC, weight times, looked up at the verdict. */
void xp_exe_tally_pc(xp_exe_tally *t, uint64_t pc, uint64_t weight);
/* A return address (the address after a call), weight times: the PC of
 * the call, ra - 1, counts, and ra must follow a call instruction. */
void xp_exe_tally_ra(xp_exe_tally *t, uint64_t ra, uint64_t weight);
/* The error or warnings the tally calls for; what names the PCs counted
 * ("sampled PCs"). */
xp_err xp_exe_verdict(xp_exe_tally *t, const char *exe, const char *name,
                      const char *what, xp_diags *d);
/* "build id 3f...", or "no build id", into buf; returns buf. */
const char *xp_exe_build_id(const xp_sym *s, char *buf, size_t size);
/* Runs mod's check_exe on model (opened as name) with exe's symbols:
 * pre, or opened from exe when pre is NULL. */
xp_err xp_prof_check_exe(const xp_module *mod, const void *model,
                         const char *exe, const xp_sym *pre,
                         const char *name, xp_diags *d);

/* An opened path (open.c). */
typedef enum {
	XP_INPUT_FILE,     /* a regular file: fd is open, fmt detected */
	XP_INPUT_DIR,      /* a profile directory */
	XP_INPUT_STREAM    /* a pipe, terminal, standard input ("-"): read
	                      ahead into buf; all of it unless a text */
} xp_input_kind;

struct xp_input {
	const char *path;  /* as given (stored after the struct) */
	const char *name;  /* for messages: path, or "<stdin>" for "-" */
	xp_input_kind kind;
	xp_format fmt;
	int fd;            /* FILE, STREAM; -1 otherwise */
	int own_fd;        /* fd is closed with the input */
	int db_fd;         /* DIR: its database, once opened (or -1) */
	struct stat st;
	xp_buf buf;        /* STREAM: what was read */
	int whole;         /* STREAM: buf holds all of it */
	/* Once a reader took it whole: the bytes it read (for a directory,
	 * its database's), for the manifest of a merge. */
	int summed;
	xp_bytesum sum;
	/* A feedback input, once read: its object files, procedures,
	 * counters and the saturating sum of its counts. */
	int has_totals;
	uint64_t totals[4];
};
/* The totals of a profile (prof.c). */
void xp_prof_totals_of(const xp_prof *p, xp_prof_totals *t);
/* xp_format_list() of every module, or with merge_modes of those whose
 * merge takes --mode. */
size_t xp_module_list(char *buf, size_t size, const char *last,
                      int merge_modes);
/* The module of a format (either form), or NULL for feedback. */
const xp_module *xp_module_of(xp_format f);
/* A profile of format f (its binary form) in *out, holding model, which
 * f's module made; model is freed when this fails (XP_E_NOMEM). */
xp_err xp_prof_adopt(xp_format f, void *model, xp_prof **out);

#endif
