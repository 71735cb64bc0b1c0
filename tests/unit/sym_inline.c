/*
 * sym_inline.c - unit tests of the chains of inlined calls that the
 * symbolizer gives (xp_sym_inlined, lib/symbolize/symbolize.c), against
 * what `addr2line -i -f` prints for the same addresses.
 *
 * A small program whose helpers are inlined twice deep is built with -O2
 * -g during the test; every address of its main() is looked up both ways,
 * and the chains must agree frame by frame: the function, the line and
 * the file (addr2line may print the file with its directory).  At least
 * one address must have a chain of three frames, or the compiler did not
 * inline and the test proves nothing.
 *
 * Environment: XP_CC (the compiler, default cc), TMPDIR.
 */
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"
#include "xprof.h"

static const char program[] =
	"static volatile int sink;\n"
	"static inline __attribute__((always_inline)) int leaf(int x)\n"
	"{\n"
	"\tsink = x;\n"
	"\treturn x * 3 + sink;\n"
	"}\n"
	"static inline __attribute__((always_inline)) int mid(int x)\n"
	"{\n"
	"\tint y = leaf(x + 1);\n"
	"\treturn leaf(y) - x;\n"
	"}\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\t(void)argv;\n"
	"\treturn mid(argc) & 1;\n"
	"}\n";

static char dir[4096], src[4200], exe[4200];

static int build(void)
{
	const char *tmp = getenv("TMPDIR"), *cc = getenv("XP_CC");
	char cmd[16384];
	FILE *f;

	snprintf(dir, sizeof dir, "%s/xp-sym-inline.XXXXXX",
	         tmp != NULL ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(src, sizeof src, "%s/prog.c", dir);
	snprintf(exe, sizeof exe, "%s/prog", dir);
	if ((f = fopen(src, "w")) == NULL)
		return -1;
	fputs(program, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "'%s' -O2 -g -o '%s' '%s'",
	         cc != NULL && *cc != '\0' ? cc : "cc", exe, src);
	return system(cmd) == 0 ? 0 : -1;
}

/* Cuts the newline and addr2line's " (discriminator N)". */
static void chop(char *s)
{
	char *p = strstr(s, " (discriminator");

	if (p != NULL)
		*p = '\0';
	s[strcspn(s, "\n")] = '\0';
}

/* A file as we give it agrees with addr2line's when one ends with the
 * other after a slash (addr2line may add the compilation directory). */
static int same_file(const char *ours, const char *theirs)
{
	size_t a = strlen(ours), b = strlen(theirs);

	if (a == b)
		return strcmp(ours, theirs) == 0;
	if (a < b)
		return theirs[b - a - 1] == '/' && !strcmp(theirs + b - a, ours);
	return ours[a - b - 1] == '/' && !strcmp(ours + a - b, theirs);
}

/* Compares one address; returns the length of its chain. */
static size_t check_addr(xp_sym *s, uint64_t addr)
{
	xp_sym_frame fr[16];
	size_t n = xp_sym_inlined(s, addr, fr, 16), i = 0;
	char cmd[8400], fn[4096], pos[4096], what[9000];
	FILE *p;

	snprintf(cmd, sizeof cmd, "addr2line -i -f -e '%s' 0x%" PRIx64, exe,
	         addr);
	if ((p = popen(cmd, "r")) == NULL) {
		CHECK(p != NULL);
		return n;
	}
	while (fgets(fn, sizeof fn, p) != NULL &&
	       fgets(pos, sizeof pos, p) != NULL) {
		char *colon;
		unsigned line;

		chop(fn);
		chop(pos);
		colon = strrchr(pos, ':');
		line = colon != NULL ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
		if (colon != NULL)
			*colon = '\0';
		snprintf(what, sizeof what, "0x%" PRIx64 " frame %zu: %s %s:%u",
		         addr, i, fn, pos, line);
		if (i >= n || i >= 16) {
			unit_fail(__FILE__, __LINE__, what);
			i++;
			continue;
		}
		if (strcmp(fn, "??") == 0 ? fr[i].func != NULL
		                          : fr[i].func == NULL ||
		                            strcmp(fr[i].func, fn) != 0)
			unit_fail(__FILE__, __LINE__, what);
		if (fr[i].line != line)
			unit_fail(__FILE__, __LINE__, what);
		if (strcmp(pos, "??") == 0 ? fr[i].file != NULL
		                           : fr[i].file == NULL ||
		                             !same_file(fr[i].file, pos))
			unit_fail(__FILE__, __LINE__, what);
		i++;
	}
	pclose(p);
	/* addr2line prints "??" twice for an address without lines. */
	CHECK(i == n || (n == 0 && i == 1));
	return n;
}

static void test_against_addr2line(void)
{
	xp_diags *d = xp_diags_new(0);
	xp_sym *s = NULL;
	const xp_symbol *m = NULL;
	size_t deepest = 0;

	CHECK(build() == 0);
	CHECK(xp_sym_open(exe, &s, d) == XP_E_OK);
	xp_diags_free(d);
	if (s == NULL)
		return;
	for (size_t i = 0; i < xp_sym_count(s); i++)
		if (strcmp(xp_sym_get(s, i)->name, "main") == 0)
			m = xp_sym_get(s, i);
	CHECK(m != NULL);
	for (uint64_t a = 0; m != NULL && a < m->size; a++) {
		size_t n = check_addr(s, m->addr + a);
		if (n > deepest)
			deepest = n;
	}
	CHECK_EQ(deepest, 3);
	/* A chain longer than the room given is counted, not written. */
	if (m != NULL) {
		xp_sym_frame one;
		for (uint64_t a = 0; a < m->size; a++)
			if (xp_sym_inlined(s, m->addr + a, NULL, 0) == 3) {
				CHECK_EQ(xp_sym_inlined(s, m->addr + a, &one, 1), 3);
				CHECK_STR(one.func, "leaf");
				break;
			}
	}
	xp_sym_free(s);
	unlink(exe);
	unlink(src);
	rmdir(dir);
}

int main(void)
{
	RUN(test_against_addr2line);
	return unit_done();
}
