/*
 * gmon/report.c - what GNU gprof makes of a gmon.out and its executable:
 * its symbol table, the histogram samples credited to each function, the
 * call counts, the cycles of the call graph and the times propagated
 * along the arcs, in the order gprof prints them (gprof -p and -q).
 *
 * The rules are gprof's (binutils corefile.c, symtab.c, hist.c,
 * cg_arcs.c, cg_dfn.c, cg_print.c), rebuilt here over arrays:
 *  - symbols: text symbols (global, weak, or local whose name has no '$'
 *    and no '.' other than gcc's numbered and .clone./.constprop.
 *    suffixes), one per address (global over local, function over not,
 *    no leading underscore over one), each reaching up to the next;
 *    weak symbols count whatever their section, as gprof takes them;
 *  - a bin is split between the symbols it overlaps in proportion to
 *    the overlap, in 2-byte units, with gprof's integer rounding of bin
 *    bounds; time that lands in excluded symbols (mcount and friends,
 *    the sentinels) leaves the total;
 *  - calls: arcs are tallied by (caller, callee) symbol; a function's
 *    calls exclude its recursive ones;
 *  - the call graph: depth-first numbering, cycles glommed as gprof
 *    does, print flags and propagation fractions top down, times bottom
 *    up, then the orders of cg_print;
 *  - names: every order goes by the linker's names (strcmp of mangled
 *    C++ names), and gprof prints them demangled (print_name_only's
 *    bfd_demangle), so the analysis keeps both.
 *
 * The module's report entry (xp_gmon_report_new, for xp_prof_report())
 * refuses the options of xp_report_opts that gprof has no use for.
 */
#include "gmon/gmon.h"

typedef struct {
	size_t parent, child;
	uint64_t count;
	double time, child_time;
	size_t next_child, next_parent;   /* SIZE_MAX ends a list */
} arc_t;

typedef struct {
	xp_gmon_fn f;
	uint64_t scaled;          /* addr / 2 */
	size_t children, parents; /* list heads (arcs, prepended) */
	long top_order;           /* 0: not visited, -1: busy */
	size_t cyc_head;          /* index of its cycle's head, or itself */
	size_t cyc_next;          /* next member, SIZE_MAX */
	size_t cyc_tail;          /* of a head: its cycle's last member */
	int is_cycle_hdr;
} sym_t;

typedef struct {
	sym_t *s;
	size_t n;
	arc_t *a;
	size_t na, cap;
	/* The arcs by parent and child (parent * n + child), an open
	 * addressing table of mask + 1 slots holding arc index + 1. */
	uint64_t *arc_keys;
	size_t *arc_slot, arc_mask;
	size_t *stack;            /* dfn stack, 1-based */
	size_t depth;
	long counter;
} graph;

#define NONE SIZE_MAX

static const char *const excluded_names[] = {
	"_gprof_mcount", "mcount", "_mcount", "__mcount", "__mcount_internal",
	"__mcleanup", NULL
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * gprof's filter on the names of local text symbols.  A name that ends
 * in a numbered suffix (".0", ".constprop.0") leaves gprof's scan on the
 * NUL, and its loop steps past it into whatever follows in memory: with
 * ELF, the next strings of the string table, which are then judged by
 * the same rules.  So "open_verify.constprop.0" is dropped when the
 * string after it is "add_path.constprop.0.isra.0".  raw is the name in
 * the string table (xp_sym_strtab_name), or NULL to judge the name alone.
 */
static int static_name_ok(const char *name, const char *raw)
{
	static const char clone[] = ".clone.", cprop[] = ".constprop.";

	if (name == NULL || name[0] == '\0')
		return 0;
	for (const char *p = raw != NULL ? raw : name; *p; ++p) {
		if (*p == '$')
			return 0;
		while (*p == '.') {
			int digit_seen = 0;
			if (strlen(p) > sizeof clone - 1 &&
			    strncmp(p, clone, sizeof clone - 1) == 0)
				p += sizeof clone - 2;
			else if (strlen(p) > sizeof cprop - 1 &&
			         strncmp(p, cprop, sizeof cprop - 1) == 0)
				p += sizeof cprop - 2;
			for (p++; *p; p++) {
				if (digit_seen && *p == '.')
					break;
				else if (is_digit(*p))
					digit_seen = 1;
				else
					return 0;
			}
		}
		if (*p == '\0' && raw == NULL)
			break;
	}
	if (strncmp(name, "__gnu_compiled", 14) == 0 ||
	    strncmp(name, "___gnu_compiled", 15) == 0)
		return 0;
	return 1;
}

/* 'T' (global text, or weak: gprof takes weak symbols of any section
 * but objects), 't' (local text) or 0. */
static int sym_class(const xp_sym *sym, const xp_symbol *y)
{
	/* nm's classes 'i' (indirect functions) and '?' are not text. */
	if (y->flags & (XP_SYMF_DEBUG | XP_SYMF_FILE | XP_SYMF_IFUNC))
		return 0;
	if ((y->flags & XP_SYMF_WEAK) && !(y->flags & XP_SYMF_OBJECT))
		return 'T';
	if (!(y->flags & XP_SYMF_CODE))
		return 0;
	if (y->flags & XP_SYMF_GLOBAL)
		return 'T';
	if (!(y->flags & XP_SYMF_LOCAL))
		return 0;
	return static_name_ok(y->name, xp_sym_strtab_name(sym, y)) ? 't' : 0;
}

/* gprof's preference among symbols at one address: 1 when s wins. */
static int better(const xp_gmon_fn *s, const xp_gmon_fn *d)
{
	if (!s->is_static && d->is_static)
		return 1;
	if (s->is_static != d->is_static)
		return 0;
	if (s->is_func && !d->is_func)
		return 1;
	if (s->is_func != d->is_func)
		return 0;
	if (s->name[0] != '_' && d->name[0] == '_')
		return 1;
	return s->name[0] == '_' && d->name[0] == '_' && s->name[1] != '_' &&
	       d->name[1] == '_';
}

static xp_err build_symtab(graph *gr, const xp_sym *sym)
{
	size_t n = xp_sym_count(sym), k = 0;
	uint64_t max_vma = 0;
	uint32_t kept_seq = 0;  /* symbol table position of gr->s[k - 1] */

	gr->s = calloc(n + 2, sizeof *gr->s);
	if (gr->s == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		const xp_symbol *y = xp_sym_get(sym, i);
		int cl = sym_class(sym, y);
		xp_gmon_fn f;

		if (!cl)
			continue;
		memset(&f, 0, sizeof f);
		f.name = y->name;
		f.addr = y->addr;
		f.is_static = cl == 't';
		f.is_func = (y->flags & XP_SYMF_FUNCTION) != 0;
		if (y->size > 0 && y->addr + y->size - 1 > max_vma)
			max_vma = y->addr + y->size - 1;
		if (y->addr > max_vma)
			max_vma = y->addr;
		/* Symbols come sorted by address: dedupe as gprof does,
		 * which keeps the first in symbol table order of equals
		 * (its sort by address is stable). */
		if (k > 0 && gr->s[k - 1].f.addr == f.addr) {
			if (better(&f, &gr->s[k - 1].f) ||
			    (!better(&gr->s[k - 1].f, &f) && y->seq < kept_seq)) {
				gr->s[k - 1].f = f;
				kept_seq = y->seq;
			}
			continue;
		}
		kept_seq = y->seq;
		gr->s[k++].f = f;
	}
	/* A sentinel past the last symbol: the high end of its bins. */
	gr->s[k].f.name = "";
	gr->s[k].f.addr = max_vma + 1;
	gr->s[k].scaled = gr->s[k].f.addr / 2;
	gr->n = k;
	for (size_t i = 0; i < k; i++) {
		sym_t *s = &gr->s[i];
		s->f.end = i + 1 < k ? gr->s[i + 1].f.addr - 1 : max_vma;
		s->scaled = s->f.addr / 2;
		s->children = s->parents = NONE;
		s->cyc_head = s->cyc_tail = i;
		s->cyc_next = NONE;
		for (size_t e = 0; excluded_names[e] != NULL; e++)
			if (strcmp(s->f.name, excluded_names[e]) == 0)
				s->f.excluded = 1;
	}
	return XP_E_OK;
}

xp_err xp_gmon_fn_ranges(const xp_sym *sym, uint64_t **start,
                         uint64_t **end, size_t *n)
{
	graph gr;
	xp_err err;

	memset(&gr, 0, sizeof gr);
	*start = *end = NULL;
	*n = 0;
	if ((err = build_symtab(&gr, sym)) == XP_E_OK) {
		*start = malloc((gr.n + 1) * sizeof **start);
		*end = malloc((gr.n + 1) * sizeof **end);
		if (*start == NULL || *end == NULL) {
			XP_FREE(*start, *end);
			*start = *end = NULL;
			err = XP_E_NOMEM;
		} else {
			for (size_t i = 0; i < gr.n; i++) {
				(*start)[i] = gr.s[i].f.addr;
				(*end)[i] = gr.s[i].f.end;
			}
			*n = gr.n;
		}
	}
	free(gr.s);
	return err;
}

/* gprof's sym_lookup: the symbol whose [addr, end] holds pc. */
static size_t lookup(const graph *gr, uint64_t pc)
{
	size_t lo = 0, hi = gr->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (gr->s[mid].f.addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NONE;
	return pc <= gr->s[lo - 1].f.end ? lo - 1 : NONE;
}

/* ------------------------------------------------------------------ */
/* Histograms                                                          */
/* ------------------------------------------------------------------ */

typedef struct {
	uint64_t low, high;
	uint32_t n;
	uint64_t *sample;
} hist_t;

static xp_err collect_hists(const xp_gmon *g, const char *name, hist_t **out,
                            size_t *nout, xp_gmon_analysis *a, xp_diags *d)
{
	hist_t *h = calloc(g->n_hists + 1, sizeof *h);
	size_t nh = 0;
	xp_err err = XP_E_OK;

	*out = h;
	*nout = 0;
	if (h == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < g->n_hists; i++) {
		const xp_gmon_hist *r = &g->hists[i];
		double scale = r->n_bins ? (double)((r->high_pc - r->low_pc) / 2) /
		                           r->n_bins : 0;
		size_t k;

		if (i == 0) {
			a->hz = r->prof_rate;
			memcpy(a->dimen, r->dimen, 15);
			a->dimen[15] = '\0';
			a->abbrev = (char)r->abbrev;
			a->hist_scale = scale;
		} else {
			if (g->flavor == XP_GMON_GNU &&
			    (memcmp(r->dimen, g->hists[0].dimen, 15) != 0 ||
			     r->abbrev != g->hists[0].abbrev))
				err = xp_diag_file(d, XP_E_INVAL, name,
				                   "histogram %zu has another "
				                   "dimension than the first", i + 1);
			else if (r->prof_rate != g->hists[0].prof_rate)
				err = xp_diag_file(d, XP_E_INVAL, name,
				                   "histogram %zu has rate %u, the "
				                   "first %u", i + 1, r->prof_rate,
				                   g->hists[0].prof_rate);
			else if (scale - a->hist_scale > 0.000001 ||
			         a->hist_scale - scale > 0.000001)
				err = xp_diag_file(d, XP_E_INVAL, name,
				                   "histogram %zu has another scale "
				                   "than the first", i + 1);
			if (err != XP_E_OK)
				return err;
		}
		for (k = 0; k < nh; k++)
			if (h[k].low == r->low_pc && h[k].high == r->high_pc)
				break;
		if (k < nh && h[k].n != r->n_bins)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "histogram %zu has %u bins for the "
			                    "range of one with %u", i + 1,
			                    r->n_bins, h[k].n);
		if (k == nh) {
			for (size_t j = 0; j < nh; j++)
				if (r->low_pc < h[j].high && h[j].low < r->high_pc)
					return xp_diag_file(d, XP_E_INVAL, name,
					                    "histogram %zu overlaps "
					                    "another", i + 1);
			h[nh].low = r->low_pc;
			h[nh].high = r->high_pc;
			h[nh].n = r->n_bins;
			h[nh].sample = calloc(r->n_bins + 1, sizeof *h[nh].sample);
			if (h[nh].sample == NULL)
				return XP_E_NOMEM;
			nh++;
			*nout = nh;
		}
		for (uint32_t b = 0; b < r->n_bins; b++)
			h[k].sample[b] += r->bins[b];
	}
	return XP_E_OK;
}

static void assign_samples(graph *gr, const hist_t *r, double scale,
                           double *total)
{
	uint64_t lowpc = r->low / 2;
	/* The entry after the last is the sentinel of build_symtab. */
	size_t len = gr->n, j, k = 1;

	for (uint32_t i = 0; i < r->n; i++) {
		uint64_t bin_lo, bin_hi;
		double t;

		if (r->sample[i] == 0)
			continue;
		bin_lo = lowpc + (uint64_t)(scale * i);
		bin_hi = lowpc + (uint64_t)(scale * (i + 1));
		t = (double)r->sample[i];
		*total += t;
		for (j = k - 1; j < len; k = ++j) {
			uint64_t s_lo = gr->s[j].scaled, s_hi = gr->s[j + 1].scaled;
			uint64_t overlap;
			double credit;

			if (bin_hi < s_lo)
				break;
			if (bin_lo >= s_hi)
				continue;
			overlap = (bin_hi < s_hi ? bin_hi : s_hi) -
			          (bin_lo > s_lo ? bin_lo : s_lo);
			if (overlap > 0) {
				credit = (double)overlap * t / scale;
				if (!gr->s[j].f.excluded)
					gr->s[j].f.samples += credit;
				else
					*total -= credit;
			}
		}
	}
}

/* ------------------------------------------------------------------ */
/* Arcs and the call graph                                             */
/* ------------------------------------------------------------------ */

/* Room in the arc table for narcs arcs, at most half full. */
static xp_err arc_table(graph *gr, size_t narcs)
{
	size_t slots = 16;
	while (slots / 2 < narcs) {
		if (slots > SIZE_MAX / 4 / sizeof *gr->arc_keys)
			return XP_E_NOMEM;
		slots *= 2;
	}
	gr->arc_keys = malloc(slots * sizeof *gr->arc_keys);
	gr->arc_slot = calloc(slots, sizeof *gr->arc_slot);
	if (!gr->arc_keys || !gr->arc_slot)
		return XP_E_NOMEM;
	gr->arc_mask = slots - 1;
	return XP_E_OK;
}

/*
 * Adds count to the arc from parent to child, made (first in both lists,
 * as gprof prepends) when it is new.  gprof finds an arc by walking the
 * parent's children, which costs as many steps as the parent has callees
 * for every arc of a function that calls many; the table finds it at
 * once, and the lists come out as gprof's.
 */
static xp_err arc_add(graph *gr, size_t parent, size_t child, uint64_t count)
{
	arc_t *x;
	uint64_t key = (uint64_t)parent * gr->n + child;
	size_t h = (size_t)xp_mix64(key) & gr->arc_mask;

	for (; gr->arc_slot[h] != 0; h = (h + 1) & gr->arc_mask) {
		if (gr->arc_keys[h] == key) {
			gr->a[gr->arc_slot[h] - 1].count += count;
			return XP_E_OK;
		}
	}
	if (xp_grow(&gr->a, &gr->cap, gr->na,
	            sizeof *gr->a) != XP_E_OK)
		return XP_E_NOMEM;
	gr->arc_keys[h] = key;
	gr->arc_slot[h] = gr->na + 1;
	x = &gr->a[gr->na];
	memset(x, 0, sizeof *x);
	x->parent = parent;
	x->child = child;
	x->count = count;
	x->next_child = gr->s[parent].children;
	gr->s[parent].children = gr->na;
	x->next_parent = gr->s[child].parents;
	gr->s[child].parents = gr->na;
	gr->na++;
	return XP_E_OK;
}

static void find_cycle(graph *gr, size_t child)
{
	size_t top, head, tail;

	for (top = gr->depth; top > 0; --top) {
		head = gr->stack[top];
		if (child == head)
			break;
		if (gr->s[child].cyc_head != child &&
		    gr->s[child].cyc_head == head)
			break;
	}
	if (top == 0 || top == gr->depth)
		return;   /* not found (cannot happen), or a self call */
	/* gprof walks to the end of the cycle of stack[top] here, which
	 * costs the cycle's size at every arc back into it; its head keeps
	 * its last member instead.  A member's head is always a head: a
	 * cycle glommed into another has every member's head changed. */
	head = gr->s[gr->stack[top]].cyc_head;
	tail = gr->s[head].cyc_tail;
	for (size_t i = top + 1; i <= gr->depth; ++i) {
		size_t c = gr->stack[i];
		if (gr->s[c].cyc_head == c) {
			gr->s[tail].cyc_next = c;
			gr->s[c].cyc_head = head;
			for (tail = c; gr->s[tail].cyc_next != NONE;
			     tail = gr->s[tail].cyc_next)
				gr->s[gr->s[tail].cyc_next].cyc_head = head;
		}
	}
	gr->s[head].cyc_tail = tail;
}

/* gprof's cg_dfn, with an explicit stack of (symbol, next arc). */
static xp_err dfn(graph *gr, size_t root, size_t *work)
{
	size_t sp = 0;

	if (gr->s[root].top_order > 0)
		return XP_E_OK;
	/* pre-visit root */
	gr->stack[++gr->depth] = root;
	gr->s[root].top_order = -1;
	work[sp++] = gr->s[root].children;
	while (sp > 0) {
		size_t parent = gr->stack[gr->depth];
		size_t ai = work[sp - 1];

		if (ai != NONE) {
			size_t c = gr->a[ai].child;
			work[sp - 1] = gr->a[ai].next_child;
			if (gr->s[c].top_order > 0)
				continue;
			if (gr->s[c].top_order == -1) {
				find_cycle(gr, c);
				continue;
			}
			gr->stack[++gr->depth] = c;
			gr->s[c].top_order = -1;
			work[sp++] = gr->s[c].children;
			continue;
		}
		/* post-visit parent */
		if (gr->s[parent].cyc_head == parent) {
			++gr->counter;
			for (size_t m = parent; m != NONE; m = gr->s[m].cyc_next)
				gr->s[m].top_order = gr->counter;
		}
		gr->depth--;
		sp--;
	}
	return XP_E_OK;
}

typedef struct {
	long top;
	size_t i;
} topo_t;

static int cmp_topo2(const void *l, const void *r)
{
	const topo_t *a = l, *b = r;
	if (a->top != b->top)
		return a->top < b->top ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* ------------------------------------------------------------------ */
/* The analysis                                                        */
/* ------------------------------------------------------------------ */

void xp_gmon_analysis_free(xp_gmon_analysis *a)
{
	if (a == NULL)
		return;
	for (size_t i = 0; a->fns != NULL && i < a->n_fns; i++)
		free(a->fns[i].demangled);
	XP_FREE(a->fns, a->arcs, a->parent_arcs, a->child_arcs, a->cycles,
	        a->members, a->order, a->flat, a);
}

/* A function or a cycle, for the call graph's sort (cmp_total). */
typedef struct {
	int is_cycle;
	size_t i;
	double t;
	const char *name;
	uint64_t ncalls;
} tot_t;

static int cmp_total(const void *l, const void *r)
{
	const tot_t *a = l, *b = r;

	if (a->t < b->t)
		return 1;
	if (a->t > b->t)
		return -1;
	if (a->is_cycle != b->is_cycle)
		return a->is_cycle ? -1 : 1;
	if (a->is_cycle)
		return a->i < b->i ? -1 : a->i > b->i;
	if (a->name[0] != '_' && b->name[0] == '_')
		return -1;
	if (a->name[0] == '_' && b->name[0] != '_')
		return 1;
	if (a->ncalls > b->ncalls)
		return -1;
	if (a->ncalls < b->ncalls)
		return 1;
	return strcmp(a->name, b->name);
}


/* The flat profile's order (gprof's cmp_time). */
typedef struct {
	double samples;
	uint64_t ncalls;
	const char *name;
	size_t i;
} flat_t;

static int cmp_flat(const void *l, const void *r)
{
	const flat_t *a = l, *b = r;
	double diff = b->samples - a->samples;

	if (diff > 0.0)
		return 1;
	if (diff < 0.0)
		return -1;
	if (b->ncalls > a->ncalls)
		return 1;
	if (b->ncalls < a->ncalls)
		return -1;
	return strcmp(a->name, b->name);
}

/* gprof's cmp_arc: -1, 0 or 1. */
static int cmp_arc(const graph *gr, const arc_t *l, const arc_t *r)
{
	const sym_t *lp = &gr->s[l->parent], *lc = &gr->s[l->child];
	const sym_t *rp = &gr->s[r->parent], *rc = &gr->s[r->child];
	int lcyc = lp->f.cycle && lc->f.cycle && lp->f.cycle == lc->f.cycle;
	int rcyc = rp->f.cycle && rc->f.cycle && rp->f.cycle == rc->f.cycle;
	double lt, rt;

	if (l->parent == l->child)
		return -1;
	if (r->parent == r->child)
		return 1;
	if (lcyc) {
		if (!rcyc)
			return -1;
		return l->count < r->count ? -1 : l->count > r->count;
	}
	if (rcyc)
		return 1;
	lt = l->time + l->child_time;
	rt = r->time + r->child_time;
	if (lt < rt)
		return -1;
	if (lt > rt)
		return 1;
	return l->count < r->count ? -1 : l->count > r->count;
}

static int arc_up(const void *ctx, size_t a, size_t b)
{
	const graph *gr = ctx;
	return cmp_arc(gr, &gr->a[a], &gr->a[b]);
}

static int arc_down(const void *ctx, size_t a, size_t b)
{
	return arc_up(ctx, b, a);
}

/*
 * A symbol's parents (ascending) or children (descending) into out[],
 * from the list starting at head, in gprof's order.  gprof inserts each
 * arc of the list before the first one it is not below (children) or not
 * above (parents), which puts equal arcs in the reverse of the list's
 * order: so does a stable sort of the list reversed, in n log n steps
 * rather than gprof's n squared.  tmp has room for the list.
 */
static size_t sort_arcs(const graph *gr, size_t head, int children,
                        size_t *out, size_t *tmp)
{
	size_t n = 0;

	for (size_t ai = head; ai != NONE;
	     ai = children ? gr->a[ai].next_child : gr->a[ai].next_parent)
		out[n++] = ai;
	for (size_t i = 0; i < n / 2; i++) {
		size_t t = out[i];
		out[i] = out[n - 1 - i];
		out[n - 1 - i] = t;
	}
	xp_sort_idx(out, tmp, n, children ? arc_down : arc_up, gr);
	return n;
}

/* gprof's cmp_member: 1 when a goes before b. */
static int member_greater(const sym_t *a, const sym_t *b)
{
	double at = a->f.prop_self + a->f.prop_child;
	double bt = b->f.prop_self + b->f.prop_child;
	uint64_t ac = a->f.ncalls + a->f.self_calls;
	uint64_t bc = b->f.ncalls + b->f.self_calls;

	if (at != bt)
		return at > bt;
	return ac > bc;
}

/* The members' order: the greater first. */
static int member_down(const void *ctx, size_t a, size_t b)
{
	const graph *gr = ctx;
	return member_greater(&gr->s[a], &gr->s[b])   ? -1
	       : member_greater(&gr->s[b], &gr->s[a]) ? 1
	                                              : 0;
}

static void inherit_flags(graph *gr, size_t child)
{
	sym_t *c = &gr->s[child];
	size_t head = c->cyc_head;

	if (child == head) {
		c->f.print_flag = 0;
		c->f.prop_fract = 0.0;
		for (size_t ai = c->parents; ai != NONE;
		     ai = gr->a[ai].next_parent) {
			const sym_t *p = &gr->s[gr->a[ai].parent];
			if (gr->a[ai].parent == child)
				continue;
			c->f.print_flag |= p->f.print_flag;
			if (c->f.ncalls != 0)
				c->f.prop_fract += p->f.prop_fract *
				                   ((double)gr->a[ai].count /
				                    (double)c->f.ncalls);
		}
		return;
	}
	sym_t *h = &gr->s[head];
	h->f.print_flag = 0;
	h->f.prop_fract = 0.0;
	for (size_t m = h->cyc_next; m != NONE; m = gr->s[m].cyc_next) {
		for (size_t ai = gr->s[m].parents; ai != NONE;
		     ai = gr->a[ai].next_parent) {
			const sym_t *p = &gr->s[gr->a[ai].parent];
			if (p->cyc_head == head)
				continue;
			h->f.print_flag |= p->f.print_flag;
			if (h->f.ncalls != 0)
				h->f.prop_fract += p->f.prop_fract *
				                   ((double)gr->a[ai].count /
				                    (double)h->f.ncalls);
		}
	}
	for (size_t m = h->cyc_next; m != NONE; m = gr->s[m].cyc_next) {
		gr->s[m].f.print_flag = h->f.print_flag;
		gr->s[m].f.prop_fract = h->f.prop_fract;
	}
}

static void propagate_time(graph *gr, size_t parent)
{
	sym_t *p = &gr->s[parent];

	if (p->f.prop_fract == 0.0)
		return;
	for (size_t ai = p->children; ai != NONE; ai = gr->a[ai].next_child) {
		arc_t *a = &gr->a[ai];
		size_t child = a->child;
		sym_t *c = &gr->s[child];
		double share, prop_share;

		if (a->count == 0 || child == parent || c->f.prop_fract == 0)
			continue;
		if (c->cyc_head != child) {
			if (p->f.cycle == c->f.cycle)
				continue;
			child = c->cyc_head;
			c = &gr->s[child];
		} else if (p->top_order <= c->top_order) {
			continue;
		}
		if (c->f.ncalls == 0)
			continue;
		a->time = c->f.samples * ((double)a->count / (double)c->f.ncalls);
		a->child_time = c->f.child_time *
		                ((double)a->count / (double)c->f.ncalls);
		share = a->time + a->child_time;
		p->f.child_time += share;
		prop_share = p->f.prop_fract * share;
		p->f.prop_child += prop_share;
		a->time *= p->f.prop_fract;
		a->child_time *= p->f.prop_fract;
		if (p->cyc_head != parent) {
			gr->s[p->cyc_head].f.child_time += share;
			gr->s[p->cyc_head].f.prop_child += prop_share;
		}
	}
}

/* Numbers cycles, makes their headers (entries n.. of gr->s) and
 * counts their calls: gprof's cycle_link. */
static xp_err cycle_link(graph *gr, size_t *ncyc)
{
	size_t n = gr->n, nc = 0;
	sym_t *s;

	for (size_t i = 0; i < n; i++)
		if (gr->s[i].cyc_head == i && gr->s[i].cyc_next != NONE)
			nc++;
	*ncyc = nc;
	if (nc == 0)
		return XP_E_OK;
	s = realloc(gr->s, (n + nc) * sizeof *s);
	if (s == NULL)
		return XP_E_NOMEM;
	gr->s = s;
	memset(&s[n], 0, nc * sizeof *s);
	for (size_t i = 0, num = 0; i < n; i++) {
		size_t cy;
		if (!(s[i].cyc_head == i && s[i].cyc_next != NONE))
			continue;
		cy = n + num++;
		s[cy].is_cycle_hdr = 1;
		s[cy].f.name = NULL;
		s[cy].f.print_flag = 1;
		s[cy].f.cycle = (uint32_t)num;
		s[cy].cyc_head = cy;
		s[cy].cyc_next = i;
		s[cy].children = s[cy].parents = NONE;
		for (size_t m = i; m != NONE; m = s[m].cyc_next) {
			s[m].f.cycle = (uint32_t)num;
			s[m].cyc_head = cy;
		}
		for (size_t m = i; m != NONE; m = s[m].cyc_next) {
			for (size_t ai = s[m].parents; ai != NONE;
			     ai = gr->a[ai].next_parent) {
				size_t pa = gr->a[ai].parent;
				if (pa == m)
					continue;
				if (s[pa].f.cycle == num)
					s[cy].f.self_calls += gr->a[ai].count;
				else
					s[cy].f.ncalls += gr->a[ai].count;
			}
		}
	}
	return XP_E_OK;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s != NULL ? s + 1 : p;
}

/* Call graph indexes: functions and cycles by cmp_total, into tot. */
static void index_by_total(graph *gr, size_t ncyc, tot_t *tot)
{
	size_t n = gr->n;

	for (size_t i = 0; i < n + ncyc; i++) {
		const sym_t *s = &gr->s[i];
		tot[i].is_cycle = s->is_cycle_hdr;
		tot[i].i = i;
		tot[i].t = s->f.prop_self + s->f.prop_child;
		tot[i].name = s->f.name;
		tot[i].ncalls = s->f.ncalls;
	}
	xp_qsort(tot, n + ncyc, sizeof *tot, cmp_total);
	for (size_t i = 0; i < n + ncyc; i++)
		gr->s[tot[i].i].f.index = (uint32_t)(i + 1);
}

/* Parents and children in print order, then the arcs. */
static void fill_arcs(graph *gr, xp_gmon_analysis *a, size_t *tmp)
{
	size_t n = gr->n, k;

	k = 0;
	for (size_t i = 0; i < n; i++) {
		gr->s[i].f.first_parent = k;
		gr->s[i].f.n_parents = sort_arcs(gr, gr->s[i].parents, 0,
		                                 a->parent_arcs + k, tmp);
		k += gr->s[i].f.n_parents;
	}
	k = 0;
	for (size_t i = 0; i < n; i++) {
		gr->s[i].f.first_child = k;
		gr->s[i].f.n_children = sort_arcs(gr, gr->s[i].children, 1,
		                                  a->child_arcs + k, tmp);
		k += gr->s[i].f.n_children;
	}
	for (size_t i = 0; i < gr->na; i++) {
		a->arcs[i].parent = gr->a[i].parent;
		a->arcs[i].child = gr->a[i].child;
		a->arcs[i].count = gr->a[i].count;
		a->arcs[i].time = gr->a[i].time;
		a->arcs[i].child_time = gr->a[i].child_time;
	}
}

/* Cycles and their members, sorted as gprof's sort_members; tmp has
 * room for every member. */
static void fill_cycles(const graph *gr, xp_gmon_analysis *a, size_t *tmp)
{
	size_t n = gr->n, k = 0;

	for (size_t c = 0; c < a->n_cycles; c++) {
		const sym_t *h = &gr->s[n + c];
		xp_gmon_cycle *cy = &a->cycles[c];
		size_t first = k, m;

		cy->number = h->f.cycle;
		cy->index = h->f.index;
		cy->ncalls = h->f.ncalls;
		cy->self_calls = h->f.self_calls;
		cy->samples = h->f.samples;
		cy->prop_self = h->f.prop_self;
		cy->prop_child = h->f.prop_child;
		cy->prop_fract = h->f.prop_fract;
		cy->print_flag = h->f.print_flag;
		cy->first_member = first;
		/* gprof inserts each member before the first one it is
		 * greater than, which keeps equal members in the order of
		 * the cycle's list: a stable sort of the list. */
		for (m = h->cyc_next; m != NONE; m = gr->s[m].cyc_next)
			a->members[k++] = m;
		xp_sort_idx(a->members + first, tmp, k - first, member_down, gr);
		cy->n_members = k - first;
	}
}

/* The entries the call graph prints, by index (tot). */
static void fill_order(const graph *gr, const tot_t *tot,
                       xp_gmon_analysis *a)
{
	size_t n = gr->n;

	a->n_order = 0;
	for (size_t i = 0; i < n + a->n_cycles; i++) {
		const sym_t *s = &gr->s[tot[i].i];
		if ((s->f.ncalls == 0 && s->f.self_calls == 0 &&
		     s->f.prop_self == 0 && s->f.prop_child == 0) ||
		    !s->f.print_flag)
			continue;
		a->order[a->n_order].is_cycle = s->is_cycle_hdr;
		a->order[a->n_order].i = s->is_cycle_hdr ? tot[i].i - n : tot[i].i;
		a->n_order++;
	}
}

/* The flat profile, sorted through fl. */
static void fill_flat(const graph *gr, flat_t *fl, xp_gmon_analysis *a)
{
	size_t n = gr->n;

	for (size_t i = 0; i < n; i++) {
		fl[i].samples = gr->s[i].f.samples;
		fl[i].ncalls = gr->s[i].f.ncalls;
		fl[i].name = gr->s[i].f.name;
		fl[i].i = i;
	}
	xp_qsort(fl, n, sizeof *fl, cmp_flat);
	a->n_flat = 0;
	for (size_t i = 0; i < n; i++) {
		const sym_t *s = &gr->s[fl[i].i];
		if (s->f.excluded || (s->f.ncalls == 0 && s->f.samples == 0))
			continue;
		a->flat[a->n_flat++] = fl[i].i;
	}
}

/*
 * The functions, with the source file of a static one that counts and
 * the demangled name of each that the report names: gprof sorts by the
 * linker's names and prints demangled ones.
 */
static void fill_fns(const graph *gr, xp_sym *sym, xp_gmon_analysis *a)
{
	for (size_t i = 0; i < gr->n; i++) {
		a->fns[i] = gr->s[i].f;
		if (a->fns[i].ncalls != 0 || a->fns[i].self_calls != 0 ||
		    a->fns[i].samples != 0 || a->fns[i].n_parents != 0 ||
		    a->fns[i].n_children != 0)
			a->fns[i].demangled = xp_sym_demangle(sym,
			                                      a->fns[i].name);
		if (a->fns[i].is_static &&
		    (a->fns[i].ncalls != 0 || a->fns[i].samples != 0)) {
			const char *file, *func;
			unsigned line;
			/* gprof names a file only with a line and a function
			 * from the debugging information. */
			if (xp_sym_line(sym, a->fns[i].addr, &file, &func,
			                &line) == 0 && file != NULL &&
			    func != NULL && line != 0)
				a->fns[i].file = base_name(file);
		}
	}
}

/* The analysis's arrays, filled from the graph in gprof's orders. */
static xp_err fill_result(graph *gr, size_t ncyc, xp_sym *sym,
                          xp_gmon_analysis *a)
{
	size_t n = gr->n;
	tot_t *tot = NULL;
	flat_t *fl = NULL;
	size_t *tmp = NULL;
	xp_err err = XP_E_NOMEM;

	a->fns = calloc(n + 1, sizeof *a->fns);
	a->arcs = calloc(gr->na + 1, sizeof *a->arcs);
	a->parent_arcs = calloc(gr->na + 1, sizeof *a->parent_arcs);
	a->child_arcs = calloc(gr->na + 1, sizeof *a->child_arcs);
	a->cycles = calloc(ncyc + 1, sizeof *a->cycles);
	a->members = calloc(n + 1, sizeof *a->members);
	a->order = calloc(n + ncyc + 1, sizeof *a->order);
	a->flat = calloc(n + 1, sizeof *a->flat);
	tot = calloc(n + ncyc + 1, sizeof *tot);
	fl = calloc(n + 1, sizeof *fl);
	tmp = malloc((gr->na > n ? gr->na : n) * sizeof *tmp + 1);
	if (!a->fns || !a->arcs || !a->parent_arcs || !a->child_arcs ||
	    !a->cycles || !a->members || !a->order || !a->flat || !tot ||
	    !fl || !tmp)
		goto done;
	a->n_fns = n;
	a->n_arcs = gr->na;
	a->n_cycles = ncyc;
	index_by_total(gr, ncyc, tot);
	fill_arcs(gr, a, tmp);
	fill_cycles(gr, a, tmp);
	fill_order(gr, tot, a);
	fill_flat(gr, fl, a);
	fill_fns(gr, sym, a);
	err = XP_E_OK;
done:
	XP_FREE(tot, fl, tmp);
	return err;
}

xp_err xp_gmon_analyze(const xp_gmon *g, xp_sym *sym, const char *name,
                       xp_gmon_analysis **out, xp_diags *d)
{
	xp_gmon_analysis *a = calloc(1, sizeof *a);
	graph gr;
	hist_t *h = NULL;
	size_t nh = 0, ncyc = 0, *work = NULL;
	topo_t *topo = NULL;
	xp_err err;

	*out = NULL;
	memset(&gr, 0, sizeof gr);
	if (a == NULL)
		return XP_E_NOMEM;
	if ((err = build_symtab(&gr, sym)) != XP_E_OK)
		goto fail;
	if ((err = collect_hists(g, name, &h, &nh, a, d)) != XP_E_OK)
		goto fail;
	a->has_hist = g->n_hists > 0;
	a->has_arcs = g->n_arcs > 0;
	if (a->hz <= 0)
		a->hz = 1;
	if (a->dimen[0] == '\0')
		strcpy(a->dimen, "seconds");
	if (a->abbrev == '\0')
		a->abbrev = 's';
	for (size_t i = 0; i < nh; i++)
		if (a->hist_scale > 0)
			assign_samples(&gr, &h[i], a->hist_scale, &a->total_time);

	/* Arcs, tallied in file order as gprof reads them. */
	if ((err = arc_table(&gr, g->n_arcs)) != XP_E_OK)
		goto fail;
	for (size_t i = 0; i < g->n_arcs; i++) {
		size_t p = lookup(&gr, g->arcs[i].from_pc);
		size_t c = lookup(&gr, g->arcs[i].self_pc);
		if (p == NONE || c == NONE)
			continue;
		gr.s[c].f.ncalls += g->arcs[i].count;
		if ((err = arc_add(&gr, p, c, g->arcs[i].count)) != XP_E_OK)
			goto fail;
	}

	if (a->has_arcs) {
		/* cg_assemble */
		for (size_t i = 0; i < gr.n; i++) {
			sym_t *s = &gr.s[i];
			for (size_t ai = s->children; ai != NONE;
			     ai = gr.a[ai].next_child) {
				if (gr.a[ai].child == i) {
					s->f.ncalls -= gr.a[ai].count;
					s->f.self_calls = gr.a[ai].count;
					break;
				}
			}
		}
		gr.stack = calloc(gr.n + 2, sizeof *gr.stack);
		work = calloc(gr.n + 2, sizeof *work);
		topo = calloc(gr.n + 1, sizeof *topo);
		if (gr.stack == NULL || work == NULL || topo == NULL) {
			err = XP_E_NOMEM;
			goto fail;
		}
		for (size_t i = 0; i < gr.n; i++)
			if (gr.s[i].top_order == 0)
				dfn(&gr, i, work);
		if ((err = cycle_link(&gr, &ncyc)) != XP_E_OK)
			goto fail;
		for (size_t i = 0; i < gr.n; i++) {
			topo[i].top = gr.s[i].top_order;
			topo[i].i = i;
		}
		xp_qsort(topo, gr.n, sizeof *topo, cmp_topo2);
		/* propagate_flags, from the top of the order down */
		{
			size_t old_head = NONE;
			for (size_t k = gr.n; k-- > 0;) {
				size_t c = topo[k].i;
				sym_t *s = &gr.s[c];
				if (s->cyc_head != old_head) {
					old_head = s->cyc_head;
					inherit_flags(&gr, c);
				}
				if (!s->f.print_flag) {
					if (!s->f.excluded)
						s->f.print_flag = 1;
				} else if (s->f.excluded) {
					s->f.print_flag = 0;
				}
				if (s->f.prop_fract == 0.0) {
					if (!s->f.excluded)
						s->f.prop_fract = 1.0;
				} else if (s->f.excluded) {
					s->f.prop_fract = 0.0;
				}
				s->f.prop_self = s->f.samples * s->f.prop_fract;
				a->print_time += s->f.prop_self;
			}
		}
		/* cycle_time */
		for (size_t c = 0; c < ncyc; c++) {
			sym_t *hd = &gr.s[gr.n + c];
			for (size_t m = hd->cyc_next; m != NONE;
			     m = gr.s[m].cyc_next) {
				if (gr.s[m].f.prop_fract == 0.0)
					continue;
				hd->f.samples += gr.s[m].f.samples;
			}
			hd->f.prop_self = hd->f.prop_fract * hd->f.samples;
		}
		for (size_t k = 0; k < gr.n; k++)
			propagate_time(&gr, topo[k].i);
	}
	err = fill_result(&gr, ncyc, sym, a);
	if (err != XP_E_OK)
		goto fail;
	*out = a;
	a = NULL;
fail:
	for (size_t i = 0; i < nh; i++)
		free(h[i].sample);
	XP_FREE(h, gr.s, gr.a, gr.arc_keys, gr.arc_slot, gr.stack, work, topo);
	xp_gmon_analysis_free(a);
	return err;
}

/* ------------------------------------------------------------------ */
/* The module's report entry                                           */
/* ------------------------------------------------------------------ */

/* The analysis and the symbols its names come from. */
typedef struct {
	xp_sym *sym;
	xp_gmon_analysis *a;
} gmon_report;

void xp_gmon_report_free(void *handle)
{
	gmon_report *r = handle;

	if (r == NULL)
		return;
	xp_gmon_analysis_free(r->a);
	xp_sym_free(r->sym);
	free(r);
}

xp_err xp_gmon_report_new(const void *m, const xp_report_opts *o,
                      const char *name, void **handle, const void **model,
                      xp_diags *d)
{
	gmon_report *r;
	xp_err err;

	*handle = NULL;
	*model = NULL;
	if (o->exe == NULL)
		return xp_diag_file(d, XP_E_INVAL, name, "a gmon.out report "
		                    "needs the executable (-e)");
	if ((r = calloc(1, sizeof *r)) == NULL)
		return XP_E_NOMEM;
	if ((err = xp_sym_open(o->exe, &r->sym, d)) != XP_E_OK ||
	    (err = xp_gmon_analyze(m, r->sym, name, &r->a, d)) != XP_E_OK) {
		xp_gmon_report_free(r);
		return err;
	}
	*handle = r;
	*model = r->a;
	return XP_E_OK;
}
