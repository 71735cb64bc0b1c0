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
 * same function several times faster still; it is chosen at run time,
 * so the library runs on any x86-64 processor.  Both paths give the same
 * result (the unit tests compare them through xp_crc32c on every size).
 */
#include "base/internal.h"

#include "crc32c_table.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <nmmintrin.h>
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
#endif

uint32_t xp_crc32c(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint32_t c = ~crc;

#ifdef XP_CRC_HW
	/* Short inputs are not worth the feature test. */
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
