/*
 * llvm/write.c - writes a model as `llvm-profdata merge --text` writes
 * it: the header's flags with their comments, the temporal traces, then
 * the records by name and hash, each with LLVM's comment lines, a blank
 * line after each record (llvm(5), THE FILE).
 */
#include "llvm/llvm.h"

static void put_s(xp_wbuf *w, const char *s)
{
	xp_wbuf_write(w, s, strlen(s));
}

/* v in decimal and a newline. */
static void put_u64(xp_wbuf *w, uint64_t v)
{
	char b[24];
	size_t n = xp_fmt_u64(b, v);

	b[n++] = '\n';
	xp_wbuf_write(w, b, n);
}

static const char *const kind_names[XP_LLVM_N_KINDS] = {
	"IPVK_IndirectCallTarget", "IPVK_MemOPSize", "IPVK_VTableTarget",
};

/* Whether m has a record named name (m's records are in order). */
static int has_func(const xp_llvm *m, const char *name)
{
	size_t lo = 0, hi = m->n_funcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->funcs[mid].name, name);
		if (c == 0)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void write_sites(const xp_llvm *m, const xp_llvm_func *f, xp_wbuf *w)
{
	unsigned nk = 0;

	for (unsigned k = 0; k < XP_LLVM_N_KINDS; k++)
		nk += f->n_sites[k] > 0;
	if (nk == 0) {
		put_s(w, "\n");
		return;
	}
	put_s(w, "# Num Value Kinds:\n");
	put_u64(w, nk);
	for (unsigned k = 0; k < XP_LLVM_N_KINDS; k++) {
		if (f->n_sites[k] == 0)
			continue;
		xp_wbuf_printf(w, "# ValueKind = %s:\n%u\n# NumValueSites:\n",
		               kind_names[k], k);
		put_u64(w, f->n_sites[k]);
		for (uint32_t s = 0; s < f->n_sites[k]; s++) {
			const xp_llvm_site *site = &f->sites[k][s];
			put_u64(w, site->n_values);
			for (uint32_t i = 0; i < site->n_values; i++) {
				const xp_llvm_value *v = &site->values[i];
				if (!xp_llvm_named_kind(k)) {
					char b[24];
					size_t n = xp_fmt_u64(b, v->value);
					b[n++] = ':';
					xp_wbuf_write(w, b, n);
				} else {
					put_s(w, m->merged && !has_func(m, v->name)
					         ? XP_LLVM_EXTERNAL : v->name);
					put_s(w, ":");
				}
				put_u64(w, v->count);
			}
		}
	}
	put_s(w, "\n");
}

static void write_func(const xp_llvm *m, const xp_llvm_func *f, xp_wbuf *w)
{
	put_s(w, f->name);
	put_s(w, "\n# Func Hash:\n");
	put_u64(w, f->hash);
	put_s(w, "# Num Counters:\n");
	put_u64(w, f->n_counts);
	put_s(w, "# Counter Values:\n");
	for (size_t i = 0; i < f->n_counts; i++)
		put_u64(w, f->counts[i]);
	if (f->n_bitmap > 0) {
		put_s(w, "# Num Bitmap Bytes:\n$");
		put_u64(w, f->n_bitmap);
		put_s(w, "# Bitmap Byte Values:\n");
		for (size_t i = 0; i < f->n_bitmap; i++)
			xp_wbuf_printf(w, "0x%x\n", f->bitmap[i]);
		put_s(w, "\n");
	}
	write_sites(m, f, w);
}

static void write_traces(const xp_llvm *m, xp_wbuf *w)
{
	put_s(w, ":temporal_prof_traces\n# Num Temporal Profile Traces:\n");
	put_u64(w, m->n_traces);
	put_s(w, "# Temporal Profile Trace Stream Size:\n");
	put_u64(w, m->trace_stream_size);
	for (size_t i = 0; i < m->n_traces; i++) {
		const xp_llvm_trace *t = &m->traces[i];
		put_s(w, "# Weight:\n");
		put_u64(w, t->weight);
		for (size_t j = 0; j < t->n_names; j++) {
			put_s(w, t->names[j]);
			put_s(w, ",");
		}
		put_s(w, "\n");
	}
	put_s(w, "\n");
}

xp_err xp_llvm_write_proftext(const xp_llvm *m, xp_wbuf *w)
{
	const xp_llvm_func **order;

	if (m->flags & XP_LLVM_CS)
		put_s(w, "# CSIR level Instrumentation Flag\n:csir\n");
	else if (m->flags & XP_LLVM_IR)
		put_s(w, "# IR level Instrumentation Flag\n:ir\n");
	if (m->flags & XP_LLVM_ENTRY_FIRST)
		put_s(w, "# Always instrument the function entry block\n"
		      ":entry_first\n");
	if (m->flags & XP_LLVM_SINGLE_BYTE)
		put_s(w, "# Instrument block coverage\n:single_byte_coverage\n");
	if (m->flags & XP_LLVM_TEMPORAL)
		write_traces(m, w);
	order = malloc((m->n_funcs ? m->n_funcs : 1) * sizeof *order);
	if (order == NULL)
		return XP_E_NOMEM;
	/* By name and hash; equal ones in file order. */
	for (size_t i = 0; i < m->n_funcs; i++)
		order[i] = &m->funcs[i];
	xp_qsort(order, m->n_funcs, sizeof *order, xp_llvm_cmp_func_ptr);
	for (size_t i = 0; i < m->n_funcs; i++)
		write_func(m, order[i], w);
	free(order);
	return w->err;
}
