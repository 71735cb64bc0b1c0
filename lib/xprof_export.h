/*
 * xprof_export.h - profiles written for other tools to read
 * (xprof_show(1), --format): Brendan Gregg's folded stacks (flamegraph.pl,
 * speedscope, inferno, Perfetto), the callgrind format (KCachegrind,
 * callgrind_annotate) and pprof's gzipped profile.proto (go tool pprof).
 *
 * Each is written in one place from what the format's own report
 * computes, so names and totals are the report's; which data of a format
 * each carries is said in the format's page.  Folded stacks need call
 * stacks (CPU and mpatrol profiles, gmon.out through gprof's call graph);
 * callgrind and pprof take every format, feedback included.
 */
#ifndef XPROF_EXPORT_H
#define XPROF_EXPORT_H

#include "xprof.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	XP_EXPORT_FOLDED = 1,
	XP_EXPORT_CALLGRIND = 2,
	XP_EXPORT_PPROF = 3
} xp_export_kind;

/* "folded", "callgrind" or "pprof": 0 and *k; -1 for anything else. */
int xp_export_parse(const char *name, xp_export_kind *k);

typedef struct {
	/* The executable the profile belongs to, as for the report
	 * (xp_report_opts.exe): gmon.out needs it. */
	const char *exe;
	/* mpatrol: folded stacks and callgrind give allocations, not
	 * bytes. */
	int counts;
} xp_export_opts;

/*
 * Writes the export of p (name names it in diagnostics) to fd.  The
 * export is computed whole before the first byte is written, so that a
 * refusal (XP_E_INVAL: a format without the data, such as folded stacks
 * of a DCPI profile) or a report's error writes nothing.
 */
xp_err xp_prof_export_fd(const xp_prof *p, xp_export_kind k,
                         const xp_export_opts *o, const char *name, int fd,
                         xp_diags *d);
/* The same for a feedback profile (counts per procedure and line). */
xp_err xp_fb_export_fd(const xp_fb *fb, xp_export_kind k,
                       const xp_export_opts *o, const char *name, int fd,
                       xp_diags *d);

#ifdef __cplusplus
}
#endif

#endif
