/*
 * dcpi/dcpi.h - what the files of the DCPI module share: the model's
 * layout and the entry points of its parts.  Not installed.  The module's
 * files: module.c (the module, recognition, the binary form, the chunk
 * rules, the accessors), header.c (the header's parser, with grammar/
 * dcpi_header.l and .y), text.c (the text form), merge.c, feedback.c (the
 * conversion to feedback), report.c (the report xprof_show prints), exe.c
 * (whether the image given is the one profiled).
 */
#ifndef XP_DCPI_IMPL_H
#define XP_DCPI_IMPL_H

#include "base/internal.h"
#include "export/xs.h"
#include "xprof_dcpi.h"

/* One header line: its kind and where its bytes are in hdr. */
typedef struct {
	xp_dcpi_kind kind;
	size_t off, len;      /* the line without its newline */
	size_t voff;          /* offset of the value within the line */
} xp_dcpi_hline;

struct xp_dcpi {
	unsigned char *hdr;   /* the header, through the samples newline */
	size_t hdr_len;
	xp_dcpi_hline *lines; /* in file order; the samples line last */
	size_t nlines;
	long line_of[XP_DCPI_NKINDS]; /* index of each known line, or -1 */

	/* Values of the numeric lines (0 when absent). */
	uint64_t period, tsize, cpuspeed, cpuimplv, cpucount, tstart;
	unsigned vmajor, vminor;

	xp_dcpi_chunk *chunks;
	size_t nchunks;
	uint32_t *counts;
	size_t ncounts;
};

/* Allocates an empty model (no header, no chunks). */
xp_dcpi *xp_dcpi_alloc(void);
void xp_dcpi_free(xp_dcpi *m);

/*
 * Parses the header at the start of buf (the grammar of dcpi(5)) into m:
 * hdr, lines, line_of and the values.  Diagnostics give lines counted
 * from line_base + 1, at offsets from off_base.  On success *end is the
 * length of the header (just past the samples line's newline).
 */
xp_err xp_dcpi_parse_header(const unsigned char *buf, size_t len,
                            const char *name, uint32_t line_base,
                            uint64_t off_base, xp_dcpi *m, size_t *end,
                            xp_diags *d);

/*
 * Checks an epoch value (10 or 14 digits) and gives its time in seconds
 * since 1970-01-01 UTC.  Returns -1 for a field out of range: its offset
 * in s, its name and its range.
 */
int xp_dcpi_epoch(const char *s, size_t n, int64_t *t, size_t *bad_at,
                  const char **bad_what, int *bad_lo, int *bad_hi);

/* Rebuilds line_of and the values from hdr and lines (after a merge
 * changed the header); no checks. */
void xp_dcpi_index_lines(xp_dcpi *m);

/* The footer of the chunks: addresses with samples and the sum. */
void xp_dcpi_footer(const xp_dcpi *m, uint64_t *addrs, uint64_t *samples);

/* The text form's first word and version (text.c). */
#define XP_DCPI_TEXT_MAGIC "DCPI-TEXT"
#define XP_DCPI_TEXT_VERSION "1"

/*
 * The rules of one chunk against the one before it (prev NULL for the
 * first) and tsize: NULL when it is good, else the message in msg
 * (module.c, for both readers).
 */
const char *xp_dcpi_chunk_rule(const xp_dcpi *m, const xp_dcpi_chunk *prev,
                               uint32_t off, uint32_t number, char *msg,
                               size_t size);
/* -L is refused: a DCPI profile has one layout (module.c). */
xp_err xp_dcpi_check_layout(const xp_load_opts *o, const char *name,
                            xp_diags *d);
/* Appends a chunk; *cap is the chunks' room. */
xp_err xp_dcpi_add_chunk(xp_dcpi *m, size_t *cap, uint32_t off,
                         uint32_t number);

/* The module's entry points (module.c, text.c, merge.c, feedback.c,
 * report.c, exe.c). */
xp_err xp_dcpi_check_exe(const void *m, const xp_sym *s, const char *exe,
                         const char *name, xp_diags *d);
xp_err xp_dcpi_read_text(const unsigned char *buf, size_t len,
                         const char *name, const xp_load_opts *o,
                         void **out, xp_diags *d);
xp_err xp_dcpi_write_text(const void *m, xp_wbuf *w);
xp_err xp_dcpi_merge(void **acc, const void *in, double weight,
                     const xp_prof_merge_opts *o, const char *name,
                     xp_diags *d);
xp_err xp_dcpi_to_feedback(const void *m, const xp_conv_opts *o,
                           xp_fb **out, xp_diags *d);
xp_err xp_dcpi_report_new(const void *m, const xp_report_opts *o,
                              const char *name, void **handle,
                              const void **model, xp_diags *d);
void xp_dcpi_report_free(void *handle);
/* The conversion to feedback the report was made from. */
const xp_fb *xp_dcpi_report_fb(const xp_dcpi_report *r);
xp_err xp_dcpi_export(const void *m, xp_export_kind k,
                      const xp_export_opts *o, const char *name, xp_xs *x,
                      xp_diags *d);

#endif
