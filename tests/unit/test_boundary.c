/* x86-64 instruction boundaries (src/synth/boundary.c) against objdump's
 * disassembly of the fixture program: every byte of its code, inside a
 * function or in the no-op padding after one, is where objdump starts
 * an instruction or inside one, and said so. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth/boundary.h"
#include "sy_test.h"

#define PROG "tests/fixtures/programs/bin/branchy-x86_64"

/* objdump -d's instruction addresses (a bitmap from @lo), and the range
 * of them. */
static uint8_t *objdump_starts(uint64_t *lo, uint64_t *hi)
{
	char *out = NULL, *save = NULL;
	uint8_t *on;
	uint64_t a;

	cr_assert_eq(sy_test_run("objdump -d --no-show-raw-insn " PROG, &out,
				 NULL), 0);
	*lo = UINT64_MAX;
	*hi = 0;
	for (char *l = strtok_r(out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		if (sscanf(l, " %" SCNx64 ":\t", &a) == 1 && strchr(l, '\t')) {
			*lo = a < *lo ? a : *lo;
			*hi = a > *hi ? a : *hi;
		}
	cr_assert_lt(*lo, *hi);
	on = calloc(*hi - *lo + 1, 1);
	cr_assert_not_null(on);
	free(out);
	out = NULL;
	cr_assert_eq(sy_test_run("objdump -d --no-show-raw-insn " PROG, &out,
				 NULL), 0);
	save = NULL;
	for (char *l = strtok_r(out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		if (sscanf(l, " %" SCNx64 ":\t", &a) == 1 && strchr(l, '\t'))
			on[a - *lo] = 1;
	free(out);
	return on;
}

Test(boundary, every_byte_as_objdump_decodes_it)
{
	struct sy_insn_decoder dec;
	struct sy_image *img = NULL;
	struct sy_diag d = { 0 };
	uint64_t lo, hi, n_on = 0, n_mid = 0, n_pad = 0;
	uint8_t *on = objdump_starts(&lo, &hi);

	cr_assert_eq(sy_image_open(&img, PROG, &d), 0, "%s", d.msg);
	cr_assert_eq(sy_insn_decoder_init(&dec, SY_TRACE_PT), 0);
	for (uint64_t a = lo; a <= hi; a++) {
		enum sy_boundary b = sy_x86_boundary(&dec, img, a);
		const char *name;
		uint64_t off;

		cr_assert_neq(b, SY_BOUNDARY_UNKNOWN, "%#" PRIx64, a);
		cr_assert_eq(b == SY_BOUNDARY_ON, on[a - lo] == 1,
			     "%#" PRIx64 ": %s", a,
			     b == SY_BOUNDARY_ON ? "on" : "mid");
		n_on += b == SY_BOUNDARY_ON;
		n_mid += b == SY_BOUNDARY_MID;
		n_pad += sy_image_symbol(img, a, &name, &off) != 0;
	}
	/* the padding after functions was swept too */
	cr_assert_gt(n_pad, 100u, "%" PRIu64 " bytes of padding", n_pad);
	cr_assert_gt(n_on, 300u);
	cr_assert_gt(n_mid, 300u);
	/* before the first function: nothing to decode from */
	cr_assert_eq(sy_x86_boundary(&dec, img, lo - 1), SY_BOUNDARY_UNKNOWN);
	sy_insn_decoder_fini(&dec);
	sy_image_close(img);
	free(on);
}

/* Bytes after a function's end that are not no-ops are code no symbol
 * covers: nothing is said of them, nor of what follows.  A copy of the
 * program whose nopw after op_add (0x401225, 11 bytes, up to op_mul at
 * 0x401230) starts with a `ret` (c3) instead. */
Test(boundary, code_no_symbol_covers_is_unknown)
{
	const char *dir = sy_test_mkdtemp();
	char path[4096];
	struct sy_insn_decoder dec;
	struct sy_image *img = NULL;
	struct sy_diag d = { 0 };
	size_t len;
	uint8_t *b = sy_test_read_file(PROG, &len);
	uint64_t off = 0x1225;	/* file offset of 0x401225 */

	cr_assert_not_null(b);
	cr_assert_eq(b[off], 0x66, "not the nopw this test knows");
	b[off] = 0xc3;
	snprintf(path, sizeof(path), "%s/p", dir);
	cr_assert_eq(sy_test_write_file(path, b, len), 0);
	cr_assert_eq(sy_image_open(&img, path, &d), 0, "%s", d.msg);
	cr_assert_eq(sy_insn_decoder_init(&dec, SY_TRACE_PT), 0);
	cr_assert_eq(sy_x86_boundary(&dec, img, 0x401225), SY_BOUNDARY_ON);
	cr_assert_eq(sy_x86_boundary(&dec, img, 0x401226),
		     SY_BOUNDARY_UNKNOWN);
	cr_assert_eq(sy_x86_boundary(&dec, img, 0x401228),
		     SY_BOUNDARY_UNKNOWN);
	/* op_add itself, and op_mul after the change, as before */
	cr_assert_eq(sy_x86_boundary(&dec, img, 0x401221), SY_BOUNDARY_MID);
	cr_assert_eq(sy_x86_boundary(&dec, img, 0x401230), SY_BOUNDARY_ON);
	sy_insn_decoder_fini(&dec);
	sy_image_close(img);
	free(b);
	sy_test_rmtree(dir);
}
