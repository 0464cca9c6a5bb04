/* The code image the ETM fuzz targets decode against (and the unit test
 * that replays what they found): every waypoint class and an SVC, with
 * targets inside the image, mapped twice (low and high addresses).
 * Included by one translation unit each. */
#ifndef FUZZ_ETM_CODE_H
#define FUZZ_ETM_CODE_H

#include <stdint.h>
#include <string.h>

#define IMG_WORDS 256
#define IMG_LO 0x400000ull
#define IMG_HI 0x7fb7e01000ull

/* Every waypoint class and an SVC, with targets inside the image. */
static const uint32_t pattern[] = {
	0xd503201f,	/* nop */
	0x54000041,	/* b.ne +8 */
	0xb4000060,	/* cbz x0, +12 */
	0x36180081,	/* tbz w1, #3, +16 */
	0x94000010,	/* bl +64 */
	0xd63f0040,	/* blr x2 */
	0xd61f0060,	/* br x3 */
	0xd65f03c0,	/* ret */
	0xd65f0bff,	/* retaa */
	0xd4000001,	/* svc #0 */
	0x17fffff6,	/* b -40 */
	0xd69f03e0,	/* eret */
	0x91000400,	/* add x0, x0, #1 */
	0xd503233f,	/* paciasp */
	0xd5033fdf,	/* isb */
	0xd503207f,	/* wfi */
	0xd73f0a11,	/* blraa x16, x17 */
	0x97fffff0,	/* bl -64 */
};

static uint8_t img[IMG_WORDS * 4];

static void img_fill(void)
{
	for (size_t i = 0; i < IMG_WORDS; i++) {
		uint32_t w = pattern[i % (sizeof(pattern) / sizeof(pattern[0]))];

		memcpy(img + 4 * i, &w, 4);
	}
}

static size_t img_read(void *ctx, uint32_t ctxid, uint64_t addr,
		       uint8_t *buf, size_t len)
{
	const uint64_t bases[2] = { IMG_LO, IMG_HI };

	(void)ctx;
	(void)ctxid;
	for (int k = 0; k < 2; k++) {
		if (addr >= bases[k] && addr - bases[k] < sizeof(img)) {
			size_t off = (size_t)(addr - bases[k]);
			size_t n = sizeof(img) - off < len ? sizeof(img) - off
							   : len;

			memcpy(buf, img + off, n);
			return n;
		}
	}
	return 0;
}

#endif
