/* CLI glue shared by the subcommands. Only main() and the cmd_* entry points
 * turn errors into exit codes (documented in strobe-synth(1)). */
#ifndef SY_CLI_H
#define SY_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "sy_dist.h"
#include "sy_error.h"
#include "sy_synth.h"

enum sy_exit {
	SY_EXIT_OK = 0,	      /* success */
	SY_EXIT_FAILURE = 1,  /* internal error, out of memory, cannot write output */
	SY_EXIT_USAGE = 2,    /* bad command line */
	SY_EXIT_BADFILE = 3,  /* input unreadable or not a perf.data file: nothing done */
	SY_EXIT_DAMAGED = 4,  /* input damaged: everything before the damage was processed */
	SY_EXIT_NODATA = 5,   /* nothing to convert: no usable trace or samples */
};

int sy_cmd_dump(int argc, char **argv);
int sy_cmd_convert(int argc, char **argv);
int sy_cmd_windows(int argc, char **argv);
int sy_cmd_merge(int argc, char **argv);

/* Long options shared by convert and windows (cli_session.c). */
enum {
	SY_OPT_DEPTH = 256,
	SY_OPT_SKID,
	SY_OPT_WINDOW,
	SY_OPT_WINDOW_UNIT,
	SY_OPT_MIN_BRANCHES,
	SY_OPT_BINARY,
	SY_OPT_SYMFS,
	SY_OPT_BUILDID_DIR,
	SY_OPT_ALLOW_MISMATCH,
	SY_OPT_PID,
	SY_OPT_TID,
	SY_OPT_COMM,
	SY_OPT_TIME,
	SY_OPT_VERSION,
	SY_OPT_DECODER,
	SY_OPT_VMLINUX,
	SY_OPT_KCORE,
	SY_OPT_CMD_BASE = 512, /* command-specific options start here */
};
extern const struct option sy_session_longopts[];
extern const char sy_session_help[];
/* Short options of the shared table, for getopt_long's string. */
#define SY_SESSION_SHORTOPTS "i:j:C:vk:"

/* A list of numbers given as "1,2,5-7" (perf's --cpu and --pid syntax). */
struct sy_idlist {
	uint32_t *lo, *hi;	/* inclusive ranges */
	size_t nr;
};

/* What the selection options ask for; a window passes when every given
 * one selects it. */
struct sy_cli_filter {
	struct sy_idlist pids, tids, cpus;
	char **comms;		/* --comm a,b (copies) */
	size_t nr_comms;
	int has_time;
	uint64_t time_start, time_stop; /* perf ns; stop 0 = no end */
};

/* cli_filter.c: parse into @l / @f; -1 on a bad value. */
int sy_idlist_parse(struct sy_idlist *l, const char *arg);
void sy_idlist_fini(struct sy_idlist *l);
int sy_cli_filter_comms(struct sy_cli_filter *f, const char *arg);
void sy_cli_filter_fini(struct sy_cli_filter *f);
int sy_time_parse(struct sy_cli_filter *f, const char *arg);

/* The progress line (cli_progress.c). */
struct sy_cli_progress {
	const char *name;	/* the input's base name */
	double t0;		/* the command's start: shown after 1 s */
	double t1;		/* the run's first report, and its bytes */
	uint64_t d1;
	double last;		/* the last drawing */
	uint64_t reported;
	int drawn;
};
void sy_cli_progress_init(struct sy_cli_progress *p, const char *input);
/* A sy_session_opts.progress callback; @ctx is the struct. */
void sy_cli_progress_draw(void *ctx, const struct sy_progress *pr);

struct sy_cli_session {
	struct sy_session_opts o;
	struct sy_cli_progress progress;
	const char **binaries;
	size_t nr_binaries;
	struct sy_cli_filter filter;
	int verbose;
	int quiet;		/* -q: no notes on stderr (damage is still said) */
	uint64_t damage;	/* damage warnings delivered (exit 4) */
};

void sy_cli_session_init(struct sy_cli_session *c);
void sy_cli_session_fini(struct sy_cli_session *c);
/* 1: @opt was a session option (applied); 0: not one; -1: bad value
 * (reported); SY_CLI_DONE: the option was --version (printed). */
#define SY_CLI_DONE 2
int sy_cli_session_opt(struct sy_cli_session *c, int opt, const char *arg);
/* The next command-specific option of argv (getopt_long over @opts, the
 * shared ones applied on the way), -1 at the end, or SY_CLI_STOP with
 * *status the exit status: --version printed, a bad value or an unknown
 * option reported.  Set optind = 1 and opterr = 0 first, and start
 * @shortopts with ':'. */
#define SY_CLI_STOP (-2)
int sy_cli_next_opt(struct sy_cli_session *c, const char *cmd, int argc,
		    char **argv, const char *shortopts,
		    const struct option *opts, int *status);
/* An option getopt_long refused (@opt '?' or ':'): one line naming it and
 * a hint to --help. */
void sy_cli_bad_option(const char *cmd, int opt, char **argv);
/* Prints "strobe-synth CMD VERSION". */
void sy_cli_version(const char *cmd);
/* Whether any selection option (--pid, --tid, --comm, -C, --time) was
 * given. */
int sy_cli_filtering(const struct sy_cli_session *c);
/* After option parsing: the input from the positional arguments from
 * @first on (default perf.data), the warning printer, the progress line
 * when stderr is a terminal.  -1: bad command line (reported). */
int sy_cli_session_finish(struct sy_cli_session *c, const char *cmd,
			  int argc, char **argv, int first);
/* Whether --pid, --tid, --comm, -C and --time select the window. */
int sy_cli_selected(const struct sy_cli_session *c, const struct sy_window *w);
/* Warning printer for sessions: @ctx is the struct sy_cli_session. */
void sy_cli_warn(void *ctx, const struct sy_diag *d);
/* Concatenates the session options and @extra (terminated) into @out
 * (room for @cap entries). */
void sy_cli_longopts(struct option *out, size_t cap,
		     const struct option *extra);

/* Checks the outputs of a run before anything is read: none may be the
 * input file (that would overwrite the recording), no two may be the same
 * file, and at most one may be standard output ("-").  @names are the
 * options that named them, for the message.  -1: refused (reported). */
int sy_cli_check_outputs(const char *cmd, const char *input,
			 const char *const *outs, const char *const *names,
			 size_t n);
/* Copies a piped standard input into an unlinked temporary file that
 * replaces it, so that "-" can be opened more than once (cli_spool.c).
 * -1: failed (reported). */
int sy_cli_spool_stdin(void);
/* Walks @path's records as dump does: 1 with @out set to the first
 * damage found, 0 when there is none (cli_diagnose.c). */
int sy_cli_input_damage(const char *path, struct sy_diag *out);
/* Opens @c's input as every command does: a recording without pause
 * samples is read as whole trace, each stretch a window of @whole_depth
 * branches (0: all; the session decides once it has read the attrs).
 * Returns -1 with *@s open, else the exit status (reported). */
int sy_cli_session_open(struct sy_cli_session *c, uint32_t whole_depth,
			struct sy_session **s);
/* Reports a failed sy_session_open of @c's input and returns the exit
 * status: the first damage in the file when there is any (4), else the
 * session's reason (5 for no trace, 3 for an unreadable file). */
int sy_cli_open_failed(const struct sy_cli_session *c, int err,
		       const struct sy_diag *d);
/* Starts the thread that removes temporary outputs on SIGINT, SIGTERM and
 * SIGHUP (cli_signal.c).  Call before any other thread exists. */
int sy_cli_signals_start(void);
/* Ends that thread (before main returns). */
void sy_cli_signals_stop(void);

/* Why @w is not ok, in words: its reason, or for a decode error the
 * meaning of the library's code and the binary not found (cli_reason.c). */
const char *sy_cli_reason(const struct sy_window *w, enum sy_trace_kind kind,
			  char *buf, size_t len);
/* The window's first suspect branch in words ("return to no call site:
 * 0x400208 -> 0x400724", and with @more how many others it has), or ""
 * when it has none; in @buf, which is returned. */
const char *sy_cli_suspect(const struct sy_window *w, int more, char *buf,
			   size_t len);
/* The run's missing binaries, the one list every command prints (caller
 * frees; *n their number): the windows that needed each (the ones whose
 * reason names it and those that met it after their first error), most
 * first, then by path. */
/* design_check.c: windows against their strobing design's length
 * (windows and convert's summaries).  Bounded: three sy_dist and small
 * tables. */
#define SY_DCHECK_LIST 16	/* departing windows named */
#define SY_DCHECK_PEND 64	/* stagger: threads whose last window waits */
#define SY_DCHECK_PIDS 8	/* processes named without the stagger */
enum sy_dcheck_why { SY_DC_OTHER, SY_DC_THROTTLED, SY_DC_NO_STAGGER };
struct sy_dcheck_pend {		/* a thread's last window (stagger) */
	uint32_t pid, tid, cpu;
	uint64_t index, resume_time, pause_time;
	int ok;
	int no_offset;		/* the thread's pause came with a resume */
};
struct sy_dcheck {
	const struct sy_session_summary *sum;
	uint64_t want;		/* instructions (or cycles) a window holds;
				 * 0: by time */
	/* a design counting cycles, in cycles when the trace counts them
	 * itself (cycle-accurate ETM): want is then cyc_want */
	uint64_t cyc_want;
	int by_cycles;
	uint64_t tol;		/* what is skid, not a departure */
	int by_time;		/* the stagger, or a design counting cycles */
	int stagger;
	uint64_t checked, depart;
	uint64_t throttled;	/* of depart: in a throttled stretch */
	uint64_t no_stagger;	/* of depart: the pause came with a resume */
	uint64_t first[SY_DCHECK_LIST];	/* the first departing windows */
	uint64_t first_len[SY_DCHECK_LIST]; /* instructions, or ns by time */
	uint8_t first_why[SY_DCHECK_LIST];	/* enum sy_dcheck_why */
	size_t nfirst;
	struct sy_dist skid;	/* |insns - want| of matching windows */
	struct sy_dist ns;	/* durations of ok windows (by time) */
	struct sy_dist ns_thr;	/* ... of those in a throttled stretch */
	struct sy_dcheck_pend pend[SY_DCHECK_PEND];
	size_t npend;
	struct { uint32_t pid; uint64_t n; } noinh[SY_DCHECK_PIDS];
	size_t nnoinh;
	uint64_t noinh_more;	/* processes past the table */
	/* by time: the first throttled ok windows, named at the end if off
	 * the median */
	uint64_t thr_index[SY_DCHECK_LIST], thr_ns[SY_DCHECK_LIST];
	size_t nthr;
	int flushed;
	int nomem;		/* a duration could not be kept */
};
void sy_dcheck_init(struct sy_dcheck *d, const struct sy_session_summary *s);
int sy_dcheck_add(struct sy_dcheck *d, const struct sy_window *w);
/* Writes nothing for a recording without a design to check; every line
 * starts with @prefix. */
void sy_dcheck_text(struct sy_dcheck *d, const struct sy_session_summary *s,
		    const char *prefix, FILE *f);
void sy_dcheck_json(struct sy_dcheck *d, FILE *f);
void sy_dcheck_fini(struct sy_dcheck *d);

struct sy_image_missing *sy_cli_missing(struct sy_session *s, size_t *n);
enum sy_trace_kind sy_cli_trace_kind(const struct sy_session_summary *sum);

/* "strobe-synth: " + message + newline, on stderr. */
void sy_msg_error(const char *fmt, ...) SY_PRINTF(1, 2);
void sy_msg_warn(const char *fmt, ...) SY_PRINTF(1, 2);
/* "strobe-synth: FILE: offset N: msg" (or without the offset). */
void sy_msg_diag(const char *file, const struct sy_diag *d);
/* @s as a JSON string, quoted and escaped (paths come from the input). */
void sy_json_str(FILE *f, const char *s);
/* @one or @many after @n: "1 window", "2 windows". */
const char *sy_plural(uint64_t n, const char *one, const char *many);
/* Maps a reader error to the exit code. */
int sy_exit_for(int err);

#endif
