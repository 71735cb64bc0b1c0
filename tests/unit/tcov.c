/*
 * tcov.c - unit tests of the coverage computations of xprof_tcov.h:
 * block counts worked out from edge counters, the line rules (leaders,
 * first block, nearest block above), the largest count winning, the
 * merging of procedures by name, the tcovsd round trip, the combination
 * of run time and compilation data, top blocks, path matching, branches
 * from the edges and the union of several coverages.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xprof.h"
#include "xprof_tcov.h"
#include "unit.h"

static xp_fb *parse(const char *text)
{
	xp_fb *fb = NULL;
	xp_diags *d = xp_diags_new(0);
	xp_err err = xp_text_parse_mem(text, strlen(text), "t", NULL, &fb, d);
	CHECK_EQ(err, XP_E_OK);
	if (err)
		for (size_t i = 0; i < xp_diags_count(d); i++)
			printf("# %s\n", xp_diags_get(d, i)->msg);
	xp_diags_free(d);
	return fb;
}

static xp_tcov *cov_of(const char *text)
{
	xp_fb *fb = parse(text);
	xp_tcov *c = NULL;
	if (!fb)
		return NULL;
	xp_diags *d = xp_diags_new(0);
	CHECK_EQ(xp_tcov_new(fb, "t", &c, d), XP_E_OK);
	xp_diags_free(d);
	xp_fb_free(fb);
	return c;
}

/* The coverage of text with one byte changed: that at offset off from
 * the first occurrence of needle becomes ch ('\0': the text ends there). */
static xp_tcov *cov_of_patched(const char *text, const char *needle,
                               size_t off, char ch)
{
	char *t = strdup(text);
	char *p = t ? strstr(t, needle) : NULL;
	xp_tcov *c = NULL;
	CHECK(p != NULL);
	if (p) {
		p[off] = ch;
		c = cov_of(t);
	}
	free(t);
	return c;
}

/* The count of block id of proc in file f (UINT64_MAX: not there). */
static uint64_t block_count(const xp_tcov_file *f, const char *proc,
                            uint32_t id)
{
	for (size_t i = 0; i < f->n_blocks; i++)
		if (f->blocks[i].id == id && !strcmp(f->blocks[i].proc, proc))
			return f->blocks[i].count;
	return UINT64_MAX;
}

static const xp_tcov_line *line_of(const xp_tcov_file *f, uint32_t line)
{
	for (size_t i = 0; i < f->n_lines; i++)
		if (f->lines[i].line == line)
			return &f->lines[i];
	return NULL;
}

/*
 * A diamond with a loop: B1 -> B2 -> {B3, B4} -> B5, B5 -> B2.  Only B1
 * and two edges have counters; everything else follows.
 */
static const char flow_text[] =
	"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
	"OBJFILE:/o.o 1 0 0 1 0x1 1\n"
	"PROC: f 0x2 3 0 0 1 6 7 6\n"
	"1 5\n"    /* B1 */
	"2 20\n"   /* E2: B2 -> B3 */
	"3 5\n"    /* E6: B5 -> B6 (exit) */
	"B1: 1\n"
	"B2: 0\n"
	"B3: 0\n"
	"B4: 0\n"
	"B5: 0\n"
	"B6: 0\n"
	"E1 0 B1 B2\n"
	"E2 2 B2 B3\n"
	"E3 0 B2 B4\n"
	"E4 0 B3 B5\n"
	"E5 0 B4 B5\n"
	"E6 3 B5 B6\n"
	"E7 0 B5 B2\n"
	"S1: B1 1 /a.c\n"
	"S2: B2 2\n"
	"S3: B3 3\n"
	"S4: B4 4\n"
	"S5: B5 5\n"
	"S6: B6 6\n";

static void test_flow(void)
{
	xp_tcov *c = cov_of(flow_text);
	if (!c)
		return;
	CHECK_EQ(xp_tcov_n_files(c), 1);
	const xp_tcov_file *f = xp_tcov_file_at(c, 0);
	CHECK_STR(f->path, "/a.c");
	/* B1 = 5; B6 = E6 = 5.  B5 -> {B6, B2}: B5 is unknown, so is E7.
	 * B3 = E2 = 20 (its only in-edge), E4 = 20.  B2's in-edges E1 (B1's
	 * only out-edge: 5) and E7 unknown; its out-edges E2 (20) and E3
	 * unknown.  Nothing more follows without B2, so B2, B4, B5 count 0
	 * except what the edges give: B4 and B5 stay unknown. */
	CHECK_EQ_U64(block_count(f, "f", 1), 5);
	CHECK_EQ_U64(block_count(f, "f", 3), 20);
	CHECK_EQ_U64(block_count(f, "f", 6), 5);
	CHECK_EQ_U64(block_count(f, "f", 2), 0);
	CHECK_EQ(f->n_blocks, 6);
	xp_tcov_free(c);

	/* With a counter on E3 too (counter 1, value 5), the loop closes:
	 * B2 = E2 + E3 = 25, E7 = B2 - E1 = 20, B4 = E3 = 5, E5 = 5,
	 * B5 = E4 + E5 = 25 (= E6 + E7). */
	c = cov_of_patched(flow_text, "E3 0 B2 B4", 3, '1');
	if (!c)
		return;
	f = xp_tcov_file_at(c, 0);
	CHECK_EQ_U64(block_count(f, "f", 2), 25);
	CHECK_EQ_U64(block_count(f, "f", 4), 5);
	CHECK_EQ_U64(block_count(f, "f", 5), 25);
	CHECK_EQ(f->n_blocks_hit, 6);
	CHECK_EQ_U64(f->sum, 5 + 25 + 20 + 5 + 25 + 5);
	xp_tcov_free(c);
}

/* Lines: several leaders on one line, blocks over several lines, a
 * block's largest count, SRCFILE refs and tuples together. */
static const char lines_text[] =
	"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 1\n"
	"OBJFILE:/o.o 1 0 0 1 0x1 1\n"
	"PROC: g 0x2 4 0 0 1 4 0 7\n"
	"1 1\n2 11\n3 10\n4 0\n"
	"B1: 1\nB2: 2\nB3: 3\nB4: 4\n"
	"S1: B1 10:1 /b.c\n"
	"S2: B1 12:7\n"      /* B1 covers 10 and 12 */
	"S3: B3 12:20\n"     /* B3 and B2 begin on 12; B2 has the */
	"S4: B2 12:12\n"     /* smaller column, so it is first */
	"S5: B2 13\n"
	"S6: B4 15\n"
	"S7: B1 14\n"        /* 14: covered by B1 (leader 10) only */
	"SRCFILE: /b.c 1\n"
	"SRCLINE: 15 1\n"
	"B4 7 g:/o.o\n";     /* a larger count for B4 wins */

/*
 * A do-while loop at a procedure's entry: B1 (the body, no counter) ->
 * B2 (the test, counter 1: 10) -> B1 again (E2, counter 2: 9) or B3 (the
 * exit).  B1's only in-edge is the back edge, but B1 is also entered by
 * the call, which no edge records: B1 ran 10 times, not 9.
 */
static const char loop_entry_text[] =
	"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0\n"
	"OBJFILE:/o.o 1 0 0 1 0x1 1\n"
	"PROC: g 0x3 2 0 0 1 3 3 3\n"
	"1 10\n"   /* B2 */
	"2 9\n"    /* E2: B2 -> B1 */
	"B1: 0\n"
	"B2: 1\n"
	"B3: 0\n"
	"E1 0 B1 B2\n"
	"E2 2 B2 B1\n"
	"E3 0 B2 B3\n"
	"S1: B1 1 /b.c\n"
	"S2: B2 2\n"
	"S3: B3 3\n";

static void test_loop_entry(void)
{
	xp_tcov *c = cov_of(loop_entry_text);
	const xp_tcov_file *f;

	if (!c)
		return;
	f = xp_tcov_file_at(c, 0);
	/* E1 = B2's only unknown in-edge = 10, so B1 = its out-edges = 10;
	 * E3 = B2 - E2 = 1 = B3. */
	CHECK_EQ_U64(block_count(f, "g", 1), 10);
	CHECK_EQ_U64(block_count(f, "g", 2), 10);
	CHECK_EQ_U64(block_count(f, "g", 3), 1);
	xp_tcov_free(c);
}

static void test_lines(void)
{
	xp_tcov *c = cov_of(lines_text);
	if (!c)
		return;
	const xp_tcov_file *f = xp_tcov_file_at(c, 0);
	const xp_tcov_line *l;
	CHECK_EQ(f->n_blocks, 4);
	CHECK_EQ(f->n_lines, 5);
	CHECK((l = line_of(f, 12)) != NULL);
	if (l) {
		CHECK_EQ(l->n_blocks, 3);
		CHECK_EQ(l->n_leaders, 2);
		CHECK_EQ_U64(l->count, 11);  /* B2, column 12 */
		CHECK_EQ_U64(l->max, 11);
	}
	CHECK((l = line_of(f, 13)) != NULL);
	if (l) {
		CHECK_EQ(l->n_leaders, 0);
		CHECK_EQ_U64(l->count, 11);
	}
	CHECK((l = line_of(f, 14)) != NULL);
	if (l)
		CHECK_EQ_U64(l->count, 1);
	CHECK((l = line_of(f, 15)) != NULL);
	if (l) {
		CHECK_EQ(l->n_leaders, 1);
		CHECK_EQ_U64(l->count, 7);
	}
	CHECK_EQ(f->n_lines_hit, 5);
	/* Block order: leader line, column. */
	CHECK_EQ(f->blocks[0].id, 1);
	CHECK_EQ(f->blocks[0].line, 10);
	CHECK_EQ(f->blocks[1].id, 2);
	CHECK_EQ(f->blocks[1].col, 12);
	CHECK_EQ(f->blocks[2].id, 3);
	CHECK_EQ(f->blocks[3].id, 4);
	/* Top: by count, ties in block order. */
	size_t *top = NULL, n = 0;
	CHECK_EQ(xp_tcov_top(f, 3, &top, &n), XP_E_OK);
	CHECK_EQ(n, 3);
	if (n == 3) {
		CHECK_EQ(f->blocks[top[0]].id, 2);
		CHECK_EQ(f->blocks[top[1]].id, 3);
		CHECK_EQ(f->blocks[top[2]].id, 4);
	}
	free(top);
	/* The function: line 10, entry block B1. */
	CHECK_EQ(f->n_funcs, 1);
	CHECK_STR(f->funcs[0].name, "g");
	CHECK_EQ(f->funcs[0].line, 10);
	CHECK_EQ_U64(f->funcs[0].count, 1);

	/* tcovsd and back gives the same coverage. */
	xp_fb *sd = NULL;
	CHECK_EQ(xp_tcov_to_fb(c, &sd), XP_E_OK);
	if (sd) {
		xp_tcov *c2 = NULL;
		CHECK_EQ(xp_fb_datatype(sd), XP_DT_TCOVSD);
		CHECK_EQ(xp_fb_count(sd, XP_T_OBJFILES), 0);
		CHECK_EQ(xp_tcov_new(sd, "sd", &c2, NULL), XP_E_OK);
		if (c2) {
			const xp_tcov_file *g = xp_tcov_file_at(c2, 0);
			CHECK_EQ(g->n_blocks, f->n_blocks);
			CHECK_EQ(g->n_lines, f->n_lines);
			CHECK_EQ(g->n_locs, f->n_locs);
			for (size_t i = 0; i < f->n_lines && i < g->n_lines; i++) {
				CHECK_EQ(g->lines[i].line, f->lines[i].line);
				CHECK_EQ_U64(g->lines[i].count, f->lines[i].count);
				CHECK_EQ_U64(g->lines[i].max, f->lines[i].max);
			}
			for (size_t i = 0; i < f->n_blocks && i < g->n_blocks; i++) {
				CHECK_EQ(g->blocks[i].id, f->blocks[i].id);
				CHECK_EQ_U64(g->blocks[i].count, f->blocks[i].count);
			}
		}
		xp_tcov_free(c2);
	}
	xp_fb_free(sd);
	xp_tcov_free(c);
}

/* A header function compiled into two object files: one function, its
 * counts summed; tuples before any file are ignored. */
static void test_funcs(void)
{
	xp_tcov *c = cov_of(
		"PROFILE-FEEDBACK-DATA: 4.4 2 0 0 0\n"
		"OBJFILE:/a.o 1 0 0 1 0x1 1\n"
		"PROC: h 0x2 1 0 0 1 2 0 3\n"
		"1 3\n"
		"B1: 1\nB2: 0\n"
		"S1: B2 99\n"
		"S2: B1 5 /h.h\n"
		"S3: B2 6\n"
		"OBJFILE:/b.o 1 0 0 1 0x1 1\n"
		"PROC: h 0x2 1 0 0 1 1 0 1\n"
		"1 4\n"
		"B1: 1\n"
		"S1: B1 4 /h.h\n");
	if (!c)
		return;
	CHECK_EQ(xp_tcov_n_files(c), 1);
	const xp_tcov_file *f = xp_tcov_file_at(c, 0);
	CHECK_EQ(f->n_blocks, 3);
	CHECK(line_of(f, 99) == NULL);
	CHECK_EQ(f->n_funcs, 1);
	CHECK_EQ(f->funcs[0].line, 4);
	CHECK_EQ_U64(f->funcs[0].count, 7);
	xp_tcov_free(c);
}

/* Run time data over compilation data. */
static void test_combine(void)
{
	xp_fb *objfd = parse(
		"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0 objfd\n"
		"OBJFILE:/a.o 2 0 0 1 0x1 1\n"
		"PROC: f 0x2 2 0 0 1 2 1 2\n"
		"1 0\n2 0\n"
		"B1: 1\nB2: 0\n"
		"E1 2 B1 B2\n"
		"S1: B1 1 /a.c\n"
		"S2: B2 2\n"
		"PROC: g 0x3 1 0 0 2 1 0 1\n"
		"1 0\n"
		"B1: 1\n"
		"S1: B1 5\n");
	xp_fb *tcovd = parse(
		"PROFILE-FEEDBACK-DATA: 4.4 1 0 0 0 tcovd\n"
		"OBJFILE:/a.o 2 0 0 1 0x1 1\n"
		"PROC: f 0x2 2 0 0 1 0 0 0\n"
		"1 9\n2 4\n"
		"PROC: g 0x4 1 0 0 2 0 0 0\n"
		"1 8\n");
	if (!objfd || !tcovd) {
		xp_fb_free(objfd);
		xp_fb_free(tcovd);
		return;
	}
	xp_tcov *c = NULL;
	xp_diags *d = xp_diags_new(0);
	const xp_fb *v[] = {objfd};
	CHECK_EQ(xp_tcov_combine(tcovd, v, 1, "dir", &c, d), XP_E_OK);
	/* g's signature differs: one warning, its counts 0. */
	CHECK_EQ(xp_diags_count(d), 1);
	if (xp_diags_count(d) == 1)
		CHECK_EQ(xp_diags_get(d, 0)->severity, XP_SEV_WARNING);
	if (c) {
		const xp_tcov_file *f = xp_tcov_file_at(c, 0);
		CHECK_EQ_U64(block_count(f, "f", 1), 9);
		CHECK_EQ_U64(block_count(f, "f", 2), 4);
		CHECK_EQ_U64(block_count(f, "g", 1), 0);
	}
	xp_tcov_free(c);
	xp_diags_free(d);
	xp_fb_free(objfd);
	xp_fb_free(tcovd);
}

/* Matching command line paths with profile paths. */
static void test_find(void)
{
	xp_tcov *c = cov_of(
		"PROFILE-FEEDBACK-DATA: 4.4 0 0 0 2\n"
		"SRCFILE: /build/src/a.c 1\n"
		"SRCLINE: 1 1\n"
		"B1 1 f:/a.o\n"
		"SRCFILE: rel/b.c 1\n"
		"SRCLINE: 1 1\n"
		"B1 1 g:/b.o\n");
	if (!c)
		return;
	char *cwd = getcwd(NULL, 0);
	char buf[4096];
	xp_tcov_map m1[] = {{"/build/src", "/x/y"}};
	xp_tcov_map m2[] = {{"/build/sr", "/x/y"}};
	xp_tcov_map m3[] = {{"/build/src/", "/x/y/"}, {"/build", "/z"}};
	CHECK_EQ(xp_tcov_find(c, "/build/src/a.c", NULL, 0), 0);
	CHECK_EQ(xp_tcov_find(c, "/build/src/./a.c", NULL, 0), 0);
	CHECK_EQ(xp_tcov_find(c, "/build/x/../src/a.c", NULL, 0), 0);
	CHECK_EQ(xp_tcov_find(c, "/x/y/a.c", m1, 1), 0);
	CHECK_EQ(xp_tcov_find(c, "/x/y/a.c", m2, 1), XP_TCOV_NONE);
	CHECK_EQ(xp_tcov_find(c, "/x/y/a.c", m3, 2), 0);
	CHECK_EQ(xp_tcov_find(c, "rel/b.c", NULL, 0), 1);
	CHECK_EQ(xp_tcov_find(c, "./rel//b.c", NULL, 0), 1);
	if (cwd) {
		snprintf(buf, sizeof buf, "%s/rel/b.c", cwd);
		CHECK_EQ(xp_tcov_find(c, buf, NULL, 0), 1);
	}
	CHECK_EQ(xp_tcov_find(c, "b.c", NULL, 0), XP_TCOV_NONE);
	free(cwd);
	xp_tcov_free(c);
}

/* Two coverages hold the same tables. */
static void check_same(const xp_tcov *a, const xp_tcov *b)
{
	CHECK_EQ(xp_tcov_n_files(a), xp_tcov_n_files(b));
	for (size_t i = 0; i < xp_tcov_n_files(a) && i < xp_tcov_n_files(b);
	     i++) {
		const xp_tcov_file *f = xp_tcov_file_at(a, i);
		const xp_tcov_file *g = xp_tcov_file_at(b, i);
		CHECK_STR(f->path, g->path);
		CHECK_EQ(f->n_blocks, g->n_blocks);
		CHECK_EQ(f->n_lines, g->n_lines);
		CHECK_EQ(f->n_funcs, g->n_funcs);
		CHECK_EQ(f->n_locs, g->n_locs);
		CHECK_EQ_U64(f->sum, g->sum);
		for (size_t k = 0; k < f->n_blocks && k < g->n_blocks; k++) {
			CHECK_STR(f->blocks[k].objfile, g->blocks[k].objfile);
			CHECK_STR(f->blocks[k].proc, g->blocks[k].proc);
			CHECK_EQ(f->blocks[k].id, g->blocks[k].id);
			CHECK_EQ(f->blocks[k].line, g->blocks[k].line);
			CHECK_EQ_U64(f->blocks[k].count, g->blocks[k].count);
		}
		for (size_t k = 0; k < f->n_lines && k < g->n_lines; k++) {
			CHECK_EQ(f->lines[k].line, g->lines[k].line);
			CHECK_EQ_U64(f->lines[k].count, g->lines[k].count);
			CHECK_EQ_U64(f->lines[k].max, g->lines[k].max);
		}
		for (size_t k = 0; k < f->n_funcs && k < g->n_funcs; k++) {
			CHECK_STR(f->funcs[k].name, g->funcs[k].name);
			CHECK_EQ_U64(f->funcs[k].count, g->funcs[k].count);
		}
	}
}

/* Every valid profile of the test data and the bundled example: the
 * coverage holds together and survives the tcovsd round trip. */
static void check_profile(const char *path)
{
	xp_fb *fb = NULL, *sd = NULL;
	xp_tcov *c = NULL, *c2 = NULL;
	xp_diags *d = xp_diags_new(0);
	if (xp_open_any(path, &fb, d) != XP_E_OK) {
		printf("# %s: not opened\n", path);
		CHECK(0);
		goto out;
	}
	CHECK_EQ(xp_tcov_new(fb, path, &c, d), XP_E_OK);
	if (!c)
		goto out;
	for (size_t i = 0; i < xp_tcov_n_files(c); i++) {
		const xp_tcov_file *f = xp_tcov_file_at(c, i);
		CHECK(f->n_blocks_hit <= f->n_blocks);
		CHECK(f->n_lines_hit <= f->n_lines);
		CHECK(f->n_funcs_hit <= f->n_funcs);
		CHECK(f->n_lines <= f->n_locs);
		for (size_t k = 0; k < f->n_locs; k++)
			CHECK(f->locs[k].block < f->n_blocks);
		for (size_t k = 1; k < f->n_lines; k++)
			CHECK(f->lines[k - 1].line < f->lines[k].line);
		if (i > 0)
			CHECK(strcmp(xp_tcov_file_at(c, i - 1)->path, f->path) < 0);
	}
	CHECK_EQ(xp_tcov_to_fb(c, &sd), XP_E_OK);
	if (sd) {
		CHECK_EQ(xp_tcov_new(sd, "sd", &c2, d), XP_E_OK);
		if (c2)
			check_same(c, c2);
	}
out:
	xp_tcov_free(c);
	xp_tcov_free(c2);
	xp_fb_free(fb);
	xp_fb_free(sd);
	xp_diags_free(d);
}

/* The branches of f's line (at most 4), as "block.edge:count/block_count"
 * joined by spaces, into buf. */
static const char *branches_at(const xp_tcov_file *f, uint32_t line,
                               char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < f->n_branches; i++) {
		const xp_tcov_branch *b = &f->branches[i];
		if (b->line != line)
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s:%u.%u:%llu/%llu",
		                       at ? " " : "", b->proc, b->block, b->edge,
		                       (unsigned long long)b->count,
		                       (unsigned long long)b->block_count);
		if (at >= len)
			break;
	}
	return buf;
}

/*
 * A block with two out-edges on /c.c line 12 in two object files (their
 * counts summed), whose last tuple is in /h.h for the second, and a
 * block with a single out-edge (no branch).
 */
static const char branch_text[] =
	"PROFILE-FEEDBACK-DATA: 4.4 2 0 0 0\n"
	"OBJFILE:/o.o 1 0 0 1 0x1 1\n"
	"PROC: h 0x4 2 0 0 1 4 3 4\n"
	"1 7\n"     /* B1 */
	"2 3\n"     /* E1: B1 -> B2 */
	"B1: 1\nB2: 0\nB3: 0\nB4: 0\n"
	"E1 2 B1 B2\nE2 0 B1 B3\nE3 0 B2 B4\n"
	"S1: B1 10 /c.c\nS2: B1 12\nS3: B2 13\nS4: B3 14\n"
	"OBJFILE:/p.o 1 0 0 1 0x1 2\n"
	"PROC: h 0x4 2 0 0 1 4 3 5\n"
	"1 2\n"
	"2 2\n"
	"B1: 1\nB2: 0\nB3: 0\nB4: 0\n"
	"E1 2 B1 B2\nE2 0 B1 B3\nE3 0 B2 B4\n"
	"S1: B1 10 /c.c\nS2: B1 12\nS3: B2 13\nS4: B3 14\n"
	"S5: B1 3 /h.h\n";

static void test_branches(void)
{
	char buf[200];
	/* The loop of flow_text with a counter on E3: B2 (line 2) goes to
	 * B3 (E2, 20) or B4 (E3, 5); B5 (line 5) to B6 (E6, 5) or back to
	 * B2 (E7, 20). */
	xp_tcov *c = cov_of_patched(flow_text, "E3 0 B2 B4", 3, '1');
	const xp_tcov_file *f;
	if (!c)
		return;
	f = xp_tcov_file_at(c, 0);
	CHECK_EQ(f->n_branches, 4);
	CHECK_EQ(f->n_branches_hit, 4);
	CHECK_STR(branches_at(f, 2, buf, sizeof buf), "f:2.0:20/25 f:2.1:5/25");
	CHECK_STR(branches_at(f, 5, buf, sizeof buf), "f:5.0:5/25 f:5.1:20/25");
	CHECK_STR(branches_at(f, 1, buf, sizeof buf), "");
	xp_tcov_free(c);

	/* The back edge of loop_entry_text: B2 -> B1 9 times, B3 once. */
	c = cov_of(loop_entry_text);
	if (!c)
		return;
	f = xp_tcov_file_at(c, 0);
	CHECK_STR(branches_at(f, 2, buf, sizeof buf), "g:2.0:9/10 g:2.1:1/10");
	xp_tcov_free(c);

	/* /o.o: B1 7, E1 3, E2 4; /p.o: B1 2, E1 2, E2 0 and its B1 ends in
	 * /h.h.  Line 12 of /c.c: /o.o's only. */
	c = cov_of(branch_text);
	if (!c)
		return;
	CHECK_EQ(xp_tcov_n_files(c), 2);
	f = xp_tcov_file_at(c, 0);
	CHECK_STR(f->path, "/c.c");
	CHECK_STR(branches_at(f, 12, buf, sizeof buf), "h:1.0:3/7 h:1.1:4/7");
	CHECK_EQ(f->n_branches, 2);
	f = xp_tcov_file_at(c, 1);
	CHECK_STR(f->path, "/h.h");
	CHECK_STR(branches_at(f, 3, buf, sizeof buf), "h:1.0:2/2 h:1.1:0/2");
	CHECK_EQ(f->n_branches_hit, 1);
	xp_tcov_free(c);

	/* The same branch of two object files is one, counts summed. */
	c = cov_of_patched(branch_text, "S5: B1 3 /h.h\n", 0, '\0');
	if (!c)
		return;
	f = xp_tcov_file_at(c, 0);
	CHECK_STR(branches_at(f, 12, buf, sizeof buf), "h:1.0:5/9 h:1.1:4/9");
	xp_tcov_free(c);
}

/* A tcovsd text of /a.c: block B1 of f in object file obj, count n, at
 * line 10, and B2 at line 12 (count m) when m is not negative. */
static xp_tcov *srcdata(const char *obj, int n, int m)
{
	char t[400];
	snprintf(t, sizeof t,
	         "PROFILE-FEEDBACK-DATA: 4.4 0 0 0 1 tcovsd\n"
	         "SRCFILE: /a.c %d\nSRCLINE: 10:1 1\nB1 %d f:%s\n", m < 0 ? 1 : 2,
	         n, obj);
	if (m >= 0)
		snprintf(t + strlen(t), sizeof t - strlen(t),
		         "SRCLINE: 12:1 1\nB2 %d f:%s\n", m, obj);
	return cov_of(t);
}

static void test_union(void)
{
	/* One build in two runs: its blocks are the same, counts summed;
	 * line 12 ran in the second only. */
	xp_tcov *v[3] = {srcdata("/o1.o", 5, 0), srcdata("/o1.o", 3, 4),
	                 srcdata("/o2.o", 7, -1)};
	xp_tcov *u = NULL;
	const xp_tcov_file *f;
	if (!v[0] || !v[1] || !v[2])
		goto out;
	CHECK_EQ(xp_tcov_union((const xp_tcov *const *)v, 2, &u), XP_E_OK);
	if (!u)
		goto out;
	CHECK_EQ(xp_tcov_n_files(u), 1);
	f = xp_tcov_file_at(u, 0);
	CHECK_EQ(f->n_blocks, 2);
	CHECK_EQ_U64(block_count(f, "f", 1), 8);
	CHECK_EQ_U64(block_count(f, "f", 2), 4);
	CHECK_EQ(f->n_lines, 2);
	CHECK_EQ(f->n_lines_hit, 2);
	CHECK_EQ_U64(line_of(f, 12)->max, 4);
	CHECK_EQ(f->n_funcs, 1);
	CHECK_EQ_U64(f->funcs[0].count, 8);
	xp_tcov_free(u);
	u = NULL;

	/* Another build's block on the same line stays apart, and the
	 * line's counts are the sums (lcov -a), not the largest block's. */
	CHECK_EQ(xp_tcov_union((const xp_tcov *const *)v + 1, 2, &u), XP_E_OK);
	if (!u)
		goto out;
	f = xp_tcov_file_at(u, 0);
	CHECK_EQ(f->n_blocks, 3);
	CHECK_EQ(line_of(f, 10)->n_blocks, 2);
	CHECK_EQ(line_of(f, 10)->n_leaders, 2);
	CHECK_EQ_U64(line_of(f, 10)->max, 10);
	CHECK_EQ_U64(line_of(f, 10)->count, 10);
	CHECK_EQ_U64(f->sum, 3 + 4 + 7);
out:
	xp_tcov_free(u);
	for (int i = 0; i < 3; i++)
		xp_tcov_free(v[i]);
}

static void test_data(void)
{
	static const char *const dirs[] = {"tests/data/text", "tests/data/db",
	                                   "tests/tcov/data"};
	size_t n = 0;
	for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
		DIR *dp = opendir(dirs[k]);
		CHECK(dp != NULL);
		if (!dp)
			continue;
		for (struct dirent *de; (de = readdir(dp)) != NULL;) {
			const char *e = strrchr(de->d_name, '.');
			char path[1024];
			if (!e || (strcmp(e, ".txt") && strcmp(e, ".text")))
				continue;
			snprintf(path, sizeof path, "%s/%s", dirs[k], de->d_name);
			check_profile(path);
			n++;
		}
		closedir(dp);
	}
	check_profile("examples/wc/run1.text");
	CHECK(n >= 10);
}

int main(void)
{
	RUN(test_flow);
	RUN(test_loop_entry);
	RUN(test_branches);
	RUN(test_union);
	RUN(test_lines);
	RUN(test_funcs);
	RUN(test_combine);
	RUN(test_find);
	RUN(test_data);
	return unit_done();
}
