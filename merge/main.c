/*
 * xprof_merge - merge feedback profiles from many training runs into one.
 *
 *   xprof_merge -o OUT [options] INPUT...
 *
 * Inputs are profile directories, feedback database files or feedback
 * texts, recognised from their content, given on the command line, with
 * -w WEIGHT,PATH, or listed in @LISTFILE files (@- for standard input;
 * - is an input read from it).  They are opened, added to the merger and
 * closed one at a time, so any number of them can be merged in memory
 * proportional to the result.  Nothing is written unless every input was
 * merged, or left out by --failure-mode (drop.c); the output (a profile
 * directory, or with --text a feedback text; -o - writes the text or the
 * database file to standard output) is replaced atomically.  With
 * --accumulate the output directory is locked once the inputs are merged,
 * and its existing data, read under the lock, is one more input, so that
 * concurrent runs adding to one directory lose nothing.
 *
 * Inputs of the other formats (gmon.out, CPU, DCPI, mpatrol profiles,
 * binary or text) are summed by their module's rules with
 * xp_prof_merge(); all inputs must then be of that one format, and the
 * output is a file of it (its text form with --text), or with --feedback
 * the conversion of the sum to feedback, in a profile directory.  With
 * --accumulate the sum is added to that file under the lock of a file
 * beside it (xp_file_lock), as to a directory under its own.
 *
 * Every input is recorded in the manifest of the merge (xprof_db(5),
 * MANIFEST), which a profile directory keeps beside the database and
 * --manifest=FILE writes for the other outputs.
 *
 * Exit status: 0 on success (warnings allowed), 2 on any trouble, 3 when
 * the result was written but bad inputs were left out.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "drop.h"
#include "gcovtree.h"
#include "jobs.h"
#include "plan.h"
#include "tool.h"
#include "xprof.h"
#include "xprof_gcov.h"
#include "xprof_manifest.h"

#define PROG "xprof_merge"
#define MAX_DIAGS 100000

static const char usage_text[] =
	"usage: " PROG " -o OUT [-aq] [--text] [--mode=sum|max|min] [--mismatch=error|skip|warn]\n"
	"       [--scale=F] [--sparse] [-e EXECUTABLE] [-L LAYOUT] [--by-function] [--rescale]\n"
	"       [--failure-mode=any|all|warn] [--max-bad=N|P%] [--rejected=FILE]\n"
	"       [--feedback] [--manifest=FILE] [-j N] [-w WEIGHT,INPUT]...\n"
	"       [INPUT | @LISTFILE]...\n"
	"       " PROG " --gcda -o OUT [-e NOTES] [options] INPUT...\n"
	"       " PROG " --plan=make|ninja [--fan-in=K] [--work=DIR] -o OUT [options] INPUT...\n"
	"       " PROG " -h | -V\n";

static const char options_text[] =
	"  -o OUT                 the output profile directory (with --text, a text;\n"
	"                         - for standard output: the text or the database)\n"
	"  -a, --accumulate       add the inputs into OUT under its lock\n"
	"  -q, --quiet            print no warnings\n"
	"  -j, --jobs=N           merge feedback on N threads (default: the\n"
	"                         CPUs it may run on)\n"
	"  --text                 write a canonical feedback text\n"
	"  --mode=sum|max|min     how the weighted counts combine (default sum)\n"
	"  --mismatch=error|skip|warn\n"
	"                         what differing versions of a procedure do\n"
	"                         (default warn)\n"
	"  --scale=F              multiply every count of the result by F\n"
	"  --sparse               drop procedures whose counters are all zero\n"
	"  -w WEIGHT,INPUT        add INPUT with weight WEIGHT (others: 1)\n"
	"  -e EXECUTABLE          other formats: the executable of the profiles;\n"
	"                         --gcda: the notes (a .gcno file or a directory)\n"
	"  -L, --layout=LAYOUT    other formats: the layout of binary inputs\n"
	"  --by-function          gmon.out: merge arcs by function (needs -e)\n"
	"  --rescale              CPU profiles: rescale to a common period\n"
	"  --feedback             other formats: write the sum's conversion to\n"
	"                         feedback into OUT\n"
	"  --gcda                 write the sum of feedback from GCC data files as\n"
	"                         GCC data files: OUT, or files below it\n"
	"  --plan=make|ninja      print a Makefile or a build.ninja that merges\n"
	"                         in a tree of merges\n"
	"  --fan-in=K             a plan's merges take at most K inputs (16)\n"
	"  --work=DIR             a plan's intermediate results (OUT.work)\n"
	"  --manifest=FILE        write the manifest of an output that is not a\n"
	"                         profile directory to FILE\n"
	"  --failure-mode=any|all|warn\n"
	"                         a bad input stops the run (any, the default), or\n"
	"                         is left out, reported as an error or a warning\n"
	"  --max-bad=N|P%         fail when more than N inputs (P%) are left out\n"
	"  --rejected=FILE        write the inputs left out as a JSON list\n"
	"  -h, --help             print this help and exit\n"
	"  -V, --version          print the version and exit\n";

static int usage_error(const char *msg, const char *arg)
{
	char buf[512];
	if (arg)
		snprintf(buf, sizeof buf, "%s: %.400s", msg, arg);
	return tool_usage_error(PROG, usage_text, arg ? buf : msg);
}

/* The state of a run, passed to the helpers. */
typedef struct {
	xp_merger *m;
	int quiet;
	uint64_t done, total;
	int progress;          /* stderr is a terminal */
	int total_open;        /* the total is not known (@-) */
	int shown;             /* a progress line is on screen */
	struct timespec start, last;
	int have_type;         /* the first input's data type is known */
	xp_datatype type;
	char *objfile;         /* objfd: the object file of the inputs */
	/* The other formats. */
	int kind;              /* 0: no input yet, 1: feedback, 2: foreign */
	xp_format fmt;         /* the first input's format */
	char *first;           /* the first input's name */
	xp_prof *prof;         /* the sum so far */
	xp_load_opts lo;
	xp_prof_merge_opts pmo;
	double scale;
	unsigned njobs;        /* -j */
	jobs *pool;            /* the threads, once the first input is in */
	uint64_t pool_first;   /* the inputs looked at before them */
	int lost;              /* a note of an input left out was lost */
	int taken;             /* the input being added is in the merge */
	plan *plan;            /* --plan: the inputs are gathered */
	int gcda;              /* --gcda: feedback inputs only */
	xp_manifest *man;      /* what went in */
	drop *dr;              /* inputs that cannot be merged */
} run;

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void clear_progress(run *r)
{
	if (r->shown) {
		fputs("\r\033[K", stderr);
		r->shown = 0;
	}
}

static void show_progress(run *r)
{
	struct timespec now;
	if (!r->progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (since(&r->start, &now) < 1.0 || (r->shown && since(&r->last, &now) < 0.1))
		return;
	r->last = now;
	if (r->total_open)
		fprintf(stderr, "\r%s: %llu inputs", PROG,
		        (unsigned long long)r->done);
	else
		fprintf(stderr, "\r%s: %llu/%llu inputs", PROG,
		        (unsigned long long)r->done,
		        (unsigned long long)r->total);
	r->shown = 1;
}

/*
 * Prints diagnostics: errors always, warnings unless quiet.  A warning of
 * the merge as a whole (no file) is printed as "prog: warning: msg".
 * When nothing explains a failure, err is reported under name.
 */
static void print_diags(run *r, xp_diags *d, xp_err err, const char *name)
{
	if (xp_diags_count(d) > 0 || err != XP_E_OK)
		clear_progress(r);
	tool_print_diags_q(PROG, d, err, name, r->quiet);
}

/* What is wrong with an input of format f, not of the first input's
 * kind, in msg. */
static void clash_msg(const run *r, xp_format f, char *msg, size_t size)
{
	if (r->gcda)
		snprintf(msg, size, "--gcda writes GCC data from feedback, not "
		         "from %s", xp_format_a(f));
	else
		snprintf(msg, size, "%s cannot be merged with %s, %s",
		         xp_format_a(f), r->first, xp_format_a(r->fmt));
}

/*
 * Checks that format f is of the kind of the inputs merged so far
 * (feedback, or one foreign format).  Returns the kind (1 or 2), or -1
 * with what is wrong in msg.
 */
static int input_kind(const run *r, xp_format f, char *msg, size_t size)
{
	const char *mod = xp_format_module(f);
	int kind = mod != NULL ? 2 : 1;

	if ((r->gcda && kind == 2) || (r->kind != 0 && (kind != r->kind ||
	    (kind == 2 && strcmp(mod, xp_format_module(r->fmt)) != 0)))) {
		clash_msg(r, f, msg, size);
		return -1;
	}
	return kind;
}

/*
 * An input that could not be merged (why: d and err, or msg): the run
 * stops, or goes on without it (drop.h).  Running out of memory, or a
 * failure once the input changed the merge (r->taken), always stops the
 * run.
 */
static int bad_input(run *r, const char *path, const char *name,
                     xp_format fmt, xp_diags *d, xp_err err, const char *msg)
{
	clear_progress(r);
	if (err == XP_E_NOMEM || r->taken || xp_merger_failed(r->m)) {
		print_diags(r, d, err, name);
		return -1;
	}
	return drop_input(r->dr, PROG, path, fmt, d, err, msg);
}

/* Adds one input of a foreign format to the sum. */
static xp_err add_foreign(run *r, xp_input *in, const char *name,
                          double weight, xp_diags *d)
{
	xp_prof *p = NULL;
	xp_err err = xp_prof_open_input(in, &r->lo, &p, d);

	if (err == XP_E_OK)
		err = xp_prof_merge(&r->prof, p, weight * r->scale, &r->pmo,
		                    name, d);
	if (err == XP_E_OK) {
		r->taken = 1;
		err = xp_manifest_add_input(r->man, in, p, weight, d);
	}
	xp_prof_free(p);
	return err;
}

/* Adds one feedback input to the merger. */
static xp_err add_feedback(run *r, xp_input *in, const char *name,
                           double weight, xp_diags *d)
{
	xp_err err = xp_merger_add_input(r->m, in, weight, name, d);

	if (err == XP_E_OK) {
		r->taken = 1;
		err = xp_manifest_add_input(r->man, in, NULL, weight, d);
	}

	if (err == XP_E_OK && !r->have_type) {
		r->have_type = 1;
		r->type = xp_merger_datatype(r->m);
		const char *of = xp_merger_objfile(r->m);
		if (of && !(r->objfile = strdup(of)))
			err = XP_E_NOMEM;
	}
	xp_diags_sort(d);
	return err;
}

/* The progress of a merge on threads: done inputs merged on them. */
static void note_progress(uint64_t done, void *arg)
{
	run *r = arg;

	r->done = r->pool_first + done;
	show_progress(r);
}

/* Opens one input, recognising its format once, and adds it; returns 0
 * when the run goes on (with it, or without it when it is bad). */
static int add_input(run *r, const char *path, double weight)
{
	xp_diags *d = xp_diags_new(MAX_DIAGS);
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	xp_format fmt = XP_FMT_UNKNOWN;
	xp_input *in = NULL;
	char msg[1024];
	xp_err err = XP_E_INVAL;
	int kind = 0, st = 0;

	if (r->plan) {
		xp_diags_free(d);
		r->kind = 1;
		return plan_add(PROG, r->plan, path, weight);
	}
	drop_count(r->dr);
	r->taken = 0;
	if (r->pool) {
		xp_diags_free(d);
		kind = jobs_add(r->pool, path, name, weight);
		note_progress(jobs_done(r->pool), r);
		return kind;
	}
	if (!d) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	if ((err = xp_input_open(path, &in, d)) != XP_E_OK) {
		st = bad_input(r, path, name, fmt, d, err, NULL);
	} else if ((kind = input_kind(r, fmt = xp_input_format(in), msg,
	                              sizeof msg)) < 0) {
		err = XP_E_FORMAT;
		st = bad_input(r, path, name, fmt, NULL, err, msg);
	} else {
		err = kind == 2 ? add_foreign(r, in, name, weight, d)
		                : add_feedback(r, in, name, weight, d);
		if (err != XP_E_OK)
			st = bad_input(r, path, name, fmt, d, err, NULL);
		else
			print_diags(r, d, err, name);
	}
	if (err == XP_E_OK && r->kind == 0) {
		r->kind = kind;
		r->fmt = fmt;
		if (!(r->first = strdup(name))) {
			fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
			st = -1;
		}
	}
	xp_input_free(in);
	xp_diags_free(d);
	r->done++;
	show_progress(r);
	/* Once the first input is in, feedback goes to the threads. */
	if (st == 0 && err == XP_E_OK && kind == 1 &&
	    xp_merger_count(r->m) == 1 && r->njobs > 1) {
		r->pool_first = r->done;
		r->pool = jobs_start(r->m, r->njobs, r->done,
		                     r->dr->mode != DROP_ANY, MAX_DIAGS);
	}
	return st;
}

/* Prints what an input merged on a thread had to say, and takes note of
 * it when it was left out. */
static void print_note(const job_note *n, void *arg)
{
	run *r = arg;
	char msg[1024];

	if (n->clash != XP_FMT_UNKNOWN)
		clash_msg(r, n->clash, msg, sizeof msg);
	if (n->bad) {
		clear_progress(r);
		if (drop_input(r->dr, PROG, n->path, n->fmt,
		               n->clash != XP_FMT_UNKNOWN ? NULL : n->d, n->err,
		               n->clash != XP_FMT_UNKNOWN ? msg : NULL) != 0 &&
		    r->dr->mode != DROP_ANY)
			r->lost = 1;
	} else if (n->clash != XP_FMT_UNKNOWN) {
		clear_progress(r);
		fprintf(stderr, "%s: %s: %s\n", PROG, n->name, msg);
	} else {
		print_diags(r, n->d, n->err, n->name);
	}
}

/*
 * Before the main thread reports a problem of its own, the inputs handed
 * to the threads are merged: when one of them failed, its message is the
 * run's, as on one thread, and this returns 1.
 */
static int inputs_failed(run *r)
{
	return r->pool && jobs_wait(r->pool, print_note, note_progress, r) != 0;
}

/*
 * Adds the data that the locked output directory already holds, of the
 * inputs' data type (feedback when there were no inputs), with weight 1.
 * Absent data is not an error: the directory starts empty.
 */
static int add_existing(run *r, const char *dir)
{
	xp_datatype t = r->have_type ? r->type : XP_DT_FEEDBACK;
	if (t == XP_DT_OBJFD && !r->objfile)
		return 0;
	xp_diags *d = xp_diags_new(MAX_DIAGS);
	char *path = xp_profdir_file(dir, t, r->objfile);
	xp_fb *fb = NULL;
	if (!d || !path) {
		xp_diags_free(d);
		free(path);
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	xp_err err = xp_profdir_open(dir, t, r->objfile, &fb, d);
	if (err == XP_E_NOTFOUND && access(path, F_OK) != 0) {
		/* Nothing yet: the message about it is not a problem. */
		xp_diags_free(d);
		free(path);
		return 0;
	}
	if (err == XP_E_OK)
		err = xp_merger_add(r->m, fb, 1, path, d);
	if (err == XP_E_OK)
		err = xp_manifest_add_db(r->man, path, fb, 1, d);
	print_diags(r, d, err, path);
	xp_fb_free(fb);
	xp_diags_free(d);
	free(path);
	return err == XP_E_OK ? 0 : -1;
}

/*
 * Parses "WEIGHT,PATH".  Returns the path part, with *w set, or NULL when
 * the part before the first comma is not a positive finite number.
 */
static const char *parse_weighted(const char *s, double *w)
{
	const char *comma = strchr(s, ',');
	if (!comma || comma == s)
		return NULL;
	char buf[64];
	size_t n = (size_t)(comma - s);
	if (n >= sizeof buf)
		return NULL;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (*end != 0 || errno != 0 || !(v > 0) || !isfinite(v) ||
	    buf[0] == ' ' || buf[0] == '\t')
		return NULL;
	*w = v;
	return comma + 1;
}

/*
 * Walks a list file ("-": standard input): one input a line,
 * "WEIGHT,PATH" when the part before the first comma is a positive
 * number; blank lines and lines starting with '#' are skipped; leading
 * and trailing blanks are dropped.  With count set, only counts the
 * inputs.  Returns 0, or -1 after reporting.
 */
static int walk_list(run *r, const char *list, int count)
{
	int is_stdin = strcmp(list, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(list, "r");

	if (is_stdin)
		list = "<stdin>";
	if (!f) {
		int e = errno;
		if (inputs_failed(r))
			return -1;
		clear_progress(r);
		fprintf(stderr, "%s: %s: %s\n", PROG, list, strerror(e));
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int status = 0;
	unsigned long lineno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		char *s = line, *e = line + len;
		/* Before anything else: a NUL would end the line early and
		 * make it look blank or shorter than it is. */
		if ((size_t)len != strlen(line)) {
			status = -1;
			if (inputs_failed(r))
				break;
			clear_progress(r);
			fprintf(stderr, "%s: %s:%lu:%zu: NUL byte in the line\n",
			        PROG, list, lineno, strlen(line) + 1);
			break;
		}
		while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' ||
		                 e[-1] == '\t'))
			e--;
		*e = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == 0 || *s == '#')
			continue;
		if (count) {
			r->total++;
			continue;
		}
		double w = 1;
		const char *path = parse_weighted(s, &w);
		if (!path)
			path = s;
		if (is_stdin && strcmp(path, "-") == 0) {
			status = -1;
			if (inputs_failed(r))
				break;
			clear_progress(r);
			fprintf(stderr, "%s: %s:%lu:%zu: - names standard input, "
			        "which holds this list\n", PROG, list, lineno,
			        (size_t)(path - line) + 1);
			break;
		}
		if (add_input(r, path, w) != 0) {
			status = -1;
			break;
		}
	}
	if (status == 0 && ferror(f)) {
		int e = errno;
		status = -1;
		if (!inputs_failed(r)) {
			clear_progress(r);
			fprintf(stderr, "%s: %s: %s\n", PROG, list, strerror(e));
		}
	}
	free(line);
	if (!is_stdin)
		fclose(f);
	return status;
}

/*
 * When the inputs were given only by lists that named none, says so and
 * returns 1: nothing is written then, so an empty list never replaces
 * OUT.  (With no operand at all, only --accumulate runs, on OUT alone.)
 */
static int no_input(run *r, int n, char **ops)
{
	if (n == 0)
		return 0;
	clear_progress(r);
	fprintf(stderr, "%s: no input: ", PROG);
	for (int i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i > 0 ? ", " : "", ops[i]);
	fprintf(stderr, " %s none\n", n > 1 ? "name" : "names");
	return 1;
}

/* A whole number from lo to hi, in decimal; 0, or -1. */
static int parse_count(const char *s, unsigned long lo, unsigned long hi,
                       unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || *end != 0 || errno != 0 || v < lo || v > hi ||
	    s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return -1;
	*out = v;
	return 0;
}

static int parse_positive(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != 0 || errno != 0 || !(v > 0) || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

enum { OPT_TEXT = 256, OPT_MODE, OPT_MISMATCH, OPT_SCALE, OPT_SPARSE,
       OPT_BYFUNC, OPT_RESCALE, OPT_FEEDBACK, OPT_PLAN, OPT_FANIN, OPT_WORK,
       OPT_MANIFEST, OPT_GCDA };

static const struct option long_opts[] = {
	{"output", required_argument, NULL, 'o'},
	{"accumulate", no_argument, NULL, 'a'},
	{"quiet", no_argument, NULL, 'q'},
	{"text", no_argument, NULL, OPT_TEXT},
	{"mode", required_argument, NULL, OPT_MODE},
	{"mismatch", required_argument, NULL, OPT_MISMATCH},
	{"scale", required_argument, NULL, OPT_SCALE},
	{"sparse", no_argument, NULL, OPT_SPARSE},
	{"layout", required_argument, NULL, 'L'},
	{"by-function", no_argument, NULL, OPT_BYFUNC},
	{"rescale", no_argument, NULL, OPT_RESCALE},
	{"feedback", no_argument, NULL, OPT_FEEDBACK},
	{"gcda", no_argument, NULL, OPT_GCDA},
	{"manifest", required_argument, NULL, OPT_MANIFEST},
	{"weight", required_argument, NULL, 'w'},
	{"jobs", required_argument, NULL, 'j'},
	{"plan", required_argument, NULL, OPT_PLAN},
	{"fan-in", required_argument, NULL, OPT_FANIN},
	{"work", required_argument, NULL, OPT_WORK},
	DROP_LONGOPTS,
	TOOL_LONGOPTS_END
};

/* The command line. */
typedef struct {
	xp_merge_opts mo;
	const char *out;
	int accumulate, text, quiet, to_feedback, gcda;
	unsigned jobs;          /* -j */
	/* --plan, and the arguments of the options the plan passes on. */
	xp_plan_kind plan;
	unsigned long fan_in;
	const char *work, *mode_s, *mismatch_s, *scale_s, *jobs_s;
	const char *fb_only;    /* an option for feedback inputs only */
	xp_load_opts lo;
	xp_prof_merge_opts pmo;
	const char *manifest;   /* --manifest */
	const char *scale;      /* --scale as given */
	const char **weighted;  /* the -w arguments */
	size_t nweighted;
	int first_op, argc;     /* the operands: argv[first_op .. argc - 1] */
	char **argv;
	drop dr;                /* --failure-mode, --max-bad, --rejected */
} cmdline;

/* One option of the mode or mismatch kind: the index of arg in names,
 * or -1. */
static int keyword(const char *arg, const char *const *names)
{
	for (int i = 0; names[i] != NULL; i++)
		if (strcmp(arg, names[i]) == 0)
			return i;
	return -1;
}

/* Applies option c (argument optarg); returns -1 to go on, or the exit
 * status. */
static int option(cmdline *cl, int c)
{
	static const char *const modes[] = { "sum", "max", "min", NULL };
	static const xp_merge_mode mode_of[] = { XP_MERGE_SUM, XP_MERGE_MAX,
	                                         XP_MERGE_MIN };
	static const char *const policies[] = { "error", "skip", "warn",
	                                        NULL };
	static const xp_mismatch policy_of[] = { XP_MISMATCH_ERROR,
	                                         XP_MISMATCH_SKIP,
	                                         XP_MISMATCH_WARN };
	static const char *const plans[] = { "make", "ninja", NULL };
	double w;
	int k;

	switch (c) {
	case 'o':
		cl->out = optarg;
		break;
	case 'a':
		cl->accumulate = 1;
		break;
	case 'q':
		cl->quiet = 1;
		break;
	case 'j':
		cl->jobs_s = optarg;
		if ((k = tool_jobs_option(PROG, usage_text, optarg,
		                          &cl->jobs)) != 0)
			return k;
		break;
	case OPT_PLAN:
		if ((k = keyword(optarg, plans)) < 0)
			return usage_error("unknown kind of plan", optarg);
		cl->plan = k == 0 ? XP_PLAN_MAKE : XP_PLAN_NINJA;
		break;
	case OPT_FANIN:
		if (parse_count(optarg, 2, 1u << 20, &cl->fan_in) != 0)
			return usage_error("--fan-in needs a number of inputs "
			                   "from 2", optarg);
		break;
	case OPT_WORK:
		cl->work = optarg;
		break;
	case 'w':
		if (!parse_weighted(optarg, &w))
			return usage_error("-w needs WEIGHT,INPUT with a positive "
			                   "weight", optarg);
		cl->weighted[cl->nweighted++] = optarg;
		break;
	case OPT_TEXT:
		cl->text = 1;
		break;
	case 'e':
		cl->lo.exe = cl->pmo.exe = optarg;
		break;
	case 'L':
		cl->lo.layout = optarg;
		break;
	case OPT_BYFUNC:
		cl->pmo.by_function = 1;
		break;
	case OPT_RESCALE:
		cl->pmo.rescale = 1;
		break;
	case OPT_FEEDBACK:
		cl->to_feedback = 1;
		break;
	case OPT_GCDA:
		cl->gcda = 1;
		break;
	case OPT_MANIFEST:
		cl->manifest = optarg;
		break;
	case OPT_MODE:
		/* Feedback and the formats whose merge takes it (the library
		 * refuses it for the others). */
		if ((k = keyword(optarg, modes)) < 0)
			return usage_error("unknown mode", optarg);
		cl->mo.mode = cl->pmo.mode = mode_of[k];
		cl->mode_s = optarg;
		break;
	case OPT_MISMATCH:
		cl->fb_only = "--mismatch";
		if ((k = keyword(optarg, policies)) < 0)
			return usage_error("unknown mismatch policy", optarg);
		cl->mo.mismatch = policy_of[k];
		cl->mismatch_s = optarg;
		break;
	case OPT_SCALE:
		if (parse_positive(optarg, &cl->mo.scale) != 0)
			return usage_error("--scale needs a positive number",
			                   optarg);
		cl->scale_s = optarg;
		break;
	case OPT_SPARSE:
		cl->fb_only = "--sparse";
		cl->mo.sparse = 1;
		break;
	case DROP_OPT_MODE:
	case DROP_OPT_MAX:
	case DROP_OPT_REJECTED:
		return drop_option(&cl->dr, c, optarg, PROG, usage_text);
	default:
		return tool_other_option(PROG, usage_text, options_text, c,
		                         cl->argv);
	}
	return -1;
}

/* How many inputs and lists read standard input (-, @-, -w W,-). */
static int stdin_users(const cmdline *cl)
{
	int n = 0;
	double w;

	for (size_t i = 0; i < cl->nweighted; i++)
		n += strcmp(parse_weighted(cl->weighted[i], &w), "-") == 0;
	for (int i = cl->first_op; i < cl->argc; i++)
		n += strcmp(cl->argv[i], "-") == 0 ||
		     strcmp(cl->argv[i], "@-") == 0;
	return n;
}

/* What --gcda cannot go with on cl, or NULL. */
static const char *gcda_conflict(const cmdline *cl)
{
	if (!cl->gcda)
		return NULL;
	if (cl->text)
		return "--gcda writes GCC data files, not --text";
	if (cl->to_feedback)
		return "--gcda writes GCC data from feedback; --feedback writes "
		       "feedback from other formats";
	if (cl->plan)
		return "--gcda cannot be part of a plan";
	if (cl->accumulate)
		return "--accumulate adds to a profile directory or a file of "
		       "the inputs' format, not to --gcda";
	return NULL;
}

/* Parses the command line into cl; returns -1 to go on, or the exit
 * status. */
static int parse_cmdline(cmdline *cl, int argc, char **argv)
{
	const char *msg;
	int c, st;

	cl->argc = argc;
	cl->argv = argv;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:aqw:e:L:j:hV", long_opts,
	                        NULL)) != -1)
		if ((st = option(cl, c)) >= 0)
			return st;
	cl->first_op = optind;
	if (!cl->out)
		return usage_error("missing -o OUT", NULL);
	if (cl->out[0] == '\0')
		return usage_error("empty output name", NULL);
	if (cl->accumulate && cl->text)
		return usage_error("--accumulate adds to a profile directory or "
		                   "a file of the inputs' format, not to --text",
		                   NULL);
	if (!cl->accumulate && optind == argc && cl->nweighted == 0)
		return usage_error("no input", NULL);
	if (cl->plan && cl->accumulate)
		return usage_error("--accumulate cannot be part of a plan", NULL);
	if (cl->accumulate && cl->to_feedback)
		return usage_error("--accumulate adds feedback to a profile "
		                   "directory; --feedback is for other formats",
		                   NULL);
	if (cl->accumulate && strcmp(cl->out, "-") == 0)
		return usage_error("--accumulate needs a profile directory or a "
		                   "file, not standard output", NULL);
	if ((msg = gcda_conflict(cl)) != NULL)
		return usage_error(msg, NULL);
	if (cl->plan && (cl->dr.mode_given || cl->dr.max_bad || cl->dr.rejected))
		return usage_error("--failure-mode, --max-bad and --rejected "
		                   "cannot be part of a plan", NULL);
	if (stdin_users(cl) > 1)
		return usage_error("standard input can be read once: give - or "
		                   "@- once", NULL);
	return drop_check(&cl->dr, cl->out, PROG, usage_text);
}

/* Adds every input: the -w ones, then the operands (list files read
 * through).  Returns 0, or -1 after printing what went wrong. */
static int add_inputs(run *r, const cmdline *cl)
{
	/* Count the inputs for the progress line. */
	r->total = cl->nweighted;
	for (int i = cl->first_op; i < cl->argc; i++) {
		if (strcmp(cl->argv[i], "@-") == 0) {
			r->total_open = 1;
		} else if (cl->argv[i][0] == '@') {
			if (r->progress && walk_list(r, cl->argv[i] + 1, 1) != 0)
				return -1;
		} else {
			r->total++;
		}
	}
	for (size_t i = 0; i < cl->nweighted; i++) {
		double w = 1;
		const char *path = parse_weighted(cl->weighted[i], &w);
		if (add_input(r, path, w) != 0)
			return -1;
	}
	for (int i = cl->first_op; i < cl->argc; i++) {
		if (cl->argv[i][0] == '@') {
			if (walk_list(r, cl->argv[i] + 1, 0) != 0)
				return -1;
		} else if (add_input(r, cl->argv[i], 1) != 0) {
			return -1;
		}
	}
	if (r->kind == 0 && r->dr->inputs == 0 &&
	    no_input(r, cl->argc - cl->first_op, cl->argv + cl->first_op))
		return -1;
	return 0;
}

/*
 * The end of a merge on threads: what the inputs said, in input order,
 * then the threads' merges reduced into r->m.  ok: the main thread's
 * part went well.  Returns 0, or -1 after printing what went wrong.
 */
static int finish_jobs(run *r, int ok)
{
	xp_diags *d;
	xp_err err = XP_E_NOMEM;

	if (!r->pool)
		return ok ? 0 : -1;
	if (jobs_wait(r->pool, print_note, note_progress, r) != 0 || !ok)
		return -1;
	if ((d = xp_diags_new(MAX_DIAGS)) != NULL)
		err = jobs_reduce(r->pool, r->man, d);
	print_diags(r, d, err, r->first);
	xp_diags_free(d);
	return err == XP_E_OK ? 0 : -1;
}

/*
 * Records the options that shaped the result in the manifest, and for an
 * output that is no profile directory writes it to --manifest's FILE
 * (dir: the output is one).  Returns 0, or -1 after printing what went
 * wrong.
 */
static int manifest_options(run *r, const cmdline *cl, int dir)
{
	static const char *const modes[] = { "sum", "max", "min" };
	static const char *const policies[] = { "error", "skip", "warn" };
	const char *fb[][2] = {
		{ "accumulate", cl->accumulate ? "1" : "0" },
		{ "gcda", cl->gcda ? "1" : NULL },
		{ "mismatch", policies[cl->mo.mismatch] },
		{ "mode", modes[cl->mo.mode] },
		{ "notes", cl->gcda ? cl->lo.exe : NULL },
		{ "sparse", cl->mo.sparse ? "1" : "0" },
	}, *other[][2] = {
		{ "accumulate", cl->accumulate ? "1" : NULL },
		{ "by-function", cl->pmo.by_function ? "1" : "0" },
		{ "exe", cl->lo.exe }, { "feedback", cl->to_feedback ? "1" : "0" },
		{ "layout", cl->lo.layout },
		{ "rescale", cl->pmo.rescale ? "1" : "0" },
	};
	xp_err err = xp_manifest_option(r->man, "scale",
	                                cl->scale_s ? cl->scale_s : "1");
	size_t n = r->kind == 2 ? sizeof other / sizeof other[0]
	                        : sizeof fb / sizeof fb[0];

	for (size_t i = 0; i < n && err == XP_E_OK; i++) {
		const char *const *o = r->kind == 2 ? other[i] : fb[i];
		if (o[1] != NULL)
			err = xp_manifest_option(r->man, o[0], o[1]);
	}
	if (err != XP_E_OK) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(err));
		return -1;
	}
	if (cl->manifest && dir) {
		fprintf(stderr, "%s: --manifest is for outputs that are not "
		        "profile directories; %s keeps its own\n", PROG, cl->out);
		return -1;
	}
	return 0;
}

/* Writes the manifest to --manifest's FILE, if given, once the output
 * is written.  Returns the exit status. */
static int write_manifest_file(run *r, const cmdline *cl)
{
	xp_diags *d;
	xp_err err;

	if (!cl->manifest)
		return 0;
	if ((d = xp_diags_new(MAX_DIAGS)) == NULL) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	err = xp_manifest_write_file(r->man, cl->manifest, d);
	print_diags(r, d, err, cl->manifest);
	xp_diags_free(d);
	return err == XP_E_OK ? 0 : 2;
}

/*
 * --accumulate into a file of the inputs' format: once the inputs are
 * summed, the file's lock is taken (xp_file_lock: OUT.lock) and the file,
 * if there is one, is added as one more input of weight 1, so that runs
 * that add to one file take turns and lose nothing.  A file that cannot
 * be read or is of another format stops the run: it stays as it was.
 * Returns 0, or -1 after printing what went wrong.
 */
static int add_existing_file(run *r, const char *out, xp_lock **lock)
{
	xp_diags *d = xp_diags_new(0);
	xp_input *in = NULL;
	struct stat st;
	char msg[1024];
	xp_err err;

	if (d == NULL) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	if (stat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s: --accumulate needs a regular file\n",
		        PROG, out);
		xp_diags_free(d);
		return -1;
	}
	/* Read under the lock: absent, the sum starts here.  Unlike an
	 * input, a file that cannot be added is never left out
	 * (--failure-mode): the sum would replace it. */
	err = xp_file_lock(out, lock, d);
	if (err == XP_E_OK && !(stat(out, &st) != 0 && errno == ENOENT))
		err = xp_input_open(out, &in, d);
	if (in != NULL && input_kind(r, xp_input_format(in), msg,
	                             sizeof msg) < 0) {
		clear_progress(r);
		fprintf(stderr, "%s: %s: %s\n", PROG, out, msg);
		err = XP_E_FORMAT;
	} else if (in != NULL) {
		err = add_foreign(r, in, out, 1, d);
		print_diags(r, d, err, out);
	} else {
		print_diags(r, d, err, out);
	}
	xp_input_free(in);
	xp_diags_free(d);
	return err == XP_E_OK ? 0 : -1;
}

/* Writes feedback to a file, its text (--text) or, to standard output,
 * its database, and then the manifest to --manifest's FILE.  Returns the
 * exit status. */
static int write_fb_file(run *r, const cmdline *cl, const xp_fb *fb)
{
	int st = cl->text ? tool_write_text(PROG, fb, cl->out)
	                  : tool_write_db(PROG, fb, cl->out);

	return st != 0 ? 2 : write_manifest_file(r, cl);
}

/* Writes the sum of inputs of a foreign format (with --accumulate, added
 * to OUT under its lock, which *lock then holds), or its conversion to
 * feedback.  Returns the exit status. */
static int write_foreign(run *r, const cmdline *cl, xp_lock **lock)
{
	xp_conv_opts co = { .exe = cl->lo.exe };
	xp_diags *d;
	xp_fb *res = NULL;
	xp_err err;
	int status = 2;

	clear_progress(r);
	if (cl->fb_only) {
		fprintf(stderr, "%s: %s applies to feedback, not to %s\n", PROG,
		        cl->fb_only, xp_format_a(r->fmt));
		return 2;
	}
	if (manifest_options(r, cl, cl->to_feedback && !cl->text &&
	                     strcmp(cl->out, "-") != 0) != 0)
		return 2;
	if (cl->accumulate && add_existing_file(r, cl->out, lock) != 0)
		return 2;
	if (!cl->to_feedback)
		return tool_write_prof(PROG, r->prof, cl->text, cl->out) != 0 ?
		       2 : write_manifest_file(r, cl);
	if ((d = xp_diags_new(MAX_DIAGS)) == NULL) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	err = xp_prof_to_feedback(r->prof, &co, &res, d);
	print_diags(r, d, err, r->first);
	xp_diags_free(d);
	if (err)
		goto out;
	if (cl->text || strcmp(cl->out, "-") == 0) {
		status = write_fb_file(r, cl, res);
	} else if ((d = xp_diags_new(MAX_DIAGS)) != NULL) {
		err = xp_profdir_write_manifest(cl->out, res, r->man, d);
		print_diags(r, d, err, cl->out);
		xp_diags_free(d);
		status = err ? 2 : 0;
	}
out:
	xp_fb_free(res);
	return status;
}

/*
 * --gcda: each object file of the merged feedback res as a GCC data file
 * with its notes (-e, or beside its path): OUT itself when there is one
 * and OUT is no directory, else OUT/PATH for each object file's relative
 * path.  Every file is made before any is written.  Returns 0, or -1
 * after printing what went wrong.
 */
static int write_gcda_files(run *r, const cmdline *cl, const xp_fb *res)
{
	uint32_t n = xp_fb_count(res, XP_T_OBJFILES);
	int tree = n > 1 || gcovtree_is_dir(cl->out), st = 0;
	xp_prof **profs = calloc((size_t)n + 1, sizeof *profs);
	const char **rel = calloc((size_t)n + 1, sizeof *rel);
	xp_diags *d;

	if (profs == NULL || rel == NULL) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		st = -1;
	} else if (n == 0 || xp_fb_datatype(res) != XP_DT_FEEDBACK) {
		fprintf(stderr, "%s: %s: the merged %s holds no object file of "
		        "GCC data\n", PROG, cl->out,
		        xp_datatype_name(xp_fb_datatype(res)));
		st = -1;
	} else if (tree && strcmp(cl->out, "-") == 0) {
		fprintf(stderr, "%s: -o - takes one object file; the merged "
		        "feedback has %u\n", PROG, n);
		st = -1;
	}
	for (uint32_t i = 0; st == 0 && i < n; i++) {
		xp_objfile of;
		xp_fb_objfile(res, i, &of);
		rel[i] = xp_fb_str(res, of.path);
		if (tree && !gcovtree_rel_ok(rel[i])) {
			fprintf(stderr, "%s: OBJFILE %s: not a relative path "
			        "below %s\n", PROG, rel[i], cl->out);
			st = -1;
		} else if ((d = xp_diags_new(MAX_DIAGS)) == NULL) {
			fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
			st = -1;
		} else {
			xp_err err = xp_gcov_data_from_feedback(res, i, cl->lo.exe,
			                                        &profs[i], d);
			print_diags(r, d, err, rel[i]);
			xp_diags_free(d);
			st = err == XP_E_OK ? 0 : -1;
		}
	}
	if (st == 0)
		st = tree ? gcovtree_write(PROG, cl->out, profs, rel, n)
		          : tool_write_prof(PROG, profs[0], 0, cl->out);
	for (uint32_t i = 0; profs != NULL && i < n; i++)
		xp_prof_free(profs[i]);
	free(profs);
	free(rel);
	return st;
}

/* --gcda: the merged feedback as GCC data files, then the manifest to
 * --manifest's FILE.  Returns the exit status. */
static int write_gcda(run *r, const cmdline *cl, xp_diags *d)
{
	xp_fb *res = NULL;
	xp_err err = xp_merger_finish(r->m, &res, d);
	int status = 2;

	print_diags(r, d, err, cl->out);
	if (err == XP_E_OK && write_gcda_files(r, cl, res) == 0)
		status = write_manifest_file(r, cl);
	xp_fb_free(res);
	return status;
}

/* Writes the merged feedback: a database as the merger produces it
 * (with -a, under the output directory's lock, its data added first), or
 * a text, or to standard output a database file.  Returns the exit
 * status. */
static int write_feedback(run *r, const cmdline *cl, xp_lock **lock,
                          xp_diags *d)
{
	xp_fb *res = NULL;
	xp_err err;
	int status = 2;
	char list[512];

	if ((cl->lo.exe && !cl->gcda) || cl->lo.layout || cl->pmo.by_function ||
	    cl->pmo.rescale) {
		clear_progress(r);
		xp_format_list(list, sizeof list, "or");
		fprintf(stderr, "%s: -e, -L, --by-function and --rescale apply "
		        "to %s\n", PROG, list);
		return 2;
	}
	if (manifest_options(r, cl, !cl->text && !cl->gcda &&
	                     strcmp(cl->out, "-") != 0) != 0)
		return 2;
	if (cl->gcda)
		return write_gcda(r, cl, d);
	/* The lock is taken once the inputs are merged, so that a bad
	 * input creates no directory; the existing data is read and
	 * replaced under it, which is all that concurrent runs need. */
	if (cl->accumulate) {
		if ((err = xp_profdir_lock(cl->out, 1, lock, d)) != XP_E_OK) {
			print_diags(r, d, err, cl->out);
			return 2;
		}
		if (add_existing(r, cl->out) != 0)
			return 2;
	}
	clear_progress(r);
	if (!cl->text && strcmp(cl->out, "-") != 0) {
		xp_merger_set_manifest(r->m, r->man);
		err = cl->accumulate ? xp_merger_write_locked(r->m, *lock, d)
		                     : xp_merger_write(r->m, cl->out, d);
		print_diags(r, d, err, cl->out);
		return err == XP_E_OK ? 0 : 2;
	}
	err = xp_merger_finish(r->m, &res, d);
	print_diags(r, d, err, cl->out);
	if (err == XP_E_OK)
		status = write_fb_file(r, cl, res);
	xp_fb_free(res);
	return status;
}

/* The argument list of one option, and its argument when it has one. */
static void plan_arg(const char **v, size_t *n, const char *opt,
                     const char *arg)
{
	v[(*n)++] = opt;
	if (arg)
		v[(*n)++] = arg;
}

/*
 * --plan: every merge of the tree gets the options that act on each
 * merge, the last one those that act once on the whole result; weights
 * are applied where the inputs are read.  Returns the exit status.
 */
static int run_plan(run *r, const cmdline *cl, const char *merge)
{
	plan p = { .o = { cl->plan, cl->fan_in ? (unsigned)cl->fan_in : 16,
	                  merge, cl->out, cl->work, NULL, 0, NULL, 0, NULL, 0 } };
	size_t ne = 0, nr = 0;
	int status = 2;

	if (cl->quiet)
		plan_arg(p.every, &ne, "-q", NULL);
	if (cl->mode_s)
		plan_arg(p.every, &ne, "--mode", cl->mode_s);
	if (cl->mismatch_s)
		plan_arg(p.every, &ne, "--mismatch", cl->mismatch_s);
	if (cl->jobs_s)
		plan_arg(p.every, &ne, "-j", cl->jobs_s);
	if (cl->lo.exe)
		plan_arg(p.every, &ne, "-e", cl->lo.exe);
	if (cl->lo.layout)
		plan_arg(p.every, &ne, "-L", cl->lo.layout);
	if (cl->pmo.by_function)
		plan_arg(p.every, &ne, "--by-function", NULL);
	if (cl->pmo.rescale)
		plan_arg(p.every, &ne, "--rescale", NULL);
	if (cl->scale_s)
		plan_arg(p.root, &nr, "--scale", cl->scale_s);
	if (cl->mo.sparse)
		plan_arg(p.root, &nr, "--sparse", NULL);
	if (cl->text)
		plan_arg(p.root, &nr, "--text", NULL);
	if (cl->to_feedback)
		plan_arg(p.root, &nr, "--feedback", NULL);
	p.o.every = p.every;
	p.o.n_every = ne;
	p.o.root = p.root;
	p.o.n_root = nr;
	r->plan = &p;
	if (add_inputs(r, cl) == 0)
		status = plan_print(PROG, &p);
	r->plan = NULL;
	plan_free(&p);
	return status;
}

/*
 * Trees of GCC data files (gcovtree.c): when an input is one, every input
 * must be one.  Returns -1 when the inputs are no trees, otherwise the
 * exit status.
 */
static int merge_trees(const cmdline *cl)
{
	size_t n = cl->nweighted + (size_t)(cl->argc - cl->first_op), k = 0;
	gcovtree_input *in = calloc(n + 1, sizeof *in);
	gcovtree_opts o = { cl->out, cl->accumulate, cl->to_feedback,
	                    cl->quiet, cl->lo.exe, cl->mo.scale, cl->pmo,
	                    in, n };
	int trees = 0, status = 2;

	if (in == NULL) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	for (size_t i = 0; i < cl->nweighted; i++)
		in[k].path = parse_weighted(cl->weighted[i], &in[k].weight), k++;
	for (int i = cl->first_op; i < cl->argc; i++, k++) {
		in[k].path = cl->argv[i];
		in[k].weight = 1;
	}
	for (k = 0; k < n && !trees; k++)
		trees = gcovtree_is_tree(in[k].path);
	if (!trees) {
		free(in);
		return -1;
	}
	if (cl->gcda) {
		fprintf(stderr, "%s: %s: a tree of GCC data files: --gcda writes "
		        "GCC data from feedback (convert the tree with "
		        "--feedback first)\n", PROG, in[k - 1].path);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (!gcovtree_is_dir(in[i].path)) {
			fprintf(stderr, "%s: %s: not a directory: the other inputs "
			        "are trees of GCC data files\n", PROG, in[i].path);
			goto out;
		}
	if (cl->text || cl->plan || cl->fb_only || cl->manifest ||
	    cl->lo.layout || (cl->lo.exe && !cl->to_feedback))
		fprintf(stderr, "%s: trees of GCC data files take -a, -q, -w, "
		        "--mode, --scale, and -e with --feedback only\n", PROG);
	else
		status = gcovtree_run(PROG, &o);
out:
	free(in);
	return status;
}

int main(int argc, char **argv)
{
	xp_sym *exe_sym = NULL;
	cmdline cl = { .mo = { .mode = XP_MERGE_SUM,
	                       .mismatch = XP_MISMATCH_WARN, .scale = 1 } };
	run r = { 0 };
	xp_diags *d = NULL;
	xp_lock *lock = NULL;
	int status = 2;

#ifdef M_MMAP_THRESHOLD
	/*
	 * A merge makes the arrays of a new sum and frees the old one's for
	 * every input.  Kept in the heap and not handed back to the system,
	 * their pages are used again instead of being faulted in anew: a
	 * tenth of the time of merging gmon.out files and CPU profiles.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
	tool_catch_sigbus(PROG);
	if (!(cl.weighted = calloc((size_t)argc + 1, sizeof *cl.weighted))) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	if ((status = parse_cmdline(&cl, argc, argv)) >= 0) {
		free(cl.weighted);
		return status;
	}
	if ((status = merge_trees(&cl)) >= 0) {
		free(cl.weighted);
		return status;
	}
	status = 2;
	r.quiet = cl.quiet;
	/* By default one thread per CPU; --mismatch=error on one thread,
	 * so that the first mismatch in input order is the one reported. */
	if (cl.jobs == 0)
		cl.jobs = tool_default_jobs();
	r.njobs = cl.mo.mismatch == XP_MISMATCH_ERROR ? 1 : (unsigned)cl.jobs;
	cl.mo.threads = r.njobs;
	r.lo = cl.lo;
	r.pmo = cl.pmo;
	r.scale = cl.mo.scale;
	r.gcda = cl.gcda;
	if (cl.plan) {
		status = run_plan(&r, &cl, argv[0]);
		free(cl.weighted);
		return status;
	}
	r.progress = isatty(STDERR_FILENO);
	r.dr = &cl.dr;
	cl.dr.quiet = cl.quiet;
	clock_gettime(CLOCK_MONOTONIC, &r.start);
	r.m = xp_merger_new(&cl.mo);
	r.man = xp_manifest_new(PROG, XP_VERSION_STRING);
	d = xp_diags_new(MAX_DIAGS);
	/* The executable's symbols once for every input compared with it
	 * or merged by function; when they cannot be read, each input says
	 * so as it opens.  (With --gcda, -e names notes.) */
	if (cl.lo.exe && !cl.gcda) {
		xp_diags *sd = xp_diags_new(MAX_DIAGS);
		if (sd && xp_sym_open(cl.lo.exe, &exe_sym, sd) == XP_E_OK)
			cl.lo.exe_sym = r.lo.exe_sym = r.pmo.exe_sym = exe_sym;
		xp_diags_free(sd);
	}
	if (!r.m || !r.man || !d)
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
	else if (finish_jobs(&r, add_inputs(&r, &cl) == 0) == 0 && !r.lost &&
	         drop_verdict(&cl.dr, PROG) == 0)
		status = r.kind == 2 ? write_foreign(&r, &cl, &lock)
		                     : write_feedback(&r, &cl, &lock, d);
	jobs_free(r.pool);
	clear_progress(&r);
	if (status != 0)
		xp_profdir_unlock_failed(lock);
	else
		xp_profdir_unlock(lock);
	xp_merger_free(r.m);
	xp_manifest_free(r.man);
	xp_sym_free(exe_sym);
	xp_diags_free(d);
	free(cl.weighted);
	free(r.objfile);
	free(r.first);
	xp_prof_free(r.prof);
	if (status == 0 && tool_flush_stdout(PROG) != 0)
		status = 2;
	/* The list is written whatever happened once inputs were read. */
	if (r.m && d && drop_write(&cl.dr, PROG) != 0)
		status = 2;
	drop_free(&cl.dr);
	return status == 0 && cl.dr.bad > 0 ? 3 : status;
}
