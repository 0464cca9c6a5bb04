#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sy_synth.h"

static const char *const sy_st_names[SY_ST_NR] = {
#define SY_ST_NAME(e, name, what) name,
	SY_STATUSES(SY_ST_NAME)
#undef SY_ST_NAME
};

static const char *const sy_st_meanings[SY_ST_NR] = {
#define SY_ST_WHAT(e, name, what) what,
	SY_STATUSES(SY_ST_WHAT)
#undef SY_ST_WHAT
};

static const char *const sy_sus_names[SY_SUS_NR] = {
#define SY_SUS_NAME(e, name) name,
	SY_SUSPECTS(SY_SUS_NAME)
#undef SY_SUS_NAME
};

const char *sy_suspect_name(enum sy_suspect_kind k)
{
	return (unsigned)k < SY_SUS_NR ? sy_sus_names[k] : "?";
}

const char *sy_status_name(enum sy_status st)
{
	return (unsigned)st < SY_ST_NR ? sy_st_names[st] : "?";
}

const char *sy_status_meaning(enum sy_status st)
{
	return (unsigned)st < SY_ST_NR ? sy_st_meanings[st] : "?";
}

int sy_status_parse(const char *name)
{
	for (int i = 0; i < SY_ST_NR; i++)
		if (!strcmp(name, sy_st_names[i]))
			return i;
	return -SY_E_INVALID;
}

const char *sy_sink_name(enum sy_sink s)
{
	switch (s) {
	case SY_SINK_ETR: return "etr";
	case SY_SINK_TRBE: return "trbe";
	case SY_SINK_PT: return "pt";
	default: return "none";
	}
}

double sy_summary_bogus_rate(const struct sy_session_summary *s)
{
	uint64_t bad = s->by_status[SY_ST_IMPLAUSIBLE];
	uint64_t all = bad + s->by_status[SY_ST_OK];

	return all ? (double)bad / (double)all : 0.0;
}

int sy_summary_bogus_line(const struct sy_session_summary *s,
			  uint64_t forced, int drop_suspect,
			  uint64_t suspect_dropped, char *buf, size_t len)
{
	uint64_t bad = s->by_status[SY_ST_IMPLAUSIBLE];
	int n = 0;

	if (!bad && !s->suspect && !s->chain_unmapped)
		return 0;
	buf[0] = 0;
	if (bad)
		n = snprintf(buf, len,
			     "%" PRIu64 " implausible window%s (%s): "
			     "bogus-sample rate %.2f%% of the windows that "
			     "passed every other check",
			     bad, bad == 1 ? "" : "s",
			     /* code of another build is not the traced code:
			      * the binary is to blame before the trace */
			     forced ? "a binary read in another build "
				      "(--allow-mismatch), or damaged trace" :
				      "damaged trace",
			     100.0 * sy_summary_bogus_rate(s));
	if (s->suspect && !drop_suspect && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "%s%" PRIu64 " window%s with a suspect branch (unusual "
			 "code or damage; kept)",
			 bad ? "; " : "", s->suspect,
			 s->suspect == 1 ? "" : "s");
	else if (s->suspect && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "%s%" PRIu64 " window%s with a suspect branch (unusual "
			 "code or damage; --drop-suspect dropped %" PRIu64 ")",
			 bad ? "; " : "", s->suspect,
			 s->suspect == 1 ? "" : "s", suspect_dropped);
	n = (int)strlen(buf);
	if (s->chain_unmapped && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "%s%" PRIu64 " pause sample%s with a callchain frame "
			 "in no mapping (damaged sample or broken frame chain)",
			 n ? "; " : "", s->chain_unmapped,
			 s->chain_unmapped == 1 ? "" : "s");
	return 1;
}
