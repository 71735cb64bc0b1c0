/*
 * xprof_btoa - convert the binary data of a profile directory into
 * profile feedback text.
 *
 *   xprof_btoa [-t data_type] profile_directory [output_file]
 *
 * data_type is feedback (the default), tcovd, tcovsd, or objfd followed
 * by the resolved path of an object file, given either in the same
 * argument ("-t 'objfd /p/x.o'") or as the next operand
 * ("-t objfd /p/x.o").  The canonical text (xprof_text(5)) goes to
 * output_file (default: data_type.text in the current directory; "-" for
 * standard output).  The output file is replaced atomically, so a failed
 * run leaves no partial file and an existing file untouched.
 *
 * profile_directory may also name a feedback database file itself (the
 * kind of file a profile directory holds, xprof_db(5)); it is then read
 * directly and its own data type is used.
 *
 * profile_file is a binary file of another format (gmon(5),
 * cpuprofile(5), dcpi(5), mpatrol(5)), recognised from its content; its
 * lossless text form goes to output_file (default: NAME.text, NAME being
 * the format's short name: gmon, cpuprof, dcpi, mpatrol).  -e names the
 * executable the profile belongs to and -L forces a layout, for the
 * formats whose byte order or word size the file does not record.
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

#define PROG "xprof_btoa"

static const char usage_text[] =
	"usage: " PROG " [-t data_type] profile_directory [output_file]\n"
	"       " PROG " [-e executable] [-L layout] profile_file [output_file]\n"
	"       " PROG " -h | -V\n";

static const char options_text[] =
	"  -t DATA_TYPE   the data to convert: feedback (the default), tcovd,\n"
	"                 tcovsd, or objfd OBJECT_FILE\n"
	"  -e EXECUTABLE  the executable a foreign profile belongs to\n"
	"  -L LAYOUT      the layout of a foreign profile, when not detected\n"
	"  -h, --help     print this help and exit\n"
	"  -V, --version  print the version and exit\n";

static const struct option long_opts[] = {
	TOOL_LONGOPTS_END
};

/*
 * Splits a -t argument into a data type and, for objfd, the object file
 * path that may follow it in the same argument.  Returns 0 on success.
 */
static int parse_type(const char *arg, xp_datatype *type, char **objpath)
{
	const char *p = arg, *w, *rest;
	char word[16];
	size_t wl;

	while (*p == ' ' || *p == '\t')
		p++;
	w = p;
	while (*p != '\0' && *p != ' ' && *p != '\t')
		p++;
	wl = (size_t)(p - w);
	while (*p == ' ' || *p == '\t')
		p++;
	rest = p;
	if (wl == 0 || wl >= sizeof word)
		return -1;
	memcpy(word, w, wl);
	word[wl] = '\0';
	if (xp_datatype_parse(word, type) != 0)
		return -1;
	free(*objpath);
	*objpath = NULL;
	if (*rest == '\0')
		return 0;
	if (*type != XP_DT_OBJFD)
		return -1;
	/* The path runs to the end of the argument, minus trailing blanks;
	 * paths with inner spaces cannot appear in the text form anyway. */
	wl = strlen(rest);
	while (wl > 0 && (rest[wl - 1] == ' ' || rest[wl - 1] == '\t'))
		wl--;
	*objpath = strndup(rest, wl);
	return *objpath != NULL ? 0 : -1;
}

/*
 * Opens what the profile_directory operand names: a directory through
 * xp_profdir_open, or a database file directly.
 */
static int open_input(const char *dir, int type_given, xp_datatype *type,
                      const char *objpath, xp_fb **fb, xp_diags *d,
                      xp_format *foreign, xp_input **stdin_in)
{
	struct stat st;
	xp_err err;

	if (strcmp(dir, "-") == 0) {
		/* Standard input: read ahead to recognise it, and whole
		 * unless it is a text. */
		xp_format f;

		err = xp_input_open(dir, stdin_in, d);
		if (err != XP_E_OK) {
			tool_print_diags(PROG, d, err, "<stdin>");
			return -1;
		}
		f = xp_input_format(*stdin_in);
		if (xp_format_module(f) != NULL) {
			*foreign = f;
			return 0;
		}
		if (f != XP_FMT_FEEDBACK_DB) {
			fprintf(stderr, "%s: <stdin>: not a feedback database "
			        "or a profile of another format\n", PROG);
			return -1;
		}
		err = xp_input_feedback(*stdin_in, fb, d);
		if (err != XP_E_OK) {
			tool_print_diags(PROG, d, err, "<stdin>");
			return -1;
		}
		*type = xp_fb_datatype(*fb);
		return 0;
	}
	if (stat(dir, &st) != 0) {
		fprintf(stderr, "%s: %s: %s\n", PROG, dir, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode)) {
		unsigned char head[4096];
		ssize_t got = -1;
		int e, fd = open(dir, O_RDONLY | O_CLOEXEC);

		e = errno;
		if (fd >= 0) {
			got = pread(fd, head, sizeof head, 0);
			e = errno;
			close(fd);
		}
		if (got < 0) {
			fprintf(stderr, "%s: %s: %s\n", PROG, dir, strerror(e));
			return -1;
		}
		if (got >= 0 &&
		    xp_format_module(xp_format_detect(head, (size_t)got))) {
			*foreign = xp_format_detect(head, (size_t)got);
			return 0;
		}
		if (xp_format_detect(head, (size_t)got) !=
		    XP_FMT_FEEDBACK_DB) {
			fprintf(stderr,
			        "%s: %s: not a profile directory or a feedback "
			        "database\n", PROG, dir);
			return -1;
		}
		err = xp_db_open(dir, fb, d);
		if (err != XP_E_OK) {
			tool_print_diags(PROG, d, err, dir);
			return -1;
		}
		if (type_given && xp_fb_datatype(*fb) != *type) {
			fprintf(stderr, "%s: %s: holds %s data, not %s\n",
			        PROG, dir, xp_datatype_name(xp_fb_datatype(*fb)),
			        xp_datatype_name(*type));
			return -1;
		}
		*type = xp_fb_datatype(*fb);
		if (objpath != NULL &&
		    xp_fb_find_objfile(*fb, objpath) == UINT32_MAX) {
			fprintf(stderr, "%s: %s: no data for object file %s\n",
			        PROG, dir, objpath);
			return -1;
		}
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr,
		        "%s: %s: not a profile directory or a feedback "
		        "database\n", PROG, dir);
		return -1;
	}
	err = xp_profdir_open(dir, *type, objpath, fb, d);
	if (err != XP_E_OK) {
		tool_print_diags(PROG, d, err, dir);
		return -1;
	}
	return 0;
}

/* A binary file of another format becomes its lossless text. */
static int foreign_to_text(const char *file, xp_format f, const char *out,
                           const xp_load_opts *lo, xp_input *in, xp_diags *d)
{
	xp_prof *p = NULL;
	char *defout = NULL;
	xp_err err;
	int status = 2;

	if (xp_format_is_text(f)) {
		fprintf(stderr, "%s: %s: %s already (xprof_atob makes a "
		        "binary file of it)\n", PROG, file, xp_format_a(f));
		return 2;
	}
	err = in != NULL ? xp_prof_open_input(in, lo, &p, d)
	                 : xp_prof_open(file, lo, &p, d);
	tool_print_diags(PROG, d, err, in != NULL ? "<stdin>" : file);
	if (err != XP_E_OK)
		return 2;
	if (out == NULL) {
		const char *m = xp_format_module(xp_prof_format(p));
		defout = malloc(strlen(m) + sizeof ".text");
		if (defout == NULL) {
			fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
			xp_prof_free(p);
			return 2;
		}
		strcpy(defout, m);
		strcat(defout, ".text");
		out = defout;
		if (tool_keep_default(PROG, out, "the default output file") != 0)
			goto out;
	}
	if (tool_write_prof(PROG, p, 1, out) == 0)
		status = 0;
out:
	free(defout);
	xp_prof_free(p);
	return status;
}

int main(int argc, char **argv)
{
	xp_datatype type = XP_DT_FEEDBACK;
	char *objpath = NULL, *defout = NULL;
	const char *dir, *out;
	int c, type_given = 0, status = 2;
	xp_load_opts lo = { 0 };
	xp_format foreign = XP_FMT_UNKNOWN;
	xp_diags *d = NULL;
	xp_fb *fb = NULL;
	xp_input *in = NULL;

	tool_catch_sigbus(PROG);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:hL:t:V", long_opts, NULL)) !=
	       -1) {
		char msg[200];

		switch (c) {
		case 'e':
			lo.exe = optarg;
			break;
		case 'L':
			lo.layout = optarg;
			break;
		case 't':
			if (parse_type(optarg, &type, &objpath) != 0) {
				snprintf(msg, sizeof msg,
				         "unknown data type '%.100s' (use feedback,"
				         " tcovd, tcovsd or objfd PATH)", optarg);
				free(objpath);
				return tool_usage_error(PROG, usage_text, msg);
			}
			type_given = 1;
			break;
		default:
			free(objpath);
			return tool_other_option(PROG, usage_text, options_text, c,
			                         argv);
		}
	}
	argc -= optind;
	argv += optind;
	if (type == XP_DT_OBJFD && objpath == NULL) {
		if (argc < 2)
			return tool_usage_error(PROG, usage_text, "-t objfd needs an object file path "
			                   "before profile_directory");
		objpath = strdup(argv[0]);
		if (objpath == NULL)
			goto nomem;
		argc--;
		argv++;
	}
	if (argc < 1) {
		free(objpath);
		return tool_usage_error(PROG, usage_text, "missing profile_directory operand");
	}
	if (argc > 2) {
		free(objpath);
		return tool_usage_error(PROG, usage_text, "too many operands");
	}
	dir = argv[0];

	d = xp_diags_new(0);
	if (d == NULL)
		goto nomem;
	if (open_input(dir, type_given, &type, objpath, &fb, d,
	               &foreign, &in) != 0)
		goto done;
	if (foreign != XP_FMT_UNKNOWN) {
		if (type_given) {
			fprintf(stderr, "%s: %s: -t applies to profile "
			        "directories, not to %s\n", PROG, dir,
			        xp_format_a(foreign));
			goto done;
		}
		status = foreign_to_text(dir, foreign,
		                         argc == 2 ? argv[1] : NULL, &lo, in, d);
		goto done;
	}
	if (lo.exe != NULL || lo.layout != NULL) {
		char list[512];
		xp_format_list(list, sizeof list, "or");
		fprintf(stderr, "%s: %s: -e and -L apply only to %s\n", PROG,
		        dir, list);
		goto done;
	}
	if (argc == 2) {
		out = argv[1];
	} else {
		const char *tn = xp_datatype_name(type);

		defout = malloc(strlen(tn) + sizeof ".text");
		if (defout == NULL)
			goto nomem;
		strcpy(defout, tn);
		strcat(defout, ".text");
		out = defout;
		if (tool_keep_default(PROG, out, "the default output file") != 0)
			goto done;
	}
	if (tool_write_text(PROG, fb, out) == 0)
		status = 0;
	goto done;
nomem:
	fprintf(stderr, "%s: %s\n", PROG, xp_strerror(XP_E_NOMEM));
	status = 2;
done:
	xp_fb_free(fb);
	xp_input_free(in);
	xp_diags_free(d);
	free(objpath);
	free(defout);
	return status;
}
