/* strobe-synth windows: the state its files share.  cmd_windows.c runs
 * the session and parses options; list.c writes the listing and the
 * summary (text or JSON); stats.c keeps the length distributions and
 * their histogram bins; svg.c, svg_panels.c and svg_text.c draw the
 * picture (svg.h) and timeline.c keeps what it shows over time; whatif.c cuts windows shorter; disasm.c prints
 * symbols and the last instructions. */
#ifndef SY_WINDOWS_H
#define SY_WINDOWS_H

#include <capstone/capstone.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "sy_dist.h"

enum { SY_WL_MAX_CPU = 4096 };	/* CPUs counted for the per-CPU rates */

/* timeline.c: window lengths over time per CPU and per thread, for the
 * picture, in a fixed grid (SY_TL_ROWS rows of each, the last shared by
 * those past it; SY_TL_COLS time columns, coarsened as the recording
 * goes on). */
enum { SY_TL_ROWS = 16, SY_TL_COLS = 160 };
struct sy_tl_cell {
	uint64_t min, max, n;	/* lengths in instructions, windows */
};
struct sy_tl {
	uint64_t t0, width;	/* column k: [t0 + k width, t0 + (k+1) width) */
	size_t cols;		/* columns in use */
	uint32_t key[2][SY_TL_ROWS]; /* CPU, thread of each row */
	size_t nr[2];
	int others[2];		/* the last row holds the rest */
	uint64_t seen[SY_ST_NR]; /* windows per status */
	struct sy_tl_cell *cell; /* [2][rows][cols][status]; NULL: not kept */
};
int sy_tl_init(struct sy_tl *tl);	/* -SY_E_NOMEM */
void sy_tl_fini(struct sy_tl *tl);
void sy_tl_add(struct sy_tl *tl, const struct sy_window *w);
/* The SY_ST_NR cells, one per status, of row @row, column @col of the
 * rows per CPU (@by 0) or per thread (1). */
const struct sy_tl_cell *sy_tl_cell(const struct sy_tl *tl, int by,
				    size_t row, size_t col);


struct sy_wl {
	struct sy_cli_session cs;
	const char *input;
	int json;
	const char *svg;
	int symbols;
	uint32_t disasm;
	int list;
	FILE *out;		/* listing and summary; NULL: none (--svg -) */
	enum sy_trace_kind kind;
	/* lengths of the windows with trace: bounded (sy_dist.h) */
	struct sy_dist insns, branches, ns, bytes;
	struct sy_dist len_by[SY_ST_NR]; /* instructions, per status */
	/* the recording's span and CPUs, for the rate advice */
	uint64_t t_first, t_last, trace_bytes;
	uint64_t bytes_not_ok;	/* trace outside useful (ok) windows */
	uint64_t cpus[SY_WL_MAX_CPU / 64];
	/* the check against the design (design.c) */
	struct sy_dcheck dc;
	const char *whatif_arg;	/* --what-if[=N,...]: "" for the defaults */
	struct sy_whatif *whatif;
	struct sy_tl tl;	/* over time, kept for --svg */
	uint64_t listed;
	uint64_t selected;	/* windows the selection options kept */
	uint64_t by_status[SY_ST_NR]; /* of those */
	csh cs_h;
	int cs_ok;
};

/* Linear histogram bins over window lengths, chosen from the data: @nr
 * bins of @width from @lo, counts per bin and status (without a split by
 * status, all in the first). */
struct sy_hist {
	uint64_t lo, width;
	size_t nr;
	uint64_t (*count)[SY_ST_NR];
	uint64_t *total;	/* per bin */
	uint64_t top;		/* the largest total */
};

/* whatif.c: --what-if, each ok window cut to its newest N branches */
#define SY_WI_MAX_N 8
struct sy_whatif;
/* @list: "N1,N2,..." ascending (NULL or "": 8,16,...,256); @bytes: count
 * ranges in bytes (x86).  Returns 0, -SY_E_INVALID or -SY_E_NOMEM. */
int sy_whatif_new(struct sy_whatif **out, const char *list, int bytes);
void sy_whatif_free(struct sy_whatif *wi);
int sy_whatif_add(struct sy_whatif *wi, const struct sy_window *w);
void sy_whatif_text(const struct sy_whatif *wi, FILE *f);
void sy_whatif_json(const struct sy_whatif *wi, FILE *f);
/* One cut: its taken branches and about how many instructions that is
 * (at the observed instructions per branch), the overlap of its profile
 * with the whole windows' one per function and per context, and the share
 * of the ranges it keeps (0 to 1). */
struct sy_wi_point {
	uint32_t n;
	double insns;
	double func, ctx, kept;
};
/* The cuts into @p (SY_WI_MAX_N of them at most), for the picture.
 * Returns how many, 0 when no ok window had a branch stack; @pick: the
 * advised cut's index, or -1 when none is advised. */
size_t sy_whatif_points(const struct sy_whatif *wi, struct sy_wi_point *p,
			int *pick);

/* windows_stats.c */
void sy_wl_init(struct sy_wl *c);
int sy_wl_add(struct sy_wl *c, const struct sy_window *w);
/* All the length distributions exact (no value binned yet). */
int sy_wl_exact(const struct sy_wl *c);
/* The smallest 1, 2 or 5 times a power of ten at or above @x (>= 1). */
uint64_t sy_nice(double x);
/* Bins over @all; @by: the same values split by status (SY_ST_NR
 * distributions, as len_by) or NULL. */
int sy_hist_make(struct sy_hist *h, struct sy_dist *all, struct sy_dist *by);
void sy_hist_fini(struct sy_hist *h);
void sy_wl_fini(struct sy_wl *c);

/* Distinct CPUs the selected windows ran on. */
unsigned sy_wl_nr_cpus(const struct sy_wl *c);

/* windows_list.c */
void sy_wl_header(struct sy_wl *c);
void sy_wl_window(struct sy_wl *c, const struct sy_window *w);
void sy_wl_summary(struct sy_wl *c, struct sy_session *s);

/* windows_svg.c: the histogram as SVG into c->svg ("-": standard
 * output).  -1 with @d set on failure. */
int sy_wl_svg(struct sy_wl *c, const struct sy_session_summary *sum,
	      struct sy_diag *d);

/* windows_disasm.c */
void sy_wl_symbols(struct sy_wl *c, const struct sy_window *w);
void sy_wl_disasm(struct sy_wl *c, const struct sy_window *w);

#endif
