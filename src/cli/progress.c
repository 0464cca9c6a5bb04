/* The progress line a long run draws on a terminal's stderr: how much of
 * the input was read, at what rate, how long is left, how many windows so
 * far.  It redraws at most ten times a second, appears only after a
 * second (short runs stay quiet) and erases itself when the run ends. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static double sy_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "812 KB", "1.2 GB": decimal units, as rates usually are. */
static void sy_size(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "B", "KB", "MB", "GB", "TB" };
	size_t u = 0;

	while (v >= 1000.0 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1000.0;
		u++;
	}
	snprintf(buf, len, v < 10.0 && u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

void sy_cli_progress_init(struct sy_cli_progress *p, const char *input)
{
	const char *base = strrchr(input, '/');

	memset(p, 0, sizeof(*p));
	p->name = base && base[1] ? base + 1 : input;
	p->t0 = sy_clock();
}

void sy_cli_progress_draw(void *ctx, const struct sy_progress *pr)
{
	struct sy_cli_progress *p = ctx;
	double now = sy_clock(), el;
	char done[32], rate[32], eta[32] = "";

	if (pr->finished) {
		if (p->drawn)
			fputs("\r\033[K", stderr); /* erase the whole line */
		p->drawn = 0;
		return;
	}
	/* the rate counts from the run's first report, not from the start
	 * of the command (which may have waited for a pipe) */
	if (!p->reported++) {
		p->t1 = now;
		p->d1 = pr->done;
		return;
	}
	el = now - p->t1;
	if (now - p->t0 < 1.0 || now - p->last < 0.1 || el < 0.25 ||
	    pr->done <= p->d1)
		return;
	p->last = now;
	double bps = (double)(pr->done - p->d1) / el;
	sy_size(done, sizeof(done), (double)pr->done);
	sy_size(rate, sizeof(rate), bps);
	if (pr->total && pr->done <= pr->total) {
		double left = (double)(pr->total - pr->done) / bps;
		unsigned s = (unsigned)(left + 0.5);

		snprintf(eta, sizeof(eta), ", %3d%%, ETA %u:%02u",
			 (int)(pr->done * 100 / pr->total), s / 60, s % 60);
	}
	fprintf(stderr, "\r\033[Kstrobe-synth: %.30s: %s read, %s/s%s, %" PRIu64
			" %s",
		p->name, done, rate, eta, pr->windows,
		sy_plural(pr->windows, "window", "windows"));
	fflush(stderr);
	p->drawn = 1;
}
