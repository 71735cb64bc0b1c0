/*
 * base/crc32c.c - CRC-32C (Castagnoli), the checksum of the feedback database.
 *
 * CRC-32C was chosen over the zlib CRC-32 because it detects more error
 * patterns at the sizes our files have and because many processors compute
 * it in hardware.  This is the portable slicing-by-8 method: it consumes
 * eight bytes per step with eight table look-ups, several times faster than
 * the byte-wise loop.  The tables are generated at build time by
 * build-aux/gencrc.c and are const, so the library keeps no mutable state.
 *
 * On x86-64 processors with SSE4.2 the crc32 instruction computes the
 * same function several times faster still, and on those with AVX-512
 * carry-less multiplication (VPCLMULQDQ) folding the message 256 bytes
 * at a time is twice as fast again; the path is chosen at run time, so
 * the library runs on any x86-64 processor.  Every path gives the same
 * result (the unit tests compare them through xp_crc32c on every size).
 */
#include "base/internal.h"

#include "crc32c_table.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define XP_CRC_HW 1

/* The register advanced over XP_CRC32C_SHIFT_BLOCK zero bytes. */
static uint32_t crc_shift(uint32_t r)
{
	return xp_crc32c_shift[0][r & 0xff] ^ xp_crc32c_shift[1][(r >> 8) & 0xff] ^
	       xp_crc32c_shift[2][(r >> 16) & 0xff] ^ xp_crc32c_shift[3][r >> 24];
}

/*
 * The crc32 instruction has a latency of several cycles but can start one
 * every cycle, so three consecutive blocks are computed as independent
 * streams (the second and third from a zero register) and joined: the
 * register after blocks A B equals the register after A advanced over
 * |B| zero bytes, xor the register of B alone.
 */
__attribute__((target("sse4.2")))
static uint32_t crc_hw(uint32_t c, const unsigned char *s, size_t n)
{
	enum { BLK = XP_CRC32C_SHIFT_BLOCK };
	uint64_t c0 = c;
	while (n >= 3 * (size_t)BLK) {
		uint64_t c1 = 0, c2 = 0;
		for (size_t i = 0; i < BLK; i += 8) {
			c0 = _mm_crc32_u64(c0, xp_get_le64(s + i));
			c1 = _mm_crc32_u64(c1, xp_get_le64(s + BLK + i));
			c2 = _mm_crc32_u64(c2, xp_get_le64(s + 2 * BLK + i));
		}
		c0 = crc_shift((uint32_t)c0) ^ (uint32_t)c1;
		c0 = crc_shift((uint32_t)c0) ^ (uint32_t)c2;
		s += 3 * (size_t)BLK;
		n -= 3 * (size_t)BLK;
	}
	while (n >= 8) {
		c0 = _mm_crc32_u64(c0, xp_get_le64(s));
		s += 8;
		n -= 8;
	}
	c = (uint32_t)c0;
	while (n--)
		c = _mm_crc32_u8(c, *s++);
	return c;
}

#define FOLD_TARGET "avx512f,vpclmulqdq,pclmul,sse4.2"

/* The folding constants of k as a 128-bit register, and in every lane
 * of a 512-bit one. */
__attribute__((target(FOLD_TARGET)))
static inline __m128i fold_k(int k)
{
	return _mm_set_epi64x((long long)xp_crc32c_fold[k][1],
	                      (long long)xp_crc32c_fold[k][0]);
}

/*
 * Blocks x (each of 16 bytes) folded onto the blocks y lying the
 * distance of k further: the first half of each times the first
 * constant, the second half times the second, both added to y.
 */
__attribute__((target(FOLD_TARGET)))
static inline __m512i fold512(__m512i x, __m512i k, __m512i y)
{
	return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
	                                 _mm512_clmulepi64_epi128(x, k, 0x11), y,
	                                 0x96);
}

__attribute__((target(FOLD_TARGET)))
static inline __m128i fold128(__m128i x, __m128i k, __m128i y)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
	                                   _mm_clmulepi64_si128(x, k, 0x11)),
	                     y);
}

/*
 * The register c advanced over n >= 256 bytes by folding (Intel's "Fast
 * CRC computation for generic polynomials using PCLMULQDQ"): the
 * register goes into the message's first bytes, four 64-byte lanes fold
 * 256 bytes at a time, then onto each other and down to one 16-byte
 * block, whose CRC from a zero register (crc32) is the message's.
 */
__attribute__((target(FOLD_TARGET)))
static uint32_t crc_fold(uint32_t c, const unsigned char *s, size_t n)
{
	__m512i x0 = _mm512_loadu_si512(s), x1 = _mm512_loadu_si512(s + 64);
	__m512i x2 = _mm512_loadu_si512(s + 128), x3 = _mm512_loadu_si512(s + 192);
	x0 = _mm512_xor_si512(x0, _mm512_castsi128_si512(_mm_cvtsi32_si128((int)c)));
	s += 256;
	n -= 256;
	const __m512i k256 = _mm512_broadcast_i32x4(fold_k(6));
	for (; n >= 256; s += 256, n -= 256) {
		x0 = fold512(x0, k256, _mm512_loadu_si512(s));
		x1 = fold512(x1, k256, _mm512_loadu_si512(s + 64));
		x2 = fold512(x2, k256, _mm512_loadu_si512(s + 128));
		x3 = fold512(x3, k256, _mm512_loadu_si512(s + 192));
	}
	const __m512i k64 = _mm512_broadcast_i32x4(fold_k(3));
	__m512i x = fold512(x0, _mm512_broadcast_i32x4(fold_k(5)), x3);
	x = fold512(x1, _mm512_broadcast_i32x4(fold_k(4)), x);
	x = fold512(x2, k64, x);
	for (; n >= 64; s += 64, n -= 64)
		x = fold512(x, k64, _mm512_loadu_si512(s));
	__m128i a = fold128(_mm512_extracti32x4_epi32(x, 0), fold_k(2),
	                    _mm512_extracti32x4_epi32(x, 3));
	a = fold128(_mm512_extracti32x4_epi32(x, 1), fold_k(1), a);
	a = fold128(_mm512_extracti32x4_epi32(x, 2), fold_k(0), a);
	for (; n >= 16; s += 16, n -= 16)
		a = fold128(a, fold_k(0), _mm_loadu_si128((const __m128i *)(const void *)s));
	uint64_t r = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(a));
	r = _mm_crc32_u64(r, (uint64_t)_mm_extract_epi64(a, 1));
	return crc_hw((uint32_t)r, s, n);
}
#endif

uint32_t xp_crc32c(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint32_t c = ~crc;

#ifdef XP_CRC_HW
	/* Short inputs are not worth the feature test. */
	if (n >= 256 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("vpclmulqdq"))
		return ~crc_fold(c, s, n);
	if (n >= 64 && __builtin_cpu_supports("sse4.2"))
		return ~crc_hw(c, s, n);
#endif

	/* Bytes are combined in little-endian order whatever the host's, so
	 * the loop reads them one by one rather than as a wider word. */
	while (n >= 8) {
		uint32_t lo = c ^ xp_get_le32(s);
		uint32_t hi = xp_get_le32(s + 4);
		c = xp_crc32c_tab[7][lo & 0xff] ^
		    xp_crc32c_tab[6][(lo >> 8) & 0xff] ^
		    xp_crc32c_tab[5][(lo >> 16) & 0xff] ^
		    xp_crc32c_tab[4][lo >> 24] ^
		    xp_crc32c_tab[3][hi & 0xff] ^
		    xp_crc32c_tab[2][(hi >> 8) & 0xff] ^
		    xp_crc32c_tab[1][(hi >> 16) & 0xff] ^
		    xp_crc32c_tab[0][hi >> 24];
		s += 8;
		n -= 8;
	}
	while (n--)
		c = (c >> 8) ^ xp_crc32c_tab[0][(c ^ *s++) & 0xff];
	return ~c;
}

/* The reflected polynomial: bit 31 is the coefficient of x^0. */
#define CRC_POLY 0x82f63b78u

/* a times b modulo the polynomial, both reflected (zlib's multmodp). */
static uint32_t mult_mod(uint32_t a, uint32_t b)
{
	uint32_t m = (uint32_t)1 << 31, p = 0;

	for (;;) {
		if (a & m) {
			p ^= b;
			if ((a & (m - 1)) == 0)
				break;
		}
		m >>= 1;
		b = b & 1 ? (b >> 1) ^ CRC_POLY : b >> 1;
	}
	return p;
}

uint32_t xp_crc32c_zeros(uint32_t reg, uint64_t n)
{
	/* Advancing the register over n zero bytes multiplies it by
	 * x^(8n); x^(8n) is built from the squares x^(2^k). */
	uint32_t xk = (uint32_t)1 << 23;   /* x^8: one zero byte */
	uint32_t p = (uint32_t)1 << 31;    /* 1 */

	for (; n != 0; n >>= 1) {
		if (n & 1)
			p = mult_mod(xk, p);
		xk = mult_mod(xk, xk);
	}
	return mult_mod(p, reg);
}

uint32_t xp_crc32c_with_field(uint32_t crc, uint64_t len, uint64_t at,
                              uint32_t field)
{
	/*
	 * CRC-32C is affine: for messages of equal length the xor of the
	 * checksums is the plain register (no initial value, no final xor)
	 * of the xor of the messages, here the four bytes of field at `at`
	 * among zeros.  Leading zeros leave that register at zero; the
	 * bytes after the field advance it.
	 */
	unsigned char b[4];

	xp_put_le32(b, field);
	return crc ^ xp_crc32c_zeros(~xp_crc32c(0xffffffffu, b, 4),
	                             len - at - 4);
}
