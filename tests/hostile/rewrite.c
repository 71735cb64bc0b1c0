/*
 * rewrite.c - an LD_PRELOAD shim for tests/hostile.sh: once a pread(2)
 * of the file named $XP_REWRITE (its path ends so) reaches the end of
 * it, the file is rewritten in place, once: with the bytes of the file
 * $XP_REWRITE_WITH, or truncated to nothing when that is empty.  So a
 * reader that checks a file in one pass and reads parts of it again
 * finds other bytes the second time, as if another process had written
 * into it meanwhile.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int done;

/* Whether fd is the file to rewrite; its path in path. */
static int is_victim(int fd, char *path, size_t size)
{
	const char *name = getenv("XP_REWRITE");
	char link[64];
	ssize_t n;
	size_t ln;

	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if (name == NULL || (n = readlink(link, path, size - 1)) < 0)
		return 0;
	path[n] = '\0';
	ln = strlen(name);
	return (size_t)n >= ln && strcmp(path + n - ln, name) == 0;
}

static void rewrite(const char *path)
{
	const char *with = getenv("XP_REWRITE_WITH");
	char buf[65536];
	ssize_t n;
	int in, out;

	if (with == NULL || *with == '\0') {
		if (truncate(path, 0) != 0)
			perror("rewrite: truncate");
		return;
	}
	if ((in = open(with, O_RDONLY)) < 0 || (out = open(path, O_WRONLY)) < 0) {
		perror("rewrite: open");
		return;
	}
	while ((n = read(in, buf, sizeof buf)) > 0)
		if (write(out, buf, (size_t)n) != n)
			perror("rewrite: write");
	close(in);
	close(out);
}

ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	char path[4096];
	struct stat st;
	ssize_t n;

	if (real == NULL)
		real = (ssize_t (*)(int, void *, size_t, off_t))
		       dlsym(RTLD_NEXT, "pread");
	n = real(fd, buf, count, off);
	if (!done && n > 0 && fstat(fd, &st) == 0 &&
	    off + n >= st.st_size && is_victim(fd, path, sizeof path)) {
		done = 1;
		rewrite(path);
	}
	return n;
}

ssize_t pread64(int fd, void *buf, size_t count, off_t off)
{
	return pread(fd, buf, count, off);
}
