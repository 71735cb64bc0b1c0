/*
 * shrink.c - an LD_PRELOAD shim for tests/hostile.sh: every regular file
 * that the process maps whole, from offset 0, is truncated to nothing at
 * once, as if another process had replaced it with `cp small x` while it
 * was read.  Touching the mapping then raises SIGBUS, every time.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	struct stat st;
	void *p;

	if (real == NULL)
		real = (void *(*)(void *, size_t, int, int, int, off_t))
		       dlsym(RTLD_NEXT, "mmap");
	p = real(addr, len, prot, flags, fd, off);
	if (p != MAP_FAILED && fd >= 0 && off == 0 && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size > 4096) {
		char path[64];
		int w;

		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		if ((w = open(path, O_WRONLY)) >= 0) {
			if (ftruncate(w, 0) != 0)
				perror("shrink: ftruncate");
			close(w);
		}
	}
	return p;
}
