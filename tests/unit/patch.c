/*
 * patch.c - unit tests of unified diffs (xp_patch, xprof_tcov.h): the
 * lines a hunk adds and removes, the names of git's files (prefixes,
 * quoting, renames, /dev/null), which file of a patch is a source (read
 * from the working directory or above it, the longest name winning)
 * and where a renamed file was.
 */
#include "unit.h"
#include "xprof_tcov.h"

static xp_patch *parse(const char *text, int strip)
{
	xp_diags *d = xp_diags_new(0);
	xp_patch *p = NULL;
	xp_err err = xp_patch_parse(text, strlen(text), "t.diff", strip, &p, d);
	CHECK_EQ(err, XP_E_OK);
	if (err && xp_diags_count(d))
		printf("    %s\n", xp_diags_get(d, 0)->msg);
	xp_diags_free(d);
	return p;
}

static void test_lines(void)
{
	/* Old lines 1-4, new 1-5: b removed, B and C added (modified and
	 * added), then a hunk adding after old line 9. */
	xp_patch *p = parse("--- a/x.c\n+++ b/x.c\n@@ -1,4 +1,5 @@\n a\n-b\n"
	                    "+B\n+C\n c\n\n@@ -9,0 +11 @@\n+z\n", -1);
	if (!p)
		return;
	CHECK_EQ(xp_patch_n_files(p), 1);
	const xp_patch_file *f = xp_patch_file_at(p, 0);
	CHECK_STR(f->old_path, "x.c");
	CHECK_STR(f->new_path, "x.c");
	CHECK_EQ(f->renamed, 0);
	CHECK_EQ(f->n_added, 3);
	CHECK_EQ(f->added[0], 2);
	CHECK_EQ(f->added[1], 3);
	CHECK_EQ(f->added[2], 11);
	CHECK_EQ(f->n_removed, 1);
	CHECK_EQ(f->removed[0], 2);
	/* Shown: a, B, C, c and the empty context line, then z. */
	CHECK_EQ(f->n_shown, 6);
	CHECK_EQ(f->shown[4].line, 5);
	CHECK_EQ(f->shown[4].len, 0);
	CHECK_MEM(f->shown[2].text, f->shown[2].len, "C", 1);
	CHECK_EQ(f->shown[2].at, 7);
	xp_patch_free(p);
}

static void test_names(void)
{
	xp_patch *p = parse(
		"diff --git a/o.c b/n.c\nsimilarity index 100%\n"
		"rename from o.c\nrename to n.c\n"
		"diff --git \"a/sp ace\\303\\251.c\" \"b/sp ace\\303\\251.c\"\n"
		"--- \"a/sp ace\\303\\251.c\"\n+++ \"b/sp ace\\303\\251.c\"\n"
		"@@ -1 +1 @@\n-x\n+y\n"
		"diff --git a/mode.sh b/mode.sh\nold mode 100644\nnew mode 100755\n"
		"diff --git a/gone.c b/gone.c\ndeleted file mode 100644\n"
		"--- a/gone.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"
		"--- new.c\t2024-01-01 00:00:00\n+++ ./dir//new.c\t2024-01-02\n"
		"@@ -1 +1 @@\n-x\n+y\n", -1);
	if (!p)
		return;
	/* The mode change changes no line and is left out. */
	CHECK_EQ(xp_patch_n_files(p), 4);
	const xp_patch_file *f = xp_patch_file_at(p, 0);
	CHECK_STR(f->old_path, "o.c");
	CHECK_STR(f->new_path, "n.c");
	CHECK_EQ(f->renamed, 1);
	CHECK_EQ(f->n_added, 0);
	CHECK_STR(xp_patch_file_at(p, 1)->new_path, "sp ace\xc3\xa9.c");
	f = xp_patch_file_at(p, 2);
	CHECK_STR(f->old_path, "gone.c");
	CHECK(f->new_path == NULL);
	CHECK_EQ(f->n_removed, 1);
	/* No a/ and b/: nothing stripped; "." and "//" dropped. */
	f = xp_patch_file_at(p, 3);
	CHECK_STR(f->old_path, "new.c");
	CHECK_STR(f->new_path, "dir/new.c");
	xp_patch_free(p);
}

static void test_find(void)
{
	xp_patch *p = parse("--- a/prog.c\n+++ b/prog.c\n@@ -1 +1 @@\n-x\n+y\n"
	                    "--- a/src/prog.c\n+++ b/src/prog.c\n@@ -1 +1 @@\n"
	                    "-x\n+y\n--- /abs/f.c\n+++ /abs/f.c\n@@ -1 +1 @@\n"
	                    "-x\n+y\n", -1);
	char *old = NULL;
	if (!p)
		return;
	/* From /r/src, src/prog.c read from /r beats prog.c read from
	 * /r/src. */
	CHECK_EQ(xp_patch_find(p, "/r/src/prog.c", "/r/src"), 1);
	CHECK_EQ(xp_patch_find(p, "/r/src/prog.c", "/r/src/deeper"), 1);
	CHECK_EQ(xp_patch_find(p, "/r/prog.c", "/r/src"), 0);
	/* Not from the working directory or above it. */
	CHECK_EQ(xp_patch_find(p, "/elsewhere/src/prog.c", "/r"), XP_TCOV_NONE);
	CHECK_EQ(xp_patch_find(p, "/r/xsrc/prog.c", "/r/xsrc/t"), 0);
	CHECK_EQ(xp_patch_find(p, "/abs/f.c", "/r"), 2);
	CHECK_EQ(xp_patch_find(p, "/r/abs/f.c", "/r"), XP_TCOV_NONE);
	xp_patch_free(p);

	p = parse("diff --git a/lib/o.c b/src/n.c\nrename from lib/o.c\n"
	          "rename to src/n.c\n--- a/lib/o.c\n+++ b/src/n.c\n"
	          "@@ -1 +1 @@\n-x\n+y\n--- /dev/null\n+++ b/new.c\n"
	          "@@ -0,0 +1 @@\n+y\n", -1);
	if (!p)
		return;
	CHECK_EQ(xp_patch_old_path(xp_patch_file_at(p, 0), "/r/src/n.c", &old),
	         XP_E_OK);
	CHECK_STR(old, "/r/lib/o.c");
	free(old);
	CHECK_EQ(xp_patch_old_path(xp_patch_file_at(p, 1), "/r/new.c", &old),
	         XP_E_OK);
	CHECK(old == NULL);
	xp_patch_free(p);
}

static void test_strip(void)
{
	xp_patch *p = parse("--- x/y/a.c\n+++ x/y/a.c\n@@ -1 +1 @@\n-x\n+y\n",
	                    2);
	if (!p)
		return;
	CHECK_STR(xp_patch_file_at(p, 0)->new_path, "a.c");
	xp_patch_free(p);
}

int main(void)
{
	RUN(test_lines);
	RUN(test_names);
	RUN(test_find);
	RUN(test_strip);
	return unit_done();
}
