/*
 * symbolize/symbolize.c - addresses to functions and source lines, with GNU libbfd.
 *
 * The only file of libxprof that includes bfd.h.  An xp_sym holds an open
 * bfd, its canonical symbol table (static, or dynamic when the object is
 * stripped) and our own sorted copy of the symbols; lookups by address
 * are binary searches over the code symbols.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bfd.h>

#include "base/internal.h"

struct xp_sym {
	bfd *abfd;
	asymbol **syms;        /* libbfd's table, for find_nearest_line */
	xp_symbol *tab;        /* every defined symbol, by address */
	size_t n;
	size_t *code;          /* indexes into tab: the preferred code
	                          symbol at each distinct address */
	size_t ncode;
	uint64_t text_lo, text_hi;
	/* ELF: the static symbol table's entries and a copy of its string
	 * table, two NULs past its end (see xp_sym_strtab_name). */
	int dynamic;           /* the table is the dynamic one */
	uint64_t elf_symoff, elf_nsyms;
	unsigned elf_symentsize, elf_big;
	char *strtab;
	size_t strtab_size;
	/* The file mapped, for reading code a few bytes at a time without a
	 * seek and a read each (xp_sym_read), or NULL. */
	const unsigned char *map;
	size_t maplen;
};

static xp_err bfd_diag(xp_diags *d, const char *path, xp_err code)
{
	return xp_diag_file(d, code, path, "%s", bfd_errmsg(bfd_get_error()));
}

static unsigned sym_flags(const asymbol *s)
{
	unsigned f = 0;
	const asection *sec = s->section;

	if (s->flags & BSF_GLOBAL)
		f |= XP_SYMF_GLOBAL;
	if (s->flags & BSF_LOCAL)
		f |= XP_SYMF_LOCAL;
	if (s->flags & BSF_WEAK)
		f |= XP_SYMF_WEAK;
	if (s->flags & (BSF_FUNCTION | BSF_GNU_INDIRECT_FUNCTION))
		f |= XP_SYMF_FUNCTION;
	if (sec != NULL && (sec->flags & SEC_CODE))
		f |= XP_SYMF_CODE;
	if (s->flags & (BSF_DEBUGGING | BSF_SECTION_SYM))
		f |= XP_SYMF_DEBUG;
	if (s->flags & BSF_FILE)
		f |= XP_SYMF_FILE;
	if (s->flags & BSF_OBJECT)
		f |= XP_SYMF_OBJECT;
	if (s->flags & BSF_GNU_INDIRECT_FUNCTION)
		f |= XP_SYMF_IFUNC;
	return f;
}

/* Symbols at one address: by name, then in the table's order. */
static int cmp_sym(const void *a, const void *b)
{
	const xp_symbol *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int is_code(const xp_symbol *s)
{
	return (s->flags & (XP_SYMF_FUNCTION | XP_SYMF_CODE)) &&
	       !(s->flags & (XP_SYMF_DEBUG | XP_SYMF_FILE));
}

/* Global beats weak beats local; otherwise the first (by name) stays. */
static int rank(const xp_symbol *s)
{
	if (s->flags & XP_SYMF_GLOBAL)
		return 0;
	if (s->flags & XP_SYMF_WEAK)
		return 1;
	return 2;
}

static xp_err read_symbols(xp_sym *s, const char *path, xp_diags *d)
{
	bfd *abfd = s->abfd;
	long storage, count;
	int dynamic = 0;

	storage = bfd_get_symtab_upper_bound(abfd);
	if (storage <= (long)sizeof(asymbol *)) {
		long dyn = bfd_get_dynamic_symtab_upper_bound(abfd);
		if (dyn > 0) {
			storage = dyn;
			dynamic = 1;
		}
	}
	if (storage <= 0) {
		s->syms = calloc(1, sizeof *s->syms);
		return s->syms != NULL ? XP_E_OK : XP_E_NOMEM;
	}
	s->syms = malloc((size_t)storage);
	if (s->syms == NULL)
		return XP_E_NOMEM;
	s->dynamic = dynamic;
	count = dynamic ? bfd_canonicalize_dynamic_symtab(abfd, s->syms)
	                : bfd_canonicalize_symtab(abfd, s->syms);
	if (count < 0)
		return bfd_diag(d, path, XP_E_CORRUPT);
	s->tab = calloc((size_t)count + 1, sizeof *s->tab);
	if (s->tab == NULL)
		return XP_E_NOMEM;
	for (long i = 0; i < count; i++) {
		asymbol *a = s->syms[i];
		if (a == NULL || bfd_is_und_section(a->section) ||
		    bfd_is_com_section(a->section) || a->name == NULL)
			continue;
		s->tab[s->n].addr = (uint64_t)bfd_asymbol_value(a);
		s->tab[s->n].name = bfd_asymbol_name(a);
		s->tab[s->n].flags = sym_flags(a);
		s->tab[s->n].size = 0;
		s->tab[s->n].seq = (uint32_t)i;
		s->n++;
	}
	/* By address, then name, then the order of the table. */
	return xp_sort_keyed(s->tab, s->n, sizeof *s->tab,
	                     offsetof(xp_symbol, addr), cmp_sym);
}

/* ------------------------------------------------------------------ */
/* The ELF string table, raw                                           */
/* ------------------------------------------------------------------ */

/* n bytes at offset off of the object file; 0, or -1 when short. */
static int read_at(bfd *abfd, uint64_t off, void *buf, size_t n)
{
	if (off > (uint64_t)INT64_MAX ||
	    bfd_seek(abfd, (file_ptr)off, SEEK_SET) != 0)
		return -1;
	return bfd_bread(buf, n, abfd) == n ? 0 : -1;
}

/* An ELF field of 2, 4 or 8 bytes in the file's byte order. */
static uint64_t elf_field(const unsigned char *p, unsigned size, int big)
{
	if (size == 2)
		return big ? (uint64_t)p[0] << 8 | p[1]
		           : (uint64_t)p[1] << 8 | p[0];
	if (size == 4)
		return big ? xp_get_be32(p) : xp_get_le32(p);
	return big ? xp_get_be64(p) : xp_get_le64(p);
}

/* The fields of an ELF section header that the string table needs. */
typedef struct {
	uint64_t type, offset, size, link, entsize;
} elf_shdr;

/* Section header i; 0, or -1 when it cannot be read. */
static int read_shdr(bfd *abfd, uint64_t shoff, unsigned shentsize,
                     uint64_t i, int c64, int big, elf_shdr *h)
{
	unsigned char sh[64];
	unsigned w = c64 ? 8 : 4;

	if (read_at(abfd, shoff + i * shentsize, sh, c64 ? 64 : 40) != 0)
		return -1;
	h->type = elf_field(sh + 4, 4, big);
	h->offset = elf_field(sh + (c64 ? 0x18 : 0x10), w, big);
	h->size = elf_field(sh + (c64 ? 0x20 : 0x14), w, big);
	h->link = elf_field(sh + (c64 ? 0x28 : 0x18), 4, big);
	h->entsize = elf_field(sh + (c64 ? 0x38 : 0x24), w, big);
	return 0;
}

/*
 * Finds the first SHT_SYMTAB section (the one libbfd reads) and copies
 * its string table.  Anything unexpected leaves s->strtab NULL: the raw
 * names are a refinement, never needed to read the symbols.
 */
static void read_elf_strtab(xp_sym *s)
{
	unsigned char eh[64];
	uint64_t shoff, shnum;
	unsigned shentsize;
	int big, c64;
	elf_shdr h, st;

	if (bfd_get_flavour(s->abfd) != bfd_target_elf_flavour ||
	    read_at(s->abfd, 0, eh, 16) != 0 || eh[4] < 1 || eh[4] > 2 ||
	    eh[5] < 1 || eh[5] > 2)
		return;
	c64 = eh[4] == 2;
	big = eh[5] == 2;
	if (read_at(s->abfd, 0, eh, c64 ? 64 : 52) != 0)
		return;
	shoff = elf_field(eh + (c64 ? 0x28 : 0x20), c64 ? 8 : 4, big);
	shentsize = (unsigned)elf_field(eh + (c64 ? 0x3a : 0x2e), 2, big);
	shnum = elf_field(eh + (c64 ? 0x3c : 0x30), 2, big);
	if (shoff == 0 || shentsize < (c64 ? 64u : 40u) || shentsize > 4096)
		return;
	/* With 0 the count is in section 0's sh_size. */
	if (shnum == 0 &&
	    read_shdr(s->abfd, shoff, shentsize, 0, c64, big, &h) == 0)
		shnum = h.size;
	for (uint64_t i = 1; i < shnum && i < (1u << 24); i++) {
		if (read_shdr(s->abfd, shoff, shentsize, i, c64, big, &h) != 0)
			return;
		if (h.type != 2)   /* SHT_SYMTAB */
			continue;
		if (h.entsize < (c64 ? 24u : 16u) || h.entsize > 4096 ||
		    h.link >= shnum ||
		    read_shdr(s->abfd, shoff, shentsize, h.link, c64, big,
		              &st) != 0 ||
		    st.size == 0 || st.size > ((uint64_t)1 << 32))
			return;
		s->strtab = malloc((size_t)st.size + 2);
		if (s->strtab == NULL)
			return;
		if (read_at(s->abfd, st.offset, s->strtab, (size_t)st.size)) {
			free(s->strtab);
			s->strtab = NULL;
			return;
		}
		s->strtab[st.size] = s->strtab[st.size + 1] = '\0';
		s->strtab_size = (size_t)st.size;
		s->elf_symoff = h.offset;
		s->elf_nsyms = h.size / h.entsize;
		s->elf_symentsize = (unsigned)h.entsize;
		s->elf_big = (unsigned)big;
		return;
	}
}

const char *xp_sym_strtab_name(const xp_sym *s, const xp_symbol *y)
{
	unsigned char e[4];
	uint64_t idx = (uint64_t)y->seq + 1, st_name;

	/* libbfd's i-th symbol is the file's (i + 1)-th: it skips the null
	 * one.  The name is checked, so a table read otherwise is left. */
	if (s->strtab == NULL || idx >= s->elf_nsyms ||
	    read_at(s->abfd, s->elf_symoff + idx * s->elf_symentsize, e, 4))
		return NULL;
	st_name = elf_field(e, 4, (int)s->elf_big);
	if (st_name >= s->strtab_size ||
	    strcmp(s->strtab + st_name, y->name) != 0)
		return NULL;
	return s->strtab + st_name;
}

/* The section holding addr, or NULL. */
static asection *section_of(bfd *abfd, uint64_t addr)
{
	for (asection *sec = abfd->sections; sec != NULL; sec = sec->next) {
		uint64_t vma = bfd_section_vma(sec), sz = bfd_section_size(sec);
		if ((bfd_section_flags(sec) & SEC_ALLOC) && addr >= vma &&
		    addr - vma < sz)
			return sec;
	}
	return NULL;
}

/* Sizes: to the next higher address in the same section, or its end. */
static void compute_sizes(xp_sym *s)
{
	asection *sec = NULL;
	uint64_t sec_end = 0;

	for (size_t i = 0; i < s->n; i++) {
		xp_symbol *y = &s->tab[i];
		size_t j = i + 1;

		if (sec == NULL || y->addr < bfd_section_vma(sec) ||
		    y->addr >= sec_end) {
			sec = section_of(s->abfd, y->addr);
			sec_end = sec != NULL ? bfd_section_vma(sec) +
			                        bfd_section_size(sec) : 0;
		}
		if (sec == NULL)
			continue;
		while (j < s->n && s->tab[j].addr == y->addr)
			j++;
		if (j < s->n && s->tab[j].addr < sec_end)
			y->size = s->tab[j].addr - y->addr;
		else
			y->size = sec_end - y->addr;
	}
}

static xp_err index_code(xp_sym *s)
{
	s->code = calloc(s->n + 1, sizeof *s->code);
	if (s->code == NULL)
		return XP_E_NOMEM;
	for (size_t i = 0; i < s->n; i++) {
		const xp_symbol *y = &s->tab[i];
		if (!is_code(y))
			continue;
		if (s->ncode > 0 && s->tab[s->code[s->ncode - 1]].addr ==
		                    y->addr) {
			if (rank(y) < rank(&s->tab[s->code[s->ncode - 1]]))
				s->code[s->ncode - 1] = i;
			continue;
		}
		s->code[s->ncode++] = i;
	}
	/* A code symbol ends where the next code symbol starts, too. */
	for (size_t k = 0; k + 1 < s->ncode; k++) {
		xp_symbol *y = &s->tab[s->code[k]];
		uint64_t next = s->tab[s->code[k + 1]].addr;
		if (y->size == 0 || y->addr + y->size > next)
			y->size = next - y->addr;
	}
	return XP_E_OK;
}

static void text_range(xp_sym *s)
{
	int any = 0;
	for (asection *sec = s->abfd->sections; sec != NULL; sec = sec->next) {
		uint64_t vma = bfd_section_vma(sec), sz = bfd_section_size(sec);
		if (!(bfd_section_flags(sec) & SEC_CODE) || sz == 0)
			continue;
		if (!any || vma < s->text_lo)
			s->text_lo = vma;
		if (!any || vma + sz > s->text_hi)
			s->text_hi = vma + sz;
		any = 1;
	}
}

/* Maps the file of an ELF object; without a map, libbfd reads it. */
static void map_file(xp_sym *s, const char *path)
{
	struct stat st;
	void *m;
	int fd;

	if (bfd_get_flavour(s->abfd) != bfd_target_elf_flavour ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size <= SIZE_MAX) {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			s->map = m;
			s->maplen = (size_t)st.st_size;
		}
	}
	close(fd);
}

xp_err xp_sym_open(const char *path, xp_sym **out, xp_diags *d)
{
	xp_sym *s;
	xp_err err;
	char **matching = NULL;

	*out = NULL;
	if (bfd_init() != BFD_INIT_MAGIC)
		return xp_diag_file(d, XP_E_VERSION, path,
		                    "libbfd does not match the version this "
		                    "program was built with");
	s = calloc(1, sizeof *s);
	if (s == NULL)
		return XP_E_NOMEM;
	s->abfd = bfd_openr(path, NULL);
	if (s->abfd == NULL) {
		free(s);
		return bfd_diag(d, path, bfd_get_error() == bfd_error_system_call
		                             ? XP_E_IO : XP_E_FORMAT);
	}
	if (!bfd_check_format_matches(s->abfd, bfd_object, &matching)) {
		err = bfd_get_error() == bfd_error_file_ambiguously_recognized
		      ? xp_diag_file(d, XP_E_FORMAT, path,
		                     "object file format is ambiguous")
		      : xp_diag_file(d, XP_E_FORMAT, path,
		                     "not an executable or object file (%s)",
		                     bfd_errmsg(bfd_get_error()));
		free(matching);
		xp_sym_free(s);
		return err;
	}
	err = read_symbols(s, path, d);
	if (err == XP_E_OK && !s->dynamic)
		read_elf_strtab(s);
	if (err == XP_E_OK) {
		compute_sizes(s);
		err = index_code(s);
	}
	if (err != XP_E_OK) {
		xp_sym_free(s);
		return err;
	}
	text_range(s);
	map_file(s, path);
	*out = s;
	return XP_E_OK;
}

void xp_sym_free(xp_sym *s)
{
	if (s == NULL)
		return;
	if (s->abfd != NULL)
		bfd_close(s->abfd);
	if (s->map != NULL)
		munmap((void *)s->map, s->maplen);
	XP_FREE(s->syms, s->tab, s->code, s->strtab, s);
}

int xp_sym_big_endian(const xp_sym *s)
{
	return bfd_big_endian(s->abfd) ? 1 : 0;
}

unsigned xp_sym_addr_bytes(const xp_sym *s)
{
	int bits = bfd_get_arch_size(s->abfd);
	if (bits <= 0)
		bits = (int)bfd_arch_bits_per_address(s->abfd);
	return bits > 32 ? 8 : 4;
}

int xp_sym_is_pic(const xp_sym *s)
{
	return (bfd_get_file_flags(s->abfd) & DYNAMIC) ? 1 : 0;
}

const char *xp_sym_target(const xp_sym *s)
{
	return bfd_get_target(s->abfd);
}

const char *xp_sym_arch(const xp_sym *s)
{
	return bfd_printable_name(s->abfd);
}

void xp_sym_text_range(const xp_sym *s, uint64_t *lo, uint64_t *hi)
{
	*lo = s->text_lo;
	*hi = s->text_hi;
}

size_t xp_sym_count(const xp_sym *s)
{
	return s->n;
}

const xp_symbol *xp_sym_get(const xp_sym *s, size_t i)
{
	return i < s->n ? &s->tab[i] : NULL;
}

/* The address of the k-th code symbol. */
static uint64_t code_addr(const xp_sym *s, size_t k)
{
	return s->tab[s->code[k]].addr;
}

/* The first code symbol in [lo, hi) above addr (hi when none). */
static size_t code_above(const xp_sym *s, size_t lo, size_t hi,
                         uint64_t addr)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (code_addr(s, mid) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The code symbol before position k (the last at or below the address
 * looked up), when it holds addr. */
static const xp_symbol *code_holder(const xp_sym *s, size_t k, uint64_t addr)
{
	const xp_symbol *y;

	if (k == 0)
		return NULL;
	y = &s->tab[s->code[k - 1]];
	return addr - y->addr < y->size ? y : NULL;
}

const xp_symbol *xp_sym_lookup(const xp_sym *s, uint64_t addr)
{
	return code_holder(s, code_above(s, 0, s->ncode, addr), addr);
}

/*
 * From the position of the address before, the search gallops forwards:
 * steps of 1, 2, 4... until it passes addr, then halves the last step.
 * Addresses in order cost a few comparisons each however many symbols
 * lie between them; an address below the one before starts afresh.
 */
const xp_symbol *xp_sym_lookup_next(const xp_sym *s, size_t *at,
                                    uint64_t addr)
{
	size_t lo = *at, step = 1, hi, k;

	if (lo > s->ncode || (lo > 0 && code_addr(s, lo - 1) > addr)) {
		k = code_above(s, 0, s->ncode, addr);
	} else {
		while (step <= s->ncode - lo &&
		       code_addr(s, lo + step - 1) <= addr) {
			lo += step;
			step *= 2;
		}
		hi = step <= s->ncode - lo ? lo + step - 1 : s->ncode;
		k = code_above(s, lo, hi, addr);
	}
	*at = k;
	return code_holder(s, k, addr);
}

int xp_sym_line(xp_sym *s, uint64_t addr, const char **file,
                const char **func, unsigned *line)
{
	asection *sec = section_of(s->abfd, addr);
	const char *f = NULL, *fn = NULL;
	unsigned l = 0;

	*file = NULL;
	*func = NULL;
	*line = 0;
	if (sec == NULL)
		return -1;
	if (!bfd_find_nearest_line(s->abfd, sec, s->syms,
	                           addr - bfd_section_vma(sec), &f, &fn, &l))
		return -1;
	*file = f;
	*func = fn;
	*line = l;
	return f != NULL || fn != NULL || l != 0 ? 0 : -1;
}

/*
 * bfd_find_inliner_info walks outwards from the position the last
 * bfd_find_nearest_line found, one inlining call per call, and says false
 * when there is none left; so the chain is read right after the lookup,
 * before anything else asks libbfd for a line.
 */
size_t xp_sym_inlined(xp_sym *s, uint64_t addr, xp_sym_frame *frames,
                      size_t max)
{
	const char *f, *fn;
	unsigned l;
	size_t n = 0;

	if (xp_sym_line(s, addr, &f, &fn, &l) != 0)
		return 0;
	do {
		if (n < max) {
			frames[n].file = f;
			frames[n].func = fn;
			frames[n].line = l;
		}
		n++;
		f = fn = NULL;
		l = 0;
	} while (bfd_find_inliner_info(s->abfd, &f, &fn, &l));
	return n;
}

/* libiberty's demangler options, as nm and addr2line pass them. */
#define DEMANGLE_PARAMS 1   /* DMGL_PARAMS */
#define DEMANGLE_ANSI 2     /* DMGL_ANSI */

char *xp_sym_demangle(const xp_sym *s, const char *name)
{
	return bfd_demangle(s->abfd, name, DEMANGLE_PARAMS | DEMANGLE_ANSI);
}

char *xp_sym_nm_name(const xp_sym *s, const xp_symbol *y, int *cls)
{
	asymbol *a = s->syms[y->seq];
	const char *ver = NULL;
	char *dem, *out;
	bool hidden = false;
	size_t len;

	*cls = 0;
	if (a->flags & BSF_DEBUGGING || bfd_is_target_special_symbol(s->abfd, a))
		return NULL;
	*cls = bfd_decode_symclass(a);
	dem = xp_sym_demangle(s, y->name);
	if (bfd_get_flavour(s->abfd) == bfd_target_elf_flavour)
		ver = bfd_get_symbol_version_string(s->abfd, a, false, &hidden);
	if (ver == NULL || ver[0] == '\0')
		return dem != NULL ? dem : strdup(y->name);
	len = strlen(dem != NULL ? dem : y->name) + strlen(ver) + 3;
	out = malloc(len);
	if (out != NULL)
		snprintf(out, len, "%s%s%s", dem != NULL ? dem : y->name,
		         hidden ? "@" : "@@", ver);
	free(dem);
	return out;
}

/* ------------------------------------------------------------------ */
/* What identifies a build: loadable segments and the build id         */
/* ------------------------------------------------------------------ */

int xp_sym_stripped(const xp_sym *s)
{
	return s->dynamic || s->ncode == 0;
}

/*
 * The ELF program headers, read raw as read_elf_strtab reads the section
 * headers: libbfd keeps them in its private ELF data only.
 */
size_t xp_sym_segments(const xp_sym *s, xp_sym_segment *v, size_t max)
{
	unsigned char eh[64], ph[56];
	uint64_t phoff, phnum;
	unsigned phentsize;
	size_t n = 0;
	int big, c64;

	if (bfd_get_flavour(s->abfd) != bfd_target_elf_flavour ||
	    read_at(s->abfd, 0, eh, 16) != 0 || eh[4] < 1 || eh[4] > 2 ||
	    eh[5] < 1 || eh[5] > 2)
		return 0;
	c64 = eh[4] == 2;
	big = eh[5] == 2;
	if (read_at(s->abfd, 0, eh, c64 ? 64 : 52) != 0)
		return 0;
	phoff = elf_field(eh + (c64 ? 0x20 : 0x1c), c64 ? 8 : 4, big);
	phentsize = (unsigned)elf_field(eh + (c64 ? 0x36 : 0x2a), 2, big);
	phnum = elf_field(eh + (c64 ? 0x38 : 0x2c), 2, big);
	if (phoff == 0 || phentsize < (c64 ? 56u : 32u) || phentsize > 4096)
		return 0;
	for (uint64_t i = 0; i < phnum; i++) {
		xp_sym_segment g;
		unsigned pf;

		if (read_at(s->abfd, phoff + i * phentsize, ph,
		            c64 ? 56 : 32) != 0)
			return n;
		if (elf_field(ph, 4, big) != 1)   /* PT_LOAD */
			continue;
		if (c64) {
			pf = (unsigned)elf_field(ph + 4, 4, big);
			g.offset = elf_field(ph + 0x08, 8, big);
			g.vaddr = elf_field(ph + 0x10, 8, big);
			g.filesz = elf_field(ph + 0x20, 8, big);
			g.memsz = elf_field(ph + 0x28, 8, big);
		} else {
			g.offset = elf_field(ph + 0x04, 4, big);
			g.vaddr = elf_field(ph + 0x08, 4, big);
			g.filesz = elf_field(ph + 0x10, 4, big);
			g.memsz = elf_field(ph + 0x14, 4, big);
			pf = (unsigned)elf_field(ph + 0x18, 4, big);
		}
		/* PF_X 1, PF_W 2, PF_R 4 */
		g.flags = (pf & 1 ? XP_SEG_X : 0) | (pf & 2 ? XP_SEG_W : 0) |
		          (pf & 4 ? XP_SEG_R : 0);
		if (n < max)
			v[n] = g;
		n++;
	}
	return n;
}

/* The descriptor of the first NT_GNU_BUILD_ID note among the n bytes of
 * a note section at p, as hex into buf; 0 when found. */
static int find_build_id(bfd *abfd, const unsigned char *p, size_t n,
                         char *buf, size_t size)
{
	size_t at = 0;

	while (n - at >= 12) {
		uint64_t namesz = bfd_get_32(abfd, p + at);
		uint64_t descsz = bfd_get_32(abfd, p + at + 4);
		uint64_t type = bfd_get_32(abfd, p + at + 8);
		uint64_t name = at + 12, desc = name + ((namesz + 3) & ~3ull);
		uint64_t next = desc + ((descsz + 3) & ~3ull);

		if (next > n)
			return -1;
		if (type == 3 && namesz == 4 && memcmp(p + name, "GNU", 4) == 0 &&
		    descsz > 0 && 2 * descsz < size) {
			for (uint64_t i = 0; i < descsz; i++)
				snprintf(buf + 2 * i, 3, "%02x", p[desc + i]);
			return 0;
		}
		at = (size_t)next;
	}
	return -1;
}

int xp_sym_build_id(const xp_sym *s, char *buf, size_t size)
{
	if (size > 0)
		buf[0] = '\0';
	for (asection *sec = s->abfd->sections; sec != NULL; sec = sec->next) {
		bfd_byte *p = NULL;
		int found;

		/* Notes live in sections named .note*; the build id's is
		 * .note.gnu.build-id where linkers follow convention. */
		if (strncmp(bfd_section_name(sec), ".note", 5) != 0 ||
		    bfd_section_size(sec) < 12 ||
		    bfd_section_size(sec) > (1u << 20) ||
		    !bfd_malloc_and_get_section(s->abfd, sec, &p)) {
			free(p);
			continue;
		}
		found = find_build_id(s->abfd, p, (size_t)bfd_section_size(sec),
		                      buf, size);
		free(p);
		if (found == 0)
			return 0;
	}
	return -1;
}

/* Where the map holds the contents of sec at offset off, n bytes long,
 * or NULL when libbfd must read them. */
static const unsigned char *mapped(const xp_sym *s, const asection *sec,
                                   uint64_t off, uint64_t n)
{
	/* What libbfd would read: the bytes at the section's place in the
	 * file, unless it holds the section in memory. */
	if (s->map == NULL || (bfd_section_flags(sec) & SEC_IN_MEMORY) ||
	    sec->filepos < 0 || (uint64_t)sec->filepos > s->maplen ||
	    off > s->maplen - (uint64_t)sec->filepos ||
	    n > s->maplen - (uint64_t)sec->filepos - off)
		return NULL;
	return s->map + sec->filepos + off;
}

int xp_sym_read(const xp_sym *s, uint64_t addr, void *buf, size_t n)
{
	asection *sec = section_of(s->abfd, addr);
	const unsigned char *p;
	uint64_t off;

	if (sec == NULL || !(bfd_section_flags(sec) & SEC_HAS_CONTENTS))
		return -1;
	off = addr - bfd_section_vma(sec);
	if (n > bfd_section_size(sec) || off > bfd_section_size(sec) - n)
		return -1;
	if ((p = mapped(s, sec, off, n)) != NULL) {
		memcpy(buf, p, n);
		return 0;
	}
	return bfd_get_section_contents(s->abfd, sec, buf, (file_ptr)off,
	                                n) ? 0 : -1;
}

/*
 * section_of() gives the first section in the list that holds an
 * address; the span is the part of addr's section that no section
 * before it in the list overlaps, so that xp_sym_read finds the same
 * section for every address in it.
 */
const unsigned char *xp_sym_span(const xp_sym *s, uint64_t addr,
                                 uint64_t *lo, uint64_t *hi)
{
	asection *sec = section_of(s->abfd, addr);
	uint64_t vma, end;

	if (sec == NULL || !(bfd_section_flags(sec) & SEC_HAS_CONTENTS))
		return NULL;
	vma = bfd_section_vma(sec);
	end = vma + bfd_section_size(sec);
	if (end < vma)
		return NULL;
	for (asection *e = s->abfd->sections; e != sec; e = e->next) {
		uint64_t ev = bfd_section_vma(e), ee = ev + bfd_section_size(e);
		if (!(bfd_section_flags(e) & SEC_ALLOC) || ee == ev)
			continue;
		if (ee < ev)        /* it wraps: no span, reads one by one */
			return NULL;
		if (ee <= vma || ev >= end)
			continue;
		/* addr is in no section before sec: e lies below or above. */
		if (ee <= addr)
			vma = ee;
		else
			end = ev;
	}
	*lo = vma;
	*hi = end;
	return mapped(s, sec, vma - bfd_section_vma(sec), end - vma);
}
