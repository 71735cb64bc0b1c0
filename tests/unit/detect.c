/*
 * detect.c - unit tests of format recognition (lib/registry/): the
 * modules are asked in the order of lib/modules.list.
 *
 * Every good file of the fuzz corpus whose name says its form (.gmon,
 * .prof, .out, .gcda, .gcno, .proftext, .text, .db) is offered to every module's binary and text
 * recogniser.  A file of a module's form must be accepted by that
 * recogniser; xp_format_detect() must name the first format whose
 * recogniser accepts it (binary ones before text ones, each in list
 * order), and xp_prof_open_mem() must open it as its own format, even
 * where a module earlier in the list claims its first bytes too (a BSD
 * gmon.out and a CPU profile have no magic number).  A feedback
 * database or text is accepted by no module.  Messages that list the
 * foreign formats take the list from the registry.
 *
 * Environment: SRCDIR (the source tree).
 */
#include <dirent.h>

#include "registry/module.h"
#include "unit.h"

static const char *srcdir(void)
{
	const char *s = getenv("SRCDIR");

	return s != NULL ? s : ".";
}

/* The module names of lib/modules.list, in order, into names[]. */
static size_t read_list(char names[][32], size_t max)
{
	char path[4096], line[256];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof path, "%s/lib/modules.list", srcdir());
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while (n < max && fgets(line, sizeof line, f) != NULL) {
		char *hash = strchr(line, '#');
		size_t len;

		if (hash != NULL)
			*hash = '\0';
		len = strcspn(line, " \t\r\n");
		if (len == 0 || len >= sizeof names[0])
			continue;
		memcpy(names[n], line, len);
		names[n++][len] = '\0';
	}
	fclose(f);
	return n;
}

static void test_order(void)
{
	char names[16][32];
	size_t n = read_list(names, 16), i = 0;
	const xp_module *m;

	CHECK(n >= 5);
	for (m = xp_module_next(NULL); m != NULL; m = xp_module_next(m)) {
		CHECK(i < n);
		if (i < n)
			CHECK(strcmp(m->name, names[i]) == 0);
		i++;
	}
	CHECK(i == n);
}

/* Which module the corpus folder's files belong to (NULL: feedback). */
static const char *const folders[] = { "cpuprof", "dcpi", "gmon", "mpatrol",
	                               "gcov", "llvm", "db", "text" };

/* A check whose message names the file. */
static void expect(int cond, const char *what)
{
	if (!cond)
		unit_fail(__FILE__, __LINE__, what);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Offers one file to every recogniser and opens it. */
static void check_file(const char *folder, const char *path, int text)
{
	size_t len;
	char *buf = unit_slurp(path, &len);
	const unsigned char *p = (const unsigned char *)buf;
	const xp_module *own = NULL;
	xp_format first = XP_FMT_UNKNOWN, want;
	char what[8400];

	if (buf == NULL) {
		CHECK(buf != NULL);
		return;
	}
	for (int t = 0; t < 2; t++)
		for (const xp_module *m = xp_module_next(NULL); m != NULL;
		     m = xp_module_next(m)) {
			if (strcmp(m->name, folder) == 0)
				own = m;
			if (first == XP_FMT_UNKNOWN &&
			    (t ? m->detect_text(p, len) : m->detect(p, len)))
				first = t ? m->text_fmt : m->fmt;
		}
	if (own != NULL) {
		xp_prof *prof = NULL;
		xp_diags *d = xp_diags_new(0);

		want = text ? own->text_fmt : own->fmt;
		snprintf(what, sizeof what, "%s: its own recogniser", path);
		expect(text ? own->detect_text(p, len) : own->detect(p, len),
		       what);
		snprintf(what, sizeof what, "%s: opens as its format", path);
		expect(xp_prof_open_mem(p, len, path, NULL, &prof, d) ==
		       XP_E_OK && xp_prof_source_format(prof) == want, what);
		xp_prof_free(prof);
		xp_diags_free(d);
	} else {
		want = strcmp(folder, "db") == 0 ? XP_FMT_FEEDBACK_DB
		                                 : XP_FMT_FEEDBACK_TEXT;
		snprintf(what, sizeof what, "%s: no module's recogniser", path);
		expect(first == XP_FMT_UNKNOWN, what);
		first = want;
	}
	snprintf(what, sizeof what, "%s: xp_format_detect", path);
	expect(xp_format_detect(p, len) == first, what);
	free(buf);
}

static void test_corpus(void)
{
	size_t checked = 0;

	for (size_t f = 0; f < sizeof folders / sizeof folders[0]; f++) {
		char dir[4096], path[8192];
		struct dirent *e;
		DIR *dp;

		snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/%s", srcdir(),
		         folders[f]);
		CHECK((dp = opendir(dir)) != NULL);
		if (dp == NULL)
			continue;
		while ((e = readdir(dp)) != NULL) {
			const char *n = e->d_name;
			int text;

			/* Broken files may lose their magic; an ambiguous
			 * mpatrol file opens only with -L. */
			if (strncmp(n, "bad", 3) == 0 || n[0] == '.' ||
			    strncmp(n, "ambiguous", 9) == 0)
				continue;
			if (strcmp(folders[f], "db") == 0)
				text = 0;
			else if (strcmp(folders[f], "text") == 0)
				text = 1;
			else if (has_suffix(n, ".text"))
				text = 1;
			else if (has_suffix(n, ".gmon") || has_suffix(n, ".prof") ||
			         has_suffix(n, ".out") || has_suffix(n, ".gcda") ||
			         has_suffix(n, ".gcno") ||
			         has_suffix(n, ".proftext"))
				text = 0;
			else
				continue;
			if (strncmp(n, "empty", 5) == 0)
				continue;
			snprintf(path, sizeof path, "%s/%s", dir, n);
			check_file(folders[f], path, text);
			checked++;
		}
		closedir(dp);
	}
	CHECK(checked >= 20);
}

/* Every module has the entries the registry calls without asking:
 * recognition, reading and writing both forms, merging, totals, free.
 * (to_feedback, report, export and check_exe may be NULL: refused.) */
static void test_entries(void)
{
	for (const xp_module *m = xp_module_next(NULL); m != NULL;
	     m = xp_module_next(m)) {
		CHECK(m->detect && m->detect_text && m->read && m->read_text);
		CHECK(m->write && m->write_text && m->merge && m->totals);
		CHECK(m->free != NULL);
		CHECK(!m->report == !m->report_free);
	}
}

/*
 * Messages that name every foreign format take the list from the
 * registry (xp_format_list): each module's name with its article, in
 * order, separated by ", " and the last by " or "; a short buffer gets
 * the start of it and the length of the whole.  A profile directory
 * given where a foreign profile is wanted is told so with that list.
 */
static void test_format_list(void)
{
	char list[512], shortbuf[8], expect[512] = "";
	size_t n = 0, len = 0, i = 0;
	const xp_module *m;
	xp_diags *d = xp_diags_new(0);
	xp_input *in = NULL;
	xp_prof *p = NULL;

	for (m = xp_module_next(NULL); m != NULL; m = xp_module_next(m))
		n++;
	for (m = xp_module_next(NULL); m != NULL; m = xp_module_next(m), i++)
		len += (size_t)snprintf(expect + len, sizeof expect - len,
		                        "%s%s", i == 0 ? "" : i + 1 < n ? ", "
		                        : " or ", m->display_a);
	CHECK(n >= 6 && strstr(expect, "an LLVM profile") != NULL);
	CHECK_EQ(xp_format_list(list, sizeof list, "or"), len);
	CHECK_STR(list, expect);
	CHECK_EQ(xp_format_list(shortbuf, sizeof shortbuf, "or"), len);
	CHECK(memcmp(shortbuf, expect, sizeof shortbuf - 1) == 0 &&
	      shortbuf[sizeof shortbuf - 1] == '\0');
	CHECK_EQ(xp_format_list(NULL, 0, "and"), len + 1);

	snprintf(list, sizeof list, "%s/tests/merge/data", srcdir());
	CHECK(xp_input_open(list, &in, d) == XP_E_OK);
	if (in != NULL) {
		CHECK(xp_prof_open_input(in, NULL, &p, d) == XP_E_FORMAT);
		CHECK(xp_diags_count(d) == 1 &&
		      strstr(xp_diags_get(d, 0)->msg, expect) != NULL);
		xp_input_free(in);
	}
	xp_diags_free(d);
}

int main(void)
{
	RUN(test_order);
	RUN(test_entries);
	RUN(test_corpus);
	RUN(test_format_list);
	return unit_done();
}
