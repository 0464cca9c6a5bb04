/* Error codes shared by every strobe-synth module.
 *
 * Functions return int: >= 0 on success, -SY_E_<NAME> on failure.  The list
 * below generates both the enum and the strings (sy_errstr), so the two can
 * never drift apart.  Details that a code cannot carry (which byte offset,
 * which field) go into a struct sy_diag owned by the object that failed.
 */
#ifndef SY_ERROR_H
#define SY_ERROR_H

#include <stdint.h>
#include <stdarg.h>

#define SY_ERRORS(X)                                                        \
	X(OK, "success")                                                    \
	X(NOMEM, "out of memory")                                           \
	X(INVALID, "invalid argument")                                      \
	X(INTERNAL, "internal error")                                       \
	X(IO, "input/output error")                                         \
	X(EOS, "end of stream")                                             \
	X(NOT_PERF, "not a perf.data file")                                 \
	X(SWAPPED, "other-endian perf.data is not supported")               \
	X(BAD_HEADER, "corrupt file header")                                \
	X(BAD_ATTR, "corrupt event attribute")                              \
	X(BAD_FEATURE, "corrupt feature section")                           \
	X(TRUNCATED, "unexpected end of data")                              \
	X(BAD_RECORD, "corrupt record")                                     \
	X(BAD_SAMPLE, "corrupt sample")                                     \
	X(UNKNOWN_ID, "sample id maps to no event")                         \
	X(ZSTD, "decompression failed")                                     \
	X(BAD_AUXINFO, "corrupt AUXTRACE_INFO")                             \
	X(UNSUPPORTED, "unsupported")                                       \
	X(DECODE, "trace decode error")                                     \
	X(NO_IMAGE, "no program image")                                     \
	X(NO_KERNEL, "no kernel image: pass --vmlinux FILE or --kcore DIR")  \
	X(BAD_ELF, "cannot read ELF file")                                  \
	X(BUILD_ID, "build-id mismatch")                                    \
	X(OUTPUT, "cannot write output")                                    \
	X(OVERFLOW, "trace overflow")                                       \
	X(LIMIT, "limit exceeded")

enum sy_error {
#define SY_ERR_ENUM(name, str) SY_E_##name,
	SY_ERRORS(SY_ERR_ENUM)
#undef SY_ERR_ENUM
	SY_E_NR
};

/* Returns the message for @err, which may be negative or positive. */
const char *sy_errstr(int err);

/* Returns "SY_E_..."-less symbolic name, for tests and JSON ("BAD_RECORD"). */
const char *sy_errname(int err);

/* Where and why something failed.  @offset is a byte offset in the input
 * file when @has_offset is set. */
struct sy_diag {
	uint64_t offset;
	int has_offset;
	int err;
	char msg[256];
};

#if defined(__GNUC__)
#define SY_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SY_PRINTF(a, b)
#endif

/* Records @err with a formatted message at @offset and returns -|err| so
 * callers can write `return sy_diag_set(d, off, -SY_E_TRUNCATED, ...)`.
 * @d may be NULL. */
int sy_diag_set(struct sy_diag *d, uint64_t offset, int err,
		const char *fmt, ...) SY_PRINTF(4, 5);
/* Same without an offset. */
int sy_diag_set_nooff(struct sy_diag *d, int err, const char *fmt, ...)
	SY_PRINTF(3, 4);

#endif
