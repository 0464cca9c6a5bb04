/* perf.data writer: growable buffers and the record under construction. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "write_impl.h"
#include "sy_bytes.h"

/* --- Growable buffer ----------------------------------------------------- */

void sy_pwi_buf_fini(struct sy_pwi_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int sy_pwi_buf_reserve(struct sy_pwi_buf *b, size_t extra)
{
	size_t cap;
	uint8_t *p;

	if (extra <= b->cap - b->len)
		return 0;
	if (extra > SIZE_MAX / 2 - b->len)
		return -SY_E_NOMEM;
	cap = b->cap ? b->cap : 4096;
	while (cap - b->len < extra)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -SY_E_NOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/* Appends @n bytes of @src, or zeros when @src is NULL. */
int sy_pwi_buf_put(struct sy_pwi_buf *b, const void *src, size_t n)
{
	int err;

	if (!n)
		return 0;
	err = sy_pwi_buf_reserve(b, n);
	if (err)
		return err;
	if (src)
		memcpy(b->p + b->len, src, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
	return 0;
}

int sy_pwi_buf_u32(struct sy_pwi_buf *b, uint32_t v)
{
	uint8_t x[4];

	sy_put32(x, v);
	return sy_pwi_buf_put(b, x, 4);
}

int sy_pwi_buf_u64(struct sy_pwi_buf *b, uint64_t v)
{
	uint8_t x[8];

	sy_put64(x, v);
	return sy_pwi_buf_put(b, x, 8);
}

/* perf_header string: u32 len (strlen + 1 rounded up to 64), then the
 * string NUL-padded to len (header.c do_write_string). */
int sy_pwi_buf_string(struct sy_pwi_buf *b, const char *s)
{
	size_t n = strlen(s ? s : "") + 1;
	size_t len = (n + PW_NAME_ALIGN - 1) / PW_NAME_ALIGN * PW_NAME_ALIGN;
	int err;

	if (len > UINT32_MAX)
		return -SY_E_INVALID;
	err = sy_pwi_buf_u32(b, (uint32_t)len);
	if (!err)
		err = sy_pwi_buf_put(b, s ? s : "", n - 1);
	if (!err)
		err = sy_pwi_buf_put(b, NULL, len - (n - 1));
	return err;
}

/* --- Record under construction (in the scratch buffer) ----------------- */

void sy_pwi_rec_put(struct sy_pwi_rec *r, const void *src, size_t n)
{
	if (r->over || n > PW_SCRATCH - r->len) {
		r->over = 1;
		return;
	}
	if (src)
		memcpy(r->p + r->len, src, n);
	else
		memset(r->p + r->len, 0, n);
	r->len += n;
}

void sy_pwi_rec_u16(struct sy_pwi_rec *r, uint16_t v)
{
	uint8_t x[2];

	sy_put16(x, v);
	sy_pwi_rec_put(r, x, 2);
}

void sy_pwi_rec_u32(struct sy_pwi_rec *r, uint32_t v)
{
	uint8_t x[4];

	sy_put32(x, v);
	sy_pwi_rec_put(r, x, 4);
}

void sy_pwi_rec_u64(struct sy_pwi_rec *r, uint64_t v)
{
	uint8_t x[8];

	sy_put64(x, v);
	sy_pwi_rec_put(r, x, 8);
}

void sy_pwi_rec_align8(struct sy_pwi_rec *r)
{
	sy_pwi_rec_put(r, NULL, (size_t)(SY_ALIGN8(r->len) - r->len));
}

/* A C string with its NUL, zero-padded to 8 (kernel MMAP / COMM names). */
void sy_pwi_rec_str8(struct sy_pwi_rec *r, const char *s)
{
	if (!s)
		s = "";
	sy_pwi_rec_put(r, s, strlen(s) + 1);
	sy_pwi_rec_align8(r);
}

/* The writer's sticky error: every file of it reports through here. */
int sy_pwi_fail(struct sy_pw *w, int err)
{
	if (err < 0 && !w->err)
		w->err = err;
	return err;
}

int sy_pwi_check(struct sy_pw *w)
{
	if (!w)
		return -SY_E_INVALID;
	if (w->err)
		return w->err;
	return w->finished ? -SY_E_INVALID : 0;
}
