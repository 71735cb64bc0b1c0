/*
 * cpuprof/report.c - flat and cumulative samples per function (or per
 * function and source line) of a CPU profile, as google-pprof --text
 * computes them (cpuprofile(5), REPORTS):
 *
 *  1. Every PC but the first of a call chain is a return address and has
 *     1 subtracted, so that it falls inside the call instruction (not for
 *     the Java variant, whose "PCs" are method ids).
 *  2. A PC belongs to the object of the executable mapping line with the
 *     highest start address at or below it (end included, as pprof does)
 *     whose path names a shared object (".so" with an optional version)
 *     or the main program; other PCs belong to the main program, which is
 *     taken to be loaded at its link-time addresses.  The main program is
 *     the -e executable; its mapping lines are those whose path is the
 *     executable's, or has the same base name.
 *  3. A PC in a position-independent object maps to the address
 *     PC - start + file offset of its mapping; in an object linked at a
 *     fixed address it is used as it is.  The function is addr2line's
 *     (demangled, shortened), or the name of pprof's routine from nm
 *     (cpuprof/names.c) when that starts with it or addr2line knows
 *     none; "0x" and the address when no routine holds the PC; the bare
 *     address when the object cannot be opened or has no symbols.
 *     Short names that routines at different addresses share get
 *     "@address".  pprof runs addr2line -i on an object whose nm lists
 *     "_fini" (its separator between addresses): there an address where
 *     calls were inlined is also the frames of those calls (libbfd's
 *     chain of inliners, read once per address), each named as above
 *     with " (inline)" after the name and placed at its own line, while
 *     the function holding the code gets the line of the outermost call.
 *  4. While the second PC of every call chain is the same, it is a frame
 *     of the profiler's signal handler and is removed (with the next one
 *     when it is the leaf PC's own return address), and frames of the
 *     functions pprof lists as the profiler's own are dropped.
 *  5. Each chain is turned into function names (addresses above
 *     0x7fffffffffffffff skipped; an address's inlined frames, innermost
 *     first, before its own), each name counted once per chain: the
 *     first gets the flat samples, all get the cumulative ones.  Step 4
 *     goes by the function holding the code, never an inlined one.
 *
 * The module's report entry (xp_cp_report_new, for xp_prof_report())
 * refuses the options of xp_report_opts that pprof --text has no use
 * for.
 */
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cpuprof/cpuprof.h"

struct xp_cpuprof_report {
	xp_strpool sp;
	xp_cpuprof_entry *e;
	size_t n;
	uint64_t total;
	char **removed;
	size_t nremoved;
};


/* An object we tried to open. */
typedef struct {
	char *path;
	xp_sym *sym;       /* NULL: could not be opened */
	xp_cp_names names;    /* pprof's routines, once built */
	int names_built;
} objent;

typedef struct {
	const char *path;
	uint64_t start, end, offset;
	int main;          /* the main program's fallback entry */
} libent;

typedef struct {
	xp_strpool *sp;
	objent *objs;
	size_t nobj;
	int width;         /* hex digits of an address */
	xp_sym_frame *fb;  /* one address's chain of inlined calls */
	size_t fbcap;
	addrinfo *in;      /* the inlined frames so far (xp_cp_an.in) */
	size_t nin, incap;
} symctx;

static xp_err intern(xp_strpool *sp, const char *s, uint32_t *id)
{
	return xp_strpool_intern(sp, s, strlen(s), id);
}

/* The bare address, zero-padded as pprof prints a PC it cannot name. */
static xp_err intern_pc(symctx *c, uint64_t addr, uint32_t *id)
{
	char buf[40];
	snprintf(buf, sizeof buf, "%0*llx", c->width, (unsigned long long)addr);
	return intern(c->sp, buf, id);
}

/* The symbols of path (pprof's /usr/lib/debug copy first), cached;
 * NULL when out of memory. */
static objent *obj_open(symctx *c, const char *path)
{
	char dbg[PATH_MAX + 16];
	struct stat st;
	xp_sym *s = NULL;
	xp_diags *d;

	for (size_t i = 0; i < c->nobj; i++)
		if (strcmp(c->objs[i].path, path) == 0)
			return &c->objs[i];
	d = xp_diags_new(1);
	if (d != NULL) {
		if (path[0] == '/' &&
		    snprintf(dbg, sizeof dbg, "/usr/lib/debug%s", path) <
		    (int)sizeof dbg && stat(dbg, &st) == 0 &&
		    S_ISREG(st.st_mode) && xp_sym_open(dbg, &s, d) == XP_E_OK &&
		    xp_sym_count(s) == 0) {
			xp_sym_free(s);
			s = NULL;
		}
		if (s == NULL && xp_sym_open(path, &s, d) != XP_E_OK)
			s = NULL;
		xp_diags_free(d);
	}
	objent *q = realloc(c->objs, (c->nobj + 1) * sizeof *q);
	char *cp = strdup(path);
	if (q == NULL || cp == NULL) {
		if (q != NULL)
			c->objs = q;
		free(cp);
		xp_sym_free(s);
		return NULL;
	}
	c->objs = q;
	memset(&c->objs[c->nobj], 0, sizeof c->objs[c->nobj]);
	c->objs[c->nobj].path = cp;
	c->objs[c->nobj].sym = s;
	return &c->objs[c->nobj++];
}

/* Whether a routine's name ends in pprof's "<address>" tag. */
static int is_tagged(const char *s)
{
	size_t n = strlen(s), i;

	if (n < 3 || s[n - 1] != '>')
		return 0;
	for (i = n - 1; i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') ||
	                          (s[i - 1] >= 'a' && s[i - 1] <= 'f')); i--)
		;
	return i > 0 && i < n - 1 && s[i - 1] == '<';
}

/* pprof's table of routines of o, built on first use. */
static xp_err obj_names(objent *o)
{
	xp_err err;

	if (!o->names_built) {
		if ((err = xp_cp_names_build(o->sym, &o->names)) != XP_E_OK)
			return err;
		o->names_built = 1;
	}
	return XP_E_OK;
}

/*
 * The function pprof names for sa: addr2line's (demangled, shortened),
 * unless its table of routines from nm has a name for sa that begins
 * with it (then that one, which carries a symbol version), or addr2line
 * knows none (then the table's, or "0x" and the address; "??" when the
 * table is empty).  ai->full gets the routine's tagged name when it gave
 * the name.  pprof asks this of every frame of a chain of inlined calls.
 */
static xp_err function_name(symctx *c, objent *o, uint64_t sa,
                            const char *fn, addrinfo *ai)
{
	char *dem = NULL, *func = NULL, pcs[40];
	const char *full = fn != NULL && fn[0] != '\0' ? fn : NULL;
	const char *nm;
	xp_err err;

	snprintf(pcs, sizeof pcs, "0x%0*llx", c->width,
	         (unsigned long long)ai->addr);
	nm = o->names.n == 0 ? NULL : xp_cp_names_find(&o->names, sa);
	if (nm == NULL && o->names.n > 0)
		nm = pcs;
	if (full != NULL) {
		dem = xp_sym_demangle(o->sym, full);
		func = xp_cp_short_name(dem != NULL ? dem : full);
		if (func == NULL) {
			free(dem);
			return XP_E_NOMEM;
		}
		if (nm != NULL && strncmp(nm, func, strlen(func)) == 0) {
			free(func);
			func = NULL;
		}
	}
	/* pprof's full name (its --collapsed stacks): addr2line's, else the
	 * table's. */
	err = func != NULL ? intern(c->sp, dem != NULL ? dem : full, &ai->lname)
	      : nm != NULL ? intern(c->sp, nm, &ai->lname) : XP_E_OK;
	free(dem);
	if (err != XP_E_OK) {
		free(func);
		return err;
	}
	if (func == NULL && nm == NULL) {
		ai->unknown = 1;
		func = strdup("??");
	} else if (func == NULL) {
		func = nm == pcs ? strdup(pcs) : xp_cp_short_name(nm);
		if (func != NULL && nm != pcs && is_tagged(nm) &&
		    (err = intern(c->sp, nm, &ai->full)) != XP_E_OK) {
			free(func);
			return err;
		}
	}
	if (func == NULL)
		return XP_E_NOMEM;
	err = intern(c->sp, func, &ai->name);
	free(func);
	return err;
}

/*
 * The frames addr2line gives pprof for sa, innermost first, into c->fb:
 * the whole chain of inlined calls when pprof runs addr2line -i on the
 * object (xp_cp_names.inlines), else the first frame; an address without
 * lines is one frame that knows nothing.  libbfd is asked a second time
 * only for a chain deeper than any before.  Returns the number of
 * frames, 0 when out of memory.
 */
static size_t read_frames(symctx *c, objent *o, uint64_t sa)
{
	size_t n = 16, max;

	for (;;) {
		if (n > c->fbcap) {
			xp_sym_frame *q = realloc(c->fb, n * sizeof *q);
			if (q == NULL)
				return 0;
			c->fb = q;
			c->fbcap = n;
		}
		max = o->names.inlines ? c->fbcap : 1;
		n = xp_sym_inlined(o->sym, sa, c->fb, max);
		if (n > max && !o->names.inlines)
			n = 1;
		if (n <= max)
			break;
	}
	if (n == 0) {
		c->fb[0] = (xp_sym_frame){NULL, NULL, 0};
		n = 1;
	}
	return n;
}

/* An addrinfo that names nothing yet. */
static void info_init(addrinfo *ai, uint64_t addr)
{
	memset(ai, 0, sizeof *ai);
	ai->addr = addr;
	ai->name = ai->file = ai->obj = ai->full = ai->sym = UINT32_MAX;
}

/* Frame f of sa in the object at lib, named and placed, into ai. */
static xp_err name_frame(symctx *c, objent *o, const libent *lib,
                         uint64_t sa, const xp_sym_frame *f, addrinfo *ai)
{
	xp_err err;

	if ((err = function_name(c, o, sa, f->func, ai)) != XP_E_OK ||
	    (err = intern(c->sp, lib->path, &ai->obj)) != XP_E_OK)
		return err;
	if (f->file != NULL &&
	    (err = intern(c->sp, f->file, &ai->file)) != XP_E_OK)
		return err;
	ai->line = f->line;
	return XP_E_OK;
}

/*
 * For the conversion to feedback, the linker name of the function holding
 * sa, into ai->sym, and the address of its symbol: the symbol table's
 * function (xp_sym_lookup); but in an object without a static symbol
 * table, whose few dynamic symbols would give the code of local functions
 * to the exported one before them, the name of the function holding the
 * code from the debugging information (func, when known; a C function's
 * name, a C++ one's linkage name), at address 0.
 */
static xp_err linker_name(symctx *c, objent *o, uint64_t sa,
                          const char *func, addrinfo *ai)
{
	const xp_symbol *y = xp_sym_lookup(o->sym, sa);

	if (xp_sym_stripped(o->sym) && func != NULL && func[0] != '\0') {
		ai->symaddr = 0;
		return intern(c->sp, func, &ai->sym);
	}
	if (y == NULL || y->name[0] == '\0')
		return XP_E_OK;
	ai->symaddr = y->addr;
	return intern(c->sp, y->name, &ai->sym);
}

/* addr named: the outermost frame into ai, the inlined ones after c->in. */
static xp_err symbolize(symctx *c, const libent *lib, uint64_t addr,
                        addrinfo *ai)
{
	objent *o = lib != NULL ? obj_open(c, lib->path) : NULL;
	uint64_t sa = addr;
	size_t n;
	xp_err err;

	info_init(ai, addr);
	if (lib != NULL && o == NULL)
		return XP_E_NOMEM;
	if (o == NULL || o->sym == NULL) {
		if ((err = intern_pc(c, addr, &ai->key)) != XP_E_OK)
			return err;
		ai->name = ai->disp = ai->key;
		ai->keyed = 1;
		return XP_E_OK;
	}
	if (!lib->main && xp_sym_is_pic(o->sym))
		sa = addr - lib->start + lib->offset;
	if ((err = obj_names(o)) != XP_E_OK)
		return err;
	if ((n = read_frames(c, o, sa)) == 0)
		return XP_E_NOMEM;
	if ((err = linker_name(c, o, sa, c->fb[n - 1].func, ai)) != XP_E_OK)
		return err;
	if (n - 1 > c->incap - c->nin) {
		size_t cap = c->incap * 2 > c->nin + n ? c->incap * 2
		                                       : c->nin + n;
		addrinfo *q = realloc(c->in, cap * sizeof *q);
		if (q == NULL)
			return XP_E_NOMEM;
		c->in = q;
		c->incap = cap;
	}
	ai->in = c->nin;
	ai->nin = n - 1;
	for (size_t j = 0; j + 1 < n; j++) {
		addrinfo *f = &c->in[c->nin++];
		info_init(f, addr);
		if ((err = name_frame(c, o, lib, sa, &c->fb[j], f)) != XP_E_OK)
			return err;
	}
	return name_frame(c, o, lib, sa, &c->fb[n - 1], ai);
}

typedef struct {
	uint32_t name, full;
	size_t i;
} named;

static int cmp_named(const void *a, const void *b)
{
	const named *x = a, *y = b;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	return x->full < y->full ? -1 : x->full > y->full;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* x->disp: x's name, with the address of its routine when others of the
 * name at other addresses are listed (pprof's "name@address", no leading
 * zeros), then " (inline)" when x is an inlined frame. */
static xp_err set_disp(symctx *c, addrinfo *x, int at, int inlined)
{
	const char *name = xp_strpool_str(c->sp, x->name);
	const char *tag = at ? strrchr(xp_strpool_str(c->sp, x->full), '<') + 1
	                     : "";
	size_t need = strlen(name) + strlen(tag) + 16;
	char *d;
	xp_err err;

	if (!at && !inlined) {
		x->disp = x->name;
		return XP_E_OK;
	}
	if ((d = malloc(need)) == NULL)
		return XP_E_NOMEM;
	while (*tag == '0')
		tag++;
	snprintf(d, need, "%s%s%.*s%s", name, at ? "@" : "",
	         (int)strcspn(tag, ">"), tag, inlined ? " (inline)" : "");
	err = intern(c->sp, d, &x->disp);
	free(d);
	return err;
}

/* x->key: its name shown, or by_line that and its "file:line". */
static xp_err set_key(symctx *c, addrinfo *x, int by_line)
{
	const char *disp = xp_strpool_str(c->sp, x->disp);
	const char *file = x->file != UINT32_MAX
	                   ? xp_strpool_str(c->sp, x->file) : "??";
	size_t need = strlen(disp) + strlen(file) + 32;
	char *k;
	xp_err err;

	if (!by_line) {
		x->key = x->disp;
		return XP_E_OK;
	}
	if ((k = malloc(need)) == NULL)
		return XP_E_NOMEM;
	snprintf(k, need, "%s %s:%u", disp, file, x->line);
	err = intern(c->sp, k, &x->key);
	free(k);
	return err;
}

/*
 * pprof's FillFullnameToShortnameMap: a short name that the outermost
 * frames of two routines of different addresses give is shown with the
 * routine's address for each of them, and so is every frame, inlined or
 * not, named from one of those routines.  Returns the routines' tagged
 * names (full) so marked, sorted, in *mapped (*nmapped of them).
 */
static xp_err map_names(const addrinfo *ai, size_t na,
                        uint32_t **mapped, size_t *nmapped)
{
	named *ix = malloc((na ? na : 1) * sizeof *ix);
	uint32_t *m = malloc((na ? na : 1) * sizeof *m);
	size_t n = 0, nm = 0;

	*mapped = m;
	if (ix == NULL || m == NULL) {
		free(ix);
		return XP_E_NOMEM;
	}
	for (size_t i = 0; i < na; i++)
		if (!ai[i].keyed && ai[i].full != UINT32_MAX)
			ix[n++] = (named){ai[i].name, ai[i].full, i};
	xp_qsort(ix, n, sizeof *ix, cmp_named);
	for (size_t g = 0; g < n;) {
		size_t e = g + 1;
		int several = 0;
		while (e < n && ix[e].name == ix[g].name) {
			if (ix[e].full != ix[g].full)
				several = 1;
			e++;
		}
		for (size_t k = g; several && k < e; k++)
			m[nm++] = ix[k].full;
		g = e;
	}
	free(ix);
	xp_qsort(m, nm, sizeof *m, cmp_u32);
	*nmapped = nm;
	return XP_E_OK;
}

/* Whether full is among the n sorted names of m. */
static int is_mapped(const uint32_t *m, size_t n, uint32_t full)
{
	return full != UINT32_MAX && n > 0 &&
	       bsearch(&full, m, n, sizeof *m, cmp_u32) != NULL;
}

/*
 * The names shown (map_names, and " (inline)" for inlined frames) and
 * the keys: pprof keys a frame that has no name from anywhere ("??", and
 * by_line no file and line either) by its address, but not an inlined
 * one, whose name "?? (inline)" is no longer pprof's "??".
 */
static xp_err name_keys(symctx *c, addrinfo *ai, size_t na, addrinfo *in,
                        size_t nin, int by_line)
{
	uint32_t *m = NULL;
	size_t nm = 0;
	xp_err err = map_names(ai, na, &m, &nm);

	for (size_t i = 0; i < na && err == XP_E_OK; i++) {
		addrinfo *x = &ai[i];

		if (x->keyed)
			continue;
		if (x->unknown && (!by_line ||
		                   (x->file == UINT32_MAX && x->line == 0))) {
			err = intern_pc(c, x->addr, &x->key);
			x->disp = x->key;
		} else if ((err = set_disp(c, x, is_mapped(m, nm, x->full),
		                           0)) == XP_E_OK) {
			err = set_key(c, x, by_line);
		}
	}
	for (size_t i = 0; i < nin && err == XP_E_OK; i++)
		if ((err = set_disp(c, &in[i], is_mapped(m, nm, in[i].full),
		                    1)) == XP_E_OK)
			err = set_key(c, &in[i], by_line);
	free(m);
	return err;
}

/* The Java variant: " 0xID name (file:line)" lines name the ids. */
static xp_err java_names(const xp_cpuprof *p, symctx *c, int by_line,
                         addrinfo *ai, size_t na)
{
	/* A profile without a text has no names (and p->text is NULL). */
	const char *s = p->text != NULL ? p->text : "";
	const char *end = s + (p->text != NULL ? p->textlen : 0);
	xp_err err;

	for (size_t i = 0; i < na; i++) {
		if ((err = intern_pc(c, ai[i].addr, &ai[i].key)) != XP_E_OK)
			return err;
		ai[i].name = ai[i].key;
		ai[i].file = ai[i].obj = ai[i].sym = UINT32_MAX;
		ai[i].line = 0;
	}
	while (p->textlen > 0 && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl != NULL ? nl : end, *q = s, *ns;
		uint64_t id = 0;
		int digits = 0;

		s = nl != NULL ? nl + 1 : end;
		while (q < le && *q == ' ')
			q++;
		if (le - q < 3 || q[0] != '0' || q[1] != 'x')
			continue;
		for (q += 2; q < le && ((*q >= '0' && *q <= '9') ||
		                        (*q >= 'a' && *q <= 'f') ||
		                        (*q >= 'A' && *q <= 'F')); q++, digits++)
			id = id << 4 | (uint64_t)(*q <= '9' ? *q - '0'
			                                   : (*q | 0x20) - 'a' + 10);
		if (digits == 0 || digits > 16 || q >= le || *q != ' ')
			continue;
		ns = ++q;
		/* name, then an optional " (file:line)" */
		const char *ne = le, *file = NULL, *fe = NULL;
		unsigned line = 0;
		if (ne > ns && ne[-1] == ')') {
			const char *op = ne - 1;
			while (op > ns && *op != '(')
				op--;
			if (*op == '(' && op > ns && op[-1] == ' ') {
				const char *colon = ne - 1;
				while (colon > op && *colon != ':')
					colon--;
				file = op + 1;
				fe = colon > op ? colon : ne - 1;
				for (const char *x = colon + 1; colon > op &&
				     x < ne - 1 && *x >= '0' && *x <= '9'; x++)
					line = line * 10 + (unsigned)(*x - '0');
				ne = op - 1;
			}
		}
		size_t lo = 0, hi = na;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (ai[mid].addr < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == na || ai[lo].addr != id)
			continue;
		if ((err = xp_strpool_intern(c->sp, ns, (size_t)(ne - ns),
		                             &ai[lo].name)) != XP_E_OK)
			return err;
		ai[lo].key = ai[lo].name;
		if (file != NULL &&
		    (err = xp_strpool_intern(c->sp, file, (size_t)(fe - file),
		                             &ai[lo].file)) != XP_E_OK)
			return err;
		ai[lo].line = line;
		if (by_line) {
			size_t need = (size_t)(ne - ns) + (size_t)(fe - file) + 32;
			char *k = malloc(need);
			if (k == NULL)
				return XP_E_NOMEM;
			snprintf(k, need, "%.*s %.*s:%u", (int)(ne - ns), ns,
			         file ? (int)(fe - file) : 2, file ? file : "??",
			         line);
			err = intern(c->sp, k, &ai[lo].key);
			free(k);
			if (err != XP_E_OK)
				return err;
		}
	}
	for (size_t i = 0; i < na; i++) {
		ai[i].disp = ai[i].name;
		ai[i].keyed = 1;
	}
	return XP_E_OK;
}


static size_t find_addr(const addrinfo *ai, size_t na, uint64_t a)
{
	size_t lo = 0, hi = na;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ai[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const char *const skip_names[] = {
	"ProfileData::Add", "ProfileData::prof_handler",
	"CpuProfiler::prof_handler", "__FRAME_END__", "__pthread_sighandler",
	"__restore", NULL
};

typedef struct {
	uint32_t key;
	uint64_t flat, cum;
	const addrinfo *f;  /* a frame with this key */
} acc_t;

static int cmp_entry(const void *x, const void *y, const xp_strpool *sp)
{
	const acc_t *a = x, *b = y;
	if (a->flat != b->flat)
		return a->flat > b->flat ? -1 : 1;
	return strcmp(xp_strpool_str(sp, a->key), xp_strpool_str(sp, b->key));
}

/* The entries being sorted, for xp_sort_idx. */
typedef struct {
	const acc_t *v;
	const xp_strpool *sp;
} entries;

static int cmp_entry_at(const void *ctx, size_t x, size_t y)
{
	const entries *e = ctx;
	return cmp_entry(&e->v[x], &e->v[y], e->sp);
}

/* Sorts the n entries of v by cmp_entry, equal ones in the order they
 * had: their indices by xp_sort_idx, or in place by insertion when
 * memory runs out. */
static void sort_entries(acc_t *v, size_t n, const xp_strpool *sp)
{
	size_t *ix;
	acc_t *out;
	if (n < 2)
		return;
	ix = malloc(2 * n * sizeof *ix);
	out = malloc(n * sizeof *out);
	if (ix == NULL || out == NULL) {
		XP_FREE(ix, out);
		for (size_t i = 1; i < n; i++)
			for (size_t j = i; j > 0 &&
			     cmp_entry(&v[j - 1], &v[j], sp) > 0; j--) {
				acc_t t = v[j];
				v[j] = v[j - 1];
				v[j - 1] = t;
			}
		return;
	}
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	xp_sort_idx(ix, ix + n, n, cmp_entry_at, &(entries){v, sp});
	for (size_t i = 0; i < n; i++)
		out[i] = v[ix[i]];
	memcpy(v, out, n * sizeof *v);
	XP_FREE(ix, out);
}

void xp_cp_an_free(xp_cp_an *an)
{
	for (size_t i = 0; i < an->nremoved; i++)
		free(an->removed[i]);
	XP_FREE(an->removed, an->ai, an->in, an->ad, an->ch, an->hslot);
	xp_strpool_free(&an->sp);
	memset(an, 0, sizeof *an);
}

/* The analysis's working state. */
typedef struct {
	const xp_cpuprof *p;
	xp_cp_an *an;
	symctx c;
	const char *exe;          /* NULL: none given */
	char exereal[PATH_MAX];   /* its real path, when given */
	int java, by_line;
	uint64_t maxpc;           /* the highest address of the chains */
} anstate;

/* Step 1: the chains, caller PCs minus one, and the total samples. */
static xp_err make_chains(anstate *s)
{
	const xp_cpuprof *p = s->p;
	xp_cp_an *an = s->an;
	uint64_t *ad;

	an->ad = ad = malloc((p->npc ? p->npc : 1) * sizeof *ad);
	an->ch = malloc((p->nrec ? p->nrec : 1) * sizeof *an->ch);
	if (ad == NULL || an->ch == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < p->nrec; i++) {
		const xp_cp_rec *rc = &p->recs[i];
		an->ch[i] = (chain){rc->count, rc->first, rc->npcs};
		for (size_t k = 0; k < rc->npcs; k++) {
			uint64_t pc = p->pcs[rc->first + k];
			ad[rc->first + k] = k > 0 && !s->java ?
			                    (pc - 1) & xp_cp_slot_max(p->slot) : pc;
			if (ad[rc->first + k] > s->maxpc)
				s->maxpc = ad[rc->first + k];
		}
		an->total = rc->count > UINT64_MAX - an->total ? UINT64_MAX
		                                             : an->total + rc->count;
	}
	an->nch = p->nrec;
	return XP_E_OK;
}

/* Steps 2 and 3 for native code: each address's object, from the
 * executable mappings of shared objects and of the main program, then
 * its function, file and line. */
static xp_err symbolize_native(anstate *s)
{
	const xp_cpuprof *p = s->p;
	const char *exe = s->exe;
	addrinfo *ai = s->an->ai;
	libent *libs;
	size_t nlib = 0;
	int have_exe = exe != NULL;
	xp_err err = XP_E_OK;

	libs = malloc((p->nmaps + 1) * sizeof *libs);
	if (libs == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < p->nmaps; i++) {
		const xp_cpuprof_map *m = &p->maps[i];
		if (!xp_cp_map_exec(m) || m->path[0] == '\0')
			continue;
		if (!xp_cp_is_shlib(m->path) &&
		    !(have_exe && xp_cp_is_exe_map(m, s->exereal)))
			continue;
		libs[nlib++] = (libent){m->path, m->start, m->end,
		                        m->offset, 0};
		if (have_exe && !xp_cp_is_shlib(m->path))
			libs[nlib - 1].path = exe;
	}
	for (size_t i = 0; i < s->an->na && err == XP_E_OK; i++) {
		const libent *best = NULL;
		for (size_t k = 0; k < nlib; k++)
			if (libs[k].start <= ai[i].addr &&
			    ai[i].addr <= libs[k].end &&
			    (best == NULL || libs[k].start > best->start))
				best = &libs[k];
		libent mainent = {exe, 0, s->maxpc, 0, 1};
		if (best == NULL && have_exe)
			best = &mainent;
		err = symbolize(&s->c, best, ai[i].addr, &ai[i]);
	}
	free(libs);
	if (err != XP_E_OK)
		return err;
	return name_keys(&s->c, ai, s->an->na, s->c.in, s->c.nin, s->by_line);
}

/* Steps 2 and 3: every distinct address of the chains, named. */
static xp_err name_addresses(anstate *s)
{
	const xp_cpuprof *p = s->p;
	xp_cp_an *an = s->an;
	uint64_t *uniq;
	size_t na = 0;

	uniq = malloc((p->npc ? p->npc : 1) * sizeof *uniq);
	if (uniq == NULL)
		return XP_E_NOMEM;
	memcpy(uniq, an->ad, p->npc * sizeof *uniq);
	if (xp_sort_records(uniq, p->npc, sizeof *uniq, (const size_t[]){0},
	                    1) != XP_E_OK) {
		free(uniq);
		return XP_E_NOMEM;
	}
	for (size_t i = 0; i < p->npc; i++)
		if (na == 0 || uniq[na - 1] != uniq[i])
			uniq[na++] = uniq[i];
	an->ai = calloc(na ? na : 1, sizeof *an->ai);
	if (an->ai == NULL) {
		free(uniq);
		return XP_E_NOMEM;
	}
	an->na = na;
	for (size_t i = 0; i < na; i++)
		an->ai[i].addr = uniq[i];
	free(uniq);
	if (s->java)
		return java_names(p, &s->c, s->by_line, an->ai, na);
	return symbolize_native(s);
}

/* The analysis of the top of the file, steps 1 to 4. */
/*
 * 4. The profiler's signal frames: while every chain has the same second
 * frame, that frame is the signal handler's and is removed (with the
 * next one when it returns into the first), and its name recorded.
 */
static xp_err drop_signal_frames(anstate *s)
{
	xp_cp_an *an = s->an;
	uint64_t *ad = an->ad;
	chain *ch = an->ch;
	size_t nch = an->nch;

	for (;;) {
		uint64_t second = 0;
		int same = nch > 0;
		for (size_t i = 0; i < nch && same; i++) {
			if (ch[i].n < 2)
				same = 0;
			else if (i == 0)
				second = ad[ch[i].off + 1];
			else if (ad[ch[i].off + 1] != second)
				same = 0;
		}
		if (!same || s->java)
			return XP_E_OK;
		size_t k = find_addr(an->ai, an->na, second);
		const char *nm = xp_strpool_str(&an->sp, an->ai[k].name);
		char **q = realloc(an->removed, (an->nremoved + 1) * sizeof *q);
		if (q == NULL)
			return XP_E_NOMEM;
		an->removed = q;
		if ((an->removed[an->nremoved] = strdup(nm)) == NULL)
			return XP_E_NOMEM;
		an->nremoved++;
		for (size_t i = 0; i < nch; i++) {
			uint64_t *a = ad + ch[i].off;
			size_t drop = 1;
			if (ch[i].n > 3 && a[2] + 1 == a[0])
				drop = 2;
			memmove(a + 1, a + 1 + drop,
			        (ch[i].n - 1 - drop) * sizeof *a);
			ch[i].n -= drop;
		}
	}
}

/* The table of the addresses by hash, for xp_cp_frame_ok: every frame
 * of every chain is looked up, and a search of a few hundred thousand
 * addresses misses the cache at each step. */
static xp_err hash_addresses(xp_cp_an *an)
{
	size_t slots = 16;
	while (slots / 2 < an->na) {
		if (slots > SIZE_MAX / 4 / sizeof *an->hslot || an->na >= UINT32_MAX)
			return XP_E_NOMEM;
		slots *= 2;
	}
	if ((an->hslot = calloc(slots, sizeof *an->hslot)) == NULL)
		return XP_E_NOMEM;
	an->hmask = slots - 1;
	for (size_t i = 0; i < an->na; i++) {
		size_t h = (size_t)xp_mix64(an->ai[i].addr) & an->hmask;
		while (an->hslot[h] != 0)
			h = (h + 1) & an->hmask;
		an->hslot[h] = (uint32_t)i + 1;
	}
	return XP_E_OK;
}

xp_err xp_cp_analyze(const xp_cpuprof *p, const char *exe, int by_line,
                     xp_cp_an *an)
{
	anstate s = {0};
	xp_err err;

	memset(an, 0, sizeof *an);
	s.p = p;
	s.an = an;
	s.exe = exe;
	s.java = p->hdr[2] == 1;
	s.by_line = by_line;
	s.c.sp = &an->sp;
	s.c.width = p->slot == 8 ? 16 : 8;
	if (exe != NULL && realpath(exe, s.exereal) == NULL)
		snprintf(s.exereal, sizeof s.exereal, "%s", exe);
	if ((err = make_chains(&s)) == XP_E_OK &&
	    (err = name_addresses(&s)) == XP_E_OK)
		err = drop_signal_frames(&s);
	/* The profiler's own frames, by name once for every address. */
	for (size_t i = 0; err == XP_E_OK && i < an->na; i++)
		for (size_t k = 0; an->ai[i].name != UINT32_MAX &&
		                   skip_names[k] != NULL; k++)
			if (strcmp(xp_strpool_str(&an->sp, an->ai[i].name),
			           skip_names[k]) == 0)
				an->ai[i].skip = 1;
	if (err == XP_E_OK)
		err = hash_addresses(an);
	an->in = s.c.in;
	an->nin = s.c.nin;
	free(s.c.fb);
	for (size_t i = 0; i < s.c.nobj; i++) {
		free(s.c.objs[i].path);
		xp_cp_names_free(&s.c.objs[i].names);
		xp_sym_free(s.c.objs[i].sym);
	}
	free(s.c.objs);
	if (err != XP_E_OK)
		xp_cp_an_free(an);
	return err;
}

int xp_cp_frame_ok(const xp_cp_an *an, unsigned slot, uint64_t a, size_t *x)
{
	if (slot == 8 && a > 0x7fffffffffffffffull)
		return 0;
	/* a is one of the chains' addresses, each of which ai holds. */
	size_t h = (size_t)xp_mix64(a) & an->hmask;
	while (an->hslot[h] != 0 && an->ai[an->hslot[h] - 1].addr != a)
		h = (h + 1) & an->hmask;
	if (an->hslot[h] == 0)
		return 0;
	*x = an->hslot[h] - 1;
	return !an->ai[*x].skip;
}

/* Step 5's sums, one per key. */
typedef struct {
	acc_t *acc;
	size_t *stamp;    /* the last chain that counted the key */
	size_t nkeys;
} sums;

/* Frame f of chain i counts for its key, once per chain: the chain's
 * first frame gets the flat samples, every frame the cumulative ones. */
static xp_err count_frame(sums *m, const xp_cp_an *an, const addrinfo *f,
                          size_t i, uint64_t count, int *first)
{
	uint32_t key = f->key;

	if (key >= m->nkeys) {
		size_t nk = an->sp.n;
		acc_t *q = realloc(m->acc, nk * sizeof *q);
		size_t *st = realloc(m->stamp, nk * sizeof *st);
		if (q != NULL)
			m->acc = q;
		if (st != NULL)
			m->stamp = st;
		if (q == NULL || st == NULL)
			return XP_E_NOMEM;
		for (size_t j = m->nkeys; j < nk; j++) {
			m->acc[j] = (acc_t){(uint32_t)j, 0, 0, NULL};
			m->stamp[j] = SIZE_MAX;
		}
		m->nkeys = nk;
	}
	if (m->stamp[key] == i)
		return XP_E_OK;
	m->stamp[key] = i;
	m->acc[key].f = f;
	if (*first)
		m->acc[key].flat += count;
	m->acc[key].cum += count;
	*first = 0;
	return XP_E_OK;
}

/* 5. Every frame of every chain counted, an address's inlined frames
 * (innermost first) before its own, as pprof's TranslateStack lists
 * them. */
static xp_err count_chains(sums *m, const xp_cp_an *an, unsigned slot)
{
	xp_err err = XP_E_OK;

	for (size_t i = 0; i < an->nch && err == XP_E_OK; i++) {
		const uint64_t *a = an->ad + an->ch[i].off;
		int first = 1;
		for (size_t k = 0; k < an->ch[i].n && err == XP_E_OK; k++) {
			const addrinfo *x;
			size_t xi;

			if (!xp_cp_frame_ok(an, slot, a[k], &xi))
				continue;
			x = &an->ai[xi];
			for (size_t j = 0; j < x->nin && err == XP_E_OK; j++)
				err = count_frame(m, an, &an->in[x->in + j], i,
				                  an->ch[i].count, &first);
			if (err == XP_E_OK)
				err = count_frame(m, an, x, i, an->ch[i].count,
				                  &first);
		}
	}
	return err;
}

/* The entries with samples, sorted, into r. */
static xp_err make_entries(xp_cpuprof_report *r, sums *m, const xp_cp_an *an,
                           int by_line)
{
	acc_t *acc = m->acc;
	size_t n = 0;

	for (size_t j = 0; j < m->nkeys; j++)
		if (acc[j].f != NULL && (acc[j].flat != 0 || acc[j].cum != 0))
			acc[n++] = acc[j];
	sort_entries(acc, n, &an->sp);
	r->e = calloc(n ? n : 1, sizeof *r->e);
	if (r->e == NULL)
		return XP_E_NOMEM;
	for (size_t j = 0; j < n; j++) {
		const addrinfo *x = acc[j].f;
		xp_cpuprof_entry *e = &r->e[j];
		e->name = xp_strpool_str(&an->sp, by_line ? x->disp
		                                         : acc[j].key);
		e->file = x->file != UINT32_MAX && by_line ?
		          xp_strpool_str(&an->sp, x->file) : NULL;
		e->line = by_line ? x->line : 0;
		e->object = x->obj != UINT32_MAX ?
		            xp_strpool_str(&an->sp, x->obj) : NULL;
		e->flat = acc[j].flat;
		e->cum = acc[j].cum;
	}
	r->n = n;
	return XP_E_OK;
}

xp_err xp_cpuprof_report_new(const xp_cpuprof *p,
                             const xp_cpuprof_report_opts *o,
                             xp_cpuprof_report **out, xp_diags *d)
{
	xp_cpuprof_report *r = calloc(1, sizeof *r);
	xp_cp_an an0, *an = &an0;
	sums m = {NULL, NULL, 0};
	xp_err err;

	(void)d;
	*out = NULL;
	if (r == NULL)
		return XP_E_NOMEM;
	if ((err = xp_cp_analyze(p, o->exe, o->by_line, an)) != XP_E_OK) {
		free(r);
		return err;
	}
	r->total = an->total;
	if ((err = count_chains(&m, an, p->slot)) == XP_E_OK &&
	    (err = make_entries(r, &m, an, o->by_line)) == XP_E_OK) {
		/* The report keeps the strings and the removed frames. */
		r->sp = an->sp;
		memset(&an->sp, 0, sizeof an->sp);
		r->removed = an->removed;
		r->nremoved = an->nremoved;
		an->removed = NULL;
		an->nremoved = 0;
		*out = r;
		r = NULL;
	}
	free(m.acc);
	free(m.stamp);
	xp_cp_an_free(an);
	xp_cpuprof_report_free(r);
	return err;
}

void xp_cpuprof_report_free(xp_cpuprof_report *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->nremoved; i++)
		free(r->removed[i]);
	free(r->removed);
	free(r->e);
	xp_strpool_free(&r->sp);
	free(r);
}

uint64_t xp_cpuprof_report_total(const xp_cpuprof_report *r)
{
	return r->total;
}

size_t xp_cpuprof_report_n(const xp_cpuprof_report *r)
{
	return r->n;
}

const xp_cpuprof_entry *xp_cpuprof_report_get(const xp_cpuprof_report *r,
                                              size_t i)
{
	return &r->e[i];
}

const char *xp_cpuprof_report_removed(const xp_cpuprof_report *r, size_t i)
{
	return i < r->nremoved ? r->removed[i] : NULL;
}

/* The module's report entry: the report above, for xp_prof_report(). */
xp_err xp_cp_report_new(const void *m, const xp_report_opts *o, const char *name,
                    void **handle, const void **model, xp_diags *d)
{
	xp_cpuprof_report_opts ro = { o->exe, o->lines };
	xp_cpuprof_report *r = NULL;
	xp_err err;

	*handle = NULL;
	*model = NULL;
	err = xp_cpuprof_report_new(m, &ro, &r, d);
	*handle = r;
	*model = r;
	return err;
}

void xp_cp_report_free(void *handle)
{
	xp_cpuprof_report_free(handle);
}
