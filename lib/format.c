/*
 * format.c - recognising the formats libxprof reads from their first
 * bytes, so that the tools take any supported input without flags.
 *
 * A feedback text (xprof_text(5)) begins with the keyword
 * "PROFILE-FEEDBACK-DATA:", possibly after blank space and blank lines,
 * which the parser accepts too.  A feedback database (xprof_db(5)) begins
 * with the eight-byte magic of db.h.  Recognition looks at nothing else: whether
 * the rest is valid is the reader's business, and a reader's diagnostics
 * say more than a format guess could.
 */
#include "db.h"

static const char text_keyword[] = "PROFILE-FEEDBACK-DATA:";

xp_format xp_format_detect(const void *head, size_t len)
{
	const unsigned char *p = head;
	size_t i = 0, kl = sizeof text_keyword - 1;

	if (p == NULL)
		return XP_FMT_UNKNOWN;
	if (len >= XP_DB_MAGIC_LEN &&
	    memcmp(p, XP_DB_MAGIC, XP_DB_MAGIC_LEN) == 0)
		return XP_FMT_FEEDBACK_DB;
	/* The same blanks the parser skips before the header. */
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' ||
	                   p[i] == '\n'))
		i++;
	if (len - i >= kl && memcmp(p + i, text_keyword, kl) == 0)
		return XP_FMT_FEEDBACK_TEXT;
	return XP_FMT_UNKNOWN;
}

const char *xp_format_name(xp_format f)
{
	switch (f) {
	case XP_FMT_FEEDBACK_TEXT:
		return "feedback text";
	case XP_FMT_FEEDBACK_DB:
		return "feedback database";
	case XP_FMT_UNKNOWN:
		break;
	}
	return "unknown";
}
