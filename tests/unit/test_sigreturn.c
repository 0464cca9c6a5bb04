/* The rt_sigreturn trampoline, by its code (sigreturn.h): the fixture
 * programs' own and glibc's forms, and the bytes that only look alike. */
#include <criterion/criterion.h>
#include <string.h>

#include "synth/sigreturn.h"

/* glibc's x86-64 __restore_rt: mov $15, %rax; syscall */
static const uint8_t x86_glibc[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0,
				      0x0f, 0x05 };
/* mov $15, %eax; syscall */
static const uint8_t x86_eax[7] = { 0xb8, 0x0f, 0, 0, 0, 0x0f, 0x05 };
/* A64: mov x8, #139; svc #0 (the fixture programs' fx_sigreturn, objdump:
 * d2801168 d4000001) and mov w8, #139 */
static const uint8_t a64_x8[8] = { 0x68, 0x11, 0x80, 0xd2, 1, 0, 0, 0xd4 };
static const uint8_t a64_w8[8] = { 0x68, 0x11, 0x80, 0x52, 1, 0, 0, 0xd4 };

Test(sigreturn, the_trampolines)
{
	cr_assert(sy_sigreturn_code(SY_TRACE_PT, x86_glibc, 9));
	cr_assert(sy_sigreturn_code(SY_TRACE_PT, x86_eax, 7));
	cr_assert(sy_sigreturn_code(SY_TRACE_ETM, a64_x8, 8));
	cr_assert(sy_sigreturn_code(SY_TRACE_ETM, a64_w8, 8));
}

Test(sigreturn, not_the_trampolines)
{
	uint8_t b[9];

	/* the other architecture's */
	cr_assert_not(sy_sigreturn_code(SY_TRACE_ETM, x86_glibc, 9));
	cr_assert_not(sy_sigreturn_code(SY_TRACE_PT, a64_x8, 8));
	/* too few bytes for the form */
	cr_assert_not(sy_sigreturn_code(SY_TRACE_PT, x86_glibc, 8));
	cr_assert_not(sy_sigreturn_code(SY_TRACE_PT, x86_eax, 6));
	cr_assert_not(sy_sigreturn_code(SY_TRACE_ETM, a64_x8, 7));
	/* another syscall number: rt_sigaction's 13, A64's 134 */
	memcpy(b, x86_glibc, 9);
	b[3] = 13;
	cr_assert_not(sy_sigreturn_code(SY_TRACE_PT, b, 9));
	memcpy(b, a64_x8, 8);
	b[0] = 0xc8;	/* mov x8, #134 */
	b[1] = 0x10;
	cr_assert_not(sy_sigreturn_code(SY_TRACE_ETM, b, 8));
	/* the number without the syscall */
	memcpy(b, x86_eax, 7);
	b[6] = 0x0b;
	cr_assert_not(sy_sigreturn_code(SY_TRACE_PT, b, 7));
}
