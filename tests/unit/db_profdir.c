/*
 * db_profdir.c - unit tests of profile directories and atomic files
 * (lib/feedback/profdir.c): file names, locking, concurrent writers, and writes
 * that fail or are killed half-way, which must leave the old database
 * intact and no temporary file behind.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/internal.h"
#include "unit.h"

static char root[4096];

/* A profile of type t with one object file and n counters. */
static xp_fb *profile(xp_datatype t, const char *objpath, uint32_t n,
                      uint64_t seed)
{
	xp_fbb *b = xp_fbb_new(t, 4, 0);
	xp_objfile o = {0};
	xp_proc p = {0};
	xp_fb *fb = NULL;
	int e = xp_fbb_intern(b, objpath, strlen(objpath), &o.path);
	o.signature = seed;
	e |= xp_fbb_begin_objfile(b, &o);
	e |= xp_fbb_intern(b, "f", 1, &p.name);
	p.proc_id = 1;
	e |= xp_fbb_begin_proc(b, &p);
	for (uint32_t i = 0; i < n; i++)
		e |= xp_fbb_add_counter(b, i + 1, seed + i);
	if (e || xp_fbb_finish(b, &fb))
		unit_fail(__FILE__, __LINE__, "building a profile");
	xp_fbb_free(b);
	return fb;
}

/* The signature of the only object file of a profile in a directory. */
static int64_t stored_seed(const char *dir, xp_datatype t, const char *obj)
{
	xp_fb *fb = NULL;
	xp_diags *d = xp_diags_new(0);
	int64_t r = -1;
	if (xp_profdir_open(dir, t, obj, &fb, d) == XP_E_OK) {
		xp_objfile o;
		xp_fb_objfile(fb, 0, &o);
		r = (int64_t)o.signature;
	}
	xp_fb_free(fb);
	xp_diags_free(d);
	return r;
}

/* Number of directory entries other than . and .. */
static int count_entries(const char *dir)
{
	DIR *dp = opendir(dir);
	int n = 0;
	struct dirent *e;
	if (!dp)
		return -1;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

static void subdir(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", root, name);
}

static void test_file_names(void)
{
	char *s = xp_profdir_file("p", XP_DT_FEEDBACK, NULL);
	CHECK_STR(s, "p/feedback");
	free(s);
	s = xp_profdir_file("p", XP_DT_TCOVSD, NULL);
	CHECK_STR(s, "p/tcovsd");
	free(s);
	/* FNV-1a 64 of "a" is af63dc4c8601ec8c. */
	s = xp_profdir_file("p", XP_DT_OBJFD, "a");
	CHECK_STR(s, "p/objfd/af63dc4c8601ec8c");
	free(s);
}

static void test_write_open(void)
{
	char dir[4200];
	subdir(dir, sizeof dir, "wo.profile");
	xp_diags *d = xp_diags_new(0);
	xp_fb *fb = NULL;

	CHECK_EQ(xp_profdir_open(dir, XP_DT_FEEDBACK, NULL, &fb, d),
	         XP_E_NOTFOUND);
	if (xp_diags_count(d) == 1) {
		char *m = xp_diag_format(xp_diags_get(d, 0), "t");
		char want[9000];
		snprintf(want, sizeof want,
		         "t: %s: no feedback data (%s/feedback: No such file or "
		         "directory)\n", dir, dir);
		CHECK_STR(m, want);
		free(m);
	}

	xp_fb *a = profile(XP_DT_FEEDBACK, "/x.o", 3, 11);
	xp_fb *o = profile(XP_DT_OBJFD, "/y.o", 3, 12);
	CHECK_EQ(xp_profdir_write(dir, a, d), XP_E_OK);
	CHECK_EQ(xp_profdir_write(dir, o, d), XP_E_OK);
	CHECK_EQ(stored_seed(dir, XP_DT_FEEDBACK, NULL), 11);
	CHECK_EQ(stored_seed(dir, XP_DT_OBJFD, "/y.o"), 12);
	CHECK_EQ(stored_seed(dir, XP_DT_OBJFD, "/x.o"), -1);
	CHECK_EQ(stored_seed(dir, XP_DT_TCOVD, NULL), -1);
	CHECK_EQ(count_entries(dir), 2);

	/* A database under the wrong name is refused. */
	char src[8500], dst[8500];
	snprintf(src, sizeof src, "%s/feedback", dir);
	snprintf(dst, sizeof dst, "%s/tcovd", dir);
	CHECK_EQ(link(src, dst), 0);
	CHECK_EQ(xp_profdir_open(dir, XP_DT_TCOVD, NULL, &fb, NULL),
	         XP_E_CORRUPT);
	unlink(dst);
	/* Nor is objfd data of another object file stored under a key. */
	char *k = xp_profdir_file(dir, XP_DT_OBJFD, "/y.o");
	char *k2 = xp_profdir_file(dir, XP_DT_OBJFD, "/z.o");
	CHECK_EQ(rename(k, k2), 0);
	CHECK_EQ(xp_profdir_open(dir, XP_DT_OBJFD, "/z.o", &fb, NULL),
	         XP_E_NOTFOUND);
	/* And a writer does not replace it with another object file's. */
	xp_fb *z = profile(XP_DT_OBJFD, "/z.o", 1, 13);
	CHECK_EQ(xp_profdir_write(dir, z, NULL), XP_E_EXISTS);
	CHECK_EQ(xp_profdir_open(dir, XP_DT_OBJFD, "/z.o", &fb, NULL),
	         XP_E_NOTFOUND);
	/* A damaged file under the key may be replaced. */
	FILE *fp = fopen(k2, "w");
	fputs("junk", fp);
	fclose(fp);
	CHECK_EQ(xp_profdir_write(dir, z, NULL), XP_E_OK);
	CHECK_EQ(stored_seed(dir, XP_DT_OBJFD, "/z.o"), 13);
	xp_fb_free(z);
	free(k);
	free(k2);

	xp_fb_free(a);
	xp_fb_free(o);
	xp_diags_free(d);
}

/* Runs fn(i) in n child processes at once; returns how many exited 0. */
static int in_parallel(int n, int (*fn)(int))
{
	pid_t pids[64];
	int ok = 0;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(fn(i));
	}
	for (int i = 0; i < n; i++) {
		int st;
		if (pids[i] > 0 && waitpid(pids[i], &st, 0) == pids[i] &&
		    WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
	}
	return ok;
}

static char pdir[4200];

static int write_objfd(int i)
{
	char obj[32];
	snprintf(obj, sizeof obj, "/obj/%d.o", i);
	xp_fb *fb = profile(XP_DT_OBJFD, obj, 20000, (uint64_t)i);
	xp_err err = xp_profdir_write(pdir, fb, NULL);
	xp_fb_free(fb);
	return err != XP_E_OK;
}

static int write_feedback(int i)
{
	xp_fb *fb = profile(XP_DT_FEEDBACK, "/same.o", 20000 + 1000 * i,
	                    (uint64_t)i);
	xp_err err = XP_E_OK;
	for (int k = 0; k < 5 && !err; k++)
		err = xp_profdir_write(pdir, fb, NULL);
	xp_fb_free(fb);
	return err != XP_E_OK;
}

static void test_concurrent_writers(void)
{
	subdir(pdir, sizeof pdir, "par.profile");
	/* The directory does not exist yet: all eight race to create it. */
	CHECK_EQ(in_parallel(8, write_objfd), 8);
	char objfd[8500];
	snprintf(objfd, sizeof objfd, "%s/objfd", pdir);
	CHECK_EQ(count_entries(objfd), 8);
	for (int i = 0; i < 8; i++) {
		char obj[32];
		snprintf(obj, sizeof obj, "/obj/%d.o", i);
		CHECK_EQ(stored_seed(pdir, XP_DT_OBJFD, obj), i);
	}

	CHECK_EQ(in_parallel(8, write_feedback), 8);
	int64_t s = stored_seed(pdir, XP_DT_FEEDBACK, NULL);
	CHECK(s >= 0 && s < 8);
	/* Exactly one of the inputs: its counters are all there. */
	xp_fb *fb = NULL;
	CHECK_EQ(xp_profdir_open(pdir, XP_DT_FEEDBACK, NULL, &fb, NULL),
	         XP_E_OK);
	if (fb)
		CHECK_EQ(fb->n[XP_T_COUNTERS], 20000 + 1000 * (uint32_t)s);
	xp_fb_free(fb);
	CHECK_EQ(count_entries(pdir), 2); /* feedback and objfd */
}

/* A lock holder keeps other writers out until it unlocks. */
static void test_lock_excludes(void)
{
	subdir(pdir, sizeof pdir, "lock.profile");
	/* The child is forked before the lock is taken: a child that
	 * inherited the locked descriptor would share the lock. */
	int go[2], done[2];
	CHECK_EQ(pipe(go), 0);
	CHECK_EQ(pipe(done), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(go[1]);
		close(done[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		xp_fb *fb = profile(XP_DT_FEEDBACK, "/l.o", 1, 2);
		xp_err err = xp_profdir_write(pdir, fb, NULL);
		CHECK_EQ(write(done[1], "x", 1), 1);
		_exit(err != XP_E_OK);
	}
	close(go[0]);
	close(done[1]);
	xp_lock *l = NULL;
	CHECK_EQ(xp_profdir_lock(pdir, 1, &l, NULL), XP_E_OK);
	CHECK_EQ(write(go[1], "x", 1), 1);
	/* While we hold the lock the child cannot finish. */
	usleep(200000);
	CHECK_EQ(stored_seed(pdir, XP_DT_FEEDBACK, NULL), -1);
	xp_fb *fb = profile(XP_DT_FEEDBACK, "/l.o", 1, 1);
	CHECK_EQ(xp_profdir_write_locked(l, fb, NULL), XP_E_OK);
	xp_fb_free(fb);
	CHECK_EQ(stored_seed(pdir, XP_DT_FEEDBACK, NULL), 1);
	xp_profdir_unlock(l);
	char c;
	CHECK_EQ(read(done[0], &c, 1), 1);
	close(done[0]);
	close(go[1]);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(stored_seed(pdir, XP_DT_FEEDBACK, NULL), 2);
	xp_profdir_unlock(NULL);
}

/* A writer killed half-way leaves the old database and nothing else. */
static void test_killed_writer(void)
{
	subdir(pdir, sizeof pdir, "kill.profile");
	xp_fb *old = profile(XP_DT_FEEDBACK, "/k.o", 10, 5);
	CHECK_EQ(xp_profdir_write(pdir, old, NULL), XP_E_OK);
	xp_fb_free(old);

	/* Deterministic: the child stops in the middle of an atomic file
	 * and is killed there. */
	int pfd[2];
	CHECK_EQ(pipe(pfd), 0);
	pid_t pid = fork();
	if (pid == 0) {
		char path[8500];
		snprintf(path, sizeof path, "%s/feedback", pdir);
		xp_afile *f = NULL;
		if (xp_afile_open(path, &f, NULL) != XP_E_OK)
			_exit(1);
		CHECK_EQ(write(xp_afile_fd(f), "XPROFDB", 7), 7);
		CHECK_EQ(write(pfd[1], "x", 1), 1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	char c;
	CHECK_EQ(read(pfd[0], &c, 1), 1);
	close(pfd[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_EQ(stored_seed(pdir, XP_DT_FEEDBACK, NULL), 5);
	CHECK_EQ(count_entries(pdir), 1);

	/* Timed: a large write killed at some moment leaves either the old
	 * or the new database, whole. */
	for (int delay = 1000; delay <= 64000; delay *= 4) {
		pid = fork();
		if (pid == 0) {
			xp_fb *big = profile(XP_DT_FEEDBACK, "/k.o", 2000000, 6);
			_exit(xp_profdir_write(pdir, big, NULL) != XP_E_OK);
		}
		usleep((useconds_t)delay);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		int64_t s = stored_seed(pdir, XP_DT_FEEDBACK, NULL);
		CHECK(s == 5 || s == 6);
	}
}

/* A write that runs out of room fails and changes nothing. */
static void test_full_disk(void)
{
	subdir(pdir, sizeof pdir, "full.profile");
	xp_fb *old = profile(XP_DT_FEEDBACK, "/f.o", 10, 7);
	CHECK_EQ(xp_profdir_write(pdir, old, NULL), XP_E_OK);
	xp_fb_free(old);
	pid_t pid = fork();
	if (pid == 0) {
		/* A file size limit makes write() fail with EFBIG, as a full
		 * disk makes it fail with ENOSPC. */
		struct rlimit rl = {100000, 100000};
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		xp_fb *big = profile(XP_DT_FEEDBACK, "/f.o", 100000, 8);
		xp_diags *d = xp_diags_new(0);
		xp_err err = xp_profdir_write(pdir, big, d);
		int ok = err == XP_E_IO && xp_diags_count(d) == 1 &&
		         strstr(xp_diags_get(d, 0)->msg, "File too large");
		_exit(ok ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_EQ(stored_seed(pdir, XP_DT_FEEDBACK, NULL), 7);
	CHECK_EQ(count_entries(pdir), 1);

	/* An atomic file aborted leaves nothing. */
	char path[8500];
	snprintf(path, sizeof path, "%s/out.text", pdir);
	xp_afile *f = NULL;
	CHECK_EQ(xp_afile_open(path, &f, NULL), XP_E_OK);
	xp_afile_abort(f);
	CHECK_EQ(count_entries(pdir), 1);
	CHECK_EQ(xp_afile_open(path, &f, NULL), XP_E_OK);
	CHECK_EQ(write(xp_afile_fd(f), "hi\n", 3), 3);
	CHECK_EQ(xp_afile_commit(f, NULL), XP_E_OK);
	CHECK_EQ(count_entries(pdir), 2);
	struct stat sb;
	CHECK(stat(path, &sb) == 0 && sb.st_size == 3);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(root, sizeof root, "%s/db_profdir.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(root)) {
		printf("FAIL mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	RUN(test_file_names);
	RUN(test_write_open);
	RUN(test_concurrent_writers);
	RUN(test_lock_excludes);
	RUN(test_killed_writer);
	RUN(test_full_disk);
	return unit_done();
}
