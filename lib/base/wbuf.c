/*
 * base/wbuf.c - the buffered writer behind the text and database writers: it
 * stages output in a large buffer and hands it to write(2) or to a
 * growing memory buffer, keeping the first error.
 *
 * Into a regular file it writes behind: two aligned buffers (in huge
 * pages where the system gives them), one being filled while a thread
 * writes the other with O_DIRECT.  Direct writes skip the copy into the
 * page cache, which costs a writer of new files as much as producing
 * the bytes, and the thread waits for the device while the caller goes
 * on, so that even on one core the two overlap.  Every direct write is
 * a whole number of blocks at an aligned offset; the tail is written the
 * ordinary way when the writer is closed.  When the file system refuses
 * direct writes the thread writes the ordinary way too.
 *
 * O_DIRECT is a flag of the open file description, which the caller
 * shares with whoever gave it the descriptor (a shell's redirection, a
 * sibling job, 2>&1): set there, their own unaligned writes would fail,
 * and for good if the process were killed before clearing it.  So the
 * direct writes go through a description of the writer's own, opened
 * anew on the same file through /proc/self/fd at the same offset; the
 * caller's descriptor is only moved to the end when the writer is done.
 * Without /proc, or for a file opened to append, the writer writes the
 * ordinary way.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/internal.h"

#define WBUF_SIZE (1u << 20)
#define ASYNC_SIZE (4u << 20)   /* each of the two write-behind buffers */
#define ALIGN 4096u             /* of direct writes: offset, length, memory */

struct xp_wbuf_async {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char *other;   /* the buffer not being filled */
	const unsigned char *job;
	size_t job_len;         /* 0: idle */
	int stop;
	int fd;                 /* the writer's own description of the file */
	int direct;             /* O_DIRECT is set on it */
	int flags;              /* its status flags without O_DIRECT */
	xp_err err;
	int saved_errno;
};

static void fail(xp_wbuf *w, xp_err err, int e)
{
	if (w->err == XP_E_OK) {
		w->err = err;
		w->saved_errno = e;
	}
}

/* O_DIRECT off again; 0 or an errno value. */
static int direct_off(int fd, struct xp_wbuf_async *a)
{
	a->direct = 0;
	return fcntl(fd, F_SETFL, a->flags) != 0 ? errno : 0;
}

/*
 * write(2) all of p; 0 or an errno value.  With a (the thread's job),
 * direct writes that the file system refuses, or that leave an unaligned
 * rest, go on the ordinary way.
 */
static int write_all(int fd, struct xp_wbuf_async *a, const unsigned char *p,
                     size_t n)
{
	int e;

	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EINVAL && a != NULL && a->direct) {
			if ((e = direct_off(fd, a)) != 0)
				return e;
			continue;
		}
		if (k < 0)
			return errno;
		p += k;
		n -= (size_t)k;
		if (a != NULL && a->direct && n % ALIGN != 0 &&
		    (e = direct_off(fd, a)) != 0)
			return e;
	}
	return 0;
}

static void *writer(void *arg)
{
	xp_wbuf *w = arg;
	struct xp_wbuf_async *a = w->async;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (a->job_len == 0 && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->job_len == 0)
			break;
		const unsigned char *p = a->job;
		size_t n = a->job_len;
		int e = 0;
		pthread_mutex_unlock(&a->mu);
		if (a->err == XP_E_OK)
			e = write_all(a->fd, a, p, n);
		pthread_mutex_lock(&a->mu);
		if (e != 0 && a->err == XP_E_OK) {
			a->err = XP_E_IO;
			a->saved_errno = e;
		}
		a->job_len = 0;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* Waits until the thread is idle; takes over its error. */
static void async_wait(xp_wbuf *w)
{
	struct xp_wbuf_async *a = w->async;

	pthread_mutex_lock(&a->mu);
	while (a->job_len != 0)
		pthread_cond_wait(&a->cv, &a->mu);
	pthread_mutex_unlock(&a->mu);
	if (a->err != XP_E_OK)
		fail(w, a->err, a->saved_errno);
}

/* Hands the aligned part of the stage to the thread and keeps filling the
 * other buffer, the unaligned rest moved to its start. */
static void async_flush(xp_wbuf *w)
{
	struct xp_wbuf_async *a = w->async;
	size_t n = w->len - w->len % ALIGN;
	unsigned char *next;

	if (n == 0)
		return;
	async_wait(w);
	if (w->err)
		return;
	next = a->other;
	memcpy(next, w->buf + n, w->len - n);
	pthread_mutex_lock(&a->mu);
	a->job = w->buf;
	a->job_len = n;
	a->other = w->buf;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	w->buf = next;
	w->len -= n;
}

/* Stops and joins the thread, frees its buffers, moves the caller's
 * descriptor to where the writing ended and closes the writer's own; the
 * stage must have been written or given up. */
static void async_end(xp_wbuf *w)
{
	struct xp_wbuf_async *a = w->async;
	off_t end;

	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	if (a->err != XP_E_OK)
		fail(w, a->err, a->saved_errno);
	if ((end = lseek(a->fd, 0, SEEK_CUR)) < 0 ||
	    lseek(w->fd, end, SEEK_SET) < 0)
		fail(w, XP_E_IO, errno);
	if (close(a->fd) != 0)
		fail(w, XP_E_IO, errno);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a->other);
	free(w->buf);
	w->buf = NULL;
	free(a);
	w->async = NULL;
}

void *xp_alloc_huge(size_t len)
{
	if (len < XP_HUGE_PAGE)
		return malloc(len ? len : 1);
	size_t n = (len + XP_HUGE_PAGE - 1) & ~(XP_HUGE_PAGE - 1);
	void *p = n >= len ? aligned_alloc(XP_HUGE_PAGE, n) : NULL;
#ifdef MADV_HUGEPAGE
	if (p != NULL)
		(void)madvise(p, n, MADV_HUGEPAGE);
#endif
	return p;
}

/*
 * A write-behind buffer, in huge pages where the system gives them: a
 * direct write pins every page it reads and hands the device one piece
 * per page, which costs the writer much less for 2 MiB pages than for
 * 4 KiB ones.
 */
static unsigned char *async_buf(void)
{
	return xp_alloc_huge(ASYNC_SIZE);
}

/*
 * A description of the writer's own of the regular file fd is open on,
 * for writing at offset off; -1 when there can be none.
 */
static int reopen(int fd, const struct stat *st, off_t off)
{
	char path[64];
	struct stat own;
	int nfd;

	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	nfd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (nfd < 0)
		return -1;
	if (fstat(nfd, &own) != 0 || own.st_dev != st->st_dev ||
	    own.st_ino != st->st_ino || lseek(nfd, off, SEEK_SET) != off) {
		close(nfd);
		return -1;
	}
	return nfd;
}

/*
 * Sets up writing behind into fd when it is a regular file at an aligned
 * offset, not opened to append; 0 when it is (w->buf is then the first
 * aligned buffer), -1 for the ordinary way.
 */
static int async_begin(xp_wbuf *w)
{
	struct xp_wbuf_async *a;
	struct stat st;
	off_t off;
	int flags, have_mu = 0, have_cv = 0;

	if (fstat(w->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (off = lseek(w->fd, 0, SEEK_CUR)) < 0 || off % ALIGN != 0 ||
	    (flags = fcntl(w->fd, F_GETFL)) < 0 || (flags & O_APPEND))
		return -1;
	a = calloc(1, sizeof *a);
	if (a == NULL)
		return -1;
	if ((a->fd = reopen(w->fd, &st, off)) < 0 ||
	    (a->flags = fcntl(a->fd, F_GETFL)) < 0) {
		if (a->fd >= 0)
			close(a->fd);
		free(a);
		return -1;
	}
	w->buf = async_buf();
	a->other = async_buf();
	if (w->buf == NULL || a->other == NULL ||
	    !(have_mu = pthread_mutex_init(&a->mu, NULL) == 0) ||
	    !(have_cv = pthread_cond_init(&a->cv, NULL) == 0))
		goto fail;
	a->direct = fcntl(a->fd, F_SETFL, a->flags | O_DIRECT) == 0;
	w->async = a;
	if (pthread_create(&a->thread, NULL, writer, w) == 0) {
		w->cap = ASYNC_SIZE;
		return 0;
	}
	w->async = NULL;
fail:
	close(a->fd);
	if (have_cv)
		pthread_cond_destroy(&a->cv);
	if (have_mu)
		pthread_mutex_destroy(&a->mu);
	XP_FREE(w->buf, a->other, a);
	w->buf = NULL;
	return -1;
}

static xp_err init(xp_wbuf *w, int fd)
{
	memset(w, 0, sizeof *w);
	w->fd = fd;
	if (fd >= 0 && async_begin(w) == 0)
		return XP_E_OK;
	w->buf = malloc(WBUF_SIZE);
	if (!w->buf) {
		w->err = XP_E_NOMEM;
		return XP_E_NOMEM;
	}
	w->cap = WBUF_SIZE;
	return XP_E_OK;
}

xp_err xp_wbuf_init_fd(xp_wbuf *w, int fd) { return init(w, fd); }
xp_err xp_wbuf_init_mem(xp_wbuf *w) { return init(w, -1); }

/* Sends n bytes to the target, bypassing the stage (not when writing
 * behind). */
static void sink(xp_wbuf *w, const unsigned char *p, size_t n)
{
	int e;

	if (w->err)
		return;
	if (w->fd < 0) {
		if (xp_buf_append(&w->mem, p, n))
			fail(w, XP_E_NOMEM, ENOMEM);
		return;
	}
	if ((e = write_all(w->fd, NULL, p, n)) != 0)
		fail(w, XP_E_IO, e);
}

xp_err xp_wbuf_flush(xp_wbuf *w)
{
	if (w->async != NULL) {
		async_flush(w);
		return w->err;
	}
	if (w->len) {
		sink(w, w->buf, w->len);
		w->len = 0;
	}
	return w->err;
}

unsigned char *xp_wbuf_reserve_slow(xp_wbuf *w, size_t n)
{
	if (w->err || n > w->cap)
		return NULL;
	xp_wbuf_flush(w);
	if (w->err || n > w->cap - w->len)
		return NULL;
	return w->buf + w->len;
}

void xp_wbuf_write(xp_wbuf *w, const void *p, size_t n)
{
	const unsigned char *s = p;

	if (w->err)
		return;
	if (w->crc_on)
		w->crc = xp_crc32c(w->crc, p, n);
	w->total += n;
	if (n <= w->cap - w->len) {
		memcpy(w->buf + w->len, p, n);
		w->len += n;
		return;
	}
	if (w->async != NULL) {
		/* Through the stage, a buffer at a time. */
		while (n > 0 && !w->err) {
			size_t k = w->cap - w->len;
			if (k > n)
				k = n;
			memcpy(w->buf + w->len, s, k);
			w->len += k;
			s += k;
			n -= k;
			if (n > 0)
				async_flush(w);
		}
		return;
	}
	xp_wbuf_flush(w);
	if (n < w->cap / 2) {
		memcpy(w->buf, p, n);
		w->len = n;
	} else {
		sink(w, p, n);
	}
}

xp_err xp_wbuf_close(xp_wbuf *w, unsigned char **mem, size_t *len)
{
	if (w->async != NULL) {
		async_flush(w);
		async_wait(w);
		/* The unaligned tail, after the direct writes, the ordinary
		 * way, through the writer's own description. */
		int e = w->async->direct ? direct_off(w->async->fd, w->async)
		                         : 0;
		if (e != 0)
			fail(w, XP_E_IO, e);
		if (w->len && !w->err &&
		    (e = write_all(w->async->fd, NULL, w->buf, w->len)) != 0)
			fail(w, XP_E_IO, e);
		w->len = 0;
		async_end(w);
	} else {
		xp_wbuf_flush(w);
		free(w->buf);
		w->buf = NULL;
	}
	w->cap = w->len = 0;
	if (w->err) {
		xp_buf_free(&w->mem);
		if (mem)
			*mem = NULL;
		if (len)
			*len = 0;
		if (w->saved_errno)
			errno = w->saved_errno;
		return w->err;
	}
	if (w->fd < 0) {
		if (mem)
			*mem = w->mem.p;
		else
			free(w->mem.p);
		if (len)
			*len = w->mem.len;
		w->mem = (xp_buf){0};
	}
	return XP_E_OK;
}

void xp_wbuf_discard(xp_wbuf *w)
{
	if (w->async != NULL) {
		w->len = 0;
		async_end(w);
	}
	free(w->buf);
	w->buf = NULL;
	w->cap = w->len = 0;
	xp_buf_free(&w->mem);
}
