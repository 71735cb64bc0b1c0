/*
 * registry/open.c - the one open: a path, whatever it holds (a profile
 * directory, a feedback database or text, a profile of a foreign format
 * in either form), is opened and recognised from its content once, and
 * the handle (xp_input) is then read by whoever takes that format: the
 * feedback readers here (xp_input_feedback_like), the merger
 * (xp_merger_add_input) or the foreign formats' modules
 * (xp_prof_open_input, prof.c).
 *
 * A text is parsed while it is read, so standard input and pipes work
 * without the text being held whole.  A database or a foreign profile is
 * mapped.  A pipe, terminal or other file that cannot be read twice is
 * taken for a feedback text and not opened until it is read, so that a
 * FIFO keeps its writer until then.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feedback/db.h"
#include "registry/module.h"

/* Reads up to len bytes from the start of fd, retrying short reads. */
static ssize_t read_head(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, (off_t)got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

static xp_err sys_error(xp_diags *d, const char *path, int e)
{
	return xp_diag_file(d, e == ENOENT ? XP_E_NOTFOUND : XP_E_IO, path,
	                    "%s", strerror(e));
}

xp_err xp_input_open_any(const char *path, xp_input **out, xp_diags *d)
{
	/* The text keyword may follow blank space; a few KiB is plenty. */
	unsigned char head[4096];
	xp_input *in;
	ssize_t got;

	*out = NULL;
	if ((in = calloc(1, sizeof *in + strlen(path) + 1)) == NULL)
		return XP_E_NOMEM;
	in->fd = -1;
	in->path = memcpy(in + 1, path, strlen(path) + 1);
	*out = in;
	if (strcmp(path, "-") == 0) {
		in->kind = XP_INPUT_STDIN;
		in->fmt = XP_FMT_FEEDBACK_TEXT;
		return XP_E_OK;
	}
	if (stat(path, &in->st) != 0)
		return sys_error(d, path, errno);
	if (S_ISDIR(in->st.st_mode)) {
		in->kind = XP_INPUT_DIR;
		in->fmt = XP_FMT_FEEDBACK_DB;
		return XP_E_OK;
	}
	if (!S_ISREG(in->st.st_mode)) {
		in->kind = XP_INPUT_STREAM;
		in->fmt = XP_FMT_FEEDBACK_TEXT;
		return XP_E_OK;
	}
	in->kind = XP_INPUT_FILE;
	if ((in->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return sys_error(d, path, errno);
	if ((got = read_head(in->fd, head, sizeof head)) < 0)
		return xp_diag_file(d, XP_E_IO, path, "%s", strerror(errno));
	in->fmt = xp_format_detect(head, (size_t)got);
	return XP_E_OK;
}

xp_err xp_input_open(const char *path, xp_input **out, xp_diags *d)
{
	xp_err err = xp_input_open_any(path, out, d);

	if (err == XP_E_OK && (*out)->fmt == XP_FMT_UNKNOWN)
		err = xp_diag_file(d, XP_E_FORMAT, path, "not a profile in any "
		                   "format this program knows");
	if (err != XP_E_OK) {
		xp_input_free(*out);
		*out = NULL;
	}
	return err;
}

void xp_input_free(xp_input *in)
{
	if (in == NULL)
		return;
	if (in->fd >= 0)
		close(in->fd);
	free(in);
}

xp_format xp_input_format(const xp_input *in)
{
	return in->fmt;
}

const char *xp_input_path(const xp_input *in)
{
	return in->path;
}

xp_err xp_input_feedback_like(xp_input *in, const xp_fb *const *like,
                              unsigned nlike, int *same, xp_fb **out,
                              xp_diags *d)
{
	const char *path = in->path;
	xp_err err;
	int fd;

	*out = NULL;
	if (same)
		*same = 0;
	switch (in->kind) {
	case XP_INPUT_STDIN:
		return xp_text_parse_fd(STDIN_FILENO, "<stdin>", NULL, out, d);
	case XP_INPUT_DIR:
		return xp_profdir_open_like(path, XP_DT_FEEDBACK, NULL, like,
		                            nlike, same, out, d);
	case XP_INPUT_STREAM:
		/* A pipe or device cannot be peeked at: it must be a text,
		 * and the parser says so if it is not. */
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return sys_error(d, path, errno);
		err = xp_text_parse_fd(fd, path, NULL, out, d);
		close(fd);
		return err;
	case XP_INPUT_FILE:
		break;
	}
	switch (in->fmt) {
	case XP_FMT_FEEDBACK_DB:
		return xp_db_open_fd_like(in->fd, path, like, nlike, same, out,
		                          d);
	case XP_FMT_FEEDBACK_TEXT:
		return xp_text_parse_fd(in->fd, path, NULL, out, d);
	case XP_FMT_UNKNOWN:
		return xp_diag_file(d, XP_E_FORMAT, path,
		                    "not a feedback profile (neither a profile "
		                    "directory, a feedback database nor a "
		                    "feedback text)");
	default:
		return xp_diag_file(d, XP_E_FORMAT, path,
		                    "%s, not a feedback profile",
		                    xp_format_a(in->fmt));
	}
}

xp_err xp_input_feedback(xp_input *in, xp_fb **out, xp_diags *d)
{
	return xp_input_feedback_like(in, NULL, 0, NULL, out, d);
}

xp_err xp_open_any(const char *path, xp_fb **out, xp_diags *d)
{
	return xp_open_any_like(path, NULL, 0, NULL, out, d);
}

xp_err xp_open_any_like(const char *path, const xp_fb *const *like,
                        unsigned nlike, int *same, xp_fb **out, xp_diags *d)
{
	xp_input *in;
	xp_err err = xp_input_open_any(path, &in, d);

	*out = NULL;
	if (same)
		*same = 0;
	if (err == XP_E_OK)
		err = xp_input_feedback_like(in, like, nlike, same, out, d);
	xp_input_free(in);
	return err;
}
