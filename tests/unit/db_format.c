/*
 * db_format.c - unit tests of the feedback database writer and reader
 * (lib/feedback/db_write.c, lib/feedback/db_read.c, lib/base/crc32c.c).
 *
 * A profile that uses every table is built with the builder, written,
 * read back and written again: the bytes must not change, and the records
 * read back must be those written.  Then the reader is attacked: every
 * truncation, every single-bit flip (caught by the checksum), and every
 * single-bit flip with the checksum recomputed, where the reader must
 * either reject the file or accept exactly what the writer would produce
 * for what it read.  That last sweep is what makes the reader canonical.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/internal.h"
#include "unit.h"

/* Short for the many strings below. */
#define S unit_str

/* A profile with records in every table, all VP types and both stats. */
static xp_fb *rich_profile(void)
{
	xp_fbb *b = xp_fbb_new(XP_DT_FEEDBACK, 4, 7);
	xp_objfile o = {0};
	xp_proc p = {0};
	xp_vpval v = {0};
	int e = 0;

	o.path = S(b, "/src/zeta.o");
	o.tv_sec = 1700000000;
	o.tv_usec = 12345;
	o.n_values_per_vp = 2;
	o.signature = 0xdeadbeefcafef00du;
	o.n_srcfile_names = 3;
	e |= xp_fbb_begin_objfile(b, &o);
	e |= xp_fbb_add_stat(b, XP_STAT_MAX, 99);
	e |= xp_fbb_add_stat(b, XP_STAT_SUM, 1000);
	p.name = S(b, "main");
	p.signature = 0x1234;
	p.proc_id = 2;
	p.n_vp_sites = 9;
	p.n_srcmap_ops = 10;
	e |= xp_fbb_begin_proc(b, &p);
	e |= xp_fbb_add_stat(b, XP_STAT_SUM, 5);
	e |= xp_fbb_add_counter(b, 2, 40);
	e |= xp_fbb_add_counter(b, 1, UINT64_MAX);
	e |= xp_fbb_add_vp(b, 7, XP_VP_INT);
	v.count = 3, v.has_value = 1, v.v.i = -5;
	e |= xp_fbb_add_vpval(b, &v);
	v.count = 0, v.has_value = 0;
	e |= xp_fbb_add_vpval(b, &v);
	e |= xp_fbb_add_vp(b, 8, XP_VP_DOUBLE);
	v.count = 1, v.has_value = 1, v.v.d = -0.0;
	e |= xp_fbb_add_vpval(b, &v);
	v.v.d = __builtin_nan("");
	e |= xp_fbb_add_vpval(b, &v);
	e |= xp_fbb_add_vp(b, 9, XP_VP_FLOAT);
	v.v.f = 1.5f;
	e |= xp_fbb_add_vpval(b, &v);
	v.v.f = -__builtin_inff();
	e |= xp_fbb_add_vpval(b, &v);
	e |= xp_fbb_add_vp(b, 10, XP_VP_LLONG);
	v.v.ll = INT64_MIN;
	e |= xp_fbb_add_vpval(b, &v);
	v.v.ll = 77;
	e |= xp_fbb_add_vpval(b, &v);
	e |= xp_fbb_add_vp(b, 11, XP_VP_PROC);
	v.count = 4, v.has_value = 1;
	v.v.proc.name = S(b, "callee");
	v.v.proc.objfile = S(b, "/src/alpha.o");
	e |= xp_fbb_add_vpval(b, &v);
	v.count = 2, v.has_value = 0;
	e |= xp_fbb_add_vpval(b, &v);
	e |= xp_fbb_add_block(b, 1, 2);
	e |= xp_fbb_add_block(b, 2, 0);
	xp_edge ed = {1, 1, 1, 2};
	e |= xp_fbb_add_edge(b, &ed);
	xp_tuple t = {3, 1, 10, 0, S(b, "zeta.c")};
	e |= xp_fbb_add_tuple(b, &t);
	xp_tuple t2 = {1, 2, 11, 4, XP_NOSTR};
	e |= xp_fbb_add_tuple(b, &t2);
	p.name = S(b, "aux");
	p.proc_id = 1;
	p.n_srcmap_ops = 0;
	e |= xp_fbb_begin_proc(b, &p);

	e |= xp_fbb_begin_program(b, S(b, "/bin/prog"));
	e |= xp_fbb_add_stat(b, XP_STAT_MAX, 3);
	e |= xp_fbb_add_objref(b, S(b, "/src/zeta.o"));
	e |= xp_fbb_add_comdat(b, S(b, "inl"), S(b, "/src/zeta.o"));

	o.path = S(b, "/src/alpha.o");
	o.n_values_per_vp = 0;
	e |= xp_fbb_begin_objfile(b, &o);
	p.name = S(b, "callee");
	p.proc_id = 1;
	e |= xp_fbb_begin_proc(b, &p);
	e |= xp_fbb_add_counter(b, 1, 8);

	e |= xp_fbb_begin_srcfile(b, S(b, "zeta.c"));
	e |= xp_fbb_begin_srcline(b, 10, 0);
	xp_blockref br = {1, 40, S(b, "main"), S(b, "/src/zeta.o")};
	e |= xp_fbb_add_blockref(b, &br);
	e |= xp_fbb_begin_srcline(b, 11, 4);
	br.block = 2;
	e |= xp_fbb_add_blockref(b, &br);
	br.proc = S(b, "callee");
	br.objfile = S(b, "/src/alpha.o");
	e |= xp_fbb_add_blockref(b, &br);
	e |= xp_fbb_begin_srcfile(b, S(b, "empty.h"));

	xp_fb *fb = NULL;
	if (e || xp_fbb_finish(b, &fb))
		unit_fail(__FILE__, __LINE__, "building the profile");
	xp_fbb_free(b);
	return fb;
}

static int same_tables(const xp_fb *a, const xp_fb *b)
{
	if (a->type != b->type || a->minor != b->minor ||
	    a->n_proc_names != b->n_proc_names || a->nstr != b->nstr ||
	    a->strtab_len != b->strtab_len ||
	    memcmp(a->strtab, b->strtab, a->strtab_len) ||
	    memcmp(a->stroff, b->stroff, (size_t)a->nstr * 4))
		return 0;
	for (int t = 0; t < XP_T_COUNT_; t++)
		if (a->n[t] != b->n[t] ||
		    memcmp(a->tab[t], b->tab[t],
		           (size_t)a->n[t] * xp_tabdescs[t].size))
			return 0;
	return 1;
}

static void test_crc32c(void)
{
	/* The check value of CRC-32C (RFC 3720). */
	CHECK_EQ(xp_crc32c(0, "123456789", 9), 0xe3069283u);
	unsigned char buf[100];
	for (int i = 0; i < 100; i++)
		buf[i] = (unsigned char)(i * 37 + 1);
	/* Continuing a CRC gives the CRC of the concatenation. */
	for (size_t k = 0; k <= 100; k += 7)
		CHECK_EQ(xp_crc32c(xp_crc32c(0, buf, k), buf + k, 100 - k),
		         xp_crc32c(0, buf, 100));
	/* 32 zero bytes and 32 bytes 0..31 (RFC 3720, B.4). */
	memset(buf, 0, 32);
	CHECK_EQ(xp_crc32c(0, buf, 32), 0x8a9136aau);
	for (int i = 0; i < 32; i++)
		buf[i] = (unsigned char)i;
	CHECK_EQ(xp_crc32c(0, buf, 32), 0x46dd794eu);

	/* Long inputs may take another path (the crc32 instruction) than
	 * short ones: fed one byte at a time they must agree. */
	unsigned char big[5000];
	for (int i = 0; i < 5000; i++)
		big[i] = (unsigned char)(i * 131 + (i >> 7));
	for (size_t n = 0; n <= 5000; n += 499) {
		uint32_t c = 0;
		for (size_t i = 0; i < n; i++)
			c = xp_crc32c(c, big + i, 1);
		CHECK_EQ(xp_crc32c(0, big, n), c);
	}

	/* From 256 bytes on the message may be folded 256, 64 and 16 bytes
	 * at a time: every length up to well past those, from unaligned
	 * starts and a non-zero register, agrees with the byte-at-a-time
	 * result. */
	for (size_t at = 0; at < 3; at++) {
		uint32_t c = 0x12345678u;
		for (size_t n = 0; n <= 1100 && at + n <= sizeof big; n++) {
			CHECK_EQ(xp_crc32c(0x12345678u, big + at, n), c);
			c = xp_crc32c(c, big + at + n, 1);
		}
	}

	/* Inputs of three 8 KiB blocks and more are computed as three
	 * interleaved streams: every length around those multiples must
	 * agree with the byte-at-a-time result. */
	size_t hn = 3 * 3 * 8192 + 64;
	unsigned char *huge = malloc(hn);
	CHECK(huge != NULL);
	if (!huge)
		return;
	for (size_t i = 0; i < hn; i++)
		huge[i] = (unsigned char)(i * 7 + (i >> 9));
	uint32_t ref = 0;
	size_t done = 0;
	const size_t lens[] = {3 * 8192 - 1, 3 * 8192, 3 * 8192 + 1,
	                       6 * 8192 + 13, 9 * 8192, hn};
	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		for (; done < lens[k]; done++)
			ref = xp_crc32c(ref, huge + done, 1);
		CHECK_EQ(xp_crc32c(0, huge, lens[k]), ref);
		/* Starting from a non-zero register too. */
		CHECK_EQ(xp_crc32c(xp_crc32c(0, huge, 5), huge + 5, lens[k] - 5),
		         ref);
	}
	free(huge);
}

/* The checksum of bytes with a field put back, from the checksum taken
 * with the field zero, against the checksum computed over the bytes. */
static void test_crc32c_with_field(void)
{
	unsigned char buf[3000];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 29 + (i >> 5));
	const size_t lens[] = {4, 44, 45, 64, 592, 1000, 3000};
	for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
		size_t n = lens[k];
		for (size_t at = 0; at + 4 <= n; at += n / 3 + 1) {
			uint32_t field = xp_get_le32(buf + at);
			unsigned char save[4];
			memcpy(save, buf + at, 4);
			memset(buf + at, 0, 4);
			uint32_t zero = xp_crc32c(0, buf, n);
			memcpy(buf + at, save, 4);
			CHECK_EQ(xp_crc32c_with_field(zero, n, at, field),
			         xp_crc32c(0, buf, n));
		}
	}
	/* Zero bytes: the register advanced one byte at a time. */
	uint32_t reg = 0x12345678u, step = reg;
	for (int i = 0; i < 300; i++) {
		CHECK_EQ(xp_crc32c_zeros(reg, (uint64_t)i), step);
		step = ~xp_crc32c(~step, "\0", 1);
	}
}

static void test_roundtrip(void)
{
	xp_fb *fb = rich_profile();
	unsigned char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	xp_fb *rd = NULL;
	xp_diags *d = xp_diags_new(0);

	CHECK_EQ(xp_db_write_mem(fb, &a, &alen), XP_E_OK);
	CHECK(alen >= 592 && alen % 4 == 0);
	CHECK_EQ(xp_db_open_mem(a, alen, "mem", &rd, d), XP_E_OK);
	CHECK_EQ(xp_diags_count(d), 0);
	if (rd) {
		CHECK(same_tables(fb, rd));
		CHECK_EQ(xp_db_write_mem(rd, &b, &blen), XP_E_OK);
		CHECK_MEM(a, alen, b, blen);
		xp_vpval v;
		xp_fb_vpval(rd, 2, XP_VP_DOUBLE, &v);
		CHECK(v.has_value && v.v.d == 0 && __builtin_signbit(v.v.d));
		CHECK_STR(xp_fb_str(rd, 0), "/bin/prog");
	}
	xp_fb_free(rd);
	free(b);

	/* A regular file, written from a non-zero offset. */
	char path[] = "/tmp/xp_db_unitXXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, "pre", 3), 3);
	CHECK_EQ(xp_db_write_fd(fb, fd), XP_E_OK);
	CHECK_EQ(lseek(fd, 0, SEEK_END), (off_t)(alen + 3));
	unsigned char *c = malloc(alen + 3);
	CHECK_EQ(pread(fd, c, alen + 3, 0), (ssize_t)(alen + 3));
	CHECK_MEM(c + 3, alen, a, alen);
	close(fd);
	free(c);

	/* The file starts with "pre": not a database. */
	xp_fb *rf = NULL;
	CHECK_EQ(xp_db_open(path, &rf, d), XP_E_FORMAT);
	CHECK(rf == NULL);
	unlink(path);

	/* The same bytes through a pipe, where the checksum cannot be
	 * written afterwards. */
	int pfd[2];
	CHECK_EQ(pipe(pfd), 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		_exit(xp_db_write_fd(fb, pfd[1]) == XP_E_OK ? 0 : 1);
	}
	close(pfd[1]);
	c = malloc(alen + 1);
	size_t got = 0;
	ssize_t r;
	while ((r = read(pfd[0], c + got, alen + 1 - got)) > 0)
		got += (size_t)r;
	close(pfd[0]);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_MEM(c, got, a, alen);
	free(c);

	xp_diags_free(d);
	free(a);
	xp_fb_free(fb);
}

static void test_empty_profile(void)
{
	xp_fbb *b = xp_fbb_new(XP_DT_TCOVD, 3, 0);
	xp_fb *fb = NULL, *rd = NULL;
	CHECK_EQ(xp_fbb_finish(b, &fb), XP_E_OK);
	xp_fbb_free(b);
	unsigned char *a = NULL;
	size_t alen = 0;
	CHECK_EQ(xp_db_write_mem(fb, &a, &alen), XP_E_OK);
	CHECK_EQ(alen, 592); /* header and directory only */
	CHECK_EQ(xp_db_open_mem(a, alen, "mem", &rd, NULL), XP_E_OK);
	if (rd) {
		CHECK_EQ(rd->type, XP_DT_TCOVD);
		CHECK_EQ(rd->minor, 3);
	}
	xp_fb_free(rd);
	xp_fb_free(fb);
	free(a);
}

static void fix_crc(unsigned char *p, size_t len)
{
	xp_put_le32(p + 40, 0);
	xp_put_le32(p + 40, xp_crc32c(0, p, len));
}

static void test_truncations(void)
{
	xp_fb *fb = rich_profile();
	unsigned char *a = NULL;
	size_t alen = 0;
	CHECK_EQ(xp_db_write_mem(fb, &a, &alen), XP_E_OK);
	unsigned rejected = 0;
	for (size_t n = 0; n < alen; n++) {
		/* A fresh copy of exactly n bytes, so that a sanitizer sees
		 * any read past them. */
		unsigned char *c = malloc(n ? n : 1);
		memcpy(c, a, n);
		xp_fb *rd = NULL;
		xp_diags *d = xp_diags_new(0);
		if (xp_db_open_mem(c, n, "t", &rd, d) != XP_E_OK &&
		    xp_diags_count(d) == 1)
			rejected++;
		xp_fb_free(rd);
		xp_diags_free(d);
		free(c);
	}
	CHECK_EQ(rejected, alen);
	free(a);
	xp_fb_free(fb);
}

/*
 * Every single-bit flip: with the stored checksum it must be rejected by
 * the checksum; with the checksum recomputed it must be rejected by a
 * structural check or be canonical (written again, the same bytes).
 */
static void test_bit_flips(void)
{
	xp_fb *fb = rich_profile();
	unsigned char *a = NULL;
	size_t alen = 0;
	CHECK_EQ(xp_db_write_mem(fb, &a, &alen), XP_E_OK);
	unsigned char *c = malloc(alen);
	unsigned crc_caught = 0, structural = 0, accepted = 0, bad = 0;
	for (size_t i = 0; i < alen; i++) {
		for (int bit = 0; bit < 8; bit++) {
			memcpy(c, a, alen);
			c[i] ^= (unsigned char)(1u << bit);
			xp_fb *rd = NULL;
			xp_diags *d = xp_diags_new(0);
			xp_err err = xp_db_open_mem(c, alen, "f", &rd, d);
			if (err != XP_E_OK && xp_diags_count(d) == 1)
				crc_caught++;
			else
				bad++;
			xp_fb_free(rd);
			xp_diags_free(d);
			if (i >= 40 && i < 44)
				continue; /* the checksum itself */

			fix_crc(c, alen);
			rd = NULL;
			d = xp_diags_new(0);
			err = xp_db_open_mem(c, alen, "f", &rd, d);
			if (err == XP_E_OK) {
				unsigned char *w = NULL;
				size_t wlen = 0;
				xp_db_write_mem(rd, &w, &wlen);
				if (wlen == alen && !memcmp(w, c, alen))
					accepted++;
				else {
					bad++;
					printf("noncanonical flip at %zu bit %d\n", i, bit);
				}
				free(w);
			} else if (xp_diags_count(d) == 1) {
				structural++;
			} else {
				bad++;
			}
			xp_fb_free(rd);
			xp_diags_free(d);
		}
	}
	printf("# %u flips accepted, %u rejected by structure\n", accepted,
	       structural);
	CHECK_EQ(bad, 0);
	CHECK_EQ(crc_caught, alen * 8);
	/* Counts, tv_sec and the like change freely; most flips do not. */
	CHECK(accepted > 0);
	CHECK(structural > accepted);
	free(c);
	free(a);
	xp_fb_free(fb);
}

/*
 * Every aligned u32 set to a few telling values (0, 1, 2, 3, all ones,
 * one more, one less), checksum recomputed: rejected, or canonical.
 */
static void test_field_values(void)
{
	xp_fb *fb = rich_profile();
	unsigned char *a = NULL;
	size_t alen = 0;
	CHECK_EQ(xp_db_write_mem(fb, &a, &alen), XP_E_OK);
	unsigned char *c = malloc(alen);
	unsigned bad = 0;
	for (size_t i = 0; i + 4 <= alen; i += 4) {
		if (i == 40)
			continue;
		uint32_t orig = xp_get_le32(a + i);
		const uint32_t vals[] = {0, 1, 2, 3, UINT32_MAX, orig + 1, orig - 1};
		for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
			if (vals[k] == orig)
				continue;
			memcpy(c, a, alen);
			xp_put_le32(c + i, vals[k]);
			fix_crc(c, alen);
			xp_fb *rd = NULL;
			xp_diags *d = xp_diags_new(0);
			xp_err err = xp_db_open_mem(c, alen, "f", &rd, d);
			if (err == XP_E_OK) {
				unsigned char *w = NULL;
				size_t wlen = 0;
				xp_db_write_mem(rd, &w, &wlen);
				if (wlen != alen || memcmp(w, c, alen)) {
					bad++;
					printf("noncanonical: offset %zu = %u\n", i,
					       vals[k]);
				}
				free(w);
			} else if (xp_diags_count(d) != 1) {
				bad++;
			}
			xp_fb_free(rd);
			xp_diags_free(d);
		}
	}
	CHECK_EQ(bad, 0);
	free(c);
	free(a);
	xp_fb_free(fb);
}

int main(void)
{
	RUN(test_crc32c);
	RUN(test_crc32c_with_field);
	RUN(test_roundtrip);
	RUN(test_empty_profile);
	RUN(test_truncations);
	RUN(test_bit_flips);
	RUN(test_field_values);
	return unit_done();
}
