/* The selection options' values in perf's syntax: number lists with
 * ranges (--pid 1,2 -C 0-3,6), name lists (--comm a,b) and a time range
 * (--time START,STOP in seconds, either end may be empty). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void sy_idlist_fini(struct sy_idlist *l)
{
	free(l->lo);
	free(l->hi);
	memset(l, 0, sizeof(*l));
}

static int sy_idlist_add(struct sy_idlist *l, uint32_t lo, uint32_t hi)
{
	uint32_t *nlo = realloc(l->lo, (l->nr + 1) * sizeof(*nlo));

	if (!nlo)
		return -1;
	l->lo = nlo;
	uint32_t *nhi = realloc(l->hi, (l->nr + 1) * sizeof(*nhi));
	if (!nhi)
		return -1;
	l->hi = nhi;
	l->lo[l->nr] = lo;
	l->hi[l->nr++] = hi;
	return 0;
}

static int sy_parse_u32(const char *p, char **end, uint32_t *v)
{
	unsigned long x;

	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	x = strtoul(p, end, 10);
	if (errno || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int sy_idlist_parse(struct sy_idlist *l, const char *arg)
{
	const char *p = arg;

	if (!*p)
		return -1;
	while (*p) {
		char *end;
		uint32_t lo, hi;

		if (sy_parse_u32(p, &end, &lo))
			return -1;
		hi = lo;
		if (*end == '-' && (sy_parse_u32(end + 1, &end, &hi) || hi < lo))
			return -1;
		if ((*end && *end != ',') || (*end == ',' && !end[1]))
			return -1;
		if (sy_idlist_add(l, lo, hi))
			return -1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

int sy_cli_filter_comms(struct sy_cli_filter *f, const char *arg)
{
	const char *p = arg;

	if (!*arg)
		return -1;
	while (*p) {
		size_t len = strcspn(p, ",");
		char **n;

		if (!len)
			return -1;
		n = realloc(f->comms, (f->nr_comms + 1) * sizeof(*n));
		if (!n)
			return -1;
		f->comms = n;
		if (!(f->comms[f->nr_comms] = strndup(p, len)))
			return -1;
		f->nr_comms++;
		p += len;
		if (*p == ',' && !*++p)
			return -1;
	}
	return 0;
}

void sy_cli_filter_fini(struct sy_cli_filter *f)
{
	for (size_t i = 0; i < f->nr_comms; i++)
		free(f->comms[i]);
	free(f->comms);
	f->comms = NULL;
	f->nr_comms = 0;
}

/* "SECONDS[.FRACTION]" as perf script prints sample times, in ns. */
static int sy_parse_seconds(const char *p, const char *end, uint64_t *ns)
{
	uint64_t s = 0, frac = 0, scale = 1000000000ull;
	int digits = 0;

	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
		if (s > (UINT64_MAX / 1000000000ull - 9) / 10)
			return -1;
		s = s * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
	}
	if (p != end || !digits)
		return -1;
	*ns = s * 1000000000ull + frac;
	return 0;
}

int sy_time_parse(struct sy_cli_filter *f, const char *arg)
{
	const char *comma = strchr(arg, ',');
	const char *end = arg + strlen(arg);

	if (!comma || strchr(comma + 1, ',') || strchr(arg, '%'))
		return -1;
	f->time_start = f->time_stop = 0;
	if (comma > arg && sy_parse_seconds(arg, comma, &f->time_start))
		return -1;
	if (comma + 1 < end && sy_parse_seconds(comma + 1, end, &f->time_stop))
		return -1;
	if (f->time_stop && f->time_stop < f->time_start)
		return -1;
	if (comma == arg && comma + 1 == end)
		return -1;
	f->has_time = 1;
	return 0;
}
