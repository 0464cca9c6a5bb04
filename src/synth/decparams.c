#include "decparams.h"

#include <stdlib.h>
#include <string.h>

void sy_decparams_pt(struct sy_dec_params *dp, const struct sy_pt_info *pt,
		     const struct sy_perf_attr *trace_attr,
		     const uint64_t cpuid[3])
{
	struct sy_pt_params *pp = &dp->u.pt;

	pp->family = (uint16_t)cpuid[0];
	pp->model = (uint8_t)cpuid[1];
	pp->stepping = (uint8_t)cpuid[2];
	if (trace_attr && pt->nr_fields > SY_PT_MTC_FREQ_BITS &&
	    pt->f[SY_PT_MTC_FREQ_BITS]) {
		uint64_t mask = pt->f[SY_PT_MTC_FREQ_BITS];

		pp->mtc_freq = (uint8_t)((trace_attr->config & mask) >>
					 __builtin_ctzll(mask));
	}
	if (trace_attr && pt->nr_fields > SY_PT_CYC_BIT &&
	    pt->f[SY_PT_CYC_BIT])
		pp->cyc = (trace_attr->config & pt->f[SY_PT_CYC_BIT]) != 0;
	if (pt->nr_fields > SY_PT_MAX_NONTURBO_RATIO)
		pp->nom_freq = (uint8_t)pt->f[SY_PT_MAX_NONTURBO_RATIO];
	if (pt->nr_fields > SY_PT_TSC_CTC_D) {
		pp->cpuid_0x15_eax = (uint32_t)pt->f[SY_PT_TSC_CTC_D];
		pp->cpuid_0x15_ebx = (uint32_t)pt->f[SY_PT_TSC_CTC_N];
	}
}

static void sy_etm_source_fill(struct sy_etm_source *src,
			       const struct sy_etm_cpu *c,
			       const struct sy_hwids *hw)
{
	src->cpu = c->cpu;
	src->ete = c->kind == SY_ETM_KIND_ETE;
	src->trace_id = c->cpu < sizeof(hw->id) && hw->id[c->cpu] ?
				hw->id[c->cpu] :
				(uint8_t)(c->trctraceidr & 0x7f);
	src->trcconfigr = (uint32_t)c->trcconfigr;
	src->trctraceidr = src->trace_id;
	src->trcidr0 = (uint32_t)c->trcidr0;
	src->trcidr1 = (uint32_t)c->trcidr1;
	src->trcidr2 = (uint32_t)c->trcidr2;
	src->trcidr8 = (uint32_t)c->trcidr8;
	src->trcauthstatus = (uint32_t)c->trcauthstatus;
	src->trcdevarch = (uint32_t)c->trcdevarch;
}

int sy_decparams_etm(struct sy_dec_params *dp,
		     struct sy_etm_source **sources,
		     const struct sy_etm_info *e, const struct sy_hwids *hw,
		     uint32_t cpu, int raw, enum sy_etm_decoder decoder,
		     struct sy_diag *diag)
{
	struct sy_etm_params *ep = &dp->u.etm;
	struct sy_etm_source *v;
	size_t n = 0;
	uint8_t mine = 0;

	v = calloc(e->nr_cpu ? e->nr_cpu : 1, sizeof(*v));
	if (!v)
		return -SY_E_NOMEM;
	*sources = v;
	for (uint32_t i = 0; i < e->nr_cpu; i++) {
		const struct sy_etm_cpu *c = &e->cpus[i];

		if (c->kind == SY_ETM_KIND_V3)
			continue; /* not decoded: ETMv3/PTM */
		/* raw (TRBE) data holds one trace unit: its own CPU's */
		if (raw && cpu != (uint32_t)-1 && c->cpu != cpu)
			continue;
		sy_etm_source_fill(&v[n], c, hw);
		if (c->cpu == cpu)
			mine = v[n].trace_id;
		n++;
	}
	if (!n)
		return sy_diag_set_nooff(diag, -SY_E_UNSUPPORTED,
					 "no ETMv4/ETE trace unit describes CPU "
					 "%u", cpu);
	ep->formatted = !raw;
	ep->decoder = decoder;
	ep->sources = v;
	ep->nr_sources = n;
	ep->trace_id = cpu == (uint32_t)-1 ? 0 : mine;
	return 0;
}
