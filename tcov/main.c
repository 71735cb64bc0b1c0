/*
 * xprof_tcov - test coverage listings in the manner of Sun's tcov(1),
 * with lcov, JSON, Cobertura and SonarQube exports and a coverage gate.
 *
 *   xprof_tcov [-a] [-q] [-n N] [-o FILE|-] [-p OLDPATH NEWPATH]
 *              [--lcov FILE] [--json FILE] [--cobertura FILE]
 *              [--sonarqube FILE] [--fail-under PCT]
 *              [--baseline PROFILE]... [--diff-file PATCH]
 *              [--diff-strip N] [--fail-under-changed PCT]
 *              -x PROFILE [-x PROFILE]... SOURCE_FILE...
 *
 * PROFILE is a profile directory (read as tcov reads one: tcovd with the
 * compilation data of objfd/, tcovsd, or feedback, and its tcovsd
 * brought up to date) or any profile file xp_open_any() reads; several
 * are reported as their union.  For each SOURCE_FILE the listing goes to
 * <basename>.tcov in the working directory, or all of them to FILE with
 * -o.  The coverage, the exclusion markers of the sources and the
 * exports come from the library (xprof_tcov.h); this program reads the
 * sources, prints the listings and JSON and decides the exit status.
 * Differential coverage (a baseline, a patch and the gate on the lines
 * it changes) is in diffcov.c.  xprof_tcov(1) documents every rule and
 * every line of output.
 *
 * Exit status: 0 success; 1 line coverage below --fail-under or
 * --fail-under-changed; 2 trouble.
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

#include "diffcov.h"
#include "tool.h"
#include "xprof.h"
#include "xprof_manifest.h"
#include "xprof_tcov.h"

static const char usage_text[] =
	"usage: " PROG " [-a] [-q] [-n N] [-o FILE|-] [-p OLDPATH NEWPATH]\n"
	"                  [--lcov FILE] [--json FILE] [--cobertura FILE]\n"
	"                  [--sonarqube FILE] [--fail-under PCT]\n"
	"                  [--baseline PROFILE]... [--diff-file PATCH]\n"
	"                  [--diff-strip N] [--fail-under-changed PCT]\n"
	"                  -x PROFILE [-x PROFILE]... SOURCE_FILE...\n"
	"       " PROG " -h | -V\n";

static const char options_text[] =
	"  -a                    show a count on every line\n"
	"  -n N                  list the N most executed blocks (default 10)\n"
	"  -o FILE               write every listing to FILE (- for standard output)\n"
	"  -p OLDPATH NEWPATH    read sources recorded under OLDPATH from NEWPATH\n"
	"  -q, --quiet           print no warnings\n"
	"  -x PROFILE            a profile directory or file (required; several\n"
	"                        are reported as their union)\n"
	"  --lcov FILE           also write an lcov tracefile\n"
	"  --json FILE           also write a JSON summary\n"
	"  --cobertura FILE      also write Cobertura XML\n"
	"  --sonarqube FILE      also write SonarQube generic coverage XML\n"
	"  --fail-under PCT      exit 1 when line coverage is below PCT percent\n"
	"  --baseline PROFILE    mark each line against the coverage of PROFILE\n"
	"                        (several: their union)\n"
	"  --diff-file PATCH     the unified diff that made the sources from\n"
	"                        the baseline's: the changed lines\n"
	"  --diff-strip N        strip N leading components of PATCH's names\n"
	"  --fail-under-changed PCT\n"
	"                        exit 1 when the changed lines' coverage is\n"
	"                        below PCT percent\n"
	"  -h, --help            print this help and exit\n"
	"  -V, --version         print the version and exit\n";

/* What one reported source file gave. */
typedef struct {
	const char *arg;            /* SOURCE_FILE as given */
	char *text;                 /* its bytes */
	size_t len;
	xp_tcov_src src;            /* its coverage as reported */
	char *listing;              /* output name, or NULL with -o */
	tcov_diffrep diff;          /* against the baseline and the patch */
} report;

int quiet;

/* "prog: file: warning: msg", unless -q. */
void warn_file(const char *file, const char *fmt, ...)
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
const char *fmt_pct(char *buf, uint64_t hit, uint64_t total)
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

/* A percentage option opt: sets *out and returns -1, or reports the
 * bad value and returns exit status 2. */
int pct_option(const char *opt, const char *arg, uint64_t *out,
               const char *usage)
{
	char msg[160];
	if (parse_pct(arg, out) == 0)
		return -1;
	snprintf(msg, sizeof msg, "invalid percentage '%.100s' for %s (0 to "
	         "100)", arg, opt);
	return tool_usage_error(PROG, usage, msg);
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
 * Writes the listing of one source file to o: its lines with their
 * counts (none on the lines its markers exclude), the most executed
 * blocks and the block figures of what counts.  Returns 0, or -1 out of
 * memory (printed).
 */
static int listing(FILE *o, const report *r, int all, size_t top_n,
                   const char *sampled)
{
	const xp_tcov_src *s = &r->src;
	const xp_tcov_file *f = s->f;
	size_t li = 0;
	uint32_t lineno = 0;
	int have_prev = 0;
	uint64_t prev = 0;
	char b1[TOOL_FMTLEN], b2[TOOL_FMTLEN];

	for (size_t at = 0; at < r->len;) {
		const char *nl = memchr(r->text + at, '\n', r->len - at);
		size_t end = nl ? (size_t)(nl - r->text) : r->len;
		lineno++;
		while (li < f->n_lines && f->lines[li].line < lineno)
			li++;
		const xp_tcov_line *ln =
			li < f->n_lines && f->lines[li].line == lineno ? &f->lines[li]
			                                               : NULL;
		diffcov_mark(o, &r->diff, lineno);
		if (!xp_tcov_src_line(s, lineno)) {
			fputs("           ", o);
		} else if (ln && (ln->n_leaders > 0 || all)) {
			put_count(o, ln->count);
			prev = ln->count;
			have_prev = 1;
		} else if (all && have_prev) {
			put_count(o, prev);
		} else {
			fputs("           ", o);
		}
		fwrite(r->text + at, 1, end - at, o);
		fputc('\n', o);
		at = end + 1;
	}

	if (top_n > 0) {
		size_t *top = NULL, ntop = 0;
		if (xp_tcov_src_top(s, top_n, &top, &ntop) != XP_E_OK) {
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
	fprintf(o, "\n\n\t%5zu\tBasic blocks in this file\n", s->nb);
	fprintf(o, "\t%5zu\tBasic blocks executed\n", s->nbh);
	fprintf(o, "\t%5s\tPercent of the file executed\n",
	        fmt_pct(b1, s->nbh, s->nb));
	fprintf(o, "\n     %8" PRIu64 "\tTotal basic block executions\n", s->sum);
	fprintf(o, "     %8s\tAverage executions per basic block\n",
	        fmt_avg(b2, s->sum, s->nb));
	if (sampled)
		fprintf(o, "\n\tThe counts are PC samples of %s, not executions:"
		        "\n\ta line without samples may have run.\n", sampled);
	diffcov_summary(o, &r->diff);
	return 0;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

/* Figures of one file or of all, as JSON prints them. */
typedef struct {
	uint64_t lf, lh, nb, nbh, sum, fnf, fnh, brf, brh;
} figures;

static void json_counts(FILE *o, const figures *g)
{
	char b1[TOOL_FMTLEN], b2[TOOL_FMTLEN], b3[TOOL_FMTLEN];
	fprintf(o, "\"lines\": %" PRIu64 ", \"lines_executed\": %" PRIu64
	        ", \"line_percent\": %s, \"blocks\": %" PRIu64
	        ", \"blocks_executed\": %" PRIu64 ", \"block_percent\": %s, "
	        "\"block_executions\": %" PRIu64 ", \"functions\": %" PRIu64
	        ", \"functions_executed\": %" PRIu64 ", \"branches\": %" PRIu64
	        ", \"branches_taken\": %" PRIu64 ", \"branch_percent\": %s",
	        g->lf, g->lh, fmt_pct(b1, g->lh, g->lf), g->nb, g->nbh,
	        fmt_pct(b2, g->nbh, g->nb), g->sum, g->fnf, g->fnh, g->brf,
	        g->brh, fmt_pct(b3, g->brh, g->brf));
}

static void json_report(FILE *o, const char *const *profiles,
                        size_t nprofiles, const report *rs, size_t n,
                        const char *outname, const tcov_diff *df,
                        const char *sampled)
{
	figures tot = {0};
	tcov_difftot dtot = {0};
	fputs("{\n  \"profile\": ", o);
	tool_json_str(o, profiles[0]);
	fputs(",\n  \"profiles\": [", o);
	for (size_t i = 0; i < nprofiles; i++) {
		fputs(i ? ", " : "", o);
		tool_json_str(o, profiles[i]);
	}
	fputs("],\n  \"counts\": ", o);
	tool_json_str(o, sampled ? "samples" : "executions");
	diffcov_json_top(o, df);
	fputs(",\n  \"files\": [", o);
	for (size_t i = 0; i < n; i++) {
		const report *r = &rs[i];
		const xp_tcov_src *s = &r->src;
		figures g = {s->lf, s->lh, s->nb, s->nbh, s->sum, s->fnf, s->fnh,
		             s->brf, s->brh};
		fprintf(o, "%s\n    {\"source\": ", i ? "," : "");
		tool_json_str(o, r->arg);
		fputs(", \"profile_path\": ", o);
		tool_json_str(o, s->f->path);
		fputs(", \"listing\": ", o);
		tool_json_str(o, r->listing ? r->listing : outname);
		fputs(", ", o);
		json_counts(o, &g);
		diffcov_json_file(o, df, &r->diff);
		diffcov_add(&dtot, &r->diff);
		fputs("}", o);
		tot.lf += g.lf;
		tot.lh += g.lh;
		tot.nb += g.nb;
		tot.nbh += g.nbh;
		tot.sum = tot.sum > UINT64_MAX - g.sum ? UINT64_MAX : tot.sum + g.sum;
		tot.fnf += g.fnf;
		tot.fnh += g.fnh;
		tot.brf += g.brf;
		tot.brh += g.brh;
	}
	fprintf(o, "%s],\n  \"totals\": {\"files\": %zu, ", n ? "\n  " : "", n);
	json_counts(o, &tot);
	diffcov_json_totals(o, df, &dtot);
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

/* The exports, in the order they are written. */
enum { EX_LCOV, EX_JSON, EX_COBERTURA, EX_SONARQUBE, EX_N };

/* The command line. */
typedef struct {
	const char **profiles;      /* -x, joined with SUN_PROFDATA_DIR */
	char **profile_bufs;        /* what they point to, when joined */
	size_t n_profiles;
	char *profiles_text;        /* every profile, for messages */
	const char *outname, *exports[EX_N];
	xp_tcov_map *maps;          /* -p pairs */
	size_t n_maps, top_n;
	int all, fail_set;
	uint64_t fail_under;        /* --fail-under, in hundredths of % */
	char **srcs;                /* the SOURCE_FILE operands */
	int nsrcs;
	tcov_diffopts diff;         /* --baseline, --diff-file, ... */
	const char *sampled;        /* counts are samples: of what */
	xp_manifest *man;           /* the manifest that says so */
} cmdline;

/* What the listings gave. */
typedef struct {
	report *rs;
	size_t nrs;
	FILE *allmem;               /* -o: every listing, in order */
	char *allbuf;
	size_t alllen;
	int missing;                /* a source file could not be opened */
	int64_t mtime;              /* the newest profile data's, in seconds */
	tcov_diff diff;             /* the baselines and the patch */
} results;

/* Applies option c; returns -1 to go on, or the exit status. */
static int option(cmdline *cl, int c, int argc, char **argv)
{
	int st;

	switch (c) {
	case 'a':
		cl->all = 1;
		break;
	case 'B':
	case 'D':
	case 'G':
	case 'P':
		return diffcov_option(&cl->diff, c, optarg, usage_text);
	case 'C':
		cl->exports[EX_COBERTURA] = optarg;
		break;
	case 'F':
		if ((st = pct_option("--fail-under", optarg, &cl->fail_under,
		                     usage_text)) >= 0)
			return st;
		cl->fail_set = 1;
		break;
	case 'J':
		cl->exports[EX_JSON] = optarg;
		break;
	case 'L':
		cl->exports[EX_LCOV] = optarg;
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
	case 'S':
		cl->exports[EX_SONARQUBE] = optarg;
		break;
	case 'x':
		cl->profiles[cl->n_profiles++] = optarg;
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
static int profile_dirs(cmdline *cl)
{
	const char *dir = getenv("SUN_PROFDATA_DIR");
	const char *old = getenv("TCOVDIR");

	if (dir != NULL && dir[0] != '\0' && old != NULL && old[0] != '\0')
		warn_file("TCOVDIR", "ignored: SUN_PROFDATA_DIR is set");
	if (dir == NULL || dir[0] == '\0')
		dir = old;
	for (size_t i = 0; i < cl->n_profiles; i++) {
		const char *p = cl->profiles[i];
		size_t n;
		if (dir == NULL || dir[0] == '\0' || p[0] == '/')
			continue;
		n = strlen(dir) + strlen(p) + 2;
		if ((cl->profile_bufs[i] = malloc(n)) == NULL) {
			fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
			return 2;
		}
		snprintf(cl->profile_bufs[i], n, "%s%s%s", dir,
		         dir[strlen(dir) - 1] == '/' ? "" : "/", p);
		cl->profiles[i] = cl->profile_bufs[i];
	}
	return -1;
}

/* "a, b and c" of v[0..n), for messages; NULL out of memory. */
char *join_names(const char *const *v, size_t n)
{
	size_t len = 1;
	char *s;
	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + 5;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *sep = i == 0 ? "" : i + 1 < n ? ", " : " and ";
		strcat(strcat(s, sep), v[i]);
	}
	return s;
}

/* Parses the command line into cl; returns -1 to go on, or the exit
 * status. */
static int parse_cmdline(cmdline *cl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"baseline", required_argument, NULL, 'B'},
		{"cobertura", required_argument, NULL, 'C'},
		{"diff-file", required_argument, NULL, 'D'},
		{"diff-strip", required_argument, NULL, 'P'},
		{"fail-under", required_argument, NULL, 'F'},
		{"fail-under-changed", required_argument, NULL, 'G'},
		{"json", required_argument, NULL, 'J'},
		{"lcov", required_argument, NULL, 'L'},
		{"quiet", no_argument, NULL, 'q'},
		{"sonarqube", required_argument, NULL, 'S'},
		TOOL_LONGOPTS_END
	};
	int c, st, to_stdout, from_stdin = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ahn:o:p:qVx:", longopts,
	                        NULL)) != -1)
		if ((st = option(cl, c, argc, argv)) >= 0)
			return st;
	cl->srcs = argv + optind;
	cl->nsrcs = argc - optind;
	if (cl->n_profiles == 0)
		return tool_usage_error(PROG, usage_text, "missing -x PROFILE");
	if (cl->nsrcs < 1)
		return tool_usage_error(PROG, usage_text,
		                        "missing SOURCE_FILE operand");
	to_stdout = cl->outname && strcmp(cl->outname, "-") == 0;
	for (int i = 0; i < EX_N; i++)
		to_stdout += cl->exports[i] && strcmp(cl->exports[i], "-") == 0;
	if (to_stdout > 1)
		return tool_usage_error(PROG, usage_text, "standard output can "
		                        "be written only once");
	for (size_t i = 0; i < cl->n_profiles; i++)
		from_stdin += strcmp(cl->profiles[i], "-") == 0;
	if ((st = diffcov_check(&cl->diff, usage_text, &from_stdin)) >= 0)
		return st;
	if (from_stdin > 1)
		return tool_usage_error(PROG, usage_text, "standard input can "
		                        "be read only once");
	if ((st = profile_dirs(cl)) >= 0)
		return st;
	if (!(cl->profiles_text = join_names(cl->profiles, cl->n_profiles))) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	return -1;
}

/* The listing of r into its own NAME.tcov; returns 0, -1 when it could
 * not be written, -2 out of memory. */
static int own_listing(const cmdline *cl, report *r)
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
	ok = listing(m, r, cl->all, cl->top_n, cl->sampled) == 0;
	if (mem_close(m, &buf) != 0)
		ok = 0;
	if (ok && write_out(r->listing, buf, len) != 0)
		ok = 0;
	free(buf);
	return ok ? 0 : -1;
}

/* Reads all of f, named name, into *text (*len bytes, the caller frees
 * it, also after a failure); returns 0, or -1 (printed). */
int read_all(FILE *f, const char *name, char **text, size_t *len)
{
	size_t cap = 0;
	for (;;) {
		if (*len == cap) {
			char *t = realloc(*text, cap = cap ? cap * 2 : 8192);
			if (!t) {
				fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
				return -1;
			}
			*text = t;
		}
		size_t got = fread(*text + *len, 1, cap - *len, f);
		*len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: %s: cannot read: %s\n", PROG, name,
		        strerror(errno));
		return -1;
	}
	return 0;
}

/* The source of r, open as sf, read and its coverage as reported;
 * returns 0, -1 (printed) or -2 out of memory. */
static int load_source(FILE *sf, const xp_tcov_file *f, report *r)
{
	xp_diags *d = xp_diags_new(0);
	char *abs = realpath(r->arg, NULL);
	xp_err err;
	const xp_tcov_src *s = &r->src;

	if (!d || !abs) {
		xp_diags_free(d);
		free(abs);
		return -2;
	}
	errno = 0;
	if (read_all(sf, r->arg, &r->text, &r->len) != 0) {
		xp_diags_free(d);
		free(abs);
		return -1;
	}
	err = xp_tcov_src_init(&r->src, f, abs, r->text, r->len, r->arg, d);
	free(abs);
	tool_print_diags_q(PROG, d, err, r->arg, quiet);
	xp_diags_free(d);
	if (err)
		return -2;
	for (size_t i = 0; i < f->n_lines; i++)
		if (f->lines[i].line > s->n_lines) {
			warn_file(r->arg, "the profile has data for line %" PRIu32
			          ", past the end of the file (%" PRIu32 " lines)",
			          f->lines[i].line, s->n_lines);
			break;
		}
	return 0;
}

/* Reports one source file into res; returns 0 (also when it was left
 * out), -1 when it could not be read or its listing written, -2 out of
 * memory. */
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
		          cl->profiles_text);
		fclose(sf);
		return 0;
	}
	if (info->has_mtime && fstat(fileno(sf), &st) == 0 &&
	    ((int64_t)st.st_mtim.tv_sec > info->mtime_sec ||
	     ((int64_t)st.st_mtim.tv_sec == info->mtime_sec &&
	      st.st_mtim.tv_nsec > info->mtime_nsec)))
		warn_file(src, "the source file is newer than the profile "
		          "data in %s; counts may not match its lines",
		          cl->profiles_text);
	memset(r, 0, sizeof *r);
	r->arg = src;
	res->nrs++;
	ret = load_source(sf, xp_tcov_file_at(cov, fi), r);
	fclose(sf);
	if (ret == 0)
		ret = diffcov_source(&res->diff, cl->maps, cl->n_maps, r->arg,
		                     &r->src, r->text, r->len, &r->diff);
	if (ret != 0)
		return ret;
	if (cl->outname)
		return listing(res->allmem, r, cl->all, cl->top_n,
		               cl->sampled) == 0 ? 0 : -1;
	return own_listing(cl, r);
}

/* The bytes of export k: returns 0, -1 (printed) or -2 out of memory. */
static int make_export(const cmdline *cl, const results *res, int k,
                       const xp_tcov_src *srcs, char **buf, size_t *len)
{
	char *root = NULL;
	xp_err err = XP_E_OK;

	if (k == EX_JSON) {
		FILE *m = open_memstream(buf, len);
		if (!m)
			return -2;
		json_report(m, cl->profiles, cl->n_profiles, res->rs, res->nrs,
		            cl->outname, &res->diff, cl->sampled);
		return mem_close(m, buf);
	}
	if (k != EX_LCOV && !(root = realpath(".", NULL))) {
		fprintf(stderr, "%s: the working directory: %s\n", PROG,
		        strerror(errno));
		return -1;
	}
	if (k == EX_LCOV)
		err = xp_tcov_lcov(srcs, res->nrs, buf, len);
	else if (k == EX_COBERTURA)
		err = xp_tcov_cobertura(srcs, res->nrs, root, res->mtime, buf,
		                        len);
	else
		err = xp_tcov_sonarqube(srcs, res->nrs, root, buf, len);
	free(root);
	return err ? -2 : 0;
}

/* Writes -o's file and the exports; returns 0, -1 or -2 as above. */
static int write_outputs(const cmdline *cl, results *res)
{
	xp_tcov_src *srcs;
	int ret = 0;

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
	if (!(srcs = calloc(res->nrs, sizeof *srcs)))
		return -2;
	for (size_t i = 0; i < res->nrs; i++)
		srcs[i] = res->rs[i].src;
	for (int k = 0; k < EX_N && ret == 0; k++) {
		char *buf = NULL;
		size_t len = 0;
		if (!cl->exports[k])
			continue;
		ret = make_export(cl, res, k, srcs, &buf, &len);
		if (ret == 0 && write_out(cl->exports[k], buf, len) != 0)
			ret = -1;
		free(buf);
	}
	free(srcs);
	return ret;
}

/*
 * hit / total as a percentage with the fewest decimals, from 2 up to 9,
 * that tell it from pct (in hundredths of a percent, which hit / total
 * is below): "88.889" for 8 of 9 against 88.89, where two decimals would
 * print 88.89 for both.  Rounded half up, exactly.
 */
const char *fmt_below(char *buf, uint64_t hit, uint64_t total,
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
		lf += res->rs[i].src.lf;
		lh += res->rs[i].src.lh;
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

/* --fail-under-changed: 1 (said, with the lines not executed) when the
 * changed lines' coverage is below the gate, 0 otherwise. */
static int changed_gate(const results *res)
{
	tcov_difftot t = {0};
	for (size_t i = 0; i < res->nrs; i++)
		diffcov_add(&t, &res->rs[i].diff);
	if (!diffcov_gate(&res->diff, &t))
		return 0;
	for (size_t i = 0; i < res->nrs; i++)
		diffcov_missed(res->rs[i].arg, &res->rs[i].diff);
	return 1;
}

/*
 * Reads the profiles paths[0..n) into *cov (several: their union), the
 * newest data time into *info, updating profile directories' tcovsd
 * when update is set; returns 0, or -1 (printed).
 */
int read_profiles(const char *const *paths, size_t n, int update,
                  xp_tcov **cov, xp_tcov_info *info)
{
	xp_tcov **v = calloc(n, sizeof *v);
	xp_err err = v ? XP_E_OK : XP_E_NOMEM;
	int printed = 0;
	size_t i;

	memset(info, 0, sizeof *info);
	for (i = 0; i < n && !err; i++) {
		xp_tcov_info one;
		xp_diags *d = xp_diags_new(0);
		if (!d) {
			err = XP_E_NOMEM;
			break;
		}
		err = xp_tcov_open(paths[i], update, &v[i], &one, d);
		tool_print_diags_q(PROG, d, err, paths[i], quiet);
		printed = err != XP_E_OK;
		xp_diags_free(d);
		if (!err && one.has_mtime &&
		    (!info->has_mtime || one.mtime_sec > info->mtime_sec ||
		     (one.mtime_sec == info->mtime_sec &&
		      one.mtime_nsec > info->mtime_nsec))) {
			info->has_mtime = 1;
			info->mtime_sec = one.mtime_sec;
			info->mtime_nsec = one.mtime_nsec;
		}
	}
	if (!err && n == 1) {
		*cov = v[0];
		v[0] = NULL;
	} else if (!err) {
		err = xp_tcov_union((const xp_tcov *const *)v, n, cov);
	}
	if (err && !printed)
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(err));
	for (i = 0; v && i < n; i++)
		xp_tcov_free(v[i]);
	free(v);
	return err ? -1 : 0;
}

/* Reads the profiles and reports every source file; returns the exit
 * status. */
static int run(const cmdline *cl, results *res)
{
	xp_tcov *cov = NULL;
	xp_tcov_info info;
	int ret = -2, status = 2;

	if (read_profiles(cl->profiles, cl->n_profiles, 1, &cov, &info) != 0 ||
	    diffcov_open(&res->diff, &cl->diff) != 0) {
		xp_tcov_free(cov);
		return 2;
	}
	res->mtime = info.has_mtime ? info.mtime_sec : 0;
	if (!(res->rs = calloc((size_t)cl->nsrcs, sizeof *res->rs)) ||
	    (cl->outname &&
	     !(res->allmem = open_memstream(&res->allbuf, &res->alllen))))
		goto out;
	for (int i = 0; i < cl->nsrcs; i++)
		if ((ret = report_source(cl, cov, &info, cl->srcs[i], res)) != 0)
			goto out;
	diffcov_unreported(&res->diff, cov, cl->maps, cl->n_maps);
	if ((ret = write_outputs(cl, res)) != 0)
		goto out;
	status = cl->fail_set ? gate(cl, res) : 0;
	if (cl->diff.gate_set && changed_gate(res))
		status = 1;
	if (res->missing)
		status = 2;
out:
	if (ret == -2)
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
	xp_tcov_free(cov);
	return status;
}

/*
 * Whether the profiles' counts are PC samples (the manifest of a profile
 * directory that xprof_merge converted from a CPU or DCPI profile says
 * so): the listings then say it, a warning too, and JSON's "counts".  A
 * profile without a manifest, or whose manifest cannot be read, counts
 * executions, as feedback does.
 */
static void sampled_counts(cmdline *cl)
{
	for (size_t i = 0; i < cl->n_profiles && !cl->sampled; i++) {
		xp_diags *d = xp_diags_new(1);
		xp_manifest *man = NULL;

		if (d != NULL && strcmp(cl->profiles[i], "-") != 0 &&
		    xp_manifest_open(cl->profiles[i], &man, d) == XP_E_OK &&
		    (cl->sampled = xp_manifest_sampled(man)) != NULL) {
			cl->man = man;
			warn_file(cl->profiles[i], "the counts are PC samples of "
			          "%s, not executions: coverage is a lower "
			          "bound", cl->sampled);
		} else {
			xp_manifest_free(man);
		}
		xp_diags_free(d);
	}
}

int main(int argc, char **argv)
{
	cmdline cl = { .top_n = 10, .diff = { .strip = -1 } };
	results res = { 0 };
	int status;

	tool_catch_sigbus(PROG);
	cl.maps = calloc((size_t)argc, sizeof *cl.maps);
	cl.profiles = calloc((size_t)argc, sizeof *cl.profiles);
	cl.profile_bufs = calloc((size_t)argc, sizeof *cl.profile_bufs);
	if (!cl.maps || !cl.profiles || !cl.profile_bufs) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		status = 2;
	} else if ((status = parse_cmdline(&cl, argc, argv)) < 0) {
		sampled_counts(&cl);
		status = run(&cl, &res);
	}
	if (res.allmem)
		fclose(res.allmem);
	free(res.allbuf);
	for (size_t i = 0; i < res.nrs; i++) {
		free(res.rs[i].text);
		xp_tcov_src_free(&res.rs[i].src);
		free(res.rs[i].listing);
		diffcov_report_free(&res.rs[i].diff);
	}
	diffcov_free(&res.diff);
	free(cl.diff.baselines);
	free(res.rs);
	for (int i = 0; cl.profile_bufs && i < argc; i++)
		free(cl.profile_bufs[i]);
	free(cl.profile_bufs);
	free(cl.profiles);
	free(cl.profiles_text);
	free(cl.maps);
	xp_manifest_free(cl.man);
	return status;
}
