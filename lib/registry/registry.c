/*
 * registry/registry.c - recognising the formats libxprof reads from their first
 * bytes, so that the tools take any supported input without flags, and
 * the registry of the modules of the foreign formats.
 *
 * A feedback text (xprof_text(5)) begins with the keyword
 * "PROFILE-FEEDBACK-DATA:", possibly after blank space and blank lines,
 * which the parser accepts too.  A feedback database (xprof_db(5)) begins
 * with the eight-byte magic of db.h.  Each module recognises its own
 * binary and text forms (see its man page).  Recognition looks at nothing
 * else: whether the rest is valid is the reader's business, and a
 * reader's diagnostics say more than a format guess could.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feedback/db.h"
#include "registry/module.h"

/* Every lib/NAME/module.c defines xp_module_NAME; modules.h lists them
 * in the order of lib/modules.list. */
#define XP_MODULE(n) extern const xp_module xp_module_##n;
#include "modules.h"
#undef XP_MODULE

static const xp_module *const modules[] = {
#define XP_MODULE(n) &xp_module_##n,
#include "modules.h"
#undef XP_MODULE
	NULL
};

static const char text_keyword[] = "PROFILE-FEEDBACK-DATA:";

const xp_module *xp_module_of(xp_format f)
{
	for (size_t i = 0; modules[i] != NULL; i++)
		if (modules[i]->fmt == f || modules[i]->text_fmt == f)
			return modules[i];
	return NULL;
}

const xp_module *xp_module_next(const xp_module *m)
{
	size_t i = 0;

	if (m != NULL) {
		while (modules[i] != NULL && modules[i] != m)
			i++;
		if (modules[i] != NULL)
			i++;
	}
	return modules[i];
}

xp_format xp_format_detect(const void *head, size_t len)
{
	const unsigned char *p = head;
	size_t i = 0, kl = sizeof text_keyword - 1;

	if (p == NULL)
		return XP_FMT_UNKNOWN;
	if (len >= XP_DB_MAGIC_LEN &&
	    memcmp(p, XP_DB_MAGIC, XP_DB_MAGIC_LEN) == 0)
		return XP_FMT_FEEDBACK_DB;
	for (size_t m = 0; modules[m] != NULL; m++)
		if (modules[m]->detect(p, len))
			return modules[m]->fmt;
	for (size_t m = 0; modules[m] != NULL; m++)
		if (modules[m]->detect_text(p, len))
			return modules[m]->text_fmt;
	/* The same blanks the parser skips before the header. */
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
	                   p[i] == '\n'))
		i++;
	if (len - i >= kl && memcmp(p + i, text_keyword, kl) == 0)
		return XP_FMT_FEEDBACK_TEXT;
	return XP_FMT_UNKNOWN;
}

/* The names of the feedback forms; each module names its own. */
const char *xp_format_name(xp_format f)
{
	const xp_module *m = xp_module_of(f);

	if (m != NULL)
		return f == m->fmt ? m->display : m->text_display;
	switch (f) {
	case XP_FMT_FEEDBACK_TEXT:
		return "feedback text";
	case XP_FMT_FEEDBACK_DB:
		return "feedback database";
	default:
		return "unknown";
	}
}

const char *xp_format_a(xp_format f)
{
	const xp_module *m = xp_module_of(f);

	if (m != NULL)
		return f == m->fmt ? m->display_a : m->text_display_a;
	switch (f) {
	case XP_FMT_FEEDBACK_TEXT:
		return "a feedback text";
	case XP_FMT_FEEDBACK_DB:
		return "a feedback database";
	default:
		return "an unknown format";
	}
}

size_t xp_module_list(char *buf, size_t size, const char *last,
                      int merge_modes)
{
	size_t n = 0, count = 0, i = 0;
	const xp_module *m;

	for (m = xp_module_next(NULL); m != NULL; m = xp_module_next(m))
		count += !merge_modes || m->merge_modes;
	if (size > 0)
		buf[0] = '\0';
	for (m = xp_module_next(NULL); m != NULL; m = xp_module_next(m)) {
		if (merge_modes && !m->merge_modes)
			continue;
		/* "a", "a or b", "a, b or c". */
		int tail = i > 0 && i + 1 == count;
		int r = snprintf(n < size ? buf + n : NULL,
		                 n < size ? size - n : 0, "%s%s%s%s",
		                 tail ? " " : i > 0 ? ", " : "",
		                 tail ? last : "", tail ? " " : "",
		                 m->display_a);
		if (r > 0)
			n += (size_t)r;
		i++;
	}
	return n;
}

size_t xp_format_list(char *buf, size_t size, const char *last)
{
	return xp_module_list(buf, size, last, 0);
}

int xp_format_is_text(xp_format f)
{
	const xp_module *m = xp_module_of(f);

	return f == XP_FMT_FEEDBACK_TEXT || (m != NULL && f == m->text_fmt);
}

xp_format xp_format_binary(xp_format f)
{
	const xp_module *m = xp_module_of(f);

	if (m != NULL)
		return m->fmt;
	if (f == XP_FMT_FEEDBACK_TEXT || f == XP_FMT_FEEDBACK_DB)
		return XP_FMT_FEEDBACK_DB;
	return XP_FMT_UNKNOWN;
}

const char *xp_format_module(xp_format f)
{
	const xp_module *m = xp_module_of(f);
	return m != NULL ? m->name : NULL;
}

const char *xp_prof_default_name(xp_format f)
{
	const xp_module *m = xp_module_of(f);
	return m != NULL ? m->default_name : NULL;
}

xp_err xp_format_probe(const char *path, xp_format *f, xp_diags *d)
{
	unsigned char head[4096];
	struct stat st;
	size_t got = 0;
	int fd;

	*f = XP_FMT_UNKNOWN;
	if (strcmp(path, "-") == 0) {
		*f = XP_FMT_FEEDBACK_TEXT;
		return XP_E_OK;
	}
	/* A FIFO must not be opened here: whoever writes to it would see
	 * this reader go away, and the real reader would wait forever. */
	if (stat(path, &st) != 0)
		return xp_diag_file(d, errno == ENOENT ? XP_E_NOTFOUND : XP_E_IO,
		                    path, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		*f = XP_FMT_FEEDBACK_DB;
		return XP_E_OK;
	}
	if (!S_ISREG(st.st_mode)) {
		*f = XP_FMT_FEEDBACK_TEXT;
		return XP_E_OK;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xp_diag_file(d, errno == ENOENT ? XP_E_NOTFOUND : XP_E_IO,
		                    path, "%s", strerror(errno));
	while (got < sizeof head) {
		ssize_t r = pread(fd, head + got, sizeof head - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return xp_diag_file(d, XP_E_IO, path, "%s", strerror(e));
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	*f = xp_format_detect(head, got);
	if (*f == XP_FMT_UNKNOWN)
		return xp_diag_file(d, XP_E_FORMAT, path,
		                    "not a profile in any format this program "
		                    "knows");
	return XP_E_OK;
}
