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

int xp_exe_inside(const xp_exe_tally *t, uint64_t addr)
{
	if (t->stripped)
		return addr >= t->lo && addr < t->hi;
	return xp_sym_lookup(t->sym, addr) != NULL;
}

void xp_exe_tally_add(xp_exe_tally *t, uint64_t addr, int inside,
                      uint64_t weight)
{
	if (weight == 0)
		return;
	t->total = weight > UINT64_MAX - t->total ? UINT64_MAX
	                                          : t->total + weight;
	if (inside) {
		t->in = weight > UINT64_MAX - t->in ? UINT64_MAX
		                                    : t->in + weight;
		return;
	}
	if (!t->have_out || addr < t->out_addr)
		t->out_addr = addr;
	t->have_out = 1;
}

void xp_exe_tally_free(xp_exe_tally *t)
{
	free(t->ra);
	t->ra = NULL;
	t->nra = t->racap = 0;
}

void xp_exe_tally_ra(xp_exe_tally *t, uint64_t ra, uint64_t weight)
{
	if (weight == 0 || t->nomem)
		return;
	if (t->nra == t->racap) {
		size_t cap = t->racap ? 2 * t->racap : 256;
		xp_exe_ra *q = realloc(t->ra, cap * sizeof *q);
		if (q == NULL) {
			t->nomem = 1;
			return;
		}
		t->ra = q;
		t->racap = cap;
	}
	t->ra[t->nra++] = (xp_exe_ra){ra, weight};
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

/* 1 when a call instruction ends at ra, 0 when not, -1 when the
 * machine's calls are not known here or the bytes are not in the file. */
static int after_call(const xp_sym *s, uint64_t ra)
{
	const char *arch = xp_sym_arch(s);
	unsigned char b[8];

	if (strncmp(arch, "i386", 4) == 0)
		return ra >= 8 && xp_sym_read(s, ra - 8, b, 8) == 0
		       ? x86_call_before(b, 8) : -1;
	if (strncmp(arch, "aarch64", 7) == 0)
		return ra >= 4 && xp_sym_read(s, ra - 4, b, 4) == 0
		       ? a64_call_before(b, xp_sym_big_endian(s)) : -1;
	return -1;
}

static int cmp_ra(const void *a, const void *b)
{
	const xp_exe_ra *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The return addresses: a warning when more than half of them (by
 * weight) follow no call instruction. */
static void check_ras(xp_exe_tally *t, const char *exe, const char *name,
                      xp_diags *d)
{
	uint64_t total = 0, bad = 0, lowest = 0;
	size_t nbad = 0, n = 0;

	xp_qsort(t->ra, t->nra, sizeof *t->ra, cmp_ra);
	for (size_t i = 0; i < t->nra; i++) {
		uint64_t w = 0;
		size_t j = i;
		int call;

		for (; j < t->nra && t->ra[j].addr == t->ra[i].addr; j++)
			w = w > UINT64_MAX - t->ra[j].weight ? UINT64_MAX
			                                     : w + t->ra[j].weight;
		call = after_call(t->sym, t->ra[i].addr);
		if (call >= 0) {
			n++;
			total = w > UINT64_MAX - total ? UINT64_MAX : total + w;
		}
		if (call == 0) {
			if (nbad++ == 0)
				lowest = t->ra[i].addr;
			bad = w > UINT64_MAX - bad ? UINT64_MAX : bad + w;
		}
		i = j - 1;
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
	uint64_t out = t->total - t->in;

	if (t->nomem)
		return XP_E_NOMEM;
	if (t->total == 0)
		return XP_E_OK;
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
