/*
 * xprof_atob - convert profile feedback text into a profile directory.
 *
 *   xprof_atob [-j N] file [profile_directory]
 *
 * The text (xprof_text(5)) is parsed completely before anything is
 * written, so a text with errors leaves the profile directory exactly as
 * it was (or absent).  The header's type decides which database of the
 * directory receives the data (see xprof_db(5)).  A feedback database file
 * is accepted as input too and is stored as it is, after being checked.
 *
 * The lossless text form of another format (gmon(5), cpuprofile(5),
 * dcpi(5), mpatrol(5)) is recognised from its content too; it becomes a
 * binary file of that format, named by the second operand or else the
 * format's usual name (gmon.out, ...).
 *
 * With -j N a feedback text in a regular file is parsed on N threads
 * (by default as many as there are CPUs to run on), giving the same
 * profile and, for a text with errors, the same diagnostics.
 *
 * Exit status: 0 on success, 2 on any trouble.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool.h"
#include "xprof.h"

#define PROG "xprof_atob"
#define DEFAULT_DIR "atob.profile"
#define MAX_ERRORS 20

static const char usage_text[] =
	"usage: " PROG " [-j N] file [profile_directory]\n"
	"       " PROG " -h | -V\n";

static const char options_text[] =
	"  -j, --jobs=N   parse a feedback text on N threads (default: the\n"
	"                 CPUs it may run on); the same output\n"
	"  -h, --help     print this help and exit\n"
	"  -V, --version  print the version and exit\n";

static const struct option long_opts[] = {
	{"jobs", required_argument, NULL, 'j'},
	TOOL_LONGOPTS_END
};

/*
 * Loads the input into a profile.  A regular file that starts like a
 * database is opened as one; everything else is parsed as text while it
 * is read, so standard input and pipes work without being held whole.
 */
static xp_err load(const char *file, unsigned jobs, xp_fb **fb, xp_diags *d,
                   int *sys_errno, xp_input **foreign)
{
	xp_parse_opts opts = { MAX_ERRORS, 0, jobs };
	struct stat st;
	xp_err err;
	int fd;

	*sys_errno = 0;
	*foreign = NULL;
	if (strcmp(file, "-") == 0) {
		/* Recognised from what is read ahead: a text of another
		 * format is read whole. */
		xp_input *in = NULL;

		err = xp_input_open(file, &in, d);
		if (err == XP_E_OK &&
		    xp_format_module(xp_input_format(in)) != NULL) {
			*foreign = in;
			return XP_E_OK;
		}
		if (err == XP_E_OK)
			err = xp_input_feedback(in, fb, d);
		xp_input_free(in);
		return err;
	} else {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			*sys_errno = errno;
			return XP_E_IO;
		}
	}
	if (fstat(fd, &st) != 0) {
		*sys_errno = errno;
		err = XP_E_IO;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		*sys_errno = EISDIR;
		err = XP_E_IO;
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		unsigned char head[4096];
		ssize_t got = pread(fd, head, sizeof head, 0);
		xp_format f = got > 0 ? xp_format_detect(head, (size_t)got)
		                      : XP_FMT_UNKNOWN;

		if (f == XP_FMT_FEEDBACK_DB) {
			err = xp_db_open(file, fb, d);
			goto out;
		}
		if (xp_format_module(f) != NULL) {
			close(fd);
			return xp_input_open(file, foreign, d);
		}
	}
	err = xp_text_parse_fd(fd, file, &opts, fb, d);
out:
	close(fd);
	return err;
}

/* The database file of fb's data type in the default directory holds
 * data already: refused as tool_keep_default() says. */
static int keep_default_data(const char *dir, const xp_fb *fb)
{
	xp_datatype t = xp_fb_datatype(fb);
	const char *objfile = NULL;
	char *path;
	int st;

	if (t == XP_DT_OBJFD && xp_fb_count(fb, XP_T_OBJFILES) > 0) {
		xp_objfile of;
		xp_fb_objfile(fb, 0, &of);
		objfile = xp_fb_str(fb, of.path);
	}
	if ((path = xp_profdir_file(dir, t, objfile)) == NULL) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	st = tool_keep_default(PROG, path, "the default profile directory's data");
	free(path);
	return st;
}

/*
 * The text form of another format (gmon.out, CPU profile, DCPI, mpatrol)
 * becomes that format's binary file: out, or the format's usual file name.
 */
static int foreign_to_binary(const char *file, xp_input *in, const char *out,
                             xp_diags *d)
{
	xp_format f = xp_input_format(in);
	xp_prof *p = NULL;
	xp_err err;
	int status = 2;

	if (!xp_format_is_text(f)) {
		fprintf(stderr, "%s: %s: %s, not a text (xprof_btoa makes "
		        "text of it)\n", PROG, file, xp_format_a(f));
		return 2;
	}
	err = xp_prof_open_input(in, NULL, &p, d);
	tool_print_diags(PROG, d, err, strcmp(file, "-") == 0 ? "<stdin>"
	                                                   : file);
	if (err == XP_E_OK && out == NULL) {
		out = xp_prof_default_name(xp_prof_format(p));
		if (tool_keep_default(PROG, out, "the default output file") != 0)
			err = XP_E_INVAL;
	}
	if (err == XP_E_OK && tool_write_prof(PROG, p, 0, out) == 0)
		status = 0;
	xp_prof_free(p);
	return status;
}

int main(int argc, char **argv)
{
	const char *file, *dir = DEFAULT_DIR;
	xp_diags *d;
	xp_fb *fb = NULL;
	xp_input *foreign;
	xp_err err;
	int c, sys_errno, status = 0;
	unsigned jobs = 0;

	tool_catch_sigbus(PROG);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj:V", long_opts, NULL)) != -1) {
		if (c != 'j')
			return tool_other_option(PROG, usage_text, options_text,
			                         c, argv);
		if ((status = tool_jobs_option(PROG, usage_text, optarg,
		                               &jobs)) != 0)
			return status;
	}
	if (jobs == 0)
		jobs = tool_default_jobs();
	argc -= optind;
	argv += optind;
	if (argc < 1)
		return tool_usage_error(PROG, usage_text, "missing file operand");
	if (argc > 2)
		return tool_usage_error(PROG, usage_text, "too many operands");
	file = argv[0];
	if (argc == 2)
		dir = argv[1];
	if (dir[0] == '\0')
		return tool_usage_error(PROG, usage_text, "empty profile directory name");

	d = xp_diags_new(MAX_ERRORS);
	if (d == NULL) {
		fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
		return 2;
	}
	err = load(file, jobs, &fb, d, &sys_errno, &foreign);
	if (err == XP_E_OK && foreign != NULL) {
		status = foreign_to_binary(file, foreign, argc == 2 ? dir : NULL,
		                           d);
		xp_input_free(foreign);
		goto done;
	}
	if (err != XP_E_OK) {
		if (sys_errno != 0)
			fprintf(stderr, "%s: %s: %s\n", PROG, file,
			        strerror(sys_errno));
		else
			tool_print_diags(PROG, d, err,
			            strcmp(file, "-") == 0 ? "<stdin>" : file);
		status = 2;
		goto done;
	}
	if (argc < 2 && (status = keep_default_data(dir, fb)) != 0)
		goto done;
	err = xp_profdir_write(dir, fb, d);
	if (err != XP_E_OK) {
		tool_print_diags(PROG, d, err, dir);
		status = 2;
	}
done:
	xp_fb_free(fb);
	xp_diags_free(d);
	return status;
}
