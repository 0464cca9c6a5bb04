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
