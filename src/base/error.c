#include "sy_error.h"

#include <stdio.h>
#include <string.h>

static const char *const sy_err_strs[] = {
#define SY_ERR_STR(name, str) str,
	SY_ERRORS(SY_ERR_STR)
#undef SY_ERR_STR
};

static const char *const sy_err_names[] = {
#define SY_ERR_NAME(name, str) #name,
	SY_ERRORS(SY_ERR_NAME)
#undef SY_ERR_NAME
};

const char *sy_errstr(int err)
{
	if (err < 0)
		err = -err;
	if (err >= SY_E_NR)
		return "unknown error";
	return sy_err_strs[err];
}

const char *sy_errname(int err)
{
	if (err < 0)
		err = -err;
	if (err >= SY_E_NR)
		return "UNKNOWN";
	return sy_err_names[err];
}

static int sy_diag_vset(struct sy_diag *d, int has_off, uint64_t offset,
			int err, const char *fmt, va_list ap) SY_PRINTF(5, 0);

static int sy_diag_vset(struct sy_diag *d, int has_off, uint64_t offset,
			int err, const char *fmt, va_list ap)
{
	if (err > 0)
		err = -err;
	if (!d)
		return err;
	d->offset = offset;
	d->has_offset = has_off;
	d->err = err;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	return err;
}

int sy_diag_set(struct sy_diag *d, uint64_t offset, int err,
		const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sy_diag_vset(d, 1, offset, err, fmt, ap);
	va_end(ap);
	return ret;
}

int sy_diag_set_nooff(struct sy_diag *d, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sy_diag_vset(d, 0, 0, err, fmt, ap);
	va_end(ap);
	return ret;
}
