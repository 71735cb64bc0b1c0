/*
 * tool.c - the printing and command-line helpers the xprof tools share
 * (see tool.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"

void tool_print_diags(const char *prog, xp_diags *d, xp_err err,
                      const char *name)
{
	tool_print_diags_q(prog, d, err, name, 0);
}

void tool_print_diags_q(const char *prog, xp_diags *d, xp_err err,
                        const char *name, int quiet)
{
	size_t n, nerr = 0;

	xp_diags_sort(d);
	n = xp_diags_count(d);
	for (size_t i = 0; i < n; i++) {
		const xp_diag *dg = xp_diags_get(d, i);
		if (quiet && dg->severity == XP_SEV_WARNING)
			continue;
		char *s = xp_diag_format(dg, prog);

		if (s == NULL) {
			fprintf(stderr, "%s: %s\n", prog, xp_strerror(XP_E_NOMEM));
			return;
		}
		fputs(s, stderr);
		free(s);
		if (dg->severity == XP_SEV_ERROR)
			nerr++;
	}
	if (err == XP_E_OK)
		return;
	if (nerr == 0)
		fprintf(stderr, "%s: %s: %s\n", prog, name, xp_strerror(err));
	else if (xp_diags_full(d) || xp_diags_dropped(d) > 0)
		fprintf(stderr, "%s: too many errors, stopping\n", prog);
}

int tool_usage_error(const char *prog, const char *usage_text,
                     const char *msg)
{
	fprintf(stderr, "%s: %s\n", prog, msg);
	fputs(usage_text, stderr);
	return 2;
}

int tool_option_error(const char *prog, const char *usage_text, int ret,
                      int opt, const char *arg)
{
	char name[112];
	if (arg && strncmp(arg, "--", 2) == 0)
		snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
	else if (opt > ' ' && opt < 127)
		snprintf(name, sizeof name, "-%c", opt);
	else
		snprintf(name, sizeof name, "%.100s", arg ? arg : "?");
	char msg[160];
	if (ret == ':')
		snprintf(msg, sizeof msg, "option %s needs an argument", name);
	else
		snprintf(msg, sizeof msg, "unknown option %s", name);
	return tool_usage_error(prog, usage_text, msg);
}

/* A count: 1 to 9 decimal digits.  Returns 0 on success, -1 otherwise. */
static int tool_parse_count(const char *s, size_t *out)
{
	size_t v = 0, digits = 0;

	for (; *s; s++, digits++) {
		if (*s < '0' || *s > '9' || digits >= 9)
			return -1;
		v = v * 10 + (size_t)(*s - '0');
	}
	if (digits == 0)
		return -1;
	*out = v;
	return 0;
}

int tool_other_option(const char *prog, const char *usage_text,
                      const char *options_text, int c, char **argv)
{
	if (c == 'h')
		return tool_help(usage_text, options_text);
	if (c == 'V')
		return tool_version(prog);
	return tool_option_error(prog, usage_text, c, optopt,
	                         argv[optind - 1]);
}

int tool_keep_default(const char *prog, const char *path, const char *what)
{
	struct stat st;

	if (lstat(path, &st) != 0 && errno == ENOENT)
		return 0;
	fprintf(stderr, "%s: %s: %s exists; name it as the second operand "
	        "to replace it\n", prog, path, what);
	return 2;
}

int tool_help(const char *usage_text, const char *options_text)
{
	fputs(usage_text, stdout);
	fputs("\nOptions:\n", stdout);
	fputs(options_text, stdout);
	return fflush(stdout) != 0 ? 2 : 0;
}

int tool_version(const char *prog)
{
	printf("%s %s\n", prog, XP_VERSION_STRING);
	return fflush(stdout) != 0 ? 2 : 0;
}

int tool_format_choice(const char *prog, const char *usage_text,
                       const char *arg, const char *const *names, int *out)
{
	char msg[240];
	size_t n = 0, len;

	for (n = 0; names[n] != NULL; n++)
		if (strcmp(arg, names[n]) == 0) {
			*out = (int)n;
			return 0;
		}
	len = (size_t)snprintf(msg, sizeof msg,
	                       "unknown format '%.100s' (use ", arg);
	for (size_t i = 0; i < n && len < sizeof msg; i++)
		len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s",
		                        i == 0 ? "" : i + 1 < n ? ", " : " or ",
		                        names[i]);
	if (len < sizeof msg)
		snprintf(msg + len, sizeof msg - len, ")");
	return tool_usage_error(prog, usage_text, msg);
}

int tool_format_option(const char *prog, const char *usage_text,
                       const char *arg, int *json)
{
	static const char *const names[] = { "text", "json", NULL };

	return tool_format_choice(prog, usage_text, arg, names, json);
}

int tool_count_option(const char *prog, const char *usage_text,
                      const char *opt, const char *arg, size_t *out)
{
	if (tool_parse_count(arg, out) == 0)
		return 0;
	char msg[160];
	snprintf(msg, sizeof msg, "invalid number '%.100s' for %s", arg, opt);
	return tool_usage_error(prog, usage_text, msg);
}

int tool_jobs_option(const char *prog, const char *usage_text,
                     const char *arg, unsigned *out)
{
	size_t v;
	if (tool_parse_count(arg, &v) == 0 && v >= 1 && v <= TOOL_MAX_JOBS) {
		*out = (unsigned)v;
		return 0;
	}
	char msg[480];
	snprintf(msg, sizeof msg, "-j needs a number of threads from 1 to %d: "
	         "%.400s", TOOL_MAX_JOBS, arg);
	return tool_usage_error(prog, usage_text, msg);
}

unsigned tool_default_jobs(void)
{
	cpu_set_t set;
	long cpus = sched_getaffinity(0, sizeof set, &set) == 0
	                ? CPU_COUNT(&set)
	                : sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1)
		return 1;
	return cpus < TOOL_MAX_JOBS ? (unsigned)cpus : TOOL_MAX_JOBS;
}

void tool_tab_init(tool_table *t, int ncols, int nleft)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols < TOOL_TAB_MAXCOLS ? ncols : TOOL_TAB_MAXCOLS;
	t->nleft = nleft;
}

void tool_tab_row(tool_table *t, const char *const *cells)
{
	if (t->failed)
		return;
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		char **c = realloc(t->cells, cap * (size_t)t->ncols * sizeof *c);
		if (c == NULL) {
			t->failed = 1;
			return;
		}
		t->cells = c;
		t->cap = cap;
	}
	for (int i = 0; i < t->ncols; i++) {
		char *s = strdup(cells[i]);
		if (s == NULL) {
			while (i-- > 0)
				free(t->cells[t->nrows * (size_t)t->ncols + (size_t)i]);
			t->failed = 1;
			return;
		}
		t->cells[t->nrows * (size_t)t->ncols + (size_t)i] = s;
	}
	t->nrows++;
}

void tool_tab_widen(size_t *w, int ncols, const char *const *cells)
{
	for (int i = 0; i < ncols; i++) {
		size_t l = strlen(cells[i]);
		if (l > w[i])
			w[i] = l;
	}
}

#define TOOL_LINE_BUF 1024

/* Appends n bytes of s, or n blanks when s is NULL, to the line
 * buffer; what does not fit goes out first. */
static void line_put(FILE *f, char *buf, size_t *len, const char *s,
                     size_t n)
{
	while (n > 0) {
		if (*len == TOOL_LINE_BUF) {
			fwrite(buf, 1, *len, f);
			*len = 0;
		}
		size_t k = TOOL_LINE_BUF - *len < n ? TOOL_LINE_BUF - *len : n;
		if (s) {
			memcpy(buf + *len, s, k);
			s += k;
		} else {
			memset(buf + *len, ' ', k);
		}
		*len += k;
		n -= k;
	}
}

void tool_tab_line(FILE *f, const size_t *w, int ncols, int nleft,
                   const char *const *cells)
{
	/* Assembled in a buffer and written at once: reports have tens of
	 * thousands of rows, and a call to stdio per cell costs more than
	 * the row. */
	char buf[TOOL_LINE_BUF];
	size_t len = 0;

	line_put(f, buf, &len, " ", 1);
	for (int i = 0; i < ncols; i++) {
		const char *s = cells[i];
		size_t n = strlen(s), pad = w[i] > n ? w[i] - n : 0;
		int left = i >= ncols - nleft;

		line_put(f, buf, &len, " ", 1);
		if (!left)
			line_put(f, buf, &len, NULL, pad);
		line_put(f, buf, &len, s, n);
		if (left && i != ncols - 1)
			line_put(f, buf, &len, NULL, pad);
	}
	line_put(f, buf, &len, "\n", 1);
	fwrite(buf, 1, len, f);
}

void tool_put_line(FILE *f, const char *const *parts, int n)
{
	char buf[TOOL_LINE_BUF];
	size_t len = 0;

	for (int i = 0; i < n; i++)
		line_put(f, buf, &len, parts[i], strlen(parts[i]));
	line_put(f, buf, &len, "\n", 1);
	fwrite(buf, 1, len, f);
}

void tool_pass_init(tool_pass *p, FILE *f, const char *title,
                    const char *const *head, int ncols, int nleft)
{
	memset(p, 0, sizeof *p);
	p->f = f;
	p->title = title;
	p->head = head;
	p->ncols = ncols < TOOL_TAB_MAXCOLS ? ncols : TOOL_TAB_MAXCOLS;
	p->nleft = nleft;
	p->print = -1;  /* before the first pass */
}

void tool_pass_row(tool_pass *p, const char *const *cells)
{
	if (p->print && p->rows == 0) {
		fputs(p->title, p->f);
		tool_tab_line(p->f, p->w, p->ncols, p->nleft, p->head);
	}
	if (p->print)
		tool_tab_line(p->f, p->w, p->ncols, p->nleft, cells);
	else
		tool_tab_widen(p->w, p->ncols, cells);
	p->rows++;
}

int tool_pass_next(tool_pass *p)
{
	if (p->print < 0) {
		p->print = 0;
		return 1;
	}
	if (p->print || p->rows == 0)
		return 0;
	tool_tab_widen(p->w, p->ncols, p->head);
	p->print = 1;
	p->rows = 0;
	return 1;
}

int tool_tab_print(const tool_table *t, FILE *f)
{
	size_t w[TOOL_TAB_MAXCOLS] = {0};

	if (t->failed)
		return -1;
	for (size_t r = 0; r < t->nrows; r++)
		tool_tab_widen(w, t->ncols,
		               (const char *const *)t->cells + r * (size_t)t->ncols);
	for (size_t r = 0; r < t->nrows; r++)
		tool_tab_line(f, w, t->ncols, t->nleft,
		              (const char *const *)t->cells + r * (size_t)t->ncols);
	return 0;
}

void tool_tab_free(tool_table *t)
{
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

const char *tool_fmt_u64(char *buf, uint64_t v)
{
	/* Reports print thousands of these: digits by hand, not printf. */
	char tmp[20], *p = tmp + sizeof tmp;
	size_t n;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	n = (size_t)(tmp + sizeof tmp - p);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

void tool_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (s == NULL) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	while (*p) {
		unsigned c = *p;
		size_t n = 0;

		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			p++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			p++;
			continue;
		}
		if (c < 0x80) {
			fputc((int)c, f);
			p++;
			continue;
		}
		/* A multi-byte sequence passes only when well formed: no
		 * overlong forms, no surrogates, at most U+10FFFF. */
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		int ok = n > 0;
		for (size_t i = 1; ok && i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				ok = 0;
		if (ok && c == 0xe0 && p[1] < 0xa0)
			ok = 0;
		if (ok && c == 0xed && p[1] >= 0xa0)
			ok = 0;
		if (ok && c == 0xf0 && p[1] < 0x90)
			ok = 0;
		if (ok && c == 0xf4 && p[1] >= 0x90)
			ok = 0;
		if (!ok) {
			fprintf(f, "\\u%04x", c);
			p++;
			continue;
		}
		fwrite(p, 1, n + 1, f);
		p += n + 1;
	}
	fputc('"', f);
}

/* ------------------------------------------------------------------ */
/* Profiles of any format                                              */
/* ------------------------------------------------------------------ */

/* What to write and how: a feedback profile (its text or its
 * database), a profile of a foreign format in either form, or bytes. */
typedef struct {
	const xp_fb *fb;
	const xp_prof *p;
	int text;
	/* An export (kind != 0) of p or fb, named name in messages. */
	xp_export_kind kind;
	const xp_export_opts *eo;
	const char *name;
	/* Or, with neither fb nor p, len bytes. */
	const void *bytes;
	size_t len;
} payload;

static xp_err write_bytes(const void *buf, size_t len, int fd)
{
	const char *b = buf;

	while (len > 0) {
		ssize_t k = write(fd, b, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return XP_E_IO;
		b += k;
		len -= (size_t)k;
	}
	return XP_E_OK;
}

static xp_err write_payload(const payload *w, int fd, xp_diags *d)
{
	if (w->kind != 0 && w->fb != NULL)
		return xp_fb_export_fd(w->fb, w->kind, w->eo, w->name, fd, d);
	if (w->kind != 0)
		return xp_prof_export_fd(w->p, w->kind, w->eo, w->name, fd, d);
	if (w->fb != NULL)
		return w->text ? xp_text_write_fd(w->fb, fd)
		               : xp_db_write_fd(w->fb, fd);
	if (w->p != NULL)
		return xp_prof_write_fd(w->p, w->text, fd);
	return write_bytes(w->bytes, w->len, fd);
}

/*
 * Writes to "-" (standard output) or atomically to the file out, and
 * prints exactly one message when that fails: "prog: OUT: cannot write:
 * reason" for the writing itself, the library's diagnostics otherwise.
 */
static int write_out(const char *prog, const payload *w, const char *out)
{
	xp_diags *d;
	xp_afile *af;
	xp_err err;
	int e, stdo = strcmp(out, "-") == 0;

	if ((d = xp_diags_new(0)) == NULL) {
		fprintf(stderr, "%s: %s\n", prog, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	err = stdo ? XP_E_OK : xp_afile_open(out, &af, d);
	if (err == XP_E_OK) {
		err = write_payload(w, stdo ? STDOUT_FILENO : xp_afile_fd(af), d);
		e = errno;
		if (err != XP_E_OK && !stdo)
			xp_afile_abort(af);
		if (err != XP_E_OK && xp_diags_count(d) == 0) {
			/* The writing itself failed. */
			fprintf(stderr, "%s: %s: cannot write: %s\n", prog,
			        stdo ? "<stdout>" : out,
			        err == XP_E_IO ? strerror(e) : xp_strerror(err));
			xp_diags_free(d);
			return -1;
		}
		if (err == XP_E_OK && !stdo)
			err = xp_afile_commit(af, d);
	}
	tool_print_diags(prog, d, err, out);
	xp_diags_free(d);
	return err == XP_E_OK ? 0 : -1;
}

int tool_flush_stdout(const char *prog)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "%s: <stdout>: cannot write: %s\n", prog,
	        strerror(errno));
	return -1;
}

int tool_write_prof(const char *prog, const xp_prof *p, int text,
                    const char *out)
{
	payload w = { .p = p, .text = text };

	return write_out(prog, &w, out);
}

int tool_write_text(const char *prog, const xp_fb *fb, const char *out)
{
	payload w = { .fb = fb, .text = 1 };

	return write_out(prog, &w, out);
}

int tool_write_db(const char *prog, const xp_fb *fb, const char *out)
{
	payload w = { .fb = fb };

	return write_out(prog, &w, out);
}

int tool_write_bytes(const char *prog, const void *buf, size_t len,
                     const char *out)
{
	payload w = { .bytes = buf, .len = len };

	return write_out(prog, &w, out);
}

int tool_write_export(const char *prog, const xp_prof *p, const xp_fb *fb,
                      xp_export_kind kind, const xp_export_opts *eo,
                      const char *name, const char *out)
{
	payload w = { fb, p, 0, kind, eo, name, NULL, 0 };

	return write_out(prog, &w, out);
}

int tool_open_feedback(const char *prog, const char *path,
                       const xp_load_opts *lo, const xp_fb *like,
                       xp_fb **out)
{
	xp_diags *d = xp_diags_new(0);
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	xp_input *in = NULL;
	xp_prof *p = NULL;
	xp_err err;

	*out = NULL;
	if (d == NULL) {
		fprintf(stderr, "%s: %s\n", prog, xp_strerror(XP_E_NOMEM));
		return -1;
	}
	err = xp_input_open(path, &in, d);
	if (err == XP_E_OK && xp_format_module(xp_input_format(in)) == NULL) {
		err = xp_input_feedback_as(in, like, out, d);
	} else if (err == XP_E_OK) {
		xp_conv_opts co = { .exe = lo != NULL ? lo->exe : NULL };

		err = xp_prof_open_input(in, lo, &p, d);
		if (err == XP_E_OK)
			err = xp_prof_to_feedback(p, &co, out, d);
		xp_prof_free(p);
	}
	xp_input_free(in);
	tool_print_diags(prog, d, err, name);
	xp_diags_free(d);
	return err == XP_E_OK ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* An input that changes while it is read                              */
/* ------------------------------------------------------------------ */

/*
 * The library reads databases and binary profiles through mmap(2).  When
 * another process truncates such a file while it is read (cp small x,
 * truncate), touching the pages past the new end raises SIGBUS.  The
 * handler names the file that is mapped at the faulting address, as
 * /proc/self/maps says, and ends the process with status 2.  It uses only
 * async-signal-safe calls (open, read, write, _exit) and no allocation.
 */
static const char *sigbus_prog = "xprof";

static void put_err(const char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		ssize_t k = write(STDERR_FILENO, s, n);
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

/* Reads a hexadecimal number at *p; moves *p past it. */
static uintptr_t hex_at(const char **p)
{
	uintptr_t v = 0;

	for (;; (*p)++) {
		char c = **p;
		if (c >= '0' && c <= '9')
			v = v * 16 + (uintptr_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uintptr_t)(c - 'a' + 10);
		else
			return v;
	}
}

/*
 * The path of the file mapped at addr, from /proc/self/maps, into
 * buf; 0 when found.  Lines longer than the buffer are skipped.
 */
static int mapped_path(uintptr_t addr, char *buf, size_t size)
{
	char chunk[4096], line[4400];
	size_t len = 0;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), found = -1;
	ssize_t k;

	if (fd < 0)
		return -1;
	while (found != 0 && (k = read(fd, chunk, sizeof chunk)) > 0) {
		for (ssize_t i = 0; i < k && found != 0; i++) {
			const char *p = line, *path;
			uintptr_t lo, hi;

			if (chunk[i] != '\n') {
				if (len < sizeof line - 1)
					line[len++] = chunk[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			lo = hex_at(&p);
			if (*p++ != '-')
				continue;
			hi = hex_at(&p);
			path = strchr(p, '/');
			if (addr < lo || addr >= hi || path == NULL)
				continue;
			if (strlen(path) < size) {
				strcpy(buf, path);
				found = 0;
			}
		}
	}
	close(fd);
	return found;
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	char path[4096];

	(void)sig;
	(void)ctx;
	put_err(sigbus_prog);
	if (mapped_path((uintptr_t)si->si_addr, path, sizeof path) == 0) {
		put_err(": ");
		put_err(path);
		put_err(": file changed while it was being read\n");
	} else {
		put_err(": an input file changed while it was being read\n");
	}
	_exit(2);
}

void tool_catch_sigbus(const char *prog)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sigbus_prog = prog;
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}
