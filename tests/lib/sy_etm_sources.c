/* Trace sources from AUXTRACE_INFO (see sy_etm_sources.h). */
#include <string.h>

#include "sy_etm_sources.h"

size_t sy_test_etm_sources(const struct sy_etm_info *e,
			   struct sy_etm_source *out, size_t max)
{
	size_t n = 0;

	for (uint32_t i = 0; i < e->nr_cpu && n < max; i++) {
		const struct sy_etm_cpu *c = &e->cpus[i];
		struct sy_etm_source *s = &out[n];

		if (c->kind == SY_ETM_KIND_V3)
			continue;	/* not decoded: ETMv3/PTM */
		memset(s, 0, sizeof(*s));
		s->cpu = c->cpu;
		s->ete = c->kind == SY_ETM_KIND_ETE;
		s->trace_id = (uint8_t)(c->trctraceidr & 0x7f);
		s->trcconfigr = (uint32_t)c->trcconfigr;
		s->trctraceidr = (uint32_t)c->trctraceidr;
		s->trcidr0 = (uint32_t)c->trcidr0;
		s->trcidr1 = (uint32_t)c->trcidr1;
		s->trcidr2 = (uint32_t)c->trcidr2;
		s->trcidr8 = (uint32_t)c->trcidr8;
		s->trcauthstatus = (uint32_t)c->trcauthstatus;
		s->trcdevarch = (uint32_t)c->trcdevarch;
		n++;
	}
	return n;
}
