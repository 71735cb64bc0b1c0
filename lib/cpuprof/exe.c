/*
 * cpuprof/exe.c - whether the executable given with a CPU profile (-e) is
 * the one that was profiled (cpuprofile(5), THE EXECUTABLE).
 *
 * A CPU profile records no build id, only the process's mappings as
 * /proc/self/maps listed them: path, address range, permissions and file
 * offset.  So the check compares the mappings of the executable's file
 * (its path, or a path with the same base name, as the report takes them)
 * with the executable's loadable segments, page-rounded as the kernel
 * maps them, and then looks up every PC that the report gives to the
 * executable among its functions (registry/exe.c gives the verdict).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>

#include "cpuprof/cpuprof.h"

/* The path with pprof's library suffix: ".so" then ".N" groups. */
int xp_cp_is_shlib(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, ".so")) != NULL) {
		const char *q = p + 3;
		if (*q == '\0')
			return 1;
		while (*q == '.' && q[1] >= '0' && q[1] <= '9') {
			q++;
			while (*q >= '0' && *q <= '9')
				q++;
		}
		if (*q == '\0' && q != p + 3)
			return 1;
		p += 3;
	}
	return 0;
}

int xp_cp_is_exe_map(const xp_cpuprof_map *m, const char *exereal)
{
	return m->path[0] != '\0' &&
	       (strcmp(m->path, exereal) == 0 ||
	        strcmp(xp_path_base(m->path), xp_path_base(exereal)) == 0);
}

/* Whether mapping m can be segment g mapped with pages of pg bytes: the
 * file offset rounded down, the length rounded up, and for an executable
 * linked at a fixed address, the address too. */
static int map_fits(const xp_cpuprof_map *m, const xp_sym_segment *g,
                    int pic)
{
	static const uint64_t pages[] = { 4096, 16384, 65536 };

	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		uint64_t pg = pages[i], off = g->offset & ~(pg - 1);
		uint64_t len = (g->offset - off + g->filesz + pg - 1) &
		               ~(pg - 1);
		if (m->start % pg != 0 || m->offset % pg != 0)
			continue;
		if (m->offset == off && m->end - m->start == len &&
		    (pic || m->start == (g->vaddr & ~(pg - 1))))
			return 1;
	}
	return 0;
}

/* The first executable mapping of a program (not a shared object), for
 * saying what the profile profiled; NULL when none. */
static const xp_cpuprof_map *main_program(const xp_cpuprof *p)
{
	for (size_t i = 0; i < p->nmaps; i++)
		if (xp_cp_map_exec(&p->maps[i]) && p->maps[i].path[0] == '/' &&
		    !xp_cp_is_shlib(p->maps[i].path))
			return &p->maps[i];
	return NULL;
}

/* The executable mappings of the executable's file against its code
 * segments; returns how many mappings it has. */
static size_t compare_maps(const xp_cpuprof *p, const xp_sym *s,
                           const char *exe, const char *exereal,
                           const char *name, xp_diags *d)
{
	xp_sym_segment seg[64];
	size_t nseg = xp_sym_segments(s, seg, 64), named = 0;
	char id[160];

	if (nseg > 64)
		nseg = 64;
	for (size_t i = 0; i < p->nmaps; i++) {
		const xp_cpuprof_map *m = &p->maps[i];
		const xp_sym_segment *code = NULL;
		int fits = 0;

		if (!xp_cp_is_exe_map(m, exereal))
			continue;
		named++;
		if (!xp_cp_map_exec(m) || nseg == 0)
			continue;
		for (size_t k = 0; k < nseg && !fits; k++) {
			if (!(seg[k].flags & XP_SEG_X))
				continue;
			if (code == NULL)
				code = &seg[k];
			fits = map_fits(m, &seg[k], xp_sym_is_pic(s));
		}
		if (fits)
			continue;
		if (code == NULL)
			xp_diag_warn(d, name, "the profile maps %s executable "
			             "(line %zu of its mappings), but %s (%s) has "
			             "no executable segment: it may be another "
			             "build than the one profiled", m->path,
			             m->line, exe, xp_exe_build_id(s, id,
			                                           sizeof id));
		else
			xp_diag_warn(d, name, "the profile maps %s at 0x%" PRIx64
			             "-0x%" PRIx64 " from file offset 0x%" PRIx64
			             " (0x%" PRIx64 " bytes, line %zu of its "
			             "mappings), but the code segment of %s (%s) "
			             "is 0x%" PRIx64 " bytes at file offset 0x%"
			             PRIx64 " linked at 0x%" PRIx64 ": it may be "
			             "another build than the one profiled",
			             m->path, m->start, m->end, m->offset,
			             m->end - m->start, m->line, exe,
			             xp_exe_build_id(s, id, sizeof id),
			             code->filesz, code->offset, code->vaddr);
	}
	if (named == 0) {
		const xp_cpuprof_map *mp = main_program(p);
		if (mp != NULL)
			xp_diag_warn(d, name, "the profile maps no file named %s; "
			             "the program it profiled is %s",
			             xp_path_base(exereal), mp->path);
		else
			xp_diag_warn(d, name, "the profile maps no file named %s",
			             xp_path_base(exereal));
	}
	return named;
}

/* The mapping, among the nm of v sorted by start, that holds pc: the one
 * with the highest start at or below it, when pc is at most its end (as
 * the report takes them). */
static const xp_cpuprof_map *holder(const xp_cpuprof_map *const *v,
                                    size_t nm, uint64_t pc)
{
	size_t lo = 0, hi = nm;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid]->start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && pc <= v[lo - 1]->end ? v[lo - 1] : NULL;
}

static int cmp_map_start(const void *a, const void *b)
{
	const xp_cpuprof_map *x = *(const xp_cpuprof_map *const *)a;
	const xp_cpuprof_map *y = *(const xp_cpuprof_map *const *)b;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Every PC of every chain (return addresses less 1) that the report
 * gives to the executable, counted once per sample: those in its own
 * mappings at their offset in the file (position-independent) or as
 * they are; when the profile maps no file of its name, every PC outside
 * the shared objects, as they are.
 */
static xp_err tally_pcs(const xp_cpuprof *p, const xp_sym *s,
                        const char *exereal, int named, xp_exe_tally *t)
{
	const xp_cpuprof_map **v = malloc((p->nmaps + 1) * sizeof *v);
	size_t nv = 0;
	int pic = xp_sym_is_pic(s);

	if (v == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < p->nmaps; i++) {
		const xp_cpuprof_map *m = &p->maps[i];
		if (xp_cp_map_exec(m) && m->path[0] != '\0' &&
		    (xp_cp_is_shlib(m->path) || xp_cp_is_exe_map(m, exereal)))
			v[nv++] = m;
	}
	xp_qsort(v, nv, sizeof *v, cmp_map_start);
	for (size_t i = 0; i < p->nrec; i++) {
		const xp_cp_rec *r = &p->recs[i];
		for (size_t k = 0; k < r->npcs; k++) {
			uint64_t pc = p->pcs[r->first + k];
			const xp_cpuprof_map *m;

			if (k > 0)
				pc = (pc - 1) & xp_cp_slot_max(p->slot);
			if (p->slot == 8 && pc > 0x7fffffffffffffffull)
				continue;
			m = holder(v, nv, pc);
			if (m != NULL && xp_cp_is_shlib(m->path) &&
			    !xp_cp_is_exe_map(m, exereal))
				continue;
			if (m == NULL && named)
				continue;
			if (m != NULL && pic)
				pc = pc - m->start + m->offset;
			if (k > 0)
				xp_exe_tally_ra(t, pc + 1, r->count);
			else
				xp_exe_tally_pc(t, pc, r->count);
		}
	}
	free(v);
	return XP_E_OK;
}

xp_err xp_cp_check_exe(const void *model, const xp_sym *s, const char *exe,
                       const char *name, xp_diags *d)
{
	const xp_cpuprof *p = model;
	char exereal[PATH_MAX];
	xp_exe_tally t;
	size_t named;
	xp_err err;

	/* The Java variant's "PCs" are method ids. */
	if (p->hdr[2] == 1)
		return XP_E_OK;
	if (realpath(exe, exereal) == NULL)
		snprintf(exereal, sizeof exereal, "%s", exe);
	named = compare_maps(p, s, exe, exereal, name, d);
	xp_exe_tally_init(&t, s);
	if ((err = tally_pcs(p, s, exereal, named > 0, &t)) == XP_E_OK)
		err = xp_exe_verdict(&t, exe, name, "sampled PCs", d);
	xp_exe_tally_free(&t);
	return err;
}
