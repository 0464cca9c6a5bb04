/* Unaligned little-endian loads and stores.
 *
 * perf.data feature sections are not 8-byte aligned and records coming out
 * of a zstd stream can start anywhere in our buffer, so every field is read
 * through memcpy.  Compilers turn these into single loads on x86-64 and
 * AArch64.  Only little-endian hosts are supported (checked at build time).
 */
#ifndef SY_BYTES_H
#define SY_BYTES_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "strobe-synth supports little-endian hosts only"
#endif

static inline uint16_t sy_le16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t sy_le32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t sy_le64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void sy_put16(void *p, uint16_t v) { memcpy(p, &v, sizeof(v)); }
static inline void sy_put32(void *p, uint32_t v) { memcpy(p, &v, sizeof(v)); }
static inline void sy_put64(void *p, uint64_t v) { memcpy(p, &v, sizeof(v)); }

#define SY_ALIGN8(x) (((x) + 7u) & ~(uint64_t)7u)
#define SY_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
