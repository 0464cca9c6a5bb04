/* The rt_sigreturn trampoline a signal handler returns to (glibc's
 * __restore_rt, the A64 vDSO's, a freestanding program's own), recognised
 * by its code, never by a name: the syscall number in the first
 * instruction, the syscall right after it.  x86-64: mov $15, %rax
 * (48 c7 c0, glibc) or mov $15, %eax (b8), then syscall (0f 05); A64:
 * mov x8 or w8, #139, then svc #0. */
#ifndef SY_SYNTH_SIGRETURN_H
#define SY_SYNTH_SIGRETURN_H

#include <stddef.h>
#include <stdint.h>

#include "sy_decode.h"

/* Bytes the longest trampoline takes. */
#define SY_SIGRETURN_MAX 9

/* Whether the @n bytes @code (the code at an address) begin with the
 * trampoline of @arch's programs (ETM: A64, PT: x86-64). */
int sy_sigreturn_code(enum sy_trace_kind arch, const uint8_t *code, size_t n);

#endif
