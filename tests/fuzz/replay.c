/*
 * replay.c - runs every file of the given folders (or the given files)
 * through the feedback text parser and the database reader, with the
 * round-trip checks of the fuzz targets (oracle.h); inputs long enough to
 * be databases are tried a second time with their checksum repaired.
 * Every file also goes through xp_prof_open_mem (the modules of the
 * foreign formats, binary and text), with their lossless round trips.
 * It is what the fuzz corpus and every crash a fuzzer finds are replayed
 * with, under the sanitizers, without needing libFuzzer.
 *
 *   replay [-v] path...
 *
 * Prints "FAIL file: why" for each broken promise and a summary line;
 * -v also prints how each file was taken.  Exit status: 0 when every
 * check held, 1 when one did not, 2 when a file could not be read.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oracle.h"

struct tally {
	unsigned long files, texts, dbs, profs, violations, unreadable;
	int verbose;
};

static unsigned char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL, *nb;
	size_t cap = 0, n = 0, got;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap);
			if (nb == NULL)
				goto fail;
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f))
		goto fail;
	fclose(f);
	*len = n;
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
}

static void replay_file(const char *path, struct tally *t)
{
	char why[512];
	unsigned char *buf, *fixed;
	size_t len;
	xpo_result rt, rd;

	buf = read_all(path, &len);
	if (buf == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		t->unreadable++;
		return;
	}
	t->files++;
	rt = xpo_check_text(buf, len, why, sizeof why);
	if (rt == XPO_VIOLATION) {
		printf("FAIL %s: text: %s\n", path, why);
		t->violations++;
	} else if (rt == XPO_ACCEPTED) {
		t->texts++;
	}
	rd = xpo_check_db(buf, len, why, sizeof why);
	if (rd == XPO_VIOLATION) {
		printf("FAIL %s: database: %s\n", path, why);
		t->violations++;
	} else if (rd == XPO_ACCEPTED) {
		t->dbs++;
	}
	/* The same bytes with a correct checksum reach the deeper checks. */
	fixed = xpo_fix_checksum(buf, len);
	if (fixed != NULL && memcmp(fixed, buf, len) != 0) {
		xpo_result rf = xpo_check_db(fixed, len, why, sizeof why);

		if (rf == XPO_VIOLATION) {
			printf("FAIL %s: database with checksum repaired: %s\n",
			       path, why);
			t->violations++;
		}
	}
	free(fixed);
	switch (xpo_check_prof(buf, len, why, sizeof why)) {
	case XPO_VIOLATION:
		printf("FAIL %s: foreign format: %s\n", path, why);
		t->violations++;
		break;
	case XPO_ACCEPTED:
		t->profs++;
		break;
	case XPO_REJECTED:
		break;
	}
	if (t->verbose && rt != XPO_VIOLATION && rd != XPO_VIOLATION)
		printf("ok %s: %s\n", path,
		       rt == XPO_ACCEPTED ? "valid text" :
		       rd == XPO_ACCEPTED ? "valid database" : "rejected");
	free(buf);
}

static int skip_name(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

static void replay_path(const char *path, struct tally *t)
{
	struct dirent **ents;
	struct stat st;
	int i, n;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		t->unreadable++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		replay_file(path, t);
		return;
	}
	/* Sorted, so that runs are repeatable and output comparable. */
	n = scandir(path, &ents, skip_name, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		t->unreadable++;
		return;
	}
	for (i = 0; i < n; i++) {
		size_t l = strlen(path) + strlen(ents[i]->d_name) + 2;
		char *sub = malloc(l);

		if (sub == NULL) {
			fprintf(stderr, "replay: out of memory\n");
			t->unreadable++;
		} else {
			snprintf(sub, l, "%s/%s", path, ents[i]->d_name);
			replay_path(sub, t);
			free(sub);
		}
		free(ents[i]);
	}
	free(ents);
}

int main(int argc, char **argv)
{
	struct tally t = { 0, 0, 0, 0, 0, 0, 0 };
	int i = 1;

	if (i < argc && strcmp(argv[i], "-v") == 0) {
		t.verbose = 1;
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: replay [-v] path...\n");
		return 2;
	}
	for (; i < argc; i++)
		replay_path(argv[i], &t);
	printf("replay: %lu files, %lu valid texts, %lu valid databases, "
	       "%lu valid foreign profiles, %lu violations\n", t.files,
	       t.texts, t.dbs, t.profs, t.violations);
	if (t.violations > 0)
		return 1;
	return t.unreadable > 0 ? 2 : 0;
}
