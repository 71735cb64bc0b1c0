/*
 * feedback/db_write.c - writes a profile as a feedback database (xprof_db(5)).
 *
 * The in-memory tables of a profile are already encoded exactly as in the
 * file, so writing is a matter of laying out the header and directory and
 * streaming the arrays with zero padding between them.  Only the header
 * (64 bytes) and the directory (528 bytes) are built here; the tables are
 * never copied as a whole, so memory stays at a few small buffers however
 * large the profile is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feedback/db.h"

static const struct {
	const char *name;
	uint32_t size;
} entries[XP_DB_NENTRIES] = {
	{"STRING_OFFSETS", 4},
	{"STRINGS", 1},
	{"RUNS", XP_RS_RUN},
	{"OBJFILES", XP_RS_OBJFILE},
	{"PROCS", XP_RS_PROC},
	{"STATS", XP_RS_STAT},
	{"COUNTERS", XP_RS_COUNTER},
	{"VPS", XP_RS_VP},
	{"VPVALS", XP_RS_VPVAL},
	{"BLOCKS", XP_RS_BLOCK},
	{"EDGES", XP_RS_EDGE},
	{"TUPLES", XP_RS_TUPLE},
	{"PROGRAMS", XP_RS_PROGRAM},
	{"OBJREFS", XP_RS_OBJREF},
	{"COMDATS", XP_RS_COMDAT},
	{"SRCFILES", XP_RS_SRCFILE},
	{"SRCLINES", XP_RS_SRCLINE},
	{"BLOCKREFS", XP_RS_BLOCKREF},
	{"IDX_OBJFILES", XP_RS_INDEX},
	{"IDX_PROCS", XP_RS_INDEX},
	{"IDX_PROGRAMS", XP_RS_INDEX},
	{"IDX_SRCFILES", XP_RS_INDEX},
};

const char *xp_db_entry_name(unsigned e)
{
	return e < XP_DB_NENTRIES ? entries[e].name : "?";
}

uint32_t xp_db_entry_recsize(unsigned e)
{
	return e < XP_DB_NENTRIES ? entries[e].size : 0;
}

/* What the writer streams: the bytes of each directory entry. */
typedef struct {
	const unsigned char *data[XP_DB_NENTRIES];
	uint64_t count[XP_DB_NENTRIES];
	uint64_t offset[XP_DB_NENTRIES];
	uint64_t total;
	unsigned char head[XP_DB_DIR_END];
} layout;

/* The header, directory and offsets of a database of shape s. */
static void layout_shape(const xp_db_shape *s, layout *L)
{
	unsigned char *h = L->head;
	memset(h, 0, sizeof L->head);
	memcpy(h + XP_DBH_MAGIC, XP_DB_MAGIC, XP_DB_MAGIC_LEN);
	xp_put_le32(h + XP_DBH_VERSION, XP_DB_FORMAT_VERSION);
	xp_put_le32(h + XP_DBH_TYPE, (uint32_t)s->type);
	xp_put_le32(h + XP_DBH_MAJOR, 4);
	xp_put_le32(h + XP_DBH_MINOR, s->minor);
	xp_put_le32(h + XP_DBH_NPROCNAMES, s->n_proc_names);
	xp_put_le32(h + XP_DBH_NENTRIES, XP_DB_NENTRIES);

	uint64_t pos = XP_DB_DIR_END;
	for (unsigned e = 0; e < XP_DB_NENTRIES; e++) {
		unsigned char *de = h + XP_DB_HEADER_SIZE + e * XP_DB_ENTRY_SIZE;
		pos = xp_db_align8(pos);
		L->count[e] = s->count[e];
		L->offset[e] = pos;
		xp_put_le32(de + XP_DBE_ID, e);
		xp_put_le32(de + XP_DBE_RECSIZE, entries[e].size);
		xp_put_le64(de + XP_DBE_OFFSET, pos);
		xp_put_le64(de + XP_DBE_COUNT, L->count[e]);
		pos += L->count[e] * entries[e].size;
	}
	L->total = pos;
	xp_put_le64(h + XP_DBH_FILESIZE, pos);
}

static void make_layout(const xp_fb *fb, layout *L)
{
	xp_db_shape s = {fb->type, fb->minor, fb->n_proc_names, {0}};
	L->data[XP_DBE_STROFFS] = fb->stroff;
	s.count[XP_DBE_STROFFS] = fb->nstr;
	L->data[XP_DBE_STRINGS] = (const unsigned char *)fb->strtab;
	s.count[XP_DBE_STRINGS] = fb->strtab_len;
	for (unsigned t = 0; t < XP_T_COUNT_; t++) {
		L->data[XP_DBE_TABLE0 + t] = fb->tab[t];
		s.count[XP_DBE_TABLE0 + t] = fb->n[t];
	}
	layout_shape(&s, L);
}

static const unsigned char zeros[8];

/*
 * Streams header, directory, padding and tables: each entry's bytes from
 * put, or from L's data when put is NULL.  XP_E_INVAL when put wrote
 * another number of bytes than the entry holds.
 */
static xp_err emit(xp_wbuf *w, const layout *L, xp_db_put_fn put, void *ctx)
{
	uint64_t pos = XP_DB_DIR_END;
	xp_wbuf_write(w, L->head, sizeof L->head);
	for (unsigned e = 0; e < XP_DB_NENTRIES; e++) {
		xp_wbuf_write(w, zeros, (size_t)(L->offset[e] - pos));
		size_t n = (size_t)(L->count[e] * entries[e].size);
		uint64_t before = w->total;
		if (put)
			put(ctx, e, w);
		else if (n)
			xp_wbuf_write(w, L->data[e], n);
		if (w->err == XP_E_OK && w->total - before != n)
			return XP_E_INVAL;
		pos = L->offset[e] + n;
	}
	return XP_E_OK;
}

/* The checksum of the whole file, computed without writing it. */
static uint32_t layout_crc(const layout *L)
{
	uint64_t pos = XP_DB_DIR_END;
	uint32_t crc = xp_crc32c(0, L->head, sizeof L->head);
	for (unsigned e = 0; e < XP_DB_NENTRIES; e++) {
		crc = xp_crc32c(crc, zeros, (size_t)(L->offset[e] - pos));
		size_t n = (size_t)(L->count[e] * entries[e].size);
		if (n)
			crc = xp_crc32c(crc, L->data[e], n);
		pos = L->offset[e] + n;
	}
	return crc;
}

/* Where fd, a regular file that can be rewritten in place, stands; -1
 * for a pipe, a terminal or a file opened to append. */
static off_t rewritable_at(int fd)
{
	struct stat st;
	int flags = fcntl(fd, F_GETFL);
	if (flags != -1 && !(flags & O_APPEND) && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode))
		return lseek(fd, 0, SEEK_CUR);
	return -1;
}

/*
 * Writes the database L describes into fd.  With start >= 0 (fd is
 * rewritable there) the checksum is computed while the bytes go out and
 * then written into the header in place; otherwise the header holds it
 * already.
 */
static xp_err write_layout(int fd, off_t start, const layout *L,
                           xp_db_put_fn put, void *ctx)
{
	xp_wbuf w;
	xp_err err = xp_wbuf_init_fd(&w, fd);
	if (err)
		return err;
	if (start >= 0) {
		w.crc_on = 1;
		w.crc = 0;
	}
	if ((err = emit(&w, L, put, ctx))) {
		xp_wbuf_discard(&w);
		return err;
	}
	/* The writer's state stays readable after close: the checksum
	 * covers every byte flushed, and the errno of a failure is kept. */
	err = xp_wbuf_close(&w, NULL, NULL);
	uint32_t crc = w.crc;
	int saved = w.saved_errno;
	if (err == XP_E_OK && start >= 0) {
		unsigned char b[4];
		xp_put_le32(b, crc);
		ssize_t r;
		do
			r = pwrite(fd, b, 4, start + XP_DBH_CRC);
		while (r < 0 && errno == EINTR);
		if (r != 4) {
			if (r >= 0)
				errno = EIO;
			err = XP_E_IO;
		}
	} else if (err == XP_E_IO && saved) {
		errno = saved;
	}
	return err;
}

xp_err xp_db_write_fd(const xp_fb *fb, int fd)
{
	layout *L = malloc(sizeof *L);
	if (!L)
		return XP_E_NOMEM;
	make_layout(fb, L);
	/* A pipe or terminal cannot be rewritten, and pwrite() to a file
	 * opened with O_APPEND would append, so there the checksum is
	 * computed first, in a pass that reads the tables without writing. */
	off_t start = rewritable_at(fd);
	if (start < 0)
		xp_put_le32(L->head + XP_DBH_CRC, layout_crc(L));
	xp_err err = write_layout(fd, start, L, NULL, NULL);
	free(L);
	return err;
}

xp_err xp_db_write_fd_with(const xp_db_shape *s, xp_db_put_fn put, void *ctx,
                           int fd)
{
	off_t start = rewritable_at(fd);
	if (start < 0)
		return XP_E_INVAL;
	layout *L = malloc(sizeof *L);
	if (!L)
		return XP_E_NOMEM;
	layout_shape(s, L);
	xp_err err = write_layout(fd, start, L, put, ctx);
	free(L);
	return err;
}

xp_err xp_db_write_mem(const xp_fb *fb, unsigned char **buf, size_t *len)
{
	layout *L = malloc(sizeof *L);
	if (!L)
		return XP_E_NOMEM;
	make_layout(fb, L);
	if (L->total > SIZE_MAX) {
		free(L);
		return XP_E_LIMIT;
	}
	unsigned char *out = calloc(1, (size_t)L->total);
	if (!out) {
		free(L);
		return XP_E_NOMEM;
	}
	memcpy(out, L->head, sizeof L->head);
	for (unsigned e = 0; e < XP_DB_NENTRIES; e++) {
		size_t n = (size_t)(L->count[e] * entries[e].size);
		if (n)
			memcpy(out + L->offset[e], L->data[e], n);
	}
	xp_put_le32(out + XP_DBH_CRC, xp_crc32c(0, out, (size_t)L->total));
	*buf = out;
	*len = (size_t)L->total;
	free(L);
	return XP_E_OK;
}
