/* The rt_sigreturn trampoline (see sigreturn.h). */
#include "sigreturn.h"

#include <string.h>

int sy_sigreturn_code(enum sy_trace_kind arch, const uint8_t *code, size_t n)
{
	static const uint8_t x86_rax[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0,
					    0x0f, 0x05 };
	static const uint8_t x86_eax[7] = { 0xb8, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	static const uint8_t a64_x8[8] = { 0x68, 0x11, 0x80, 0xd2,
					   0x01, 0x00, 0x00, 0xd4 };
	static const uint8_t a64_w8[8] = { 0x68, 0x11, 0x80, 0x52,
					   0x01, 0x00, 0x00, 0xd4 };

	if (arch == SY_TRACE_ETM)
		return n >= 8 &&
		       (!memcmp(code, a64_x8, 8) || !memcmp(code, a64_w8, 8));
	return (n >= 9 && !memcmp(code, x86_rax, 9)) ||
	       (n >= 7 && !memcmp(code, x86_eax, 7));
}
