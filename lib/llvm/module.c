/*
 * llvm/module.c - the LLVM text profile module: the model, recognising
 * a .proftext from its content, and its "binary" form, which is the
 * .proftext itself as llvm-profdata writes it (llvm(5)).
 *
 * LLVM's instrumentation profiles come in three forms: the raw
 * .profraw that a program built with -fprofile-instr-generate or
 * -fprofile-generate writes, the indexed .profdata that the compiler
 * reads, and the text that `llvm-profdata merge --text` writes and that
 * llvm-profdata reads back.  Only the text is specified by its writer
 * and stable across LLVM releases, so this module reads and writes the
 * text, and llvm-profdata bridges the other two.  What the other modules
 * call the binary form is here the .proftext as llvm-profdata writes it;
 * the module's text form (text.c) is the same text after one comment
 * line that names it, which llvm-profdata reads too.
 */
#include "llvm/llvm.h"

xp_llvm *xp_llvm_new(void)
{
	return calloc(1, sizeof(xp_llvm));
}

void xp_llvm_func_free(xp_llvm_func *f)
{
	for (unsigned k = 0; k < XP_LLVM_N_KINDS; k++) {
		for (uint32_t s = 0; f->sites[k] != NULL && s < f->n_sites[k];
		     s++) {
			xp_llvm_site *site = &f->sites[k][s];
			for (uint32_t i = 0; i < site->n_values; i++)
				free((char *)site->values[i].name);
			free(site->values);
		}
		free(f->sites[k]);
	}
	XP_FREE((char *)f->name, f->counts, f->bitmap);
	memset(f, 0, sizeof *f);
}

void xp_llvm_free(xp_llvm *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->n_funcs; i++)
		xp_llvm_func_free(&m->funcs[i]);
	for (size_t i = 0; i < m->n_traces; i++) {
		for (size_t j = 0; j < m->traces[i].n_names; j++)
			free((char *)m->traces[i].names[j]);
		free(m->traces[i].names);
	}
	XP_FREE(m->funcs, m->traces, m);
}

/* The capacity of m->funcs follows from the count: arrays grow by
 * doubling from 16. */
xp_llvm_func *xp_llvm_add_func(xp_llvm *m)
{
	size_t n = m->n_funcs, cap = 16;

	while (cap < n)
		cap *= 2;
	if (n == 0 || n == cap) {
		size_t nc = n == 0 ? 16 : 2 * cap;
		xp_llvm_func *q;
		if (nc > SIZE_MAX / sizeof *q)
			return NULL;
		if ((q = realloc(m->funcs, nc * sizeof *q)) == NULL)
			return NULL;
		m->funcs = q;
	}
	memset(&m->funcs[n], 0, sizeof m->funcs[n]);
	m->n_funcs++;
	return &m->funcs[n];
}

int xp_llvm_cmp_func(const void *l, const void *r)
{
	const xp_llvm_func *a = l, *b = r;
	int c = strcmp(a->name, b->name);

	if (c != 0)
		return c;
	return a->hash < b->hash ? -1 : a->hash > b->hash;
}

int xp_llvm_cmp_func_ptr(const void *l, const void *r)
{
	const xp_llvm_func *a = *(const xp_llvm_func *const *)l;
	const xp_llvm_func *b = *(const xp_llvm_func *const *)r;
	int c = xp_llvm_cmp_func(a, b);

	return c != 0 ? c : (a > b) - (a < b);
}

/* ------------------------------------------------------------------ */
/* Recognition                                                         */
/* ------------------------------------------------------------------ */

/* The next line of the head that is not blank or a comment: [*s, *e);
 * 0 when the head ends first (a line cut by the end of the head counts
 * only when the head is the whole file, which detection cannot know, so
 * it does not). */
static int head_line(const unsigned char **p, const unsigned char *end,
                     const unsigned char **s, const unsigned char **e)
{
	while (*p < end) {
		const unsigned char *nl = memchr(*p, '\n', (size_t)(end - *p));
		const unsigned char *a = *p, *b = nl != NULL ? nl : end;

		if (nl == NULL)
			return 0;
		*p = nl + 1;
		if (b > a && b[-1] == '\r')
			b--;
		if (b == a || *a == '#')
			continue;
		*s = a;
		*e = b;
		return 1;
	}
	return 0;
}

static int all_digits(const unsigned char *s, const unsigned char *e, int hex)
{
	if (s == e)
		return 0;
	if (hex && e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < e; s++)
		if (hex ? xp_hexval(*s) < 0 : !(*s >= '0' && *s <= '9'))
			return 0;
	return 1;
}

/*
 * A .proftext: printable text (LLVM checks the first eight bytes) whose
 * first line that is not blank or a comment is a header flag (':' and a
 * letter), or a function name followed by its hash and its number of
 * counters.  The module's own text form, which starts with its keyword,
 * is left to detect_text.
 */
static int xp_llvm_detect(const unsigned char *head, size_t len)
{
	const unsigned char *p = head, *end = head + len, *s, *e;
	size_t kl = sizeof XP_LLVM_TEXT_KEYWORD - 1;

	for (size_t i = 0; i < len && i < 8; i++)
		if (!(head[i] >= 0x20 && head[i] < 0x7f) && head[i] != '\n' &&
		    head[i] != '\r' && head[i] != '\t')
			return 0;
	if (len >= kl && memcmp(head, XP_LLVM_TEXT_KEYWORD, kl) == 0)
		return 0;
	if (!head_line(&p, end, &s, &e))
		return 0;
	if (*s == ':')
		return e - s > 1 && ((s[1] >= 'a' && s[1] <= 'z') ||
		                     (s[1] >= 'A' && s[1] <= 'Z'));
	return head_line(&p, end, &s, &e) && all_digits(s, e, 1) &&
	       head_line(&p, end, &s, &e) && all_digits(s, e, 0);
}

/* ------------------------------------------------------------------ */
/* Reading and writing                                                 */
/* ------------------------------------------------------------------ */

static xp_err xp_llvm_read(const unsigned char *buf, size_t len,
                           const char *name, const xp_load_opts *o,
                           void **out, xp_diags *d)
{
	xp_lines l;
	xp_llvm *m = NULL;
	xp_err err;

	(void)o;
	*out = NULL;
	xp_lines_init(&l, buf, len, name, d);
	err = xp_llvm_parse(&l, &m);
	*out = m;
	return err;
}

static xp_err xp_llvm_write(const void *m, xp_wbuf *w)
{
	return xp_llvm_write_proftext(m, w);
}

/* Functions, their counters and the sum of the counters. */
static void xp_llvm_totals(const void *model, xp_prof_totals *t)
{
	const xp_llvm *m = model;
	uint64_t counters = 0, sum = 0;

	for (size_t i = 0; i < m->n_funcs; i++) {
		counters += m->funcs[i].n_counts;
		for (size_t k = 0; k < m->funcs[i].n_counts; k++)
			sum = xp_sat_add(sum, m->funcs[i].counts[k]);
	}
	xp_prof_total(t, "functions", m->n_funcs);
	xp_prof_total(t, "counters", counters);
	xp_prof_total(t, "count", sum);
}

static void xp_llvm_free_model(void *m)
{
	xp_llvm_free(m);
}

const xp_module xp_module_llvm = {
	XP_MODULE_NAMES("llvm", LLVM, "default.proftext", "LLVM profile",
	                "an"),
	.detect = xp_llvm_detect,
	.detect_text = xp_llvm_detect_text,
	.read = xp_llvm_read,
	.read_text = xp_llvm_read_text,
	.write = xp_llvm_write,
	.write_text = xp_llvm_write_text,
	.merge = xp_llvm_merge,
	.to_feedback = xp_llvm_to_feedback,
	.merge_modes = 1,
	.totals = xp_llvm_totals,
	.free = xp_llvm_free_model,
};
