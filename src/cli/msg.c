#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

static void sy_vmsg(const char *prefix, const char *fmt, va_list ap)
	SY_PRINTF(2, 0);

static void sy_vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "strobe-synth: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void sy_msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sy_vmsg("", fmt, ap);
	va_end(ap);
}

void sy_msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sy_vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void sy_msg_diag(const char *file, const struct sy_diag *d)
{
	const char *msg = d->msg[0] ? d->msg : sy_errstr(d->err);

	if (d->has_offset)
		fprintf(stderr, "strobe-synth: %s: offset %llu: %s\n", file,
			(unsigned long long)d->offset, msg);
	else
		fprintf(stderr, "strobe-synth: %s: %s\n", file, msg);
}

int sy_exit_for(int err)
{
	if (err >= 0)
		return SY_EXIT_OK;
	switch (-err) {
	case SY_E_NOMEM:
	case SY_E_INTERNAL:
	case SY_E_OUTPUT:
		return SY_EXIT_FAILURE;
	case SY_E_INVALID:
		return SY_EXIT_USAGE;
	case SY_E_IO:
	case SY_E_NOT_PERF:
	case SY_E_SWAPPED:
	case SY_E_BAD_HEADER:
	case SY_E_BAD_ATTR:
		return SY_EXIT_BADFILE;
	default:
		return SY_EXIT_DAMAGED;
	}
}

void sy_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

const char *sy_plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}
