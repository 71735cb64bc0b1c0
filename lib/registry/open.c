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
 * mapped.  A pipe, terminal, FIFO or standard input cannot be read twice:
 * its first bytes are read ahead to recognise it, a feedback text is then
 * parsed while the rest is read, and any other format is read whole into
 * memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
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

/* Reads fd into in->buf until it holds want bytes or the input ends;
 * sets in->whole at the end. */
static xp_err read_stream(xp_input *in, size_t want, xp_diags *d)
{
	unsigned char chunk[65536];

	while (!in->whole && in->buf.len < want) {
		size_t room = want - in->buf.len;
		ssize_t r = read(in->fd, chunk,
		                 room < sizeof chunk ? room : sizeof chunk);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return xp_diag_file(d, XP_E_IO, in->name, "%s",
			                    strerror(errno));
		if (r == 0)
			in->whole = 1;
		else if (xp_buf_append(&in->buf, chunk, (size_t)r) != XP_E_OK)
			return XP_E_NOMEM;
	}
	return XP_E_OK;
}

/*
 * A stream cannot be read twice: its first bytes are read ahead to
 * recognise it.  A feedback text (or what is no known format, for the
 * text parser to say what is wrong) is then parsed while it is read; any
 * other format is read whole into memory.
 */
static xp_err open_stream(xp_input *in, xp_diags *d)
{
	/* The text keyword may follow blank space; a few KiB is plenty. */
	xp_err err = read_stream(in, 4096, d);

	if (err != XP_E_OK)
		return err;
	in->fmt = xp_format_detect(in->buf.p, in->buf.len);
	if (in->fmt == XP_FMT_UNKNOWN || in->fmt == XP_FMT_FEEDBACK_TEXT) {
		in->fmt = XP_FMT_FEEDBACK_TEXT;
		return XP_E_OK;
	}
	return read_stream(in, SIZE_MAX, d);
}

xp_err xp_input_open_any(const char *path, xp_input **out, xp_diags *d)
{
	unsigned char head[4096];
	xp_input *in;
	ssize_t got;
	int is_stdin = strcmp(path, "-") == 0;

	*out = NULL;
	if ((in = calloc(1, sizeof *in + strlen(path) + 1)) == NULL)
		return XP_E_NOMEM;
	in->fd = in->db_fd = -1;
	in->path = memcpy(in + 1, path, strlen(path) + 1);
	in->name = is_stdin ? "<stdin>" : in->path;
	*out = in;
	if (is_stdin) {
		in->fd = STDIN_FILENO;
		if (fstat(in->fd, &in->st) != 0)
			return sys_error(d, in->name, errno);
	} else if (stat(path, &in->st) != 0) {
		return sys_error(d, path, errno);
	}
	if (S_ISDIR(in->st.st_mode) && !is_stdin) {
		in->kind = XP_INPUT_DIR;
		in->fmt = XP_FMT_FEEDBACK_DB;
		return XP_E_OK;
	}
	if (!is_stdin) {
		if ((in->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return sys_error(d, path, errno);
		in->own_fd = 1;
	}
	/* Standard input redirected from a file, from its start, is read
	 * as the file is. */
	if (!S_ISREG(in->st.st_mode) ||
	    (is_stdin && lseek(in->fd, 0, SEEK_CUR) != 0)) {
		in->kind = XP_INPUT_STREAM;
		return open_stream(in, d);
	}
	in->kind = XP_INPUT_FILE;
	if ((got = read_head(in->fd, head, sizeof head)) < 0)
		return xp_diag_file(d, XP_E_IO, in->name, "%s", strerror(errno));
	in->fmt = xp_format_detect(head, (size_t)got);
	return XP_E_OK;
}

xp_err xp_input_open(const char *path, xp_input **out, xp_diags *d)
{
	xp_err err = xp_input_open_any(path, out, d);

	if (err == XP_E_OK && (*out)->fmt == XP_FMT_UNKNOWN)
		err = xp_diag_file(d, XP_E_FORMAT, (*out)->name, "not a profile "
		                   "in any format this program knows");
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
	if (in->own_fd)
		close(in->fd);
	if (in->db_fd >= 0)
		close(in->db_fd);
	xp_buf_free(&in->buf);
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

/* A database read whole from a stream: through a memory file, so that
 * the profile maps it as it maps a database file. */
static xp_err stream_db(xp_input *in, const xp_fb *const *like,
                        unsigned nlike, int *same, xp_fb **out, xp_diags *d)
{
	int fd = memfd_create("xprof-input", MFD_CLOEXEC);
	size_t done = 0;
	xp_err err;

	if (fd < 0)
		return xp_diag_file(d, XP_E_IO, in->name, "%s", strerror(errno));
	while (done < in->buf.len) {
		ssize_t w = write(fd, in->buf.p + done, in->buf.len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			err = xp_diag_file(d, XP_E_IO, in->name, "%s",
			                   strerror(errno));
			close(fd);
			return err;
		}
		done += (size_t)w;
	}
	err = xp_db_open_fd_like(fd, in->name, like, nlike, same, out, d);
	close(fd);
	return err;
}

/* Reads a feedback input; a text's bytes are counted into in->sum. */
static xp_err read_feedback(xp_input *in, const xp_fb *const *like,
                            unsigned nlike, int *same, xp_fb **out,
                            xp_diags *d)
{
	if (in->kind == XP_INPUT_DIR)
		return xp_profdir_open_like(in->path, XP_DT_FEEDBACK, NULL, like,
		                            nlike, same, out, d);
	switch (in->fmt) {
	case XP_FMT_FEEDBACK_DB:
		if (in->kind == XP_INPUT_STREAM)
			return stream_db(in, like, nlike, same, out, d);
		return xp_db_open_fd_like(in->fd, in->name, like, nlike, same,
		                          out, d);
	case XP_FMT_FEEDBACK_TEXT:
		in->sum.len = 0;
		in->sum.crc = 0;
		if (in->kind == XP_INPUT_STREAM)
			return xp_text_parse_fd_after(in->fd, in->buf.p,
			                              in->buf.len, in->name, NULL,
			                              &in->sum, out, d);
		return xp_text_parse_fd_after(in->fd, NULL, 0, in->name, NULL,
		                              &in->sum, out, d);
	case XP_FMT_UNKNOWN:
		return xp_diag_file(d, XP_E_FORMAT, in->name,
		                    "not a feedback profile (neither a profile "
		                    "directory, a feedback database nor a "
		                    "feedback text)");
	default:
		return xp_diag_file(d, XP_E_FORMAT, in->name,
		                    "%s, not a feedback profile",
		                    xp_format_a(in->fmt));
	}
}

void xp_fb_totals(const xp_fb *fb, uint64_t tot[4])
{
	uint64_t sum = 0;

	if (fb->sum_known)
		sum = fb->sum_hi ? UINT64_MAX : fb->sum_lo;
	/* A profile without counters may have no table at all. */
	for (uint32_t i = 0; !fb->sum_known && i < fb->n[XP_T_COUNTERS]; i++) {
		uint64_t v = xp_get_le64(fb->tab[XP_T_COUNTERS] +
		                         (size_t)i * XP_RS_COUNTER + XP_CN_VALUE);
		sum = sum + v < sum ? UINT64_MAX : sum + v;
	}
	tot[0] = fb->n[XP_T_OBJFILES];
	tot[1] = fb->n[XP_T_PROCS];
	tot[2] = fb->n[XP_T_COUNTERS];
	tot[3] = sum;
}

xp_err xp_input_feedback_like(xp_input *in, const xp_fb *const *like,
                              unsigned nlike, int *same, xp_fb **out,
                              xp_diags *d)
{
	xp_err err;

	*out = NULL;
	if (same)
		*same = 0;
	in->summed = in->has_totals = 0;
	if ((err = read_feedback(in, like, nlike, same, out, d)) != XP_E_OK)
		return err;
	/* A text was counted as it was parsed. */
	const xp_fb *fb = *out;
	uint64_t tot[4];
	xp_fb_totals(fb, tot);
	if (fb->image)
		xp_input_took_db(in, fb->image_len,
		                 xp_get_le32(fb->image + XP_DBH_CRC), tot);
	in->summed = 1;
	in->has_totals = 1;
	memcpy(in->totals, tot, sizeof in->totals);
	return XP_E_OK;
}

int xp_input_db_fd(xp_input *in, int *dir, uint64_t *len)
{
	struct stat st;
	int fd = -1;
	*dir = in->kind == XP_INPUT_DIR;
	if (in->kind == XP_INPUT_FILE && in->fmt == XP_FMT_FEEDBACK_DB) {
		fd = in->fd;
	} else if (in->kind == XP_INPUT_DIR) {
		if (in->db_fd < 0) {
			char *path = xp_profdir_file(in->path, XP_DT_FEEDBACK, NULL);
			if (path)
				in->db_fd = open(path, O_RDONLY | O_CLOEXEC);
			free(path);
		}
		fd = in->db_fd;
	}
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	*len = (uint64_t)st.st_size;
	return fd;
}

void xp_input_took_db(xp_input *in, uint64_t len, uint32_t crc,
                      const uint64_t tot[4])
{
	/* The checksum of the file with its checksum field zero gives the
	 * file's. */
	in->sum.len = len;
	in->sum.crc = xp_crc32c_with_field(crc, len, XP_DBH_CRC, crc);
	in->summed = 1;
	in->has_totals = 1;
	memcpy(in->totals, tot, sizeof in->totals);
}

xp_err xp_input_feedback(xp_input *in, xp_fb **out, xp_diags *d)
{
	return xp_input_feedback_like(in, NULL, 0, NULL, out, d);
}

xp_err xp_input_feedback_as(xp_input *in, const xp_fb *like, xp_fb **out,
                            xp_diags *d)
{
	int same;

	return xp_input_feedback_like(in, &like, like != NULL, &same, out, d);
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
