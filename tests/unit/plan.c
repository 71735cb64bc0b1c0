/*
 * plan.c - unit tests of merge plans (xp_plan_write, lib/feedback/plan.c).
 *
 * test_shape: the exact Makefile and build.ninja of a small tree, with
 * paths that need quoting (a blank, '$', a quote, '#', ':', a leading
 * '-' and '@'); the refusals.
 *
 * test_live: 1,000 generated training runs (bench/gen -r), some with
 * integer weights, merged by GNU make -j2 and by ninja from the plans
 * (fan-in 7: four levels), must give the database of the flat merge of
 * the same inputs byte for byte, in sum and in max mode.
 *
 * Environment: MERGE (xprof_merge), XP_BUILD (for bench/gen), TMPDIR.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"
#include "xprof.h"

static char *plan_of(xp_plan_kind kind, unsigned k, const xp_plan_input *in,
                     size_t n, const char *const *every, size_t n_every,
                     const char *const *root, size_t n_root, xp_err *err)
{
	xp_plan_opts o = { 0 };
	xp_diags *d = xp_diags_new(0);
	unsigned char *buf = NULL;
	size_t len = 0;

	o.kind = kind;
	o.fan_in = k;
	o.merge = "/bin/xprof_merge";
	o.out = "all.profile";
	o.work = "w";
	o.every = every;
	o.n_every = n_every;
	o.root = root;
	o.n_root = n_root;
	*err = xp_plan_write(&o, in, n, &buf, &len, d);
	xp_diags_free(d);
	if (*err != XP_E_OK)
		return NULL;
	buf = realloc(buf, len + 1);
	if (buf != NULL)
		buf[len] = '\0';
	return (char *)buf;
}

static const xp_plan_input shape_in[] = {
	{ "a b/x$1.profile", "2" },
	{ "-dash", NULL },
	{ "@at", NULL },
	{ "it's#:c", "3" },
};

static const char *const every[] = { "--mode=max" };
static const char *const root[] = { "--scale=2" };

static const char make_want[] =
	"# Written by xprof_merge --plan: a merge of 4 inputs in 3 merges of "
	"at most 2 inputs each,\n"
	"# level by level, into all.profile.  Intermediate results go to w/.\n"
	"# Run it with make -f FILE -j N.\n"
	"\n"
	"XPROF_WORK = w\n"
	"\n"
	".PHONY: all\n"
	"all: all.profile\n"
	"\n"
	"$(XPROF_WORK):\n"
	"\tmkdir -p 'w'\n"
	"\n"
	"w/1-0: a\\ b/x$$1.profile ./-dash | $(XPROF_WORK)\n"
	"\t'/bin/xprof_merge' -o 'w/1-0' '--mode=max' -w '2,a b/x$$1.profile'"
	" -- './-dash'\n"
	"\n"
	"w/1-1: ./@at it's\\#\\:c | $(XPROF_WORK)\n"
	"\t'/bin/xprof_merge' -o 'w/1-1' '--mode=max' -w '3,it'\\''s#:c' --"
	" './@at'\n"
	"\n"
	"all.profile: w/1-0 w/1-1\n"
	"\t'/bin/xprof_merge' -o 'all.profile' '--mode=max' '--scale=2' --"
	" 'w/1-0' 'w/1-1'\n"
	"\n";

static const char ninja_want[] =
	"# Written by xprof_merge --plan: a merge of 4 inputs in 3 merges of "
	"at most 2 inputs each,\n"
	"# level by level, into all.profile.  Intermediate results go to w/.\n"
	"# Run it with ninja -f FILE -j N.\n"
	"\n"
	"rule merge\n"
	"  command = $cmd\n"
	"  description = xprof_merge $out\n"
	"\n"
	"build w/1-0: merge a$ b/x$$1.profile ./-dash\n"
	"  cmd = '/bin/xprof_merge' -o 'w/1-0' '--mode=max' -w "
	"'2,a b/x$$1.profile' -- './-dash'\n"
	"\n"
	"build w/1-1: merge ./@at it's#$:c\n"
	"  cmd = '/bin/xprof_merge' -o 'w/1-1' '--mode=max' -w "
	"'3,it'\\''s#:c' -- './@at'\n"
	"\n"
	"build all.profile: merge w/1-0 w/1-1\n"
	"  cmd = '/bin/xprof_merge' -o 'all.profile' '--mode=max' "
	"'--scale=2' -- 'w/1-0' 'w/1-1'\n"
	"\n";

static void test_shape(void)
{
	xp_err err;
	char *s = plan_of(XP_PLAN_MAKE, 2, shape_in, 4, every, 1, root, 1,
	                  &err);

	CHECK_STR(s, make_want);
	free(s);
	s = plan_of(XP_PLAN_NINJA, 2, shape_in, 4, every, 1, root, 1, &err);
	CHECK_STR(s, ninja_want);
	free(s);

	/* One merge when the inputs fit in one: it writes OUT. */
	s = plan_of(XP_PLAN_NINJA, 4, shape_in, 4, NULL, 0, NULL, 0, &err);
	CHECK(s != NULL && strstr(s, "w/") == strstr(s, "w/.") &&
	      strstr(s, "build all.profile: merge") != NULL);
	free(s);

	/* Refusals. */
	{
		xp_plan_input bad[] = { { "a\nb", NULL } };
		s = plan_of(XP_PLAN_NINJA, 2, bad, 1, NULL, 0, NULL, 0, &err);
		CHECK(s == NULL && err == XP_E_INVAL);
		bad[0].path = "a\\b";
		s = plan_of(XP_PLAN_MAKE, 2, bad, 1, NULL, 0, NULL, 0, &err);
		CHECK(s == NULL && err == XP_E_INVAL);
		s = plan_of(XP_PLAN_NINJA, 2, bad, 1, NULL, 0, NULL, 0, &err);
		CHECK(s != NULL);
		free(s);
		s = plan_of(XP_PLAN_MAKE, 1, shape_in, 4, NULL, 0, NULL, 0,
		            &err);
		CHECK(s == NULL && err == XP_E_INVAL);
		s = plan_of(XP_PLAN_MAKE, 2, shape_in, 0, NULL, 0, NULL, 0,
		            &err);
		CHECK(s == NULL && err == XP_E_INVAL);
	}
}

/* ------------------------------------------------------------------ */

#define NIN 1000

static char dir[4096];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char *cmd = NULL;
	va_list ap;
	int st, n;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	st = system(cmd);
	free(cmd);
	return st;
}

static int same_file(const char *a, const char *b)
{
	size_t la, lb;
	char *x = unit_slurp(a, &la), *y = unit_slurp(b, &lb);
	int same = x != NULL && y != NULL && la == lb && !memcmp(x, y, la);

	free(x);
	free(y);
	return same;
}

/* Writes the plan of kind into dir/NAME and runs it with its tool. */
static int run_plan(xp_plan_kind kind, const char *merge, const char *mode,
                    const char *out, const xp_plan_input *in)
{
	const char *modes[] = { mode };
	xp_plan_opts o = { 0 };
	xp_diags *d = xp_diags_new(0);
	unsigned char *buf = NULL;
	char path[4200], outp[4200], work[4200];
	size_t len = 0;
	FILE *f;
	int st;

	snprintf(path, sizeof path, "%s/%s.plan", dir, out);
	snprintf(outp, sizeof outp, "%s/%s", dir, out);
	snprintf(work, sizeof work, "%s/%s.work", dir, out);
	o.kind = kind;
	o.fan_in = 7;
	o.merge = merge;
	o.out = outp;
	o.work = work;
	o.every = modes;
	o.n_every = 1;
	st = xp_plan_write(&o, in, NIN, &buf, &len, d);
	xp_diags_free(d);
	if (st != XP_E_OK || (f = fopen(path, "w")) == NULL) {
		free(buf);
		return -1;
	}
	fwrite(buf, 1, len, f);
	fclose(f);
	free(buf);
	if (kind == XP_PLAN_MAKE)
		return sh("cd '%s' && make -s -j2 -f '%s' > '%s.log' 2>&1", dir,
		          path, path);
	return sh("cd '%s' && ninja -j2 -f '%s' > '%s.log' 2>&1", dir, path,
	          path);
}

static void test_live(void)
{
	const char *merge = getenv("MERGE"), *build = getenv("XP_BUILD");
	const char *tmp = getenv("TMPDIR");
	static xp_plan_input in[NIN];
	static char paths[NIN][64], weights[NIN][8];
	char cmd[8192], *list;
	size_t used = 0;

	CHECK(merge != NULL && build != NULL);
	if (merge == NULL || build == NULL)
		return;
	snprintf(dir, sizeof dir, "%s/xp-plan.XXXXXX",
	         tmp != NULL ? tmp : "/tmp");
	CHECK(mkdtemp(dir) != NULL);
	CHECK(sh("cd '%s' && i=0 && while [ $i -lt %d ]; do "
	         "'%s/bench/gen' -s 3 -r $i -n 40 > r$i.text || exit 1; "
	         "i=$((i + 1)); done", dir, NIN, build) == 0);
	/* The flat merge's command line: every third input weighs 2 or 3. */
	list = malloc((size_t)NIN * 96);
	if (list == NULL)
		return;
	list[0] = '\0';
	for (int i = 0; i < NIN; i++) {
		snprintf(paths[i], sizeof paths[i], "r%d.text", i);
		in[i].path = paths[i];
		in[i].weight = NULL;
		if (i % 3 == 0) {
			snprintf(weights[i], sizeof weights[i], "%d", 2 + i % 2);
			in[i].weight = weights[i];
			used += (size_t)sprintf(list + used, " -w %s,r%d.text",
			                        weights[i], i);
		} else {
			used += (size_t)sprintf(list + used, " r%d.text", i);
		}
	}
	for (int m = 0; m < 2; m++) {
		const char *mode = m ? "--mode=max" : "--mode=sum";

		snprintf(cmd, sizeof cmd, "cd '%s' && '%s' -o flat.profile %s",
		         dir, merge, mode);
		CHECK(sh("%s %s", cmd, list) == 0);
		/* The plans name the inputs relative to dir, where they run. */
		CHECK(run_plan(XP_PLAN_MAKE, merge, mode, "make.profile", in) ==
		      0);
		CHECK(run_plan(XP_PLAN_NINJA, merge, mode, "ninja.profile",
		               in) == 0);
		snprintf(cmd, sizeof cmd, "%s/flat.profile/feedback", dir);
		{
			char a[4200], b[4200];
			snprintf(a, sizeof a, "%s/make.profile/feedback", dir);
			snprintf(b, sizeof b, "%s/ninja.profile/feedback", dir);
			CHECK(same_file(cmd, a));
			CHECK(same_file(cmd, b));
		}
		sh("cd '%s' && rm -rf flat.profile make.profile* "
		   "ninja.profile* .ninja_log .ninja_deps", dir);
	}
	free(list);
	sh("rm -rf '%s'", dir);
}

int main(void)
{
	RUN(test_shape);
	RUN(test_live);
	return unit_done();
}
