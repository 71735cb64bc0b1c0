/*
 * registry/exe.c - whether the executable given with a profile (-e) is
 * the one that was profiled.
 *
 * When a profile is opened with an executable (xp_load_opts.exe), the
 * registry opens the executable once and hands it to the module's
 * check_exe entry, which compares what the profile records (mapped paths,
 * offsets and sizes, histogram ranges, text ranges) with the executable
 * and counts, in an xp_exe_tally, how many of the profile's PCs that
 * belong to the executable fall inside one of its functions.  The verdict
 * is the same for every format: no PC inside is an error (the report
 * would name nothing, or the wrong things); more than a tenth outside is
 * a warning.  The module's man page says which PCs count.
 */
#include <inttypes.h>
#include <stdio.h>

#include "registry/module.h"

void xp_exe_tally_init(xp_exe_tally *t, const xp_sym *s)
{
	memset(t, 0, sizeof *t);
	t->sym = s;
	t->stripped = xp_sym_stripped(s);
	xp_sym_text_range(s, &t->lo, &t->hi);
}

int xp_exe_inside(xp_exe_tally *t, uint64_t addr)
{
	if (t->stripped)
		return addr >= t->lo && addr < t->hi;
	return xp_sym_lookup_next(t->sym, &t->at, addr) != NULL;
}

void xp_exe_tally_add(xp_exe_tally *t, uint64_t addr, int inside,
                      uint64_t weight)
{
	if (weight == 0)
		return;
	t->total = xp_sat_add(t->total, weight);
	if (inside) {
		t->in = xp_sat_add(t->in, weight);
		return;
	}
	if (!t->have_out || addr < t->out_addr)
		t->out_addr = addr;
	t->have_out = 1;
}

void xp_exe_tally_free(xp_exe_tally *t)
{
	XP_FREE(t->pc, t->ra);
	t->pc = t->ra = NULL;
	t->npc = t->pccap = t->nra = t->racap = 0;
}

xp_kv *xp_exe_tally_room(xp_exe_tally *t, int ra, size_t n)
{
	xp_kv **v = ra ? &t->ra : &t->pc;
	size_t *len = ra ? &t->nra : &t->npc, *cap = ra ? &t->racap : &t->pccap;

	if (n == 0 || t->nomem)
		return NULL;
	if (xp_grow(v, cap, *len + n - 1, sizeof **v) != XP_E_OK) {
		t->nomem = 1;
		return NULL;
	}
	*len += n;
	return *v + *len - n;
}

void xp_exe_tally_pc(xp_exe_tally *t, uint64_t pc, uint64_t weight)
{
	xp_kv *e = xp_exe_tally_room(t, 0, 1);

	if (e != NULL)
		*e = (xp_kv){pc, weight};
}

void xp_exe_tally_ra(xp_exe_tally *t, uint64_t ra, uint64_t weight)
{
	xp_kv *e = xp_exe_tally_room(t, 1, 1);

	if (e != NULL)
		*e = (xp_kv){ra, weight};
}

/* Sorts the list and sums the weights of equal addresses; addresses of
 * no weight are left out, as if never added. */
static xp_err fold(xp_kv *v, size_t *n)
{
	size_t k = 0;
	xp_err err = xp_sort_kv(v, *n);

	if (err != XP_E_OK)
		return err;
	for (size_t i = 0; i < *n; i++) {
		if (k > 0 && v[k - 1].key == v[i].key) {
			v[k - 1].val = xp_sat_add(v[k - 1].val, v[i].val);
			continue;
		}
		if (k > 0 && v[k - 1].val == 0)
			k--;
		v[k++] = v[i];
	}
	*n = k > 0 && v[k - 1].val == 0 ? k - 1 : k;
	return XP_E_OK;
}
/* The PCs and return addresses kept, counted in address order. */
static xp_err count_kept(xp_exe_tally *t)
{
	xp_err err;

	if ((err = fold(t->pc, &t->npc)) != XP_E_OK ||
	    (err = fold(t->ra, &t->nra)) != XP_E_OK)
		return err;
	for (size_t i = 0; i < t->npc; i++)
		xp_exe_tally_add(t, t->pc[i].key,
		                 xp_exe_inside(t, t->pc[i].key), t->pc[i].val);
	for (size_t i = 0; i < t->nra; i++) {
		uint64_t pc = t->ra[i].key - 1;
		xp_exe_tally_add(t, pc, xp_exe_inside(t, pc), t->ra[i].val);
	}
	return XP_E_OK;
}

/*
 * Whether the x86 instruction that ends at the end of the n bytes at b is
 * a call: E8 and a 32-bit displacement, or FF /2 with any ModRM operand.
 */
static int x86_call_before(const unsigned char *b, size_t n)
{
	if (n >= 5 && b[n - 5] == 0xe8)
		return 1;
	for (size_t len = 2; len <= 7 && len <= n; len++) {
		const unsigned char *op = b + n - len;
		unsigned modrm = op[1], mod = modrm >> 6, rm = modrm & 7;
		size_t want = 2;

		if (op[0] != 0xff || ((modrm >> 3) & 7) != 2)
			continue;
		if (mod != 3 && rm == 4) {
			want++;                     /* SIB */
			if (mod == 0 && len >= 3 && (op[2] & 7) == 5)
				want += 4;
		}
		if (mod == 1)
			want += 1;
		else if (mod == 2 || (mod == 0 && rm == 5))
			want += 4;
		if (want == len)
			return 1;
	}
	return 0;
}

/* The same for AArch64: BL, BLR, or BLRAA and its kin. */
static int a64_call_before(const unsigned char *b, int big)
{
	uint32_t i = big ? xp_get_be32(b) : xp_get_le32(b);

	return (i & 0xfc000000u) == 0x94000000u ||
	       (i & 0xfffffc1fu) == 0xd63f0000u ||
	       (i & 0xfefff800u) == 0xd63f0800u;
}

/* How the bytes before return addresses are read: the machine (0 when
 * its calls are not known here; "i386" also names x86-64), how many
 * bytes a call ends in, and the part of the file read last. */
typedef struct {
	enum { NONE, X86, A64 } mach;
	size_t need;
	int big;
	const unsigned char *p;
	uint64_t lo, hi;
} reader;

static void reader_init(reader *r, const xp_sym *s)
{
	const char *arch = xp_sym_arch(s);

	memset(r, 0, sizeof *r);
	if (strncmp(arch, "i386", 4) == 0) {
		r->mach = X86;
		r->need = 8;
	} else if (strncmp(arch, "aarch64", 7) == 0) {
		r->mach = A64;
		r->need = 4;
		r->big = xp_sym_big_endian(s);
	}
}

/* 1 when a call instruction ends at ra, 0 when not, -1 when the
 * machine's calls are not known here or the bytes are not in the file.
 * Return addresses in order read the file's mapped bytes in place. */
static int after_call(const xp_sym *s, reader *r, uint64_t ra)
{
	unsigned char buf[8];
	const unsigned char *b = buf;
	uint64_t at = ra - r->need;

	if (r->mach == NONE || ra < r->need)
		return -1;
	if (r->p == NULL || at < r->lo || at >= r->hi)
		r->p = xp_sym_span(s, at, &r->lo, &r->hi);
	if (r->p != NULL && ra <= r->hi)
		b = r->p + (at - r->lo);
	else if (xp_sym_read(s, at, buf, r->need) != 0)
		return -1;
	return r->mach == X86 ? x86_call_before(b, 8)
	                      : a64_call_before(b, r->big);
}

/* The return addresses (sorted, each once): a warning when more than
 * half of them (by weight) follow no call instruction. */
static void check_ras(xp_exe_tally *t, const char *exe, const char *name,
                      xp_diags *d)
{
	uint64_t total = 0, bad = 0, lowest = 0;
	size_t nbad = 0, n = 0;
	reader r;

	reader_init(&r, t->sym);
	for (size_t i = 0; i < t->nra; i++) {
		uint64_t w = t->ra[i].val;
		int call = after_call(t->sym, &r, t->ra[i].key);

		if (call >= 0) {
			n++;
			total = xp_sat_add(total, w);
		}
		if (call == 0) {
			if (nbad++ == 0)
				lowest = t->ra[i].key;
			bad = xp_sat_add(bad, w);
		}
	}
	/* More than half: a wrong unwinding gives a few return addresses
	 * that follow no call; another build gives almost only such. */
	if (total > 0 && bad > total / 2)
		xp_diag_warn(d, name, "%zu of the %zu return addresses in %s "
		             "(%.1f%% by count) follow no call instruction "
		             "there, the lowest 0x%" PRIx64 ": it is another "
		             "build than the one profiled, and the functions "
		             "named are wrong", nbad, n, exe,
		             100.0 * (double)bad / (double)total, lowest);
}

xp_err xp_exe_verdict(xp_exe_tally *t, const char *exe, const char *name,
                      const char *what, xp_diags *d)
{
	char where[80];
	uint64_t out;

	if (t->nomem || count_kept(t) != XP_E_OK)
		return XP_E_NOMEM;
	if (t->total == 0)
		return XP_E_OK;
	out = t->total - t->in;
	/* Without a symbol table only the code sections are known. */
	if (t->stripped)
		snprintf(where, sizeof where, "its code (0x%" PRIx64 "-0x%"
		         PRIx64 "; it has no symbol table)", t->lo, t->hi);
	else
		snprintf(where, sizeof where, "one of its functions");
	if (t->in == 0)
		return xp_diag_file(d, XP_E_INVAL, name,
		                    "%s is not the executable that was "
		                    "profiled: none of the %" PRIu64 " %s that "
		                    "belong to it lies inside %s; the lowest is "
		                    "0x%" PRIx64, exe, t->total, what, where,
		                    t->out_addr);
	/* More than a tenth: a few PCs in code without symbols (PLT stubs,
	 * hand-written assembly) are normal, a share that large is not. */
	if (out > t->total / 10)
		xp_diag_warn(d, name, "%" PRIu64 " of the %" PRIu64 " %s that "
		             "belong to %s (%.1f%%) lie outside %s, the lowest "
		             "at 0x%" PRIx64 ": it may be another build than "
		             "the one profiled", out, t->total, what, exe,
		             100.0 * (double)out / (double)t->total, where,
		             t->out_addr);
	check_ras(t, exe, name, d);
	return XP_E_OK;
}

const char *xp_exe_build_id(const xp_sym *s, char *buf, size_t size)
{
	char id[130];

	if (xp_sym_build_id(s, id, sizeof id) != 0)
		snprintf(buf, size, "no build id");
	else
		snprintf(buf, size, "build id %s", id);
	return buf;
}

xp_err xp_prof_check_exe(const xp_module *mod, const void *model,
                         const char *exe, const xp_sym *pre,
                         const char *name, xp_diags *d)
{
	xp_sym *s = NULL;
	xp_err err;

	if (exe == NULL || mod->check_exe == NULL)
		return XP_E_OK;
	if (pre != NULL)
		return mod->check_exe(model, pre, exe, name, d);
	if ((err = xp_sym_open(exe, &s, d)) != XP_E_OK)
		return err;
	err = mod->check_exe(model, s, exe, name, d);
	xp_sym_free(s);
	return err;
}
