/*
 * llvm/parse.c - reads an LLVM text profile as LLVM's TextInstrProfReader
 * reads it (llvm(5), THE FILE):
 *
 *   # IR level Instrumentation Flag       comments and blank lines are
 *   :ir                                   skipped everywhere
 *   main                                  a record: the function's name,
 *   # Func Hash:
 *   1063705159519436484                   its hash (decimal, 0x hex, 0b,
 *   # Num Counters:                       0o or 0 octal),
 *   2                                     the number of counters,
 *   # Counter Values:
 *   1                                     the counters (decimal),
 *   4
 *   # Num Bitmap Bytes:                   optional: "$" and a number of
 *   $1                                    bitmap bytes, then the bytes;
 *   0x3
 *   # Num Value Kinds:                    optional: when the next line
 *   1                                     is a decimal number, the value
 *   # ValueKind = IPVK_MemOPSize:         kinds: each its number, its
 *   1                                     number of sites, and for each
 *   # NumValueSites:                      site the number of values and
 *   1                                     "value:count" lines (a target's
 *   1                                     name for indirect calls)
 *   8:4
 *
 * The header's flags (":ir", ":fe", ":csir", ":entry_first",
 * ":not_entry_first", ":single_byte_coverage", ":temporal_prof_traces"
 * followed by the traces) come before the first record, in any case.
 * Every count is checked against the bytes left before anything is
 * allocated for it.
 */
#include "llvm/llvm.h"

typedef struct {
	xp_lines *l;
	const char *s;      /* the current data line, without a CR */
	size_t n;
	int pending;        /* s holds a line not consumed yet */
	xp_llvm *m;
} ps;

/* Makes the next line that is not blank or a comment current; 0 at the
 * end of the file. */
static int fetch(ps *p)
{
	if (p->pending)
		return 1;
	while (xp_lines_next(p->l)) {
		const char *s = p->l->line;
		size_t n = p->l->len;

		if (n > 0 && s[n - 1] == '\r')
			n--;
		if (n == 0 || s[0] == '#')
			continue;
		p->s = s;
		p->n = n;
		p->pending = 1;
		return 1;
	}
	return 0;
}

/* The bytes not read yet: a bound on how many lines can follow. */
static size_t left(const ps *p)
{
	return (size_t)(p->l->end - p->l->p);
}

/* The error for a file that ends before what: at the end of its last
 * line. */
static xp_err ends(ps *p, const char *what, const char *fn)
{
	return xp_lines_error(p->l, XP_E_SYNTAX, p->l->line + p->l->len,
	                      "the file ends before %s%s%s%s", what,
	                      fn ? " of '" : "", fn ? fn : "", fn ? "'" : "");
}

/* Digits of base b at s (n > 0 bytes): 0, -1 for a bad digit, 1 when
 * the value passes max. */
static int digits(const char *s, size_t n, unsigned b, uint64_t max,
                  uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = xp_hexval((unsigned char)s[i]);
		if (d < 0 || (unsigned)d >= b)
			return -1;
		if (v > (max - (unsigned)d) / b)
			return 1;
		v = v * b + (unsigned)d;
	}
	*out = v;
	return 0;
}

/* A number as LLVM's getAsInteger with radix 0 reads it: 0x or 0X hex,
 * 0b binary, 0o octal, a leading 0 octal, otherwise decimal. */
static int radix0(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return digits(s + 2, n - 2, 16, max, out);
	if (n > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		return digits(s + 2, n - 2, 2, max, out);
	if (n > 2 && s[0] == '0' && s[1] == 'o')
		return digits(s + 2, n - 2, 8, max, out);
	if (n > 1 && s[0] == '0')
		return digits(s + 1, n - 1, 8, max, out);
	return digits(s, n, 10, max, out);
}

/*
 * Reads the current line (which must exist: what names it otherwise)
 * as one number, decimal or (radix0) as radix0() reads it, at most max,
 * and consumes it.
 */
static xp_err number(ps *p, int auto_radix, uint64_t max, const char *what,
                     const char *fn, uint64_t *out)
{
	int bad;

	if (!fetch(p))
		return ends(p, what, fn);
	bad = auto_radix ? radix0(p->s, p->n, max, out)
	                 : digits(p->s, p->n, 10, max, out);
	if (bad < 0)
		return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
		                      "%s of '%s' is not a%s number: '%.*s'",
		                      what, fn, auto_radix ? "" : " decimal",
		                      (int)(p->n > 40 ? 40 : p->n), p->s);
	if (bad > 0)
		return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
		                      "%s of '%s' is too large (at most %llu)",
		                      what, fn, (unsigned long long)max);
	p->pending = 0;
	return XP_E_OK;
}

/* How many lines of at least two bytes ("0\n") can follow: a bound on
 * counts read from the file. */
static xp_err check_count(ps *p, uint64_t n, const char *at, const char *what,
                          const char *fn)
{
	if (n > left(p) / 2 + 1)
		return xp_lines_error(p->l, XP_E_SYNTAX, at,
		                      "%s of '%s' is %llu, more than the %zu "
		                      "bytes left can hold", what, fn,
		                      (unsigned long long)n, left(p));
	return XP_E_OK;
}

static int flag_is(const ps *p, const char *f)
{
	size_t n = strlen(f);

	if (p->n != n + 1)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = p->s[i + 1];
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c != f[i])
			return 0;
	}
	return 1;
}

/* The traces after ":temporal_prof_traces". */
static xp_err parse_traces(ps *p)
{
	xp_llvm *m = p->m;
	uint64_t n;
	xp_err err;

	if ((err = number(p, 1, UINT32_MAX, "the number of traces",
	                  "temporal profile", &n)) ||
	    (err = check_count(p, n, p->l->line, "the number of traces",
	                       "temporal profile")) ||
	    (err = number(p, 1, UINT64_MAX, "the trace stream size",
	                  "temporal profile", &m->trace_stream_size)))
		return err;
	m->traces = calloc(n ? (size_t)n : 1, sizeof *m->traces);
	if (m->traces == NULL)
		return XP_E_NOMEM;
	for (uint64_t i = 0; i < n; i++) {
		xp_llvm_trace *t = &m->traces[m->n_traces++];
		size_t k = 0, cnt = 1;

		if ((err = number(p, 1, UINT64_MAX, "the weight of a trace",
		                  "temporal profile", &t->weight)))
			return err;
		if (!fetch(p))
			return ends(p, "the functions of a trace", NULL);
		for (size_t j = 0; j < p->n; j++)
			cnt += p->s[j] == ',';
		if ((t->names = calloc(cnt, sizeof *t->names)) == NULL)
			return XP_E_NOMEM;
		while (k < p->n) {
			size_t a = k, b;
			while (k < p->n && p->s[k] != ',')
				k++;
			b = k++;
			while (a < b && (p->s[a] == ' ' || p->s[a] == '\t'))
				a++;
			while (b > a && (p->s[b - 1] == ' ' || p->s[b - 1] == '\t'))
				b--;
			if (b == a)
				continue;
			/* First on the line written back, a comment. */
			if (p->s[a] == '#')
				return xp_lines_error(p->l, XP_E_SYNTAX,
				                      p->s + a, "a function "
				                      "name of a trace starts "
				                      "with '#'");
			if ((t->names[t->n_names] =
			     xp_strndup(p->s + a, b - a)) == NULL)
				return XP_E_NOMEM;
			t->n_names++;
		}
		/* Its line would be blank when written, and blank lines are
		 * skipped. */
		if (t->n_names == 0)
			return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
			                      "a trace names no function");
		p->pending = 0;
	}
	return XP_E_OK;
}

/* The header's flags, before the first record. */
static xp_err parse_header(ps *p)
{
	xp_llvm *m = p->m;
	xp_err err;

	while (fetch(p) && p->n > 0 && p->s[0] == ':') {
		if (flag_is(p, "ir"))
			m->flags |= XP_LLVM_IR;
		else if (flag_is(p, "fe"))
			m->flags &= ~(XP_LLVM_IR | XP_LLVM_CS);
		else if (flag_is(p, "csir"))
			m->flags |= XP_LLVM_IR | XP_LLVM_CS;
		else if (flag_is(p, "entry_first"))
			m->flags |= XP_LLVM_ENTRY_FIRST;
		else if (flag_is(p, "not_entry_first"))
			m->flags &= ~XP_LLVM_ENTRY_FIRST;
		else if (flag_is(p, "single_byte_coverage"))
			m->flags |= XP_LLVM_SINGLE_BYTE;
		else if (flag_is(p, "temporal_prof_traces")) {
			if (m->flags & XP_LLVM_TEMPORAL)
				return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
				                      "the traces are given "
				                      "twice");
			m->flags |= XP_LLVM_TEMPORAL;
			p->pending = 0;
			if ((err = parse_traces(p)) != XP_E_OK)
				return err;
			continue;
		} else
			return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
			                      "unknown header flag '%.*s' (ir, "
			                      "fe, csir, entry_first, "
			                      "not_entry_first, "
			                      "single_byte_coverage or "
			                      "temporal_prof_traces)",
			                      (int)(p->n > 40 ? 40 : p->n), p->s);
		p->pending = 0;
	}
	return XP_E_OK;
}

/* One "value:count" line of a site of kind k into v. */
static xp_err parse_value(ps *p, unsigned k, const char *fn, xp_llvm_value *v)
{
	const char *colon = NULL;
	int bad;

	if (!fetch(p))
		return ends(p, "a value of a value site", fn);
	for (size_t i = p->n; i > 0; i--)
		if (p->s[i - 1] == ':') {
			colon = p->s + i - 1;
			break;
		}
	if (colon == NULL)
		return xp_lines_error(p->l, XP_E_SYNTAX, p->s + p->n,
		                      "expected 'value:count' in a value site "
		                      "of '%s'", fn);
	bad = digits(colon + 1, (size_t)(p->s + p->n - colon - 1), 10,
	             UINT64_MAX, &v->count);
	if (bad != 0)
		return xp_lines_error(p->l, XP_E_SYNTAX, colon + 1,
		                      "the count of a value of '%s' is %s", fn,
		                      bad < 0 ? "not a decimal number"
		                              : "too large");
	if (xp_llvm_named_kind(k)) {
		size_t len = (size_t)(colon - p->s);
		if ((v->name = xp_strndup(p->s, len)) == NULL)
			return XP_E_NOMEM;
		v->value = strcmp(v->name, XP_LLVM_EXTERNAL) == 0
		           ? 0 : xp_llvm_name_key(v->name, len);
	} else if ((bad = digits(p->s, (size_t)(colon - p->s), 10,
	                         UINT64_MAX, &v->value)) != 0) {
		return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
		                      "a value of '%s' is %s", fn,
		                      bad < 0 ? "not a decimal number"
		                              : "too large");
	}
	p->pending = 0;
	return XP_E_OK;
}

/* The sites of kind k of f. */
static xp_err parse_sites(ps *p, xp_llvm_func *f, unsigned k)
{
	const char *fn = f->name;
	uint64_t ns, nv;
	xp_err err;

	if ((err = number(p, 0, UINT32_MAX, "the number of value sites", fn,
	                  &ns)) ||
	    (err = check_count(p, ns, p->l->line, "the number of value sites",
	                       fn)))
		return err;
	if (ns == 0)
		return XP_E_OK;
	if ((f->sites[k] = calloc((size_t)ns, sizeof *f->sites[k])) == NULL)
		return XP_E_NOMEM;
	f->n_sites[k] = (uint32_t)ns;
	for (uint64_t s = 0; s < ns; s++) {
		xp_llvm_site *site = &f->sites[k][s];

		if ((err = number(p, 0, UINT32_MAX, "the number of values of "
		                  "a site", fn, &nv)) ||
		    (err = check_count(p, nv, p->l->line, "the number of values "
		                       "of a site", fn)))
			return err;
		if (nv == 0)
			continue;
		site->values = calloc((size_t)nv, sizeof *site->values);
		if (site->values == NULL)
			return XP_E_NOMEM;
		for (uint64_t i = 0; i < nv; i++) {
			if ((err = parse_value(p, k, fn, &site->values[i])))
				return err;
			site->n_values++;
		}
	}
	return XP_E_OK;
}

/* The value profile of f, when the line after its counters is a
 * decimal number (LLVM's test); otherwise that line starts a record. */
static xp_err parse_value_kinds(ps *p, xp_llvm_func *f)
{
	uint64_t nk, k;
	xp_err err;

	if (!fetch(p) || digits(p->s, p->n, 10, UINT32_MAX, &nk) != 0)
		return XP_E_OK;
	if (nk == 0 || nk > XP_LLVM_N_KINDS)
		return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
		                      "the number of value kinds of '%s' is "
		                      "%llu, not 1 to %d", f->name,
		                      (unsigned long long)nk, XP_LLVM_N_KINDS);
	p->pending = 0;
	for (uint64_t i = 0; i < nk; i++) {
		const char *at;

		if ((err = number(p, 0, UINT32_MAX, "a value kind", f->name,
		                  &k)))
			return err;
		at = p->l->line;
		if (k >= XP_LLVM_N_KINDS || f->sites[k] != NULL)
			return xp_lines_error(p->l, XP_E_SYNTAX, at,
			                      k >= XP_LLVM_N_KINDS
			                      ? "unknown value kind %llu of '%s' "
			                        "(0 to 2)"
			                      : "value kind %llu of '%s' is "
			                        "given twice",
			                      (unsigned long long)k, f->name);
		if ((err = parse_sites(p, f, (unsigned)k)))
			return err;
	}
	return XP_E_OK;
}

/* The "$N" line and the bitmap bytes after it. */
static xp_err parse_bitmap(ps *p, xp_llvm_func *f)
{
	const char *s = p->s + 1;
	size_t n = p->n - 1;
	uint64_t nb, b;
	int bad;
	xp_err err;

	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if ((bad = radix0(s, n, UINT64_MAX, &nb)) != 0)
		return xp_lines_error(p->l, XP_E_SYNTAX, s,
		                      "the number of bitmap bytes of '%s' is %s",
		                      f->name, bad < 0 ? "not a number"
		                                       : "too large");
	if ((err = check_count(p, nb, s, "the number of bitmap bytes",
	                       f->name)))
		return err;
	p->pending = 0;
	if ((f->bitmap = malloc(nb ? (size_t)nb : 1)) == NULL)
		return XP_E_NOMEM;
	for (uint64_t i = 0; i < nb; i++) {
		if ((err = number(p, 1, UINT8_MAX, "a bitmap byte", f->name,
		                  &b)))
			return err;
		f->bitmap[f->n_bitmap++] = (unsigned char)b;
	}
	return XP_E_OK;
}

/* One record, from its name line (current). */
static xp_err parse_record(ps *p)
{
	xp_llvm_func *f;
	uint64_t n;
	xp_err err;

	/* Read as a name, it would be written back as a flag, or after
	 * another record as its bitmap. */
	if (p->s[0] == ':')
		return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
		                      "a header flag after the first record "
		                      "(no function name starts with ':')");
	if (p->s[0] == '$')
		return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
		                      "a bitmap where a record begins (no "
		                      "function name starts with '$')");
	/* After another record, it would be its number of value kinds. */
	size_t d = 0;
	while (d < p->n && p->s[d] >= '0' && p->s[d] <= '9')
		d++;
	if (d == p->n)
		return xp_lines_error(p->l, XP_E_SYNTAX, p->s,
		                      "a function name of digits alone ('%.*s'), "
		                      "which after a record reads as its number "
		                      "of value kinds",
		                      (int)(p->n > 40 ? 40 : p->n), p->s);
	f = xp_llvm_add_func(p->m);
	if (f == NULL || (f->name = xp_strndup(p->s, p->n)) == NULL)
		return XP_E_NOMEM;
	p->pending = 0;
	if ((err = number(p, 1, UINT64_MAX, "the function hash", f->name,
	                  &f->hash)) ||
	    (err = number(p, 0, UINT64_MAX, "the number of counters", f->name,
	                  &n)))
		return err;
	if (n == 0)
		return xp_lines_error(p->l, XP_E_SYNTAX, p->l->line,
		                      "'%s' has no counters (LLVM needs at "
		                      "least one)", f->name);
	if ((err = check_count(p, n, p->l->line, "the number of counters",
	                       f->name)))
		return err;
	if ((f->counts = malloc((size_t)n * sizeof *f->counts)) == NULL)
		return XP_E_NOMEM;
	for (uint64_t i = 0; i < n; i++) {
		if ((err = number(p, 0, UINT64_MAX, "a counter", f->name,
		                  &f->counts[i])))
			return err;
		f->n_counts++;
	}
	if (fetch(p) && p->s[0] == '$' &&
	    (err = parse_bitmap(p, f)) != XP_E_OK)
		return err;
	return parse_value_kinds(p, f);
}

/* Bytes no name can hold, refused wherever they stand: a NUL byte (a
 * name would end there) and a carriage return at the end of a line
 * after the one that a line ending of CR LF has (it would be taken for
 * that one when read back). */
static xp_err odd_bytes(const xp_lines *text)
{
	xp_lines l = *text;

	while (xp_lines_next(&l)) {
		const char *z = memchr(l.line, '\0', l.len);
		if (z != NULL)
			return xp_lines_error(&l, XP_E_SYNTAX, z,
			                      "a NUL byte (LLVM text holds none)");
		if (l.len >= 2 && l.line[l.len - 1] == '\r' &&
		    l.line[l.len - 2] == '\r')
			return xp_lines_error(&l, XP_E_SYNTAX,
			                      l.line + l.len - 2,
			                      "a carriage return at the end of "
			                      "the line, before that of its CR LF");
	}
	return XP_E_OK;
}

xp_err xp_llvm_parse(xp_lines *l, xp_llvm **out)
{
	ps p;
	xp_err err;

	*out = NULL;
	if ((err = odd_bytes(l)) != XP_E_OK)
		return err;
	memset(&p, 0, sizeof p);
	p.l = l;
	if ((p.m = xp_llvm_new()) == NULL)
		return XP_E_NOMEM;
	if ((err = parse_header(&p)) != XP_E_OK)
		goto fail;
	while (fetch(&p))
		if ((err = parse_record(&p)) != XP_E_OK)
			goto fail;
	*out = p.m;
	return XP_E_OK;
fail:
	xp_llvm_free(p.m);
	return err;
}
