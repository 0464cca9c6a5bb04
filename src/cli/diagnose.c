/* One diagnosis for the same damage in every command.  A session that
 * finds no trace to decode says so (exit 5), but when the file is damaged
 * -- truncated inside the record that would have held the trace, say --
 * the damage is the cause, and dump reports it as damage (exit 4).  So
 * before calling a file empty of trace, the commands walk its records as
 * dump does and report the first damage instead. */
#include "cli.h"
#include "sy_perf_reader.h"

struct sy_first_damage {
	struct sy_diag d;
	int found;
};

static void sy_note_damage(void *ctx, const struct sy_diag *d)
{
	struct sy_first_damage *f = ctx;

	if (d->err < 0 && !f->found++)
		f->d = *d;
}

int sy_cli_input_damage(const char *path, struct sy_diag *out)
{
	struct sy_first_damage f = { 0 };
	struct sy_perf_reader *r;
	struct sy_record rec;
	struct sy_diag d = { 0 };
	int err;

	if (sy_perf_open(&r, path, &d))
		return 0;	/* the session already said why */
	sy_perf_set_warn(r, sy_note_damage, &f);
	while ((err = sy_perf_next(r, &rec)) == 0)
		;
	if (err != -SY_E_EOS && !f.found++)
		f.d = *sy_perf_diag(r);
	sy_perf_close(r);
	if (f.found)
		*out = f.d;
	return f.found != 0;
}

int sy_cli_session_open(struct sy_cli_session *c, uint32_t whole_depth,
			struct sy_session **s)
{
	struct sy_diag d = { 0 };
	int err;

	c->o.whole_trace = SY_WHOLE_TRACE_AUTO;
	c->o.whole_depth = whole_depth;
	err = sy_session_open(s, &c->o, &d);
	return err ? sy_cli_open_failed(c, err, &d) : -1;
}

int sy_cli_open_failed(const struct sy_cli_session *c, int err,
		       const struct sy_diag *d)
{
	struct sy_diag dmg = { 0 };

	if (err == -SY_E_UNSUPPORTED && sy_cli_input_damage(c->o.input, &dmg)) {
		sy_msg_diag(c->o.input, &dmg);
		return SY_EXIT_DAMAGED;
	}
	sy_msg_diag(c->o.input, d);
	return err == -SY_E_UNSUPPORTED ? SY_EXIT_NODATA : sy_exit_for(err);
}
