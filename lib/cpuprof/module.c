/*
 * cpuprof/module.c - the module of gperftools CPU profiles (cpuprofile(5)):
 * recognition, the binary reader and writer.
 *
 * The format (specs/gperftools-cpu-profile.txt): every number is a slot,
 * a word of 4 or 8 bytes in the byte order of the profiled machine.  A
 * header (slot 0: 0; slot 1: how many header slots follow, at least 3;
 * slot 2: format version, 0, or 1 for the Java variant; slot 3: the
 * sampling period in microseconds; slot 4: padding), then records
 * (count, num_pcs, num_pcs PCs), then the trailer 0, 1, 0, then the text
 * of the mapped objects up to the end of the file.
 *
 * Slot size and byte order are worked out as google-pprof does: when the
 * first 8 bytes are all zero the slots are 64-bit, otherwise 32-bit; the
 * byte order is the one in which slot 1 is a small number (3 to 4096).
 * -L LAYOUT forces them ("32le", "32be", "64le", "64be").
 */
#include "cpuprof/cpuprof.h"

/* The layout of a header, or 0 when it is not a CPU profile's. */
static int layout_of(const unsigned char *h, size_t len, unsigned *slot,
                     int *big)
{
	static const unsigned char zero[8];
	uint64_t s1le, s1be, s2;
	unsigned sz;

	if (len < 12)
		return 0;
	sz = memcmp(h, zero, 8) == 0 ? 8 : 4;
	if (len < 3 * sz || memcmp(h, zero, sz) != 0)
		return 0;
	if (sz == 8) {
		s1le = xp_get_le64(h + 8);
		s1be = xp_get_be64(h + 8);
	} else {
		s1le = xp_get_le32(h + 4);
		s1be = xp_get_be32(h + 4);
	}
	if (s1le >= 3 && s1le <= CP_MAX_HDR)
		*big = 0;
	else if (s1be >= 3 && s1be <= CP_MAX_HDR)
		*big = 1;
	else
		return 0;
	if (sz == 8)
		s2 = *big ? xp_get_be64(h + 16) : xp_get_le64(h + 16);
	else
		s2 = *big ? xp_get_be32(h + 8) : xp_get_le32(h + 8);
	if (s2 > 1)
		return 0;
	*slot = sz;
	return 1;
}

static int xp_cp_detect(const unsigned char *head, size_t len)
{
	unsigned slot;
	int big;

	return layout_of(head, len, &slot, &big);
}

/* -L: "32le", "32be", "64le" or "64be". */
static int parse_layout(const char *s, unsigned *slot, int *big)
{
	if (strlen(s) != 4 || (s[0] != '3' && s[0] != '6') ||
	    (s[0] == '3' && s[1] != '2') || (s[0] == '6' && s[1] != '4') ||
	    (strcmp(s + 2, "le") != 0 && strcmp(s + 2, "be") != 0))
		return -1;
	*slot = s[0] == '3' ? 4 : 8;
	*big = s[2] == 'b';
	return 0;
}

/* Checks every line of the mapped-objects text at offset base. */
static xp_err check_text(const xp_rd *r, const char *s, size_t len,
                         uint64_t base)
{
	const char *p = s, *end = s + len;
	size_t lineno = 0;
	xp_err err = XP_E_OK;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = (size_t)((nl != NULL ? nl : end) - p), plen, col;
		const char *path, *why;
		xp_cpuprof_map m;

		lineno++;
		if (xp_cp_line(p, ll, &m, &path, &plen, &why, &col) ==
		    CP_LINE_BAD) {
			err = xp_rd_error(r, XP_E_CORRUPT,
			                  base + (uint64_t)(p - s) + col,
			                  "mapped objects line %zu: %s", lineno,
			                  why);
			if (xp_diags_full(r->d))
				break;
		}
		p = nl != NULL ? nl + 1 : end;
	}
	return err;
}

static xp_err xp_cp_read(const unsigned char *buf, size_t len, const char *name,
                      const xp_load_opts *o, void **out, xp_diags *d)
{
	xp_cpuprof *p = NULL;
	uint64_t *pcs;
	unsigned slot;
	int big;
	xp_rd r;
	xp_err err;
	uint64_t h1;

	*out = NULL;
	if (o->layout != NULL) {
		if (parse_layout(o->layout, &slot, &big) != 0)
			return xp_diag_file(d, XP_E_INVAL, name,
			                    "bad layout '%s' (expected 32le, 32be, "
			                    "64le or 64be)", o->layout);
	} else if (!layout_of(buf, len, &slot, &big)) {
		return xp_diag_bin(d, XP_E_FORMAT, name, 0,
		                   "not a CPU profile header");
	}
	xp_rd_init(&r, buf, len, big, name, d);
	if ((err = xp_rd_need(&r, 2 * slot, "header")) != XP_E_OK)
		return err;
	if (xp_rd_word(&r, slot) != 0)
		return xp_rd_error(&r, XP_E_CORRUPT, 0,
		                   "header slot 0 is not 0");
	h1 = xp_rd_word(&r, slot);
	if (h1 < 3 || h1 > CP_MAX_HDR)
		return xp_rd_error(&r, XP_E_CORRUPT, slot,
		                   "header slot 1 is %llu: between 3 and %u "
		                   "header slots must follow it",
		                   (unsigned long long)h1, CP_MAX_HDR);
	if ((err = xp_rd_need(&r, (size_t)h1 * slot, "header")) != XP_E_OK)
		return err;
	p = xp_cp_new(slot, big);
	if (p == NULL)
		return XP_E_NOMEM;
	p->nhdr = 2 + (size_t)h1;
	p->hdr = malloc(p->nhdr * sizeof *p->hdr);
	if (p->hdr == NULL) {
		err = XP_E_NOMEM;
		goto fail;
	}
	p->hdr[0] = 0;
	p->hdr[1] = h1;
	for (size_t i = 2; i < p->nhdr; i++)
		p->hdr[i] = xp_rd_word(&r, slot);
	if (p->hdr[2] > 1) {
		err = xp_rd_error(&r, XP_E_VERSION, 2 * slot,
		                  "unsupported format version %llu (0, or 1 "
		                  "for Java, expected)",
		                  (unsigned long long)p->hdr[2]);
		goto fail;
	}
	if (p->hdr[3] == 0) {
		err = xp_rd_error(&r, XP_E_CORRUPT, 3 * slot,
		                  "sampling period is 0");
		goto fail;
	}
	/* Room for as many PCs as slots are left, and for records of three
	 * slots at least: no array grows as the records come. */
	if ((err = xp_cp_reserve(p, xp_rd_left(&r) / slot / 3 + 1,
	                         xp_rd_left(&r) / slot + 1)) != XP_E_OK)
		goto fail;
	for (;;) {
		size_t off = r.pos, left, n;
		uint64_t count, n64;

		if (xp_rd_left(&r) == 0) {
			err = xp_rd_error(&r, XP_E_CORRUPT, off,
			                  "missing trailer: the file ends after "
			                  "the records without the 0, 1, 0 "
			                  "trailer");
			goto fail;
		}
		if (!xp_rd_has(&r, 2 * slot)) {
			err = xp_rd_error(&r, XP_E_CORRUPT, off,
			                  "truncated record: %u bytes needed for "
			                  "its count and num_pcs, %zu left",
			                  2 * slot, xp_rd_left(&r));
			goto fail;
		}
		count = xp_rd_word(&r, slot);
		n64 = xp_rd_word(&r, slot);
		left = xp_rd_left(&r) / slot;
		if (n64 == 0) {
			err = xp_rd_error(&r, XP_E_CORRUPT, off + slot,
			                  "record with num_pcs 0");
			goto fail;
		}
		if (n64 > left) {
			err = xp_rd_error(&r, XP_E_CORRUPT, off + slot,
			                  "num_pcs %llu runs past the end of the "
			                  "file (%zu slots left)",
			                  (unsigned long long)n64, left);
			goto fail;
		}
		n = (size_t)n64;
		/* Decoded in place, past the PCs of the records before. */
		pcs = p->pcs + p->npc;
		for (size_t i = 0; i < n; i++)
			pcs[i] = xp_rd_word(&r, slot);
		if (count == 0 && n == 1 && pcs[0] == 0)
			break;
		if ((err = xp_cp_add_record(p, count, pcs, n)) != XP_E_OK)
			goto fail;
	}
	{
		size_t tl = xp_rd_left(&r);
		const char *t = (const char *)xp_rd_bytes(&r, tl);

		if ((err = check_text(&r, t, tl, r.pos - tl)) != XP_E_OK)
			goto fail;
		if ((err = xp_cp_set_text(p, t, tl)) != XP_E_OK)
			goto fail;
	}
	*out = p;
	return XP_E_OK;
fail:
	xp_cp_free(p);
	return err;
}

static xp_err xp_cp_write(const void *m, xp_wbuf *w)
{
	const xp_cpuprof *p = m;

	for (size_t i = 0; i < p->nhdr; i++)
		xp_wbuf_word(w, p->hdr[i], p->slot, p->big);
	for (size_t i = 0; i < p->nrec; i++) {
		const xp_cp_rec *r = &p->recs[i];
		xp_wbuf_word(w, r->count, p->slot, p->big);
		xp_wbuf_word(w, r->npcs, p->slot, p->big);
		for (size_t j = 0; j < r->npcs; j++)
			xp_wbuf_word(w, p->pcs[r->first + j], p->slot, p->big);
	}
	xp_wbuf_word(w, 0, p->slot, p->big);
	xp_wbuf_word(w, 1, p->slot, p->big);
	xp_wbuf_word(w, 0, p->slot, p->big);
	if (p->textlen > 0)
		xp_wbuf_write(w, p->text, p->textlen);
	return w->err;
}

/* Samples, and the call stacks they were taken in. */
static void xp_cp_totals(const void *model, xp_prof_totals *t)
{
	xp_prof_total(t, "samples", xp_cpuprof_total(model));
	xp_prof_total(t, "stacks", xp_cpuprof_n_records(model));
}

static void xp_cp_free_model(void *m)
{
	xp_cp_free(m);
}

const xp_module xp_module_cpuprof = {
	XP_MODULE_NAMES("cpuprof", CPUPROF, "cpu.prof", "CPU profile", "a"),
	.sampled = 1,
	XP_MODULE_ENTRIES(xp_cp),
	.report_takes = XP_REPORT_LINES,
	.report_of = "pprof's report of a CPU profile",
	.check_exe = xp_cp_check_exe,
};
