/*
 * plan.c - xprof_merge --plan: gathers the inputs as the merge would take
 * them (-w, operands, list files) and prints the tree of merges that
 * xp_plan_write() makes of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "tool.h"

int plan_add(const char *prog, plan *p, const char *path, double weight)
{
	char w[64];
	xp_plan_input in = { NULL, NULL };

	if (strcmp(path, "-") == 0) {
		fprintf(stderr, "%s: standard input cannot be an input of a "
		        "plan\n", prog);
		return -1;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		xp_plan_input *q = realloc(p->in, cap * sizeof *q);
		if (!q)
			goto nomem;
		p->in = q;
		p->cap = cap;
	}
	/* %.17g gives the double back exactly. */
	snprintf(w, sizeof w, "%.17g", weight);
	if (!(in.path = strdup(path)) ||
	    (weight != 1 && !(in.weight = strdup(w)))) {
		free((char *)in.path);
		goto nomem;
	}
	p->in[p->n++] = in;
	return 0;
nomem:
	fprintf(stderr, "%s: %s\n", prog, xp_strerror(XP_E_NOMEM));
	return -1;
}

int plan_print(const char *prog, plan *p)
{
	xp_diags *d = xp_diags_new(100);
	unsigned char *buf = NULL;
	size_t len = 0;
	xp_err err = XP_E_NOMEM;

	if (!p->o.work && asprintf(&p->work, "%s.work", p->o.out) >= 0)
		p->o.work = p->work;
	if (d && p->o.work)
		err = xp_plan_write(&p->o, p->in, p->n, &buf, &len, d);
	tool_print_diags(prog, d, err, p->o.out);
	xp_diags_free(d);
	if (err == XP_E_OK)
		fwrite(buf, 1, len, stdout);
	free(buf);
	/* A failed write shows in the flush. */
	return err == XP_E_OK && tool_flush_stdout(prog) == 0 ? 0 : 2;
}

void plan_free(plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free((char *)p->in[i].path);
		free((char *)p->in[i].weight);
	}
	free(p->in);
	free(p->work);
}
