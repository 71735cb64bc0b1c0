/*
 * registry/open.c - opening a profile however it is given: a profile directory, a
 * feedback database file or a feedback text, recognised from the content
 * so that the tools take any of them without flags.
 *
 * A text is parsed while it is read, so standard input and pipes work
 * without the text being held whole.  A database is mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feedback/db.h"

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

xp_err xp_open_any(const char *path, xp_fb **out, xp_diags *d)
{
	return xp_open_any_like(path, NULL, 0, NULL, out, d);
}

xp_err xp_open_any_like(const char *path, const xp_fb *const *like,
                        unsigned nlike, int *same, xp_fb **out, xp_diags *d)
{
	*out = NULL;
	if (same)
		*same = 0;
	if (strcmp(path, "-") == 0)
		return xp_text_parse_fd(STDIN_FILENO, "<stdin>", NULL, out, d);

	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xp_diag_file(d, errno == ENOENT ? XP_E_NOTFOUND : XP_E_IO,
		                    path, "%s", strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return xp_diag_file(d, XP_E_IO, path, "%s", strerror(e));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return xp_profdir_open_like(path, XP_DT_FEEDBACK, NULL, like,
		                            nlike, same, out, d);
	}

	/* The text keyword may follow blank space; a few KiB is plenty. */
	unsigned char head[4096];
	xp_format f = XP_FMT_UNKNOWN;
	xp_err err;
	if (S_ISREG(st.st_mode)) {
		ssize_t got = read_head(fd, head, sizeof head);
		if (got < 0) {
			int e = errno;
			close(fd);
			return xp_diag_file(d, XP_E_IO, path, "%s", strerror(e));
		}
		f = xp_format_detect(head, (size_t)got);
	} else {
		/* A pipe or device cannot be peeked at: it must be a text,
		 * and the parser says so if it is not. */
		f = XP_FMT_FEEDBACK_TEXT;
	}
	switch (f) {
	case XP_FMT_FEEDBACK_DB:
		err = xp_db_open_fd_like(fd, path, like, nlike, same, out, d);
		close(fd);
		return err;
	case XP_FMT_FEEDBACK_TEXT:
		err = xp_text_parse_fd(fd, path, NULL, out, d);
		close(fd);
		return err;
	case XP_FMT_UNKNOWN:
		break;
	default:
		close(fd);
		return xp_diag_file(d, XP_E_FORMAT, path,
		                    "%s, not a feedback profile",
		                    xp_format_a(f));
	}
	close(fd);
	return xp_diag_file(d, XP_E_FORMAT, path,
	                    "not a feedback profile (neither a profile "
	                    "directory, a feedback database nor a feedback "
	                    "text)");
}
