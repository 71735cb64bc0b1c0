/*
 * db_write.c - writes a profile as a feedback database (xprof_db(5)).
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

#include "db.h"

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

static void make_layout(const xp_fb *fb, layout *L)
{
	L->data[XP_DBE_STROFFS] = fb->stroff;
	L->count[XP_DBE_STROFFS] = fb->nstr;
	L->data[XP_DBE_STRINGS] = (const unsigned char *)fb->strtab;
	L->count[XP_DBE_STRINGS] = fb->strtab_len;
	for (unsigned t = 0; t < XP_T_COUNT_; t++) {
		L->data[XP_DBE_TABLE0 + t] = fb->tab[t];
		L->count[XP_DBE_TABLE0 + t] = fb->n[t];
	}

	unsigned char *h = L->head;
	memset(h, 0, sizeof L->head);
	memcpy(h + XP_DBH_MAGIC, XP_DB_MAGIC, XP_DB_MAGIC_LEN);
	xp_put_le32(h + XP_DBH_VERSION, XP_DB_FORMAT_VERSION);
	xp_put_le32(h + XP_DBH_TYPE, (uint32_t)fb->type);
	xp_put_le32(h + XP_DBH_MAJOR, 4);
	xp_put_le32(h + XP_DBH_MINOR, fb->minor);
	xp_put_le32(h + XP_DBH_NPROCNAMES, fb->n_proc_names);
	xp_put_le32(h + XP_DBH_NENTRIES, XP_DB_NENTRIES);

	uint64_t pos = XP_DB_DIR_END;
	for (unsigned e = 0; e < XP_DB_NENTRIES; e++) {
		unsigned char *de = h + XP_DB_HEADER_SIZE + e * XP_DB_ENTRY_SIZE;
		pos = xp_db_align8(pos);
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

static const unsigned char zeros[8];

/* Streams header, directory, padding and tables. */
static void emit(xp_wbuf *w, layout *L)
{
	uint64_t pos = XP_DB_DIR_END;
	xp_wbuf_write(w, L->head, sizeof L->head);
	for (unsigned e = 0; e < XP_DB_NENTRIES; e++) {
		xp_wbuf_write(w, zeros, (size_t)(L->offset[e] - pos));
		size_t n = (size_t)(L->count[e] * entries[e].size);
		if (n)
			xp_wbuf_write(w, L->data[e], n);
		pos = L->offset[e] + n;
	}
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

xp_err xp_db_write_fd(const xp_fb *fb, int fd)
{
	layout *L = malloc(sizeof *L);
	if (!L)
		return XP_E_NOMEM;
	make_layout(fb, L);

	/*
	 * For a regular file the checksum is computed while the bytes go
	 * out and then written into the header in place, one pass over the
	 * tables.  A pipe or terminal cannot be rewritten, and pwrite() to a
	 * file opened with O_APPEND would append, so there the checksum is
	 * computed first, in a pass that reads the tables without writing.
	 */
	struct stat st;
	int flags = fcntl(fd, F_GETFL);
	off_t start = -1;
	if (flags != -1 && !(flags & O_APPEND) && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode))
		start = lseek(fd, 0, SEEK_CUR);
	if (start < 0)
		xp_put_le32(L->head + XP_DBH_CRC, layout_crc(L));

	xp_wbuf w;
	xp_err err = xp_wbuf_init_fd(&w, fd);
	if (err) {
		free(L);
		return err;
	}
	if (start >= 0) {
		w.crc_on = 1;
		w.crc = 0;
	}
	emit(&w, L);
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
