/*
 * gen.c - generator of large, valid, canonical profile feedback texts
 * (xprof_text(5), version 4.4 or 4.3) for the benchmark and the tests.
 *
 * The output is exactly what xprof_btoa writes for its content, so that
 * atob followed by btoa must give it back byte for byte.  Every rule the
 * parser checks holds: declared counts equal what follows, ids are in
 * range and unique, every value profile record has n_values_per_vp
 * sub-records of one type and expression id, OBJREF names an object file
 * defined earlier, and so on.
 *
 * The shape follows a C++ code base: object files grouped in modules,
 * procedures with mangled names of varied length, counter values with a
 * power-law distribution, value profiles of every type, control flow
 * graphs, source maps into the module's source and header files, programs
 * that link the object files, and source file sections whose block refs
 * repeat `proc:objfile` (about half of the bytes of a large file).
 *
 * Everything about object file i (its procedures, their names, sizes and
 * values) derives from (seed, i) alone, with a private PRNG.  That makes
 * the output deterministic and lets the generator make two passes: a dry
 * pass that counts bytes, counters and sections (the header needs the
 * section counts before anything else), and the pass that writes.  The
 * source file sections, which gather the blocks of a whole module, are
 * built by generating the module's object files once more.
 *
 * Usage: gen [-3] [-i] [-l] [-s seed] [-r run] [-m megabytes | -n counters]
 *            [-t type]
 *
 * -r gives training run RUN of the same program (0, the default, is the
 * plain output): other counts and now and then another value profile
 * value, everything else the same.
 *
 * -l writes the same counters in LLVM's text profile format (what
 * `llvm-profdata merge --text` writes), so that the benchmark can give
 * llvm-profdata the information xprof's tools get: one function per
 * procedure that has counters, named `objfile:procedure` (unique, as
 * LLVM names a file's local functions), its hash the procedure's
 * checksum and its counters the procedure's counters.  The generator
 * draws exactly what it draws for the feedback text, so that a seed and
 * a run give the same program and the same counts in both forms.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { T_FEEDBACK, T_TCOVD, T_OBJFD, T_TCOVSD };

/* Object files per module; a module shares its header files. */
#define FILES_PER_MODULE 16
/* Header files per module that procedures may inline code from. */
#define N_HEADERS 8
/* Source file keys within a module: 0..15 main files, 16.. headers. */
#define HDR_KEY(k) (FILES_PER_MODULE + (k))

/* ------------------------------------------------------------------ */
/* Failure                                                             */
/* ------------------------------------------------------------------ */

static void die(const char *what)
{
	fprintf(stderr, "gen: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (p == NULL)
		die("out of memory");
	return p;
}

/* ------------------------------------------------------------------ */
/* PRNG: splitmix64, seeded per object file and per procedure name      */
/* ------------------------------------------------------------------ */

static uint64_t next64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t s = a ^ (b * 0xd6e8feb86659fd93u);

	next64(&s);
	return next64(&s);
}

/* Uniform in [0, n); n > 0.  The modulo bias is irrelevant here. */
static uint64_t below(uint64_t *s, uint64_t n)
{
	return next64(s) % n;
}

/* True with probability pct/100. */
static int chance(uint64_t *s, unsigned pct)
{
	return below(s, 100) < pct;
}

/*
 * A power-law integer without floating point: k successes of a coin of
 * probability q_pct/100 (at most kmax) select the octave [base*2^k,
 * base*2^(k+1)), so P(x > X) falls like X^log2(q).
 */
static uint64_t skew(uint64_t *s, uint64_t base, unsigned q_pct, unsigned kmax)
{
	unsigned k = 0;
	uint64_t lo;

	while (k < kmax && chance(s, q_pct))
		k++;
	lo = base << k;
	return lo + below(s, lo);
}

/* ------------------------------------------------------------------ */
/* Output: growable buffers and a sink that can count instead of write  */
/* ------------------------------------------------------------------ */

typedef struct {
	char *p;
	size_t n, cap;
} sbuf;

static char *sb_room(sbuf *b, size_t k)
{
	if (b->cap - b->n < k) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap - b->n < k)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	return b->p + b->n;
}

static void sb_put(sbuf *b, const char *s, size_t len)
{
	if (len == 0)
		return;
	memcpy(sb_room(b, len), s, len);
	b->n += len;
}

#define sb_lit(b, s) sb_put((b), (s), sizeof(s) - 1)

static void sb_ch(sbuf *b, char c)
{
	*sb_room(b, 1) = c;
	b->n++;
}

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

/* Decimal text of v into p (no NUL); returns its length. */
static size_t fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	char *e = tmp + sizeof tmp, *q = e;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--q = digit_pairs[d + 1];
		*--q = digit_pairs[d];
	}
	if (v >= 10) {
		*--q = digit_pairs[v * 2 + 1];
		*--q = digit_pairs[v * 2];
	} else {
		*--q = (char)('0' + v);
	}
	memcpy(p, q, (size_t)(e - q));
	return (size_t)(e - q);
}

static void sb_u64(sbuf *b, uint64_t v)
{
	b->n += fmt_u64(sb_room(b, 20), v);
}

static void sb_i64(sbuf *b, int64_t v)
{
	if (v < 0) {
		sb_ch(b, '-');
		sb_u64(b, (uint64_t)0 - (uint64_t)v);
	} else {
		sb_u64(b, (uint64_t)v);
	}
}

/* 0x, lower-case hex, no leading zeros (0x0 for zero). */
static void sb_hex(sbuf *b, uint64_t v)
{
	char *p = sb_room(b, 18);
	size_t n = 0;
	int sh = 60;

	p[n++] = '0';
	p[n++] = 'x';
	while (sh > 0 && (v >> sh) == 0)
		sh -= 4;
	for (; sh >= 0; sh -= 4)
		p[n++] = "0123456789abcdef"[(v >> sh) & 15];
	b->n += n;
}

/* The sink: written to stdout, or only counted during the dry pass. */
typedef struct {
	sbuf b;
	int dry;
	uint64_t total;
} sink;

static void sink_flush(sink *o)
{
	if (!o->dry && o->b.n > 0 && fwrite(o->b.p, 1, o->b.n, stdout) != o->b.n)
		die("write");
	o->total += o->b.n;
	o->b.n = 0;
}

static void sink_put(sink *o, const char *s, size_t len)
{
	if (o->b.n + len > (1u << 22))
		sink_flush(o);
	if (len > (1u << 22)) {
		if (!o->dry && fwrite(s, 1, len, stdout) != len)
			die("write");
		o->total += len;
		return;
	}
	sb_put(&o->b, s, len);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */

static const char *const verbs[] = {
	"get", "set", "update", "process", "handle", "compute", "init",
	"reset", "visit", "parse", "emit", "read", "write", "flush", "lookup",
	"insert", "erase", "find", "apply", "run", "dispatch", "serialize",
	"validate", "transform",
};
static const char *const classes[] = {
	"Widget", "Buffer", "Parser", "Node", "Context", "Manager", "Stream",
	"Table", "Graph", "Session", "Allocator", "Cache", "Scheduler",
	"Connection", "Request", "Index",
};
static const char *const params[] = {
	"v", "i", "ii", "PKc", "RKSs", "PvS_", "RKSt6vectorIiSaIiEE", "mPKcz",
	"dd", "f", "jRKS0_", "PKvm",
	"RKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
	"St10unique_ptrIS0_St14default_deleteIS0_EE",
};
static const char *const suffixes[] = {
	".isra.0", ".constprop.1", ".part.3", ".cold", "@@VERS_1.2",
};
static const char *const src_exts[] = { ".cc", ".cpp", ".c", ".cxx" };

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

typedef struct {
	char s[512];
	size_t n;
} name;

static void nm_put(name *nm, const char *s)
{
	size_t len = strlen(s);

	if (nm->n + len < sizeof nm->s) {
		memcpy(nm->s + nm->n, s, len);
		nm->n += len;
	}
}

static void nm_u(name *nm, uint64_t v)
{
	if (nm->n + 20 < sizeof nm->s)
		nm->n += fmt_u64(nm->s + nm->n, v);
}

/* Appends an Itanium-style <length><identifier>. */
static void nm_ident(name *nm, const char *word, int with_num, uint64_t num)
{
	char tmp[64];
	size_t len = strlen(word);

	memcpy(tmp, word, len);
	if (with_num) {
		tmp[len++] = '_';
		len += fmt_u64(tmp + len, num);
	}
	nm_u(nm, len);
	if (nm->n + len < sizeof nm->s) {
		memcpy(nm->s + nm->n, tmp, len);
		nm->n += len;
	}
}

static uint32_t module_of(uint32_t obj)
{
	return obj / FILES_PER_MODULE;
}

static size_t objfile_path(char *p, uint32_t obj)
{
	return (size_t)sprintf(p, "/build/src/module_%u/file_%u.o",
			       (unsigned)module_of(obj), (unsigned)obj);
}

/* Path of source file key `key` of module m. */
static size_t srcfile_path(char *p, uint64_t seed, uint32_t m, uint32_t key)
{
	if (key < FILES_PER_MODULE) {
		uint32_t obj = m * FILES_PER_MODULE + key;
		uint64_t s = mix(seed ^ 0x5eed5eed, obj);

		return (size_t)sprintf(p, "/build/src/module_%u/file_%u%s",
				       (unsigned)m, (unsigned)obj,
				       src_exts[below(&s, NELEM(src_exts))]);
	}
	return (size_t)sprintf(p, "/build/include/module_%u/header_%u.%s",
			       (unsigned)m, (unsigned)(key - FILES_PER_MODULE),
			       (key & 1) ? "hpp" : "h");
}

/*
 * The linker name of procedure p of object file obj.  It holds p, so the
 * names of one object file are distinct; it never holds ':', space or
 * control characters.
 */
static void proc_name(name *nm, uint64_t seed, uint32_t obj, uint32_t p)
{
	uint64_t s = mix(mix(seed ^ 0x6e616d65, obj), p);
	uint32_t m = module_of(obj);
	unsigned kind = (unsigned)below(&s, 100);
	const char *verb = verbs[below(&s, NELEM(verbs))];
	const char *cls = classes[below(&s, NELEM(classes))];
	char mod[32];

	sprintf(mod, "module_%u", (unsigned)m);
	nm->n = 0;
	if (kind < 15) {
		/* A C function. */
		nm_put(nm, mod);
		nm_put(nm, "_file");
		nm_u(nm, obj);
		nm_put(nm, "_");
		nm_put(nm, verb);
		nm_put(nm, "_");
		nm_u(nm, p);
	} else if (kind < 75) {
		/* A method: _ZN<ns><class><method>E<params>. */
		nm_put(nm, chance(&s, 30) ? "_ZNK" : "_ZN");
		nm_ident(nm, mod, 0, 0);
		nm_ident(nm, cls, 1, below(&s, 7));
		nm_ident(nm, verb, 1, p);
		nm_put(nm, "E");
		nm_put(nm, params[below(&s, NELEM(params))]);
		if (chance(&s, 30))
			nm_put(nm, params[below(&s, NELEM(params))]);
	} else if (kind < 85) {
		/* A template instance with long argument lists. */
		unsigned i, n = 1 + (unsigned)below(&s, 3);

		nm_put(nm, "_ZN");
		nm_ident(nm, mod, 0, 0);
		nm_ident(nm, cls, 1, below(&s, 7));
		nm_ident(nm, verb, 1, p);
		nm_put(nm, "I");
		for (i = 0; i < n; i++) {
			const char *c2 = classes[below(&s, NELEM(classes))];

			nm_put(nm, "N");
			nm_ident(nm, mod, 0, 0);
			nm_ident(nm, c2, 1, below(&s, 50));
			nm_put(nm, "E");
		}
		nm_put(nm, "EEvT_");
		for (i = 0; i < n; i++)
			nm_put(nm, params[below(&s, NELEM(params))]);
	} else {
		/* A free function, often a compiler-made clone. */
		nm_put(nm, "_ZN");
		nm_ident(nm, mod, 0, 0);
		nm_put(nm, "6detail");
		nm_ident(nm, verb, 1, p);
		nm_put(nm, "E");
		nm_put(nm, params[below(&s, NELEM(params))]);
		nm_put(nm, suffixes[below(&s, NELEM(suffixes))]);
	}
}

/* ------------------------------------------------------------------ */
/* Generator state                                                     */
/* ------------------------------------------------------------------ */

/* One block ref of a source file section, gathered from source maps. */
typedef struct {
	uint32_t key, line, col, obj, proc, blk;
	uint64_t count;
} ent;

typedef struct {
	uint64_t seed;
	uint64_t run;		/* -r: the training run */
	int type, v43, interleave;
	int llvm;		/* -l: LLVM's text profile format */
	uint32_t n_obj;		/* object files (set by the dry pass) */
	uint32_t objfd_procs;	/* objfd: the one object file's n_procs */
	uint64_t target_bytes, target_counters;

	sink out;
	sbuf body, sec, lbody;

	/* Scratch of one procedure. */
	uint64_t *vals;
	uint32_t *bctr;
	size_t scratch;

	/* Block refs of the current module, when collecting. */
	int collect;
	ent *ents;
	size_t n_ents, cap_ents;

	/* Tallies of the dry pass. */
	uint64_t counters, est_bytes, proc_names;
	uint32_t hdr_mask;	/* headers used in the current object file */
	int main_used;
} gen;

static uint32_t n_procs_of(const gen *g, uint32_t obj)
{
	uint64_t s;

	if (g->type == T_OBJFD)
		return g->objfd_procs;
	s = mix(g->seed ^ 0x70726f63, obj);
	if (chance(&s, 3))
		return 0;
	return (uint32_t)skew(&s, 2, 55, 7) - 1;
}

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

/* The shortest %g text that reads back to the same float or double. */
static void sb_float(sbuf *b, double v, int is_float)
{
	char tmp[40];
	int prec, len = 0;

	if (v != v) {
		if (signbit(v))
			sb_lit(b, "-nan");
		else
			sb_lit(b, "nan");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		len = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
		if (is_float ? strtof(tmp, NULL) == (float)v
			     : strtod(tmp, NULL) == v)
			break;
	}
	sb_put(b, tmp, (size_t)len);
}

static double gen_double(uint64_t *s, int is_float)
{
	unsigned k = (unsigned)below(s, 100);

	if (k < 55) {
		/* Short decimals, exact in binary. */
		return (double)((int64_t)below(s, 20000) - 10000) / 8.0;
	}
	if (k < 85) {
		/* Any bit pattern of a finite value (subnormals included). */
		for (;;) {
			uint64_t bits = next64(s);

			if (is_float) {
				uint32_t fb = (uint32_t)bits;
				float f;

				if (((fb >> 23) & 0xff) == 0xff)
					continue;
				memcpy(&f, &fb, sizeof f);
				return f;
			} else {
				double d;

				if (((bits >> 52) & 0x7ff) == 0x7ff)
					continue;
				memcpy(&d, &bits, sizeof d);
				return d;
			}
		}
	}
	if (k < 95)
		return (double)below(s, 1000000) * 1e-3;
	switch (below(s, 6)) {
	case 0: return INFINITY;
	case 1: return -INFINITY;
	case 2: return NAN;
	case 3: return -NAN;
	case 4: return -0.0;
	default: return 0.0;
	}
}

static void gen_vp_value(gen *g, uint64_t *s, int type, uint32_t obj,
			 uint32_t p, uint32_t idx, uint64_t rb)
{
	sbuf *b = &g->body;

	switch (type) {
	case 0: {	/* VP_INT */
		int64_t v;

		if (chance(s, 3))
			v = chance(s, 50) ? INT32_MIN : INT32_MAX;
		else if (chance(s, 70))
			v = (int64_t)below(s, 64) - 8;
		else
			v = (int32_t)(uint32_t)next64(s);
		sb_i64(b, v);
		break;
	}
	case 1: {	/* VP_LLONG */
		int64_t v;

		if (chance(s, 3))
			v = chance(s, 50) ? INT64_MIN : INT64_MAX;
		else if (chance(s, 60))
			v = (int64_t)skew(s, 1, 60, 40) - 4;
		else
			v = (int64_t)next64(s);
		sb_i64(b, v);
		break;
	}
	case 2:
		sb_float(b, (float)gen_double(s, 1), 1);
		break;
	case 3:
		sb_float(b, gen_double(s, 0), 0);
		break;
	default: {
		/*
		 * VP_PROC: procedures of this or an earlier object file, one
		 * file per record (rb) and distinct procedures in it (idx).
		 */
		uint64_t rs = rb;
		uint32_t o2 = obj - (uint32_t)below(&rs, (obj < 8 ? obj : 8) + 1);
		uint32_t p2, n2 = o2 == obj ? p + 1 : n_procs_of(g, o2);
		char path[96];
		name nm;

		if (n2 == 0) {
			o2 = obj;
			n2 = p + 1;
		}
		p2 = (uint32_t)((below(&rs, n2) + idx) % n2);
		proc_name(&nm, g->seed, o2, p2);
		sb_put(b, nm.s, nm.n);
		sb_ch(b, ':');
		sb_put(b, path, objfile_path(path, o2));
		g->proc_names++;
		break;
	}
	}
}

/*
 * Training run g->run (-r) of the program: its counts, and now and then a
 * value profile value (not a VP_PROC callee), come from a stream of its
 * own per procedure, rs, so that everything the main stream draws, the
 * program itself, stays the same.  The dry pass sees run 0, so that the
 * size, and with it the program, does not depend on the run.
 */
static int varies(const gen *g)
{
	return g->run != 0 && !g->out.dry;
}

/* A count of the run: within half of v either way. */
static uint64_t run_count(const gen *g, uint64_t *rs, uint64_t v)
{
	if (!varies(g) || v == 0 || v > UINT64_MAX / 4)
		return v;
	return v / 2 + below(rs, v + 1);
}

static const char *const vp_kw[] = {
	"VP_INT ", "VP_LLONG ", "VP_FLOAT ", "VP_DOUBLE ", "VP_PROC ",
};

static void gen_vp_records(gen *g, uint64_t *s, uint64_t *rs, uint32_t obj,
			   uint32_t p, uint32_t nvpv, uint32_t nrec)
{
	sbuf *b = &g->body;
	uint32_t r, i, expr = 0;

	for (r = 0; r < nrec; r++) {
		unsigned w = (unsigned)below(s, 100);
		int type = w < 30 ? 0 : w < 50 ? 1 : w < 60 ? 2 : w < 75 ? 3 : 4;
		uint32_t seen = (uint32_t)below(s, nvpv + 1);
		uint64_t count = run_count(g, rs, skew(s, 1, 60, 36));
		uint64_t rb = next64(s);

		if (chance(s, 60))
			seen = nvpv;
		expr += 1 + (uint32_t)below(s, 5);
		for (i = 0; i < nvpv; i++) {
			sb_put(b, vp_kw[type], strlen(vp_kw[type]));
			sb_u64(b, expr);
			sb_ch(b, ' ');
			if (i < seen) {
				sb_u64(b, count);
				if (type == 4 && chance(s, 5)) {
					/* The callee is not profiled. */
				} else {
					size_t at;

					sb_ch(b, ' ');
					at = b->n;
					gen_vp_value(g, s, type, obj, p, i, rb);
					if (varies(g) && type != 4 && chance(rs, 10)) {
						/* Another value in this run. */
						b->n = at;
						gen_vp_value(g, rs, type, obj, p, i, rb);
					}
				}
				count = count / (1 + below(s, 4));
				if (count == 0)
					count = 1;
			} else {
				sb_ch(b, '0');
				if (chance(s, 3)) {
					/* A value kept with a zero count. */
					sb_ch(b, ' ');
					gen_vp_value(g, s, type, obj, p, i, rb);
				}
			}
			sb_ch(b, '\n');
		}
	}
}

/* ------------------------------------------------------------------ */
/* Object file sections                                                */
/* ------------------------------------------------------------------ */

static void scratch(gen *g, size_t n)
{
	if (n > g->scratch) {
		g->scratch = n * 2;
		g->vals = xrealloc(g->vals, g->scratch * sizeof *g->vals);
		g->bctr = xrealloc(g->bctr, g->scratch * sizeof *g->bctr);
	}
}

static void collect(gen *g, uint32_t key, uint32_t line, uint32_t col,
		    uint32_t obj, uint32_t p, uint32_t blk, uint64_t count,
		    size_t ref_len)
{
	if (key < FILES_PER_MODULE)
		g->main_used = 1;
	else
		g->hdr_mask |= 1u << (key - FILES_PER_MODULE);
	/* A block ref line plus a share of its SRCLINE line. */
	if (!g->v43)
		g->est_bytes += ref_len + 17;
	if (!g->collect)
		return;
	if (g->n_ents == g->cap_ents) {
		g->cap_ents = g->cap_ents ? g->cap_ents * 2 : 4096;
		g->ents = xrealloc(g->ents, g->cap_ents * sizeof *g->ents);
	}
	g->ents[g->n_ents++] = (ent){ key, line, col, obj, p, blk, count };
}

/* Per object file state carried from one procedure to the next. */
typedef struct {
	uint32_t obj, n_procs, nvpv, line;
	int cols, reverse_ids;
	int cur_file;		/* file of the previous tuple; -1 unknown */
	uint32_t files_mask;	/* source files named, for n_srcfile_names */
	uint64_t max, sum;
	char path[96];
	size_t path_len;
	uint32_t keybase;	/* key of this object file's main source */
} objst;

/* One function of LLVM's text profile format: name, hash, counters. */
static void llvm_func(gen *g, const objst *os, const name *nm, uint64_t sig,
		      uint32_t nc)
{
	sbuf *b = &g->lbody;
	uint32_t i;

	sb_put(b, os->path, os->path_len);
	sb_ch(b, ':');
	sb_put(b, nm->s, nm->n);
	sb_lit(b, "\n# Func Hash:\n");
	sb_u64(b, sig);
	sb_lit(b, "\n# Num Counters:\n");
	sb_u64(b, nc);
	sb_lit(b, "\n# Counter Values:\n");
	for (i = 1; i <= nc; i++) {
		sb_u64(b, g->vals[i]);
		sb_ch(b, '\n');
	}
	sb_ch(b, '\n');
}

static void gen_proc(gen *g, uint64_t *s, objst *os, uint32_t p)
{
	sbuf *b = &g->body;
	uint32_t nc, nb, ne, nt, ops, nrec = 0, sites = 0, i, id, skips;
	uint32_t prev_blk;
	uint64_t heat, sig, pmax = 0, psum = 0;
	char file[96];
	name nm;
	uint32_t m = module_of(os->obj);
	int unknown;
	uint64_t rs = mix(mix(g->seed ^ 0x72756e73, g->run),
			  (uint64_t)os->obj << 32 | p);

	nc = chance(s, 5) ? 0 : (uint32_t)skew(s, 2, 55, 7) - 1;
	nb = nc ? nc * 11 / 20 + (uint32_t)below(s, 3) : 1 + (uint32_t)below(s, 8);
	if (nb == 0)
		nb = 1;
	ne = nb - 1 + (uint32_t)below(s, nb / 3 + 1);
	if (nb == 1)
		ne = (uint32_t)below(s, 2);
	if (os->nvpv > 0 && chance(s, 25)) {
		nrec = 1 + (uint32_t)below(s, 4);
		sites = nrec + (chance(s, 20) ? (uint32_t)below(s, 3) : 0);
	}
	scratch(g, nb + nc + 1);

	/* Counter values: a per-procedure heat with a power law. */
	heat = chance(s, 10) ? below(s, 16) : (uint64_t)1 << below(s, 36);
	heat += below(s, heat + 1);
	for (i = 1; i <= nc; i++) {
		uint64_t v;

		if (chance(s, 15))
			v = 0;
		else if (below(s, 20000) == 0)
			v = UINT64_MAX - below(s, 1000);
		else {
			v = heat >> below(s, 12);
			v += below(s, 4);
		}
		v = run_count(g, &rs, v);
		g->vals[i] = v;
		if (v > pmax)
			pmax = v;
		psum = psum + v < psum ? UINT64_MAX : psum + v;
	}
	if (pmax > os->max)
		os->max = pmax;
	os->sum = os->sum + psum < os->sum ? UINT64_MAX : os->sum + psum;
	g->counters += nc;

	/* Tuples: about one per block, some blocks with two lines. */
	nt = 0;
	for (i = 1; i <= nb; i++) {
		g->bctr[i] = (i <= nc && !chance(s, 10)) ? i : 0;
	}
	nt = nb - (uint32_t)below(s, nb / 3 + 1);
	nt += (uint32_t)below(s, nb / 4 + 1);
	ops = nt + (chance(s, 20) ? (uint32_t)below(s, 4) : 0);

	proc_name(&nm, g->seed, os->obj, p);
	sb_lit(b, "PROC: ");
	sb_put(b, nm.s, nm.n);
	sb_ch(b, ' ');
	if (chance(s, 2)) {
		sig = below(s, 4);
	} else {
		sig = next64(s);
		sig >>= below(s, 8);
	}
	sb_hex(b, sig);
	sb_ch(b, ' ');
	sb_u64(b, nc);
	sb_ch(b, ' ');
	sb_u64(b, sites);
	sb_ch(b, ' ');
	sb_u64(b, nrec);
	sb_ch(b, ' ');
	sb_u64(b, os->reverse_ids ? os->n_procs - p : p + 1);
	sb_ch(b, ' ');
	sb_u64(b, nb);
	sb_ch(b, ' ');
	sb_u64(b, ne);
	sb_ch(b, ' ');
	sb_u64(b, ops);
	sb_ch(b, '\n');

	if (nc > 0 && chance(s, 10)) {
		sb_lit(b, "max ");
		sb_u64(b, pmax);
		sb_ch(b, '\n');
		if (chance(s, 50)) {
			sb_lit(b, "sum ");
			sb_u64(b, psum);
			sb_ch(b, '\n');
		}
	}

	/* Counter records, now and then two of them swapped. */
	for (i = 1; i <= nc; i++) {
		uint32_t c = i;

		if (i < nc && chance(s, 3)) {
			for (c = i + 1; c >= i; c--) {
				sb_u64(b, c);
				sb_ch(b, ' ');
				sb_u64(b, g->vals[c]);
				sb_ch(b, '\n');
			}
			i++;
			continue;
		}
		sb_u64(b, c);
		sb_ch(b, ' ');
		sb_u64(b, g->vals[c]);
		sb_ch(b, '\n');
	}

	gen_vp_records(g, s, &rs, os->obj, p, os->nvpv, nrec);

	for (i = 1; i <= nb; i++) {
		sb_ch(b, 'B');
		sb_u64(b, i);
		sb_lit(b, ": ");
		sb_u64(b, g->bctr[i]);
		sb_ch(b, '\n');
	}
	for (i = 1; i <= ne; i++) {
		uint32_t ctr = nb + i <= nc ? nb + i : 0;
		uint32_t from = i < nb ? i : 1 + (uint32_t)below(s, nb);
		uint32_t to = i < nb ? i + 1 : 1 + (uint32_t)below(s, nb);

		if (i < nb && chance(s, 15))
			to = 1 + (uint32_t)below(s, nb);
		sb_ch(b, 'E');
		sb_u64(b, i);
		sb_ch(b, ' ');
		sb_u64(b, ctr);
		sb_lit(b, " B");
		sb_u64(b, from);
		sb_lit(b, " B");
		sb_u64(b, to);
		sb_ch(b, '\n');
	}

	/*
	 * Source mapping tuples.  The first procedure of some object files
	 * maps into an unknown file (no file on its tuples); inlined code
	 * maps into the module's headers, which many procedures share.
	 */
	unknown = os->cur_file < 0 && p == 0 && chance(s, 10);
	skips = ops - nt;
	id = 0;
	prev_blk = 0;
	for (i = 0; i < nt; i++) {
		uint32_t blk = 1 + (uint32_t)((uint64_t)i * nb / (nt ? nt : 1));
		uint32_t key = os->keybase, line, col = 0;
		int give;

		if (!unknown && chance(s, 10)) {
			uint32_t fn = (uint32_t)below(s, 24);

			key = HDR_KEY((uint32_t)below(s, N_HEADERS));
			line = 20 + fn * 15 + (uint32_t)below(s, 6);
			if (chance(s, 50))
				col = 1 + (uint32_t)below(s, 3) * 4;
		} else {
			/* A block's second tuple is the next line or two. */
			line = os->line + blk * 3 +
			       (blk == prev_blk ? 1 + (uint32_t)below(s, 2) : 0);
			if (os->cols && chance(s, 85))
				col = 1 + (uint32_t)below(s, 70);
		}
		id++;
		if (skips > 0 && chance(s, 30)) {
			id++;
			skips--;
		}
		if (unknown)
			give = 0;
		else if ((int)key != os->cur_file)
			give = 1;
		else
			give = chance(s, i == 0 ? 30 : 2);
		sb_lit(b, "S");
		sb_u64(b, id);
		sb_lit(b, ": B");
		sb_u64(b, blk);
		sb_ch(b, ' ');
		sb_u64(b, line);
		if (col) {
			sb_ch(b, ':');
			sb_u64(b, col);
		}
		if (give) {
			sb_ch(b, ' ');
			sb_put(b, file, srcfile_path(file, g->seed, m, key));
			os->cur_file = (int)key;
			os->files_mask |= 1u << key;
		}
		sb_ch(b, '\n');
		prev_blk = blk;
		if (!unknown) {
			uint64_t cnt = g->bctr[blk] ? g->vals[g->bctr[blk]] : 0;
			size_t ref_len = 8 + nm.n + os->path_len;

			collect(g, key, line, col, os->obj, p, blk, cnt, ref_len);
		}
	}
	os->line += nb * 3 + 6 + (uint32_t)below(s, 20);
	if (g->llvm && nc > 0)
		llvm_func(g, os, &nm, sig, nc);
}

/*
 * Makes the opening draws of object file obj, shared by the writer and by
 * the objfd sizing, so that both see the same stream afterwards.
 */
static void obj_open(gen *g, uint32_t obj, uint64_t *s, objst *os,
		     uint64_t hdr[3])
{
	unsigned nvpw;

	memset(os, 0, sizeof *os);
	*s = mix(g->seed, obj);
	os->obj = obj;
	os->n_procs = n_procs_of(g, obj);
	nvpw = (unsigned)below(s, 100);
	os->nvpv = nvpw < 5 ? 0 : nvpw < 20 ? 1 : nvpw < 35 ? 2 :
		   nvpw < 90 ? 4 : 8;
	os->line = 10 + (uint32_t)below(s, 40);
	os->cols = chance(s, 70);
	os->reverse_ids = chance(s, 10) && g->type != T_OBJFD;
	os->cur_file = -1;
	os->keybase = obj % FILES_PER_MODULE;
	os->path_len = objfile_path(os->path, obj);
	hdr[0] = 1400000000 + below(s, 300000000);	/* tv_sec */
	hdr[1] = below(s, 1000000);			/* tv_usec */
	hdr[2] = next64(s);				/* signature */
	hdr[2] >>= below(s, 4);
	g->hdr_mask = 0;
	g->main_used = 0;
}

static void gen_objfile(gen *g, uint32_t obj)
{
	uint64_t s, hdr[3];
	objst os;
	uint32_t p, n_srcnames = 0, k;
	sink *o = &g->out;
	sbuf line = { 0 };
	uint64_t start_total = o->total + o->b.n;

	obj_open(g, obj, &s, &os, hdr);
	g->body.n = 0;
	g->lbody.n = 0;
	for (p = 0; p < os.n_procs; p++)
		gen_proc(g, &s, &os, p);
	if (g->llvm && !o->dry) {
		sink_put(o, g->lbody.p, g->lbody.n);
		return;
	}
	for (k = 0; k < 32; k++)
		n_srcnames += (os.files_mask >> k) & 1;

	/* The header line and stats need the whole section: emit them last. */
	sb_lit(&line, "OBJFILE:");
	sb_put(&line, os.path, os.path_len);
	sb_ch(&line, ' ');
	sb_u64(&line, os.n_procs);
	sb_ch(&line, ' ');
	sb_u64(&line, hdr[0]);
	sb_ch(&line, ' ');
	sb_u64(&line, hdr[1]);
	sb_ch(&line, ' ');
	sb_u64(&line, os.nvpv);
	sb_ch(&line, ' ');
	sb_hex(&line, hdr[2]);
	sb_ch(&line, ' ');
	sb_u64(&line, n_srcnames);
	sb_ch(&line, '\n');
	switch (below(&s, 6)) {
	case 0:
		break;
	case 1:
		sb_lit(&line, "max ");
		sb_u64(&line, os.max);
		sb_ch(&line, '\n');
		break;
	case 2:
		sb_lit(&line, "sum ");
		sb_u64(&line, os.sum);
		sb_lit(&line, "\nmax ");
		sb_u64(&line, os.max);
		sb_ch(&line, '\n');
		break;
	default:
		sb_lit(&line, "max ");
		sb_u64(&line, os.max);
		sb_lit(&line, "\nsum ");
		sb_u64(&line, os.sum);
		sb_ch(&line, '\n');
		break;
	}
	sink_put(o, line.p, line.n);
	sink_put(o, g->body.p, g->body.n);
	free(line.p);
	g->est_bytes += o->total + o->b.n - start_total;
}

/*
 * objfd: the one object file grows procedure by procedure until the
 * target is met; this finds how many procedures that takes.
 */
static uint32_t objfd_size(gen *g)
{
	uint64_t s, hdr[3];
	objst os;
	uint32_t p;

	obj_open(g, 0, &s, &os, hdr);
	g->body.n = 0;
	for (p = 0;; p++) {
		gen_proc(g, &s, &os, p);
		if (g->target_counters ? g->counters >= g->target_counters
				       : g->body.n + g->est_bytes >= g->target_bytes)
			break;
	}
	return p + 1;
}

/* ------------------------------------------------------------------ */
/* Source file sections                                                */
/* ------------------------------------------------------------------ */

static int ent_cmp(const void *a, const void *b)
{
	const ent *x = a, *y = b;

#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
	CMP(key);
	CMP(line);
	CMP(col);
	CMP(obj);
	CMP(proc);
	CMP(blk);
#undef CMP
	return 0;
}

/* Emits the source file sections of module m from the gathered refs. */
static void emit_srcfiles(gen *g, uint32_t m)
{
	size_t i = 0, j;
	sbuf *b = &g->sec;
	char path[96], opath[96];
	uint32_t nm_obj = UINT32_MAX, nm_proc = 0;
	name nm;
	size_t olen = 0;

	qsort(g->ents, g->n_ents, sizeof *g->ents, ent_cmp);
	while (i < g->n_ents) {
		uint32_t key = g->ents[i].key, nlines = 0;
		char head[160];
		size_t hl;

		b->n = 0;
		while (i < g->n_ents && g->ents[i].key == key) {
			const ent *e0 = &g->ents[i];

			for (j = i; j < g->n_ents && g->ents[j].key == key &&
				    g->ents[j].line == e0->line &&
				    g->ents[j].col == e0->col; j++)
				;
			sb_lit(b, "SRCLINE: ");
			sb_u64(b, e0->line);
			if (e0->col) {
				sb_ch(b, ':');
				sb_u64(b, e0->col);
			}
			sb_ch(b, ' ');
			sb_u64(b, j - i);
			sb_ch(b, '\n');
			nlines++;
			for (; i < j; i++) {
				const ent *e = &g->ents[i];

				if (e->obj != nm_obj || e->proc != nm_proc) {
					proc_name(&nm, g->seed, e->obj, e->proc);
					olen = objfile_path(opath, e->obj);
					nm_obj = e->obj;
					nm_proc = e->proc;
				}
				sb_ch(b, 'B');
				sb_u64(b, e->blk);
				sb_ch(b, ' ');
				sb_u64(b, e->count);
				sb_ch(b, ' ');
				sb_put(b, nm.s, nm.n);
				sb_ch(b, ':');
				sb_put(b, opath, olen);
				sb_ch(b, '\n');
			}
		}
		srcfile_path(path, g->seed, m, key);
		hl = (size_t)sprintf(head, "SRCFILE: %s %u\n", path,
				     (unsigned)nlines);
		sink_put(&g->out, head, hl);
		sink_put(&g->out, b->p, b->n);
	}
	g->n_ents = 0;
}

/*
 * Regenerates the object files of module m into the dry sink, for their
 * block refs; what is already written is flushed first and the byte
 * count is left as it was.
 */
static void gather_module(gen *g, uint32_t m)
{
	uint32_t obj, end = (m + 1) * FILES_PER_MODULE;
	uint64_t total;

	sink_flush(&g->out);
	total = g->out.total;
	g->out.dry = 1;
	g->collect = 1;
	if (end > g->n_obj)
		end = g->n_obj;
	for (obj = m * FILES_PER_MODULE; obj < end; obj++) {
		gen_objfile(g, obj);
		g->out.b.n = 0;
	}
	g->out.total = total;
	g->out.dry = 0;
	g->collect = 0;
}

/* ------------------------------------------------------------------ */
/* Program sections                                                    */
/* ------------------------------------------------------------------ */

static uint32_t n_programs(const gen *g)
{
	if (g->type == T_OBJFD || g->n_obj == 0)
		return 0;
	return (g->n_obj + 63) / 64;
}

/* Program k links object files [first, last) and a shared runtime. */
static void prog_range(const gen *g, uint32_t k, uint32_t *first,
		       uint32_t *last)
{
	uint32_t np = n_programs(g);

	*first = (uint32_t)((uint64_t)k * g->n_obj / np);
	*last = (uint32_t)((uint64_t)(k + 1) * g->n_obj / np);
}

static void emit_program(gen *g, uint32_t k)
{
	uint64_t s = mix(g->seed ^ 0x70726f67, k);
	uint32_t first, last, nshared, ncomdat, i, nref;
	char path[96];
	sbuf *b = &g->sec;
	name nm;

	prog_range(g, k, &first, &last);
	nshared = first >= 4 ? 4 : 0;
	nref = nshared + (last - first);
	ncomdat = chance(&s, 70) ? (uint32_t)below(&s, 12) : 0;
	b->n = 0;
	if (k % 3 == 2)
		sprintf(path, "/build/lib/libmodule_%u.so", (unsigned)k);
	else
		sprintf(path, "/build/bin/prog_%u", (unsigned)k);
	sb_lit(b, "PROGRAM: ");
	sb_put(b, path, strlen(path));
	sb_ch(b, ' ');
	sb_u64(b, nref);
	sb_ch(b, ' ');
	sb_u64(b, ncomdat);
	sb_ch(b, '\n');
	if (chance(&s, 50)) {
		sb_lit(b, "sum ");
		sb_u64(b, next64(&s) >> 20);
		sb_ch(b, '\n');
	}
	if (chance(&s, 30)) {
		sb_lit(b, "max ");
		sb_u64(b, next64(&s) >> 30);
		sb_ch(b, '\n');
	}
	for (i = 0; i < nshared; i++) {
		sb_lit(b, "OBJREF: ");
		sb_put(b, path, objfile_path(path, i));
		sb_ch(b, '\n');
	}
	for (i = first; i < last; i++) {
		sb_lit(b, "OBJREF: ");
		sb_put(b, path, objfile_path(path, i));
		sb_ch(b, '\n');
	}
	for (i = 0; i < ncomdat; i++) {
		uint32_t obj = first + (uint32_t)below(&s, last - first);
		uint32_t np = n_procs_of(g, obj);

		if (np == 0)
			np = 1;
		proc_name(&nm, g->seed, obj, (uint32_t)below(&s, np));
		sb_lit(b, "COMDAT_PROC: ");
		sb_put(b, nm.s, nm.n);
		sb_ch(b, ':');
		sb_put(b, path, objfile_path(path, obj));
		sb_ch(b, '\n');
	}
	sink_put(&g->out, b->p, b->n);
}

/* ------------------------------------------------------------------ */
/* The two passes                                                      */
/* ------------------------------------------------------------------ */

/*
 * The dry pass: object files are generated, counted and thrown away
 * until the target is met.  Returns the number of source file sections.
 */
static uint32_t dry_pass(gen *g)
{
	uint32_t obj, n_src = 0, mask = 0, k;

	g->out.dry = 1;
	if (g->type == T_OBJFD) {
		g->objfd_procs = objfd_size(g);
		g->counters = 0;
		g->est_bytes = 0;
		g->proc_names = 0;
	}
	for (obj = 0;; obj++) {
		if (obj > 0 && obj % FILES_PER_MODULE == 0) {
			for (k = 0; k < N_HEADERS; k++)
				n_src += (mask >> k) & 1;
			mask = 0;
		}
		gen_objfile(g, obj);
		g->out.b.n = 0;
		n_src += (uint32_t)g->main_used;
		mask |= g->hdr_mask;
		if (g->type == T_OBJFD)
			break;
		if (g->target_counters ? g->counters >= g->target_counters
				       : g->est_bytes >= g->target_bytes)
			break;
	}
	for (k = 0; k < N_HEADERS; k++)
		n_src += (mask >> k) & 1;
	g->n_obj = obj + 1;
	g->out.dry = 0;
	if (getenv("GEN_DEBUG"))
		fprintf(stderr, "gen: estimate %llu bytes, %llu counters\n",
			(unsigned long long)g->est_bytes,
			(unsigned long long)g->counters);
	g->out.total = 0;
	return g->v43 ? 0 : n_src;
}

/*
 * -l: the object files' functions under LLVM's header of an IR-level
 * profile; programs and source files have no counterpart there.
 */
static int write_llvm(gen *g)
{
	static const char head[] = "# IR level Instrumentation Flag\n:ir\n";
	uint32_t obj;

	sink_put(&g->out, head, sizeof head - 1);
	for (obj = 0; obj < g->n_obj; obj++)
		gen_objfile(g, obj);
	sink_flush(&g->out);
	if (fflush(stdout) != 0)
		die("write");
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: gen [-3il] [-s seed] [-r run] [-m megabytes | -n counters] "
		"[-t type]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	gen g;
	uint32_t n_src, np, obj, k, m, pk = 0;
	char head[200];
	int c;
	size_t hl;
	char *end;

	memset(&g, 0, sizeof g);
	g.target_bytes = 10u << 20;
	while ((c = getopt(argc, argv, "3ilm:n:r:s:t:")) != -1) {
		switch (c) {
		case '3':
			g.v43 = 1;
			break;
		case 'i':
			g.interleave = 1;
			break;
		case 'l':
			g.llvm = 1;
			break;
		case 'm':
			g.target_bytes = (uint64_t)(strtod(optarg, &end) *
						    1048576.0);
			if (*end != '\0')
				usage();
			break;
		case 'n':
			g.target_counters = strtoull(optarg, &end, 10);
			if (*end != '\0' || g.target_counters == 0)
				usage();
			break;
		case 'r':
			g.run = strtoull(optarg, &end, 0);
			if (*end != '\0')
				usage();
			break;
		case 's':
			g.seed = strtoull(optarg, &end, 0);
			if (*end != '\0')
				usage();
			break;
		case 't':
			if (strcmp(optarg, "feedback") == 0)
				g.type = T_FEEDBACK;
			else if (strcmp(optarg, "tcovd") == 0)
				g.type = T_TCOVD;
			else if (strcmp(optarg, "objfd") == 0)
				g.type = T_OBJFD;
			else if (strcmp(optarg, "tcovsd") == 0)
				g.type = T_TCOVSD;
			else
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (g.llvm && g.type != T_FEEDBACK))
		usage();

	n_src = dry_pass(&g);
	if (g.llvm)
		return write_llvm(&g);
	np = n_programs(&g);
	if (g.v43)
		hl = (size_t)sprintf(head, "PROFILE-FEEDBACK-DATA: 4.3 %u %u %llu",
				     (unsigned)g.n_obj, (unsigned)np,
				     (unsigned long long)g.proc_names);
	else
		hl = (size_t)sprintf(head,
				     "PROFILE-FEEDBACK-DATA: 4.4 %u %u %llu %u",
				     (unsigned)g.n_obj, (unsigned)np,
				     (unsigned long long)g.proc_names,
				     (unsigned)n_src);
	if (g.type != T_FEEDBACK) {
		static const char *const tn[] = { "", "tcovd", "objfd", "tcovsd" };

		hl += (size_t)sprintf(head + hl, " %s", tn[g.type]);
	}
	head[hl++] = '\n';
	sink_put(&g.out, head, hl);

	for (obj = 0; obj < g.n_obj; obj++) {
		int last_of_module = (obj + 1) % FILES_PER_MODULE == 0 ||
				     obj + 1 == g.n_obj;

		gen_objfile(&g, obj);
		if (!g.interleave)
			continue;
		if (last_of_module && !g.v43) {
			gather_module(&g, module_of(obj));
			emit_srcfiles(&g, module_of(obj));
		}
		for (; pk < np; pk++) {
			uint32_t first, last;

			prog_range(&g, pk, &first, &last);
			if (last > obj + 1)
				break;
			emit_program(&g, pk);
		}
	}
	if (!g.interleave) {
		for (k = 0; k < np; k++)
			emit_program(&g, k);
		if (!g.v43)
			for (m = 0; m <= module_of(g.n_obj - 1); m++) {
				gather_module(&g, m);
				emit_srcfiles(&g, m);
			}
	}
	sink_flush(&g.out);
	if (fflush(stdout) != 0)
		die("write");
	free(g.out.b.p);
	free(g.body.p);
	free(g.sec.p);
	free(g.lbody.p);
	free(g.vals);
	free(g.bctr);
	free(g.ents);
	return 0;
}
