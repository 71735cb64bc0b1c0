/*
 * cpuprof/offsets.c - names for the PCs that no symbol names, in the
 * conversion to feedback (cpuprofile(5), CONVERSION TO FEEDBACK).
 *
 * The report names such a PC by its address, as google-pprof does.  But
 * a position-independent program and its shared objects are loaded at
 * other addresses in every run (address space layout randomisation), so
 * feedback named that way would never match between two runs of one
 * binary.  The conversion names them instead after the mapped file and
 * the offset in that file: "prog+0x1186" in the object file of the
 * mapping's path, the same in every run.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cpuprof/cpuprof.h"

/* Whether x is named by its address alone, or not at all ("??"). */
static int bare(const xp_cp_an *an, const addrinfo *x, int width)
{
	const char *s = xp_strpool_str(&an->sp, x->disp);
	char buf[40];

	if (x->keyed || strcmp(s, "??") == 0)
		return 1;
	snprintf(buf, sizeof buf, "0x%0*" PRIx64, width, x->addr);
	return strcmp(s, buf) == 0 || strcmp(s, buf + 2) == 0;
}

/* The executable mapping with a path that holds pc: the highest start
 * at or below it, pc at most its end (as the report takes them). */
static const xp_cpuprof_map *mapping_of(const xp_cpuprof *p, uint64_t pc)
{
	const xp_cpuprof_map *best = NULL;

	for (size_t i = 0; i < p->nmaps; i++) {
		const xp_cpuprof_map *m = &p->maps[i];
		if (xp_cp_map_exec(m) && m->path[0] != '\0' &&
		    m->start <= pc && pc <= m->end &&
		    (best == NULL || m->start > best->start))
			best = m;
	}
	return best;
}

xp_err xp_cp_offset_names(const xp_cpuprof *p, xp_cp_an *an)
{
	int width = p->slot == 8 ? 16 : 8;
	xp_err err;

	/* The Java variant's "PCs" are method ids. */
	if (p->hdr[2] == 1)
		return XP_E_OK;
	for (size_t i = 0; i < an->na; i++) {
		addrinfo *x = &an->ai[i];
		const xp_cpuprof_map *m;
		char *name;
		size_t need;

		if (!bare(an, x, width) ||
		    (m = mapping_of(p, x->addr)) == NULL)
			continue;
		need = strlen(xp_path_base(m->path)) + 24;
		if ((name = malloc(need)) == NULL)
			return XP_E_NOMEM;
		snprintf(name, need, "%s+0x%" PRIx64, xp_path_base(m->path),
		         x->addr - m->start + m->offset);
		err = xp_strpool_intern(&an->sp, name, strlen(name), &x->disp);
		free(name);
		if (err == XP_E_OK)
			err = xp_strpool_intern(&an->sp, m->path,
			                        strlen(m->path), &x->obj);
		if (err != XP_E_OK)
			return err;
	}
	return XP_E_OK;
}
