/*
 * feedback/profdir.c - profile directories and atomic output files.
 *
 * A profile directory holds one database file per data type: feedback,
 * tcovd and tcovsd at its top, and objfd/<key> with one file per object
 * file, where <key> is the 64-bit FNV-1a hash of the object file's path in
 * 16 lower-case hex digits (a path may be longer than a file name can be
 * and may hold '/'); the database inside names its object file, and
 * opening checks it.
 *
 * Writers serialise on an exclusive flock(2) of the directory itself, so
 * that a read-modify-write (a merge) never loses another writer's update.
 * Files are replaced atomically: the new data goes to a temporary file in
 * the same directory (an unnamed O_TMPFILE where the file system supports
 * it, so that a crash leaves nothing behind), is flushed with fsync, and
 * is renamed over the old file; then the directory is synced so that the
 * rename itself survives a crash.  Readers take no lock: they open either
 * the old file or the new one, never a mix.
 *
 * An output file of another format that runs add to (xprof_merge
 * --accumulate) is updated the same way under the lock of a file beside
 * it, PATH.lock (xp_file_lock): the file itself is replaced by every
 * update, so a lock on it would be a lock on an old version.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "feedback/manifest.h"

/* ------------------------------------------------------------------ */
/* Atomic files                                                        */
/* ------------------------------------------------------------------ */

struct xp_afile {
	int dirfd;        /* the directory the file goes to */
	int fd;           /* the temporary file */
	int unnamed;      /* O_TMPFILE: no name until commit */
	int direct;       /* fd is the target itself (a FIFO or a device) */
	char tmp[64];     /* named temporary: its name in dirfd */
	char *base;       /* the target's name in dirfd */
	char *path;       /* the target as given, for diagnostics */
};

/* A fresh name ".<base-prefix>.<16 hex digits>" for a temporary file. */
static void tmp_name(char *buf, size_t size, const char *base)
{
	uint64_t x = 0;
	if (getrandom(&x, sizeof x, GRND_NONBLOCK) != (ssize_t)sizeof x) {
		/* No entropy yet: time and pid still differ between tries
		 * and between processes. */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^
		    (uint64_t)ts.tv_sec << 20 ^ (uint64_t)getpid();
	}
	snprintf(buf, size, ".%.24s.%016llx.tmp", base, (unsigned long long)x);
}

static void afile_free(xp_afile *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	if (f->dirfd >= 0)
		close(f->dirfd);
	XP_FREE(f->base, f->path, f);
}

/*
 * Opens a temporary file in the directory dirfd (which the afile takes
 * over) for the target base; path names the target in diagnostics.
 */
static xp_err afile_open_at(int dirfd, const char *base, const char *path,
                            xp_afile **out, xp_diags *d)
{
	*out = NULL;
	xp_afile *f = calloc(1, sizeof *f);
	if (!f) {
		close(dirfd);
		return XP_E_NOMEM;
	}
	f->dirfd = dirfd;
	f->fd = -1;
	f->base = strdup(base);
	f->path = strdup(path);
	if (!f->base || !f->path) {
		afile_free(f);
		return XP_E_NOMEM;
	}

#ifdef O_TMPFILE
	f->fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
	if (f->fd >= 0) {
		f->unnamed = 1;
		*out = f;
		return XP_E_OK;
	}
#endif
	for (int tries = 0; tries < 100; tries++) {
		tmp_name(f->tmp, sizeof f->tmp, base);
		f->fd = openat(dirfd, f->tmp,
		               O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0666);
		if (f->fd >= 0 || errno != EEXIST)
			break;
	}
	if (f->fd < 0) {
		int e = errno;
		afile_free(f);
		return xp_diag_file(d, XP_E_IO, path,
		                    "cannot create a temporary file: %s",
		                    strerror(e));
	}
	*out = f;
	return XP_E_OK;
}

/*
 * Writes straight into an existing file that is not a regular file: a
 * FIFO or a device such as /dev/null must stay what it is, and replacing
 * it would make no sense anyway.
 */
static xp_err afile_open_direct(const char *target, const char *path,
                                xp_afile **out, xp_diags *d)
{
	xp_afile *f = calloc(1, sizeof *f);
	if (!f)
		return XP_E_NOMEM;
	f->dirfd = -1;
	f->direct = 1;
	f->path = strdup(path);
	f->fd = open(target, O_WRONLY | O_CLOEXEC);
	if (!f->path || f->fd < 0) {
		int e = errno;
		int nomem = !f->path;
		afile_free(f);
		if (nomem)
			return XP_E_NOMEM;
		return xp_diag_file(d, XP_E_IO, path, "cannot open: %s",
		                    strerror(e));
	}
	*out = f;
	return XP_E_OK;
}

xp_err xp_afile_open(const char *path, xp_afile **out, xp_diags *d)
{
	*out = NULL;
	/* A symbolic link stays a link: the file it points to is the one
	 * replaced.  What is not a regular file is written in place. */
	char *resolved = NULL;
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			resolved = realpath(path, NULL);
			if (!resolved || stat(resolved, &st) != 0) {
				int e = errno;
				free(resolved);
				return xp_diag_file(d, XP_E_IO, path,
				                    "cannot follow the symbolic link: %s",
				                    strerror(e));
			}
		}
		if (S_ISDIR(st.st_mode)) {
			free(resolved);
			return xp_diag_file(d, XP_E_INVAL, path, "is a directory");
		}
		if (!S_ISREG(st.st_mode)) {
			xp_err err = afile_open_direct(resolved ? resolved : path,
			                               path, out, d);
			free(resolved);
			return err;
		}
	}
	const char *target = resolved ? resolved : path;
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	if (*base == '\0' || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		free(resolved);
		return xp_diag_file(d, XP_E_INVAL, path, "not a file name");
	}
	char *dir = slash ? strndup(target, (size_t)(slash - target) + 1)
	                  : strdup(".");
	if (!dir) {
		free(resolved);
		return XP_E_NOMEM;
	}
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int e = errno;
	free(dir);
	if (dirfd < 0) {
		free(resolved);
		return xp_diag_file(d, e == ENOENT ? XP_E_NOTFOUND : XP_E_IO, path,
		                    "cannot open its directory: %s", strerror(e));
	}
	xp_err err = afile_open_at(dirfd, base, path, out, d);
	free(resolved);
	return err;
}

int xp_afile_fd(const xp_afile *f)
{
	return f->fd;
}

void xp_afile_abort(xp_afile *f)
{
	if (!f)
		return;
	if (!f->direct && !f->unnamed && f->tmp[0])
		unlinkat(f->dirfd, f->tmp, 0);
	afile_free(f);
}

/* Gives an unnamed temporary file the name f->tmp. */
static int link_unnamed(xp_afile *f)
{
	for (int tries = 0; tries < 100; tries++) {
		tmp_name(f->tmp, sizeof f->tmp, f->base);
		/* AT_EMPTY_PATH needs a capability most users lack; the
		 * /proc path works for everyone where /proc is mounted. */
		if (linkat(f->fd, "", f->dirfd, f->tmp, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno == EEXIST)
			continue;
		char proc[64];
		snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
		if (linkat(AT_FDCWD, proc, f->dirfd, f->tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	f->tmp[0] = '\0';
	return -1;
}

xp_err xp_afile_commit(xp_afile *f, xp_diags *d)
{
	const char *what = "cannot flush";
	if (f->direct) {
		/* A FIFO or a device: nothing to rename, nothing to sync. */
		int fd = f->fd;
		f->fd = -1;
		if (close(fd) != 0) {
			int e = errno;
			xp_err err = xp_diag_file(d, XP_E_IO, f->path,
			                          "cannot write: %s", strerror(e));
			afile_free(f);
			return err;
		}
		afile_free(f);
		return XP_E_OK;
	}
	if (fsync(f->fd) != 0)
		goto fail;
	if (f->unnamed) {
		what = "cannot name the new file";
		if (link_unnamed(f) != 0)
			goto fail;
		f->unnamed = 0;
	}
	what = "cannot replace";
	if (renameat(f->dirfd, f->tmp, f->dirfd, f->base) != 0)
		goto fail;
	f->tmp[0] = '\0';
	/* The rename is in the directory; make it durable too.  Some file
	 * systems refuse fsync on a directory; the data is safe anyway. */
	if (fsync(f->dirfd) != 0 && errno != EINVAL && errno != EROFS) {
		what = "cannot flush the directory";
		goto fail;
	}
	afile_free(f);
	return XP_E_OK;
fail:;
	int e = errno;
	xp_err err = xp_diag_file(d, XP_E_IO, f->path, "%s: %s", what,
	                          strerror(e));
	xp_afile_abort(f);
	errno = e;
	return err;
}

/* ------------------------------------------------------------------ */
/* Profile directories                                                 */
/* ------------------------------------------------------------------ */

struct xp_lock {
	int fd;      /* the directory (or an output file's lock file), locked */
	char *dir;   /* its name */
	int created; /* xp_profdir_lock made the directory */
};

/* The file name of objfd data: FNV-1a of the object file's path. */
static void objfd_key(const char *objfile, char key[17])
{
	uint64_t h = 0xcbf29ce484222325u;
	for (const unsigned char *p = (const unsigned char *)objfile; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3u;
	}
	snprintf(key, 17, "%016llx", (unsigned long long)h);
}

char *xp_profdir_file(const char *dir, xp_datatype t, const char *objfile)
{
	char key[17];
	const char *tail;
	if (t == XP_DT_OBJFD) {
		if (!objfile)
			tail = "objfd";
		else {
			objfd_key(objfile, key);
			tail = NULL;
		}
	} else {
		tail = xp_datatype_name(t);
	}
	size_t n = strlen(dir) + 32;
	char *s = malloc(n);
	if (!s)
		return NULL;
	if (tail)
		snprintf(s, n, "%s/%s", dir, tail);
	else
		snprintf(s, n, "%s/objfd/%s", dir, key);
	return s;
}

/* The name of the manifest of data of type t in its profile directory:
 * NAME.manifest at its top (objfd-KEY.manifest for objfd data, so that
 * objfd holds databases only). */
static void manifest_name(xp_datatype t, const char *objfile, char buf[64])
{
	char key[17];

	if (t == XP_DT_OBJFD && objfile) {
		objfd_key(objfile, key);
		snprintf(buf, 64, "objfd-%s.manifest", key);
	} else {
		snprintf(buf, 64, "%s.manifest", xp_datatype_name(t));
	}
}

char *xp_profdir_manifest(const char *dir, xp_datatype t, const char *objfile)
{
	char name[64];
	size_t n = strlen(dir) + sizeof name + 1;
	char *s = malloc(n);

	manifest_name(t, objfile, name);
	if (s)
		snprintf(s, n, "%s/%s", dir, name);
	return s;
}

/* Syncs the directory that holds path, so that a new entry in it lasts. */
static void sync_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *parent = slash ? strndup(path, (size_t)(slash - path) + 1)
	                     : strdup(".");
	if (!parent)
		return;
	int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(parent);
}

/*
 * Whether name is one of the temporary files of tmp_name():
 * ".<base>.<16 hex digits>.tmp".
 */
static int is_temporary(const char *name)
{
	size_t n = strlen(name);

	if (n < 1 + 1 + 16 + 4 || name[0] != '.' ||
	    strcmp(name + n - 4, ".tmp") != 0 || name[n - 21] != '.')
		return 0;
	for (size_t i = n - 20; i < n - 4; i++)
		if (!isxdigit((unsigned char)name[i]) ||
		    isupper((unsigned char)name[i]))
			return 0;
	return 1;
}

/*
 * Removes the temporary files that writers killed between naming their
 * new file and renaming it over the old one left in the directory dirfd
 * (xp_afile_commit).  Every file of a profile directory is written under
 * its lock, and the temporary gets its name only while the writer holds
 * it: whoever takes the lock finds none that is still being written.
 */
static void remove_stale(int dirfd)
{
	int fd = dup(dirfd);
	DIR *dp = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;

	if (dp == NULL) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(dp)) != NULL)
		if (is_temporary(e->d_name))
			unlinkat(dirfd, e->d_name, 0);
	closedir(dp);
}

/* Opens path with flags and locks it; -1 (errno set) when it cannot be
 * opened, -2 when it cannot be locked. */
static int lock_path(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | flags, 0666), r;

	if (fd < 0)
		return -1;
	do
		r = flock(fd, LOCK_EX);
	while (r != 0 && errno == EINTR);
	if (r != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -2;
	}
	return fd;
}

/*
 * The directory fd still is dir: a run that created dir and failed
 * removes it again (xp_profdir_unlock_failed), and whoever was waiting
 * for its lock then holds the lock of a directory that is gone.
 */
static int still_there(int fd, const char *dir)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && a.st_nlink > 0 && stat(dir, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The object that holds the lock fd of name: *out. */
static xp_err new_lock(int fd, const char *name, int created, xp_lock **out)
{
	xp_lock *l = malloc(sizeof *l);
	char *copy = strdup(name);

	if (!l || !copy) {
		free(l);
		free(copy);
		close(fd);
		return XP_E_NOMEM;
	}
	l->fd = fd;
	l->dir = copy;
	l->created = created;
	*out = l;
	return XP_E_OK;
}

xp_err xp_profdir_lock(const char *dir, int create, xp_lock **out,
                       xp_diags *d)
{
	int fd = -1, created = 0;

	*out = NULL;
	for (int tries = 0; tries < 100; tries++) {
		created = 0;
		if (create) {
			if (mkdir(dir, 0777) == 0) {
				created = 1;
				sync_parent(dir);
			} else if (errno != EEXIST) {
				return xp_diag_file(d, XP_E_IO, dir,
				                    "cannot create profile "
				                    "directory: %s",
				                    strerror(errno));
			}
		}
		fd = lock_path(dir, O_DIRECTORY);
		if (fd == -2)
			return xp_diag_file(d, XP_E_LOCK, dir, "cannot lock: %s",
			                    strerror(errno));
		if (fd < 0) {
			int e = errno;
			if (e == ENOENT && create)
				continue;
			if (e == ENOENT)
				return xp_diag_file(d, XP_E_NOTFOUND, dir,
				                    "no such profile directory");
			return xp_diag_file(d, XP_E_IO, dir,
			                    "cannot open profile directory: %s",
			                    strerror(e));
		}
		if (still_there(fd, dir))
			break;
		close(fd);
		fd = -1;
		if (!create)
			return xp_diag_file(d, XP_E_NOTFOUND, dir,
			                    "no such profile directory");
	}
	if (fd < 0)
		return xp_diag_file(d, XP_E_LOCK, dir,
		                    "cannot lock: the directory keeps going away");
	remove_stale(fd);
	{
		int ofd = openat(fd, "objfd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (ofd >= 0) {
			remove_stale(ofd);
			close(ofd);
		}
	}
	return new_lock(fd, dir, created, out);
}

/*
 * The lock file of an output file is PATH.lock beside the file that PATH
 * names (the target of a symbolic link), so that every name of one file
 * takes one lock.  It is created when missing and never removed: a
 * process that waits on a lock file must find, once it holds it, the one
 * that the others lock.  One removed all the same (by hand) is noticed
 * as a directory that went away is, and the lock taken again.
 */
xp_err xp_file_lock(const char *path, xp_lock **out, xp_diags *d)
{
	struct stat st;
	char *target = NULL, *lpath;
	int fd = -1;

	*out = NULL;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
	    (target = realpath(path, NULL)) == NULL)
		return xp_diag_file(d, XP_E_IO, path, "cannot follow the "
		                    "symbolic link: %s", strerror(errno));
	const char *file = target ? target : path;
	size_t n = strlen(file) + sizeof ".lock";
	if ((lpath = malloc(n)) == NULL) {
		free(target);
		return XP_E_NOMEM;
	}
	snprintf(lpath, n, "%s.lock", file);
	free(target);
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		fd = lock_path(lpath, O_CREAT);
		if (fd < 0) {
			xp_err err = xp_diag_file(d, XP_E_LOCK, path,
			                          "cannot lock %s: %s", lpath,
			                          strerror(errno));
			free(lpath);
			return err;
		}
		if (!still_there(fd, lpath)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		free(lpath);
		return xp_diag_file(d, XP_E_LOCK, path, "cannot lock: its lock "
		                    "file keeps going away");
	}
	xp_err err = new_lock(fd, lpath, 0, out);
	free(lpath);
	return err;
}

void xp_profdir_unlock_failed(xp_lock *l)
{
	if (!l)
		return;
	/* Still under the lock, so that no writer has begun in it; rmdir
	 * leaves a directory that is not empty alone. */
	if (l->created) {
		unlinkat(l->fd, "objfd", AT_REMOVEDIR);
		if (rmdir(l->dir) == 0)
			sync_parent(l->dir);
	}
	xp_profdir_unlock(l);
}

void xp_profdir_unlock(xp_lock *l)
{
	if (!l)
		return;
	/* Closing the only descriptor of the open file releases the lock. */
	close(l->fd);
	free(l->dir);
	free(l);
}

/*
 * Writes man into a new temporary file *out at the top of the profile
 * directory, describing the database just written into fd.
 */
static xp_err stage_manifest(xp_lock *l, xp_datatype t, const char *objfile,
                             int fd, const xp_manifest *man, xp_afile **out,
                             xp_diags *d)
{
	unsigned char head[XP_DBH_CRC + 4];
	char name[64], *mpath;
	struct stat st;
	xp_buf text;
	uint32_t crc;
	int mdirfd;
	xp_err err;

	*out = NULL;
	manifest_name(t, objfile, name);
	if (fstat(fd, &st) != 0 || pread(fd, head, sizeof head, 0) !=
	                           (ssize_t)sizeof head)
		return xp_diag_file(d, XP_E_IO, l->dir, "cannot read back the "
		                    "database written: %s", strerror(errno));
	/* The database's checksum is taken with its own field zero. */
	crc = xp_get_le32(head + XP_DBH_CRC);
	crc = xp_crc32c_with_field(crc, (uint64_t)st.st_size, XP_DBH_CRC, crc);
	if ((mpath = xp_profdir_manifest(l->dir, t, objfile)) == NULL)
		return XP_E_NOMEM;
	memset(&text, 0, sizeof text);
	err = xp_manifest_text(man, 1, (uint64_t)st.st_size, crc, &text);
	if (err == XP_E_OK) {
		if ((mdirfd = dup(l->fd)) < 0)
			err = xp_diag_file(d, XP_E_IO, mpath, "%s", strerror(errno));
		else
			err = afile_open_at(mdirfd, name, mpath, out, d);
	}
	if (err == XP_E_OK &&
	    xp_manifest_write_all((*out)->fd, text.p, text.len) != 0) {
		err = xp_diag_file(d, XP_E_IO, mpath, "cannot write: %s",
		                   strerror(errno));
		xp_afile_abort(*out);
		*out = NULL;
	}
	xp_buf_free(&text);
	free(mpath);
	return err;
}

xp_err xp_profdir_write_with_manifest(xp_lock *l, xp_datatype t,
                                      uint32_t nobj, const char *objfile,
                                      xp_profdir_write_fn write, void *ctx,
                                      const xp_manifest *man, xp_diags *d)
{
	if (t == XP_DT_OBJFD && nobj != 1)
		return xp_diag_file(d, XP_E_INVAL, l->dir,
		                    "objfd data must hold exactly one object file, "
		                    "this holds %u",
		                    nobj);
	char *path = xp_profdir_file(l->dir, t, t == XP_DT_OBJFD ? objfile : NULL);
	if (!path)
		return XP_E_NOMEM;
	xp_err err = XP_E_OK;
	int dirfd;
	if (t == XP_DT_OBJFD) {
		int made = mkdirat(l->fd, "objfd", 0777) == 0;
		if (!made && errno != EEXIST) {
			err = xp_diag_file(d, XP_E_IO, l->dir,
			                   "cannot create objfd: %s", strerror(errno));
			goto out;
		}
		dirfd = openat(l->fd, "objfd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (made)
			fsync(l->fd);
	} else {
		dirfd = openat(l->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (dirfd < 0) {
		err = xp_diag_file(d, XP_E_IO, path, "cannot open its directory: %s",
		                   strerror(errno));
		goto out;
	}

	/* Two paths with the same key would share a file: refuse to
	 * replace another object file's data (a damaged file may go). */
	if (t == XP_DT_OBJFD) {
		xp_fb *old = NULL;
		if (xp_db_open(path, &old, NULL) == XP_E_OK &&
		    old->type == XP_DT_OBJFD) {
			xp_objfile o;
			xp_fb_objfile(old, 0, &o);
			if (strcmp(xp_fb_str(old, o.path), objfile) != 0)
				err = xp_diag_file(d, XP_E_EXISTS, path,
				                   "holds the objfd data of %s, whose "
				                   "key is the same as that of %s",
				                   xp_fb_str(old, o.path), objfile);
		}
		xp_fb_free(old);
		if (err) {
			close(dirfd);
			goto out;
		}
	}

	xp_afile *f, *mf = NULL;
	const char *base = strrchr(path, '/') + 1;
	if ((err = afile_open_at(dirfd, base, path, &f, d)))
		goto out;
	if ((err = write(ctx, f->fd))) {
		if (err == XP_E_IO)
			xp_diag_file(d, XP_E_IO, path, "cannot write: %s",
			             strerror(errno));
		xp_afile_abort(f);
		goto out;
	}
	if (man && (err = stage_manifest(l, t, objfile, f->fd, man, &mf, d))) {
		xp_afile_abort(f);
		goto out;
	}
	/* The database first: a reader that sees the new one with the old
	 * manifest (or a crash between the renames) finds that the
	 * manifest describes another database. */
	if ((err = xp_afile_commit(f, d))) {
		xp_afile_abort(mf);
		goto out;
	}
	if (mf) {
		err = xp_afile_commit(mf, d);
	} else {
		/* A manifest of the database replaced describes it no more. */
		char name[64];
		manifest_name(t, objfile, name);
		if (unlinkat(l->fd, name, 0) == 0)
			fsync(l->fd);
	}
out:
	free(path);
	return err;
}

xp_err xp_profdir_write_with(xp_lock *l, xp_datatype t, uint32_t nobj,
                             const char *objfile, xp_profdir_write_fn write,
                             void *ctx, xp_diags *d)
{
	return xp_profdir_write_with_manifest(l, t, nobj, objfile, write, ctx,
	                                      NULL, d);
}

static xp_err write_db(void *ctx, int fd)
{
	return xp_db_write_fd(ctx, fd);
}

/* xp_profdir_write_locked() with man beside the database. */
static xp_err write_locked_manifest(xp_lock *l, const xp_fb *fb,
                                    const xp_manifest *man, xp_diags *d)
{
	const char *objfile = NULL;
	if (fb->n[XP_T_OBJFILES] == 1) {
		xp_objfile o;
		xp_fb_objfile(fb, 0, &o);
		objfile = xp_fb_str(fb, o.path);
	}
	return xp_profdir_write_with_manifest(l, fb->type, fb->n[XP_T_OBJFILES],
	                                      objfile, write_db, (void *)fb, man,
	                                      d);
}

xp_err xp_profdir_write_locked(xp_lock *l, const xp_fb *fb, xp_diags *d)
{
	return write_locked_manifest(l, fb, NULL, d);
}

xp_err xp_profdir_write(const char *dir, const xp_fb *fb, xp_diags *d)
{
	return xp_profdir_write_manifest(dir, fb, NULL, d);
}

xp_err xp_profdir_write_manifest(const char *dir, const xp_fb *fb,
                                 const xp_manifest *man, xp_diags *d)
{
	xp_lock *l;
	xp_err err = xp_profdir_lock(dir, 1, &l, d);
	if (err)
		return err;
	err = write_locked_manifest(l, fb, man, d);
	if (err)
		xp_profdir_unlock_failed(l);
	else
		xp_profdir_unlock(l);
	return err;
}

xp_err xp_profdir_open(const char *dir, xp_datatype t, const char *objfile,
                       xp_fb **out, xp_diags *d)
{
	return xp_profdir_open_like(dir, t, objfile, NULL, 0, NULL, out, d);
}

xp_err xp_profdir_open_like(const char *dir, xp_datatype t,
                            const char *objfile, const xp_fb *const *like,
                            unsigned nlike, int *same, xp_fb **out,
                            xp_diags *d)
{
	*out = NULL;
	if (t == XP_DT_OBJFD && !objfile)
		return xp_diag_file(d, XP_E_INVAL, dir,
		                    "objfd data needs an object file path");
	char *path = xp_profdir_file(dir, t, objfile);
	if (!path)
		return XP_E_NOMEM;
	xp_err err;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		if (t == XP_DT_OBJFD)
			err = xp_diag_file(d, e == ENOENT ? XP_E_NOTFOUND : XP_E_IO,
			                   dir, "no objfd data for %s (%s: %s)", objfile,
			                   path, strerror(e));
		else
			err = xp_diag_file(d, e == ENOENT ? XP_E_NOTFOUND : XP_E_IO,
			                   dir, "no %s data (%s: %s)",
			                   xp_datatype_name(t), path, strerror(e));
		free(path);
		return err;
	}
	xp_fb *fb;
	err = xp_db_open_fd_like(fd, path, like, nlike, same, &fb, d);
	close(fd);
	if (err) {
		free(path);
		return err;
	}
	if (fb->type != t) {
		err = xp_diag_file(d, XP_E_CORRUPT, path,
		                   "holds %s data, expected %s",
		                   xp_datatype_name(fb->type), xp_datatype_name(t));
	} else if (t == XP_DT_OBJFD) {
		xp_objfile o;
		xp_fb_objfile(fb, 0, &o);
		if (strcmp(xp_fb_str(fb, o.path), objfile) != 0)
			err = xp_diag_file(d, XP_E_NOTFOUND, dir,
			                   "no objfd data for %s (%s holds %s)",
			                   objfile, path, xp_fb_str(fb, o.path));
	}
	free(path);
	if (err) {
		xp_fb_free(fb);
		return err;
	}
	*out = fb;
	return XP_E_OK;
}
