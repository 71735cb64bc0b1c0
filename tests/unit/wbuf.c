/*
 * wbuf.c - unit tests of the buffered writer (lib/base/wbuf.c) into regular
 * files, where it writes behind with O_DIRECT: every way of writing
 * (small and large writes, reserve and commit, sizes on and off the
 * block boundary) gives exactly the bytes written, at an aligned or an
 * unaligned start, and the file's status flags are the caller's again
 * after close and after discard.  Also xp_alloc_huge(), which its
 * write-behind buffers come from.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/internal.h"
#include "unit.h"

/* A new file under $TMPDIR, already unlinked; -1 on failure. */
static int temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(path, sizeof path, "%s/xprof-wbuf-XXXXXX",
	         dir != NULL && dir[0] != '\0' ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* A deterministic byte pattern. */
static unsigned char byte_at(size_t i)
{
	return (unsigned char)((i * 131 + (i >> 9) * 7) & 0xff);
}

/* Writes total bytes from offset start in pieces of the sizes given
 * (cycled), some through reserve and commit; checks the file after. */
static void write_and_check(size_t start, size_t total, const size_t *piece,
                            size_t npiece)
{
	int fd = temp_file();
	unsigned char *want, *got;
	xp_wbuf w;
	size_t done = 0, k = 0;
	int flags;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	want = malloc(start + total + 1);
	got = malloc(start + total + 1);
	for (size_t i = 0; i < start; i++)
		want[i] = 'h';
	CHECK(write(fd, want, start) == (ssize_t)start);
	flags = fcntl(fd, F_GETFL);
	CHECK(xp_wbuf_init_fd(&w, fd) == XP_E_OK);
	while (done < total) {
		size_t n = piece[k++ % npiece];
		if (n > total - done)
			n = total - done;
		for (size_t i = 0; i < n; i++)
			want[start + done + i] = byte_at(done + i);
		if (n <= XP_WBUF_MAXRES && (k & 1)) {
			unsigned char *p = xp_wbuf_reserve(&w, n);
			CHECK(p != NULL);
			if (p == NULL)
				break;
			memcpy(p, want + start + done, n);
			xp_wbuf_commit(&w, n);
		} else {
			xp_wbuf_write(&w, want + start + done, n);
		}
		done += n;
	}
	CHECK(w.total == total);
	CHECK(xp_wbuf_close(&w, NULL, NULL) == XP_E_OK);
	CHECK(fcntl(fd, F_GETFL) == flags);
	CHECK(lseek(fd, 0, SEEK_END) == (off_t)(start + total));
	CHECK(pread(fd, got, start + total, 0) == (ssize_t)(start + total));
	CHECK(memcmp(got, want, start + total) == 0);
	close(fd);
	free(want);
	free(got);
}

static void test_pieces(void)
{
	static const size_t small[] = {1, 7, 100, 4096, 8192, 3};
	static const size_t large[] = {5000000, 1, 4194304, 12345};
	static const size_t exact[] = {4096};

	write_and_check(0, 0, small, 6);
	write_and_check(0, 4095, small, 6);
	write_and_check(0, 4096, exact, 1);
	write_and_check(0, 9 * 1048576 + 17, small, 6);
	write_and_check(0, 3 * 4194304, exact, 1);
	write_and_check(0, 20000000, large, 4);
	/* An unaligned start: no direct writes, same bytes. */
	write_and_check(100, 6000000, small, 6);
	write_and_check(4096, 6000000, large, 4);
}

static void test_discard(void)
{
	int fd = temp_file();
	xp_wbuf w;
	unsigned char buf[8192];
	int flags;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	flags = fcntl(fd, F_GETFL);
	memset(buf, 'x', sizeof buf);
	CHECK(xp_wbuf_init_fd(&w, fd) == XP_E_OK);
	for (int i = 0; i < 1000; i++)
		xp_wbuf_write(&w, buf, sizeof buf);
	xp_wbuf_discard(&w);
	CHECK(fcntl(fd, F_GETFL) == flags);
	close(fd);
}

/* xp_alloc_huge(): small sizes from malloc, large ones aligned to huge
 * pages and whole, a size past what can be rounded up refused. */
static void test_alloc_huge(void)
{
	unsigned char *p = xp_alloc_huge(0), *q = xp_alloc_huge(100);
	CHECK(p != NULL && q != NULL);
	if (q != NULL)
		memset(q, 1, 100);
	free(p);
	free(q);
	size_t big = XP_HUGE_PAGE + 12345;
	p = xp_alloc_huge(big);
	CHECK(p != NULL && (uintptr_t)p % XP_HUGE_PAGE == 0);
	if (p != NULL) {
		memset(p, 2, big);
		CHECK(p[0] == 2 && p[big - 1] == 2);
	}
	free(p);
	CHECK(xp_alloc_huge(SIZE_MAX - 5) == NULL);
}

int main(void)
{
	RUN(test_pieces);
	RUN(test_discard);
	RUN(test_alloc_huge);
	return unit_done();
}
