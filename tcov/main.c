/*
 * xprof_tcov - test coverage listings in the manner of Sun's tcov(1),
 * with lcov and JSON exports and a coverage gate.
 *
 *   xprof_tcov [-a] [-q] [-n N] [-o FILE|-] [-p OLDPATH NEWPATH]
 *              [--lcov FILE] [--json FILE] [--fail-under PCT]
 *              -x PROFILE SOURCE_FILE...
 *
 * PROFILE is a profile directory (read as tcov reads one: tcovd with the
 * compilation data of objfd/, tcovsd, or feedback, and its tcovsd
 * brought up to date) or any profile file xp_open_any() reads.  For each
 * SOURCE_FILE the listing goes to <basename>.tcov in the working
 * directory, or all of them to FILE with -o.  The coverage itself comes
 * from the library (xprof_tcov.h); this program reads the sources,
 * prints and decides the exit status.  xprof_tcov(1) documents every
 * rule and every line of output.
 *
 * Exit status: 0 success; 1 line coverage below --fail-under; 2 trouble.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"
#include "xprof.h"
#include "xprof_tcov.h"

#define PROG "xprof_tcov"

static const char usage_text[] =
	"usage: " PROG " [-a] [-q] [-n N] [-o FILE|-] [-p OLDPATH NEWPATH]\n"
	"                  [--lcov FILE] [--json FILE] [--fail-under PCT]\n"
	"                  -x PROFILE SOURCE_FILE...\n"
	"       " PROG " -h | -V\n";

static const char options_text[] =
	"  -a                    show a count on every line\n"
	"  -n N                  list the N most executed blocks (default 10)\n"
	"  -o FILE               write every listing to FILE (- for standard output)\n"
	"  -p OLDPATH NEWPATH    read sources recorded under OLDPATH from NEWPATH\n"
	"  -q, --quiet           print no warnings\n"
	"  -x PROFILE            the profile directory or file to read (required)\n"
	"  --lcov FILE           also write an lcov tracefile\n"
	"  --json FILE           also write a JSON summary\n"
	"  --fail-under PCT      exit 1 when line coverage is below PCT percent\n"
	"  -h, --help            print this help and exit\n"
	"  -V, --version         print the version and exit\n";

/* What one reported source file gave. */
typedef struct {
	const char *arg;            /* SOURCE_FILE as given */
	char *abs;                  /* its absolute path (for lcov) */
	const xp_tcov_file *f;      /* its coverage */
	size_t n_src_lines;         /* lines the source file has */
	size_t lf, lh;              /* instrumented lines within the file */
	char *listing;              /* output name, or NULL with -o */
} report;

static int quiet;

static void warn_file(const char *file, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "prog: file: warning: msg", unless -q. */
static void warn_file(const char *file, const char *fmt, ...)
{
	va_list ap;
	if (quiet)
		return;
	fprintf(stderr, "%s: %s: warning: ", PROG, file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------ */
/* Numbers                                                             */
/* ------------------------------------------------------------------ */

/* 100 * hit / total with two decimals, rounded half up; "0.00" when
 * total is 0.  Exact for totals below 2^46. */
static const char *fmt_pct(char *buf, uint64_t hit, uint64_t total)
{
	uint64_t v = total ? (hit * 20000 + total) / (2 * total) : 0;
	snprintf(buf, TOOL_FMTLEN, "%" PRIu64 ".%02" PRIu64, v / 100, v % 100);
	return buf;
}

/* sum / n with two decimals, rounded half up; "0.00" when n is 0. */
static const char *fmt_avg(char *buf, uint64_t sum, uint64_t n)
{
	uint64_t q = 0, frac = 0;
	if (n) {
		q = sum / n;
		frac = (sum % n * 200 + n) / (2 * n);
		if (frac >= 100) {
			q++;
			frac -= 100;
		}
	}
	snprintf(buf, TOOL_FMTLEN, "%" PRIu64 ".%02" PRIu64, q, frac);
	return buf;
}

/*
 * --fail-under: a percentage from 0 to 100 with at most two decimals, in
 * hundredths.  Returns 0 or -1.
 */
static int parse_pct(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0, decimals = -1;
	for (; *s; s++) {
		if (*s == '.' && decimals < 0 && digits > 0) {
			decimals = 0;
			continue;
		}
		if (*s < '0' || *s > '9' || decimals == 2 || digits >= 3)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (decimals >= 0)
			decimals++;
		else
			digits++;
	}
	if (digits == 0 || decimals == 0)
		return -1;
	for (int i = decimals < 0 ? 0 : decimals; i < 2; i++)
		v *= 10;
	if (v > 10000)
		return -1;
	*out = v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Output files                                                        */
/* ------------------------------------------------------------------ */

/* Writes len bytes to path ("-": standard output) atomically.  Returns 0,
 * or -1 after printing what went wrong. */
static int write_out(const char *path, const char *buf, size_t len)
{
	if (strcmp(path, "-") == 0) {
		if (len > 0)
			fwrite(buf, 1, len, stdout);
		return tool_flush_stdout(PROG);
	}
	xp_diags *d = xp_diags_new(0);
	xp_afile *f = NULL;
	xp_err err = d ? xp_afile_open(path, &f, d) : XP_E_NOMEM;
	if (!err) {
		int fd = xp_afile_fd(f);
		size_t done = 0;
		while (done < len) {
			ssize_t w = write(fd, buf + done, len - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				fprintf(stderr, "%s: %s: cannot write: %s\n", PROG, path,
				        strerror(errno));
				xp_afile_abort(f);
				xp_diags_free(d);
				return -1;
			}
			done += (size_t)w;
		}
		err = xp_afile_commit(f, d);
	}
	if (err) {
		if (d)
			tool_print_diags(PROG, d, err, path);
		else
			fprintf(stderr, "%s: %s\n", PROG, xp_strerror(err));
	}
	xp_diags_free(d);
	return err ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* The listing                                                         */
/* ------------------------------------------------------------------ */

static void put_count(FILE *o, uint64_t n)
{
	if (n > 0)
		fprintf(o, "%7" PRIu64 " -> ", n);
	else
		fputs("  ##### -> ", o);
}

/*
 * Writes the listing of one source file (already open as src) to o, and
 * notes the source's length in r.  Returns 0, or -1 when the source
 * cannot be read (printed).
 */
static int listing(FILE *o, FILE *src, report *r, int all, size_t top_n)
{
	const xp_tcov_file *f = r->f;
	char *line = NULL;
	size_t cap = 0, li = 0, lineno = 0;
	ssize_t len;
	int have_prev = 0;
	uint64_t prev = 0;
	char b1[TOOL_FMTLEN], b2[TOOL_FMTLEN];

	errno = 0;
	while ((len = getline(&line, &cap, src)) >= 0) {
		lineno++;
		while (li < f->n_lines && f->lines[li].line < lineno)
			li++;
		const xp_tcov_line *ln =
			li < f->n_lines && f->lines[li].line == lineno ? &f->lines[li]
			                                               : NULL;
		if (ln && (ln->n_leaders > 0 || all)) {
			put_count(o, ln->count);
			prev = ln->count;
			have_prev = 1;
		} else if (all && have_prev) {
			put_count(o, prev);
		} else {
			fputs("           ", o);
		}
		fwrite(line, 1, (size_t)len, o);
		if (len == 0 || line[len - 1] != '\n')
			fputc('\n', o);
	}
	free(line);
	if (ferror(src)) {
		fprintf(stderr, "%s: %s: cannot read: %s\n", PROG, r->arg,
		        strerror(errno));
		return -1;
	}
	r->n_src_lines = lineno;
	while (li < f->n_lines && f->lines[li].line <= lineno)
		li++;
	if (li < f->n_lines)
		warn_file(r->arg, "the profile has data for line %" PRIu32
		          ", past the end of the file (%zu lines)",
		          f->lines[li].line, lineno);
	r->lf = r->lh = 0;
	for (size_t i = 0; i < f->n_lines; i++)
		if (f->lines[i].line >= 1 && f->lines[i].line <= lineno) {
			r->lf++;
			if (f->lines[i].max > 0)
				r->lh++;
		}

	if (top_n > 0) {
		size_t *top = NULL, ntop = 0;
		if (xp_tcov_top(f, top_n, &top, &ntop) != XP_E_OK) {
			fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
			return -1;
		}
		fprintf(o, "\n\n\t\t Top %zu Blocks\n\n\t\t Line\t   Count\n\n",
		        top_n);
		for (size_t i = 0; i < ntop; i++)
			fprintf(o, "\t\t%5" PRIu32 "\t%8" PRIu64 "\n",
			        f->blocks[top[i]].line, f->blocks[top[i]].count);
		free(top);
	}
	fprintf(o, "\n\n\t%5zu\tBasic blocks in this file\n", f->n_blocks);
	fprintf(o, "\t%5zu\tBasic blocks executed\n", f->n_blocks_hit);
	fprintf(o, "\t%5s\tPercent of the file executed\n",
	        fmt_pct(b1, f->n_blocks_hit, f->n_blocks));
	fprintf(o, "\n     %8" PRIu64 "\tTotal basic block executions\n", f->sum);
	fprintf(o, "     %8s\tAverage executions per basic block\n",
	        fmt_avg(b2, f->sum, f->n_blocks));
	return 0;
}

/* ------------------------------------------------------------------ */
/* lcov and JSON                                                        */
/* ------------------------------------------------------------------ */

static void lcov_file(FILE *o, const report *r)
{
	const xp_tcov_file *f = r->f;
	size_t fnf = 0, fnh = 0;
	fputs("TN:\n", o);
	fprintf(o, "SF:%s\n", r->abs);
	for (size_t i = 0; i < f->n_funcs; i++) {
		const xp_tcov_func *fn = &f->funcs[i];
		if (fn->line < 1 || fn->line > r->n_src_lines)
			continue;
		fprintf(o, "FN:%" PRIu32 ",%s\n", fn->line, fn->name);
	}
	for (size_t i = 0; i < f->n_funcs; i++) {
		const xp_tcov_func *fn = &f->funcs[i];
		if (fn->line < 1 || fn->line > r->n_src_lines)
			continue;
		fprintf(o, "FNDA:%" PRIu64 ",%s\n", fn->count, fn->name);
		fnf++;
		if (fn->count > 0)
			fnh++;
	}
	fprintf(o, "FNF:%zu\nFNH:%zu\n", fnf, fnh);
	for (size_t i = 0; i < f->n_lines; i++) {
		const xp_tcov_line *ln = &f->lines[i];
		if (ln->line < 1 || ln->line > r->n_src_lines)
			continue;
		fprintf(o, "DA:%" PRIu32 ",%" PRIu64 "\n", ln->line, ln->max);
	}
	fprintf(o, "LF:%zu\nLH:%zu\nend_of_record\n", r->lf, r->lh);
}

static void json_counts(FILE *o, size_t lf, size_t lh, uint64_t nb,
                        uint64_t nbh, uint64_t sum, uint64_t fnf,
                        uint64_t fnh)
{
	char b1[TOOL_FMTLEN], b2[TOOL_FMTLEN];
	fprintf(o, "\"lines\": %zu, \"lines_executed\": %zu, "
	        "\"line_percent\": %s, \"blocks\": %" PRIu64
	        ", \"blocks_executed\": %" PRIu64 ", \"block_percent\": %s, "
	        "\"block_executions\": %" PRIu64 ", \"functions\": %" PRIu64
	        ", \"functions_executed\": %" PRIu64,
	        lf, lh, fmt_pct(b1, lh, lf), nb, nbh, fmt_pct(b2, nbh, nb), sum,
	        fnf, fnh);
}

static void json_report(FILE *o, const char *profile, const report *rs,
                        size_t n, const char *outname)
{
	size_t lf = 0, lh = 0;
	uint64_t nb = 0, nbh = 0, sum = 0, fnf = 0, fnh = 0;
	fputs("{\n  \"profile\": ", o);
	tool_json_str(o, profile);
	fputs(",\n  \"files\": [", o);
	for (size_t i = 0; i < n; i++) {
		const report *r = &rs[i];
		const xp_tcov_file *f = r->f;
		fprintf(o, "%s\n    {\"source\": ", i ? "," : "");
		tool_json_str(o, r->arg);
		fputs(", \"profile_path\": ", o);
		tool_json_str(o, f->path);
		fputs(", \"listing\": ", o);
		tool_json_str(o, r->listing ? r->listing : outname);
		fputs(", ", o);
		json_counts(o, r->lf, r->lh, f->n_blocks, f->n_blocks_hit, f->sum,
		            f->n_funcs, f->n_funcs_hit);
		fputs("}", o);
		lf += r->lf;
		lh += r->lh;
		nb += f->n_blocks;
		nbh += f->n_blocks_hit;
		sum = sum > UINT64_MAX - f->sum ? UINT64_MAX : sum + f->sum;
		fnf += f->n_funcs;
		fnh += f->n_funcs_hit;
	}
	fprintf(o, "%s],\n  \"totals\": {\"files\": %zu, ", n ? "\n  " : "", n);
	json_counts(o, lf, lh, nb, nbh, sum, fnf, fnh);
	fputs("}\n}\n", o);
}

/* ------------------------------------------------------------------ */
/* Main                                                                */
/* ------------------------------------------------------------------ */

/* Closes a memory stream and hands over its bytes; -1 on failure. */
static int mem_close(FILE *m, char **buf)
{
	if (fclose(m) != 0) {
		free(*buf);
		*buf = NULL;
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The command line. */
typedef struct {
	const char *profile;        /* -x, joined with SUN_PROFDATA_DIR */
	char *profile_buf;          /* what profile points to, when joined */
	const char *outname, *lcov, *json;
	xp_tcov_map *maps;          /* -p pairs */
	size_t n_maps, top_n;
	int all, fail_set;
	uint64_t fail_under;        /* --fail-under, in hundredths of % */
	char **srcs;                /* the SOURCE_FILE operands */
	int nsrcs;
} cmdline;

/* What the listings gave. */
typedef struct {
	report *rs;
	size_t nrs;
	FILE *allmem;               /* -o: every listing, in order */
	char *allbuf;
	size_t alllen;
	int missing;                /* a source file could not be opened */
} results;

/* Applies option c; returns -1 to go on, or the exit status. */
static int option(cmdline *cl, int c, int argc, char **argv)
{
	char msg[160];
	int st;

	switch (c) {
	case 'a':
		cl->all = 1;
		break;
	case 'F':
		if (parse_pct(optarg, &cl->fail_under) != 0) {
			snprintf(msg, sizeof msg, "invalid percentage '%.100s' "
			         "for --fail-under (0 to 100)", optarg);
			return tool_usage_error(PROG, usage_text, msg);
		}
		cl->fail_set = 1;
		break;
	case 'J':
		cl->json = optarg;
		break;
	case 'L':
		cl->lcov = optarg;
		break;
	case 'n':
		if ((st = tool_count_option(PROG, usage_text, "-n", optarg,
		                            &cl->top_n)))
			return st;
		break;
	case 'o':
		cl->outname = optarg;
		break;
	case 'p':
		if (optind >= argc)
			return tool_usage_error(PROG, usage_text,
			                        "option -p needs two arguments");
		cl->maps[cl->n_maps].from = optarg;
		cl->maps[cl->n_maps].to = argv[optind++];
		cl->n_maps++;
		break;
	case 'q':
		quiet = 1;
		break;
	case 'x':
		cl->profile = optarg;
		break;
	default:
		return tool_other_option(PROG, usage_text, options_text, c,
		                         argv);
	}
	return -1;
}

/*
 * Sun's tcov reads the profile bucket -x names below $SUN_PROFDATA_DIR
 * when that is set, or below $TCOVDIR, its older synonym, which is
 * ignored (with a warning) when both are set.  An absolute -x path is
 * taken as it is.  Returns -1, or the exit status.
 */
static int profile_dir(cmdline *cl)
{
	const char *dir = getenv("SUN_PROFDATA_DIR");
	const char *old = getenv("TCOVDIR");
	size_t n;

	if (dir != NULL && dir[0] != '\0' && old != NULL && old[0] != '\0')
		warn_file("TCOVDIR", "ignored: SUN_PROFDATA_DIR is set");
	if (dir == NULL || dir[0] == '\0')
		dir = old;
	if (dir == NULL || dir[0] == '\0' || cl->profile[0] == '/')
		return -1;
	n = strlen(dir) + strlen(cl->profile) + 2;
	if ((cl->profile_buf = malloc(n)) == NULL) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	snprintf(cl->profile_buf, n, "%s%s%s", dir,
	         dir[strlen(dir) - 1] == '/' ? "" : "/", cl->profile);
	cl->profile = cl->profile_buf;
	return -1;
}

/* Parses the command line into cl; returns -1 to go on, or the exit
 * status. */
static int parse_cmdline(cmdline *cl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"fail-under", required_argument, NULL, 'F'},
		{"json", required_argument, NULL, 'J'},
		{"lcov", required_argument, NULL, 'L'},
		{"quiet", no_argument, NULL, 'q'},
		TOOL_LONGOPTS_END
	};
	int c, st, to_stdout;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ahn:o:p:qVx:", longopts,
	                        NULL)) != -1)
		if ((st = option(cl, c, argc, argv)) >= 0)
			return st;
	cl->srcs = argv + optind;
	cl->nsrcs = argc - optind;
	if (!cl->profile)
		return tool_usage_error(PROG, usage_text, "missing -x PROFILE");
	if (cl->nsrcs < 1)
		return tool_usage_error(PROG, usage_text,
		                        "missing SOURCE_FILE operand");
	to_stdout = (cl->outname && strcmp(cl->outname, "-") == 0) +
	            (cl->lcov && strcmp(cl->lcov, "-") == 0) +
	            (cl->json && strcmp(cl->json, "-") == 0);
	if (to_stdout > 1)
		return tool_usage_error(PROG, usage_text, "standard output can "
		                        "be written only once");
	return profile_dir(cl);
}

/* The listing of r (its source open as sf) into its own NAME.tcov;
 * returns 0, -1 when it could not be written, -2 out of memory. */
static int own_listing(const cmdline *cl, FILE *sf, report *r)
{
	const char *base = base_name(r->arg);
	size_t nl = strlen(base) + 6, len = 0;
	char *buf = NULL;
	FILE *m = open_memstream(&buf, &len);
	int ok;

	if (!m || !(r->listing = malloc(nl))) {
		if (m)
			fclose(m);
		free(buf);
		return -2;
	}
	snprintf(r->listing, nl, "%s.tcov", base);
	ok = listing(m, sf, r, cl->all, cl->top_n) == 0;
	if (mem_close(m, &buf) != 0)
		ok = 0;
	if (ok && write_out(r->listing, buf, len) != 0)
		ok = 0;
	free(buf);
	return ok ? 0 : -1;
}

/* Reports one source file into res; returns 0 (also when it was left
 * out), -1 when a listing could not be written, -2 out of memory. */
static int report_source(const cmdline *cl, const xp_tcov *cov,
                         const xp_tcov_info *info, const char *src,
                         results *res)
{
	report *r = &res->rs[res->nrs];
	FILE *sf = fopen(src, "r");
	struct stat st;
	size_t fi;
	int ret;

	if (!sf) {
		/* An error, not a warning: a gate over a file that is not
		 * there must not pass. */
		fprintf(stderr, "%s: %s: cannot open the source file: %s\n",
		        PROG, src, strerror(errno));
		res->missing = 1;
		return 0;
	}
	fi = xp_tcov_find(cov, src, cl->maps, cl->n_maps);
	if (fi == XP_TCOV_NONE) {
		warn_file(src, "no coverage data for this file in %s",
		          cl->profile);
		fclose(sf);
		return 0;
	}
	if (info->has_mtime && fstat(fileno(sf), &st) == 0 &&
	    ((int64_t)st.st_mtim.tv_sec > info->mtime_sec ||
	     ((int64_t)st.st_mtim.tv_sec == info->mtime_sec &&
	      st.st_mtim.tv_nsec > info->mtime_nsec)))
		warn_file(src, "the source file is newer than the profile "
		          "data in %s; counts may not match its lines",
		          cl->profile);
	memset(r, 0, sizeof *r);
	r->arg = src;
	r->f = xp_tcov_file_at(cov, fi);
	if (!(r->abs = realpath(src, NULL))) {
		fclose(sf);
		return -2;
	}
	res->nrs++;
	if (cl->outname)
		ret = listing(res->allmem, sf, r, cl->all, cl->top_n) == 0 ? 0
		                                                            : -1;
	else
		ret = own_listing(cl, sf, r);
	fclose(sf);
	return ret;
}

/* Writes what one export (lcov or JSON) prints into path; returns 0, -1
 * when it could not be written, -2 out of memory. */
static int write_export(const cmdline *cl, const results *res,
                        const char *path, int lcov)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int bad;

	if (!m)
		return -2;
	if (lcov)
		for (size_t i = 0; i < res->nrs; i++)
			lcov_file(m, &res->rs[i]);
	else
		json_report(m, cl->profile, res->rs, res->nrs, cl->outname);
	bad = mem_close(m, &buf) != 0 || write_out(path, buf, len) != 0;
	free(buf);
	return bad ? -1 : 0;
}

/* Writes -o's file and the exports; returns 0, -1 or -2 as above. */
static int write_outputs(const cmdline *cl, results *res)
{
	int ret;

	if (res->allmem) {
		FILE *m = res->allmem;
		res->allmem = NULL;
		if (mem_close(m, &res->allbuf) != 0)
			return -1;
	}
	if (res->nrs == 0) {
		fprintf(stderr, "%s: no source file could be reported\n", PROG);
		return -1;
	}
	if (cl->outname && write_out(cl->outname, res->allbuf,
	                             res->alllen) != 0)
		return -1;
	if (cl->lcov && (ret = write_export(cl, res, cl->lcov, 1)) != 0)
		return ret;
	if (cl->json && (ret = write_export(cl, res, cl->json, 0)) != 0)
		return ret;
	return 0;
}

/*
 * hit / total as a percentage with the fewest decimals, from 2 up to 9,
 * that tell it from pct (in hundredths of a percent, which hit / total
 * is below): "88.889" for 8 of 9 against 88.89, where two decimals would
 * print 88.89 for both.  Rounded half up, exactly.
 */
static const char *fmt_below(char *buf, uint64_t hit, uint64_t total,
                             uint64_t pct)
{
	unsigned __int128 scale = 1000, v = 0;  /* 10^(d + 2) in the loop */
	char thr[TOOL_FMTLEN];
	int d;

	for (d = 2; d <= 9; d++) {
		scale *= 10;
		v = ((unsigned __int128)hit * scale * 2 + total) /
		    (2 * (unsigned __int128)total);
		snprintf(buf, TOOL_FMTLEN, "%llu", (unsigned long long)v);
		snprintf(thr, sizeof thr, "%llu",
		         (unsigned long long)(pct * (scale / 10000)));
		if (strcmp(buf, thr) != 0)
			break;
	}
	if (d > 9)
		d = 9;
	snprintf(buf, TOOL_FMTLEN, "%llu.%0*llu",
	         (unsigned long long)(v / (scale / 100)), d,
	         (unsigned long long)(v % (scale / 100)));
	return buf;
}

/* --fail-under: 1 (after saying so) when the line coverage of every
 * reported file together is below the gate, 0 otherwise. */
static int gate(const cmdline *cl, const results *res)
{
	uint64_t lf = 0, lh = 0, pct = cl->fail_under;
	char b1[TOOL_FMTLEN];

	for (size_t i = 0; i < res->nrs; i++) {
		lf += res->rs[i].lf;
		lh += res->rs[i].lh;
	}
	/* lh / lf < pct / 10000, exactly. */
	if (lf == 0 ? pct == 0 : lh * 10000 >= pct * lf)
		return 0;
	fprintf(stderr, "%s: line coverage %s%% (%" PRIu64 " of %" PRIu64
	        " lines) is below %" PRIu64 ".%02" PRIu64 "%%\n", PROG,
	        lf ? fmt_below(b1, lh, lf, pct) : "0.00", lh, lf, pct / 100,
	        pct % 100);
	return 1;
}

/* Reads the profile and reports every source file; returns the exit
 * status. */
static int run(const cmdline *cl, results *res)
{
	xp_diags *d = xp_diags_new(0);
	xp_tcov *cov = NULL;
	xp_tcov_info info;
	xp_err err;
	int ret = -2, status = 2;

	if (!d)
		goto out;
	err = xp_tcov_open(cl->profile, 1, &cov, &info, d);
	tool_print_diags_q(PROG, d, err, cl->profile, quiet);
	if (err) {
		ret = -1;
		goto out;
	}
	if (!(res->rs = calloc((size_t)cl->nsrcs, sizeof *res->rs)) ||
	    (cl->outname &&
	     !(res->allmem = open_memstream(&res->allbuf, &res->alllen))))
		goto out;
	for (int i = 0; i < cl->nsrcs; i++)
		if ((ret = report_source(cl, cov, &info, cl->srcs[i], res)) != 0)
			goto out;
	if ((ret = write_outputs(cl, res)) != 0)
		goto out;
	status = cl->fail_set ? gate(cl, res) : 0;
	if (res->missing)
		status = 2;
out:
	if (ret == -2)
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
	xp_tcov_free(cov);
	xp_diags_free(d);
	return status;
}

int main(int argc, char **argv)
{
	cmdline cl = { .top_n = 10 };
	results res = { 0 };
	int status;

	tool_catch_sigbus(PROG);
	if (!(cl.maps = calloc((size_t)argc, sizeof *cl.maps))) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	if ((status = parse_cmdline(&cl, argc, argv)) < 0)
		status = run(&cl, &res);
	if (res.allmem)
		fclose(res.allmem);
	free(res.allbuf);
	for (size_t i = 0; i < res.nrs; i++) {
		free(res.rs[i].abs);
		free(res.rs[i].listing);
	}
	free(res.rs);
	free(cl.profile_buf);
	free(cl.maps);
	return status;
}
