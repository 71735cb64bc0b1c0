/*
 * feedback/db.h - the byte layout of the feedback database file (xprof_db(5)),
 * shared by its writer (db_write.c), its reader (db_read.c) and the
 * profile directory code (profdir.c).
 *
 * A database is a 64-byte header, a directory of XP_DB_NENTRIES entries of
 * 24 bytes, then the tables the directory describes, in directory order,
 * each at the first 8-byte aligned offset after the previous one.  Because
 * the layout follows from the counts alone, the reader can compute what
 * the writer would have produced and demand exactly that.
 */
#ifndef XPROF_DB_H
#define XPROF_DB_H

#include "base/internal.h"

/* "XPROFDB" and a ^Z, a byte no feedback text holds. */
#define XP_DB_MAGIC "XPROFDB\x1a"
#define XP_DB_MAGIC_LEN 8
#define XP_DB_FORMAT_VERSION 1u

/* Header fields (byte offsets). */
enum {
	XP_DBH_MAGIC = 0,
	XP_DBH_VERSION = 8,
	XP_DBH_TYPE = 12,
	XP_DBH_MAJOR = 16,
	XP_DBH_MINOR = 20,
	XP_DBH_NPROCNAMES = 24,
	XP_DBH_NENTRIES = 28,
	XP_DBH_FILESIZE = 32, /* u64 */
	XP_DBH_CRC = 40,
	XP_DBH_RESERVED = 44, /* 20 zero bytes up to the directory */
	XP_DB_HEADER_SIZE = 64
};

/* Directory entry fields. */
enum {
	XP_DBE_ID = 0,
	XP_DBE_RECSIZE = 4,
	XP_DBE_OFFSET = 8, /* u64 */
	XP_DBE_COUNT = 16, /* u64 */
	XP_DB_ENTRY_SIZE = 24
};

/* Directory entries: the two string arrays, then every xp_table. */
enum {
	XP_DBE_STROFFS = 0,
	XP_DBE_STRINGS = 1,
	XP_DBE_TABLE0 = 2,
	XP_DB_NENTRIES = XP_DBE_TABLE0 + XP_T_COUNT_
};

#define XP_DB_DIR_END \
	((uint64_t)XP_DB_HEADER_SIZE + (uint64_t)XP_DB_NENTRIES * XP_DB_ENTRY_SIZE)

/* The name (as in xprof_db(5)) and record size of directory entry e. */
const char *xp_db_entry_name(unsigned e);
uint32_t xp_db_entry_recsize(unsigned e);

/* Rounds up to the next multiple of 8. */
static inline uint64_t xp_db_align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/*
 * Opens a database from an open file descriptor (which stays the
 * caller's); name is used in diagnostics.  Otherwise as xp_db_open().
 */
xp_err xp_db_open_fd(int fd, const char *name, xp_fb **out, xp_diags *d);

/*
 * As xp_db_open_fd(); like[0..nlike-1] are databases opened by the
 * reader.  A file that differs from one of them only in its checksum and
 * counts (inputs of one binary) is checked against it byte for byte
 * instead of record by record, which accepts exactly the same files, and
 * *same is set to 1 + its index in like; otherwise to 0.
 */
xp_err xp_db_open_fd_like(int fd, const char *name, const xp_fb *const *like,
                          unsigned nlike, int *same, xp_fb **out,
                          xp_diags *d);
xp_err xp_db_open_mem_like(const void *buf, size_t len, const char *name,
                           const xp_fb *const *like, unsigned nlike,
                           int *same, xp_fb **out, xp_diags *d);

/*
 * What xp_db_check_like() hands over as it reads: records first .. first
 * + n - 1 of table t (STATS, COUNTERS, VPVALS or BLOCKREFS, the tables
 * whose values may differ from like's), once found to have like's
 * shape, in file order.  The file may still turn out not to have it.
 */
typedef struct {
	void (*fn)(void *ctx, const xp_fb *like, xp_table t, uint32_t first,
	           const unsigned char *recs, uint32_t n);
	void *ctx;
} xp_db_take;

/*
 * The check of xp_db_open_fd_like() without opening: whether the
 * database file of len bytes that w reads (from its start, through the
 * window's buffer, nothing mapped) has the shape of one of
 * like[0..nlike-1] and a correct checksum.  1 + the index of the one it
 * has; 0 when it has none of their shapes, when it cannot be read, or
 * when the comparison would need the whole file at once (VP_PROC values
 * other than like's): it is then to be opened, which says which.
 * *crc is set to the checksum its header gives.  take, when not NULL,
 * is given the records whose values may differ as they are read.
 */
int xp_db_check_like(xp_win *w, uint64_t len, const xp_fb *const *like,
                     unsigned nlike, uint32_t *crc, const xp_db_take *take);

/* Whether databases a and b, both opened by the reader, are of one
 * layout: the same bytes but for the checksum, the values of STATS,
 * COUNTERS and BLOCKREFS and anything of VPVALS. */
int xp_db_same_layout(const xp_fb *a, const xp_fb *b);

/* Table t of fb, a database mapped by the reader, is not needed for a
 * while: its pages leave the memory of the process (to be read again
 * from the file when touched).  Nothing for a profile not mapped. */
void xp_fb_let_go(const xp_fb *fb, xp_table t);

/* xp_profdir_open() and xp_open_any() with like, nlike and same as above. */
xp_err xp_profdir_open_like(const char *dir, xp_datatype t,
                            const char *objfile, const xp_fb *const *like,
                            unsigned nlike, int *same, xp_fb **out,
                            xp_diags *d);
xp_err xp_open_any_like(const char *path, const xp_fb *const *like,
                        unsigned nlike, int *same, xp_fb **out, xp_diags *d);
/* xp_text_parse_fd() of a stream whose first n bytes, head, were read
 * from fd already (text_parse.c); sum, when not NULL, counts every byte
 * of the text (head included) as the parser takes it. */
xp_err xp_text_parse_fd_after(int fd, const void *head, size_t n,
                              const char *name, const xp_parse_opts *opts,
                              xp_bytesum *sum, xp_fb **out, xp_diags *d);
/* The totals of fb that a manifest records: its object files,
 * procedures, counters and the saturating sum of its counts (open.c). */
void xp_fb_totals(const xp_fb *fb, uint64_t tot[4]);
/* The same for an input opened with xp_input_open() (registry/open.c). */
xp_err xp_input_feedback_like(xp_input *in, const xp_fb *const *like,
                              unsigned nlike, int *same, xp_fb **out,
                              xp_diags *d);
/*
 * For the merger, which reads databases of a layout seen before without
 * opening them (xp_db_check_like): the descriptor of the database file
 * that input in is, its own or, for a profile directory (*dir set), its
 * feedback database's; -1 when there is none (another kind of input, or
 * no such file: the input is then to be read as usual, which says
 * why).  *len is the file's size.
 */
int xp_input_db_fd(xp_input *in, int *dir, uint64_t *len);
/* Records what the merger read of it: the database's size and checksum
 * (its header's) and its totals (xp_fb_totals). */
void xp_input_took_db(xp_input *in, uint64_t len, uint32_t crc,
                      const uint64_t tot[4]);
/* xp_input_open() that also gives a handle, of format XP_FMT_UNKNOWN,
 * for a regular file in no known format. */
xp_err xp_input_open_any(const char *path, xp_input **out, xp_diags *d);

/*
 * A database written by its producer instead of from a profile in memory:
 * its header fields and the record count of every directory entry.
 */
typedef struct {
	xp_datatype type;
	unsigned minor;
	uint32_t n_proc_names;
	uint64_t count[XP_DB_NENTRIES];
} xp_db_shape;

/* Writes the bytes of directory entry e to w, count * record size. */
typedef void (*xp_db_put_fn)(void *ctx, unsigned e, xp_wbuf *w);

/*
 * Writes a database of shape s into fd, a regular file, at its offset;
 * put writes each entry in turn.  The checksum is computed as the bytes
 * go out and written into the header at the end.  XP_E_INVAL when put
 * writes another number of bytes than the shape says, XP_E_IO (errno
 * set) when writing fails.
 */
xp_err xp_db_write_fd_with(const xp_db_shape *s, xp_db_put_fn put, void *ctx,
                           int fd);

/*
 * xp_profdir_write_locked() for data of type t, holding nobj object
 * files, that write() writes into fd; objfile names the object file of
 * objfd data, which must hold exactly one.
 */
typedef xp_err (*xp_profdir_write_fn)(void *ctx, int fd);
xp_err xp_profdir_write_with(xp_lock *l, xp_datatype t, uint32_t nobj,
                             const char *objfile, xp_profdir_write_fn write,
                             void *ctx, xp_diags *d);

#endif /* XPROF_DB_H */
