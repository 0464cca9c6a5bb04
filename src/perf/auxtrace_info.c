/* AUXTRACE_INFO private data.  Versioned layouts are parsed explicitly, as
 * perf does ("allow new format reader to read old files"): header version 0
 * has fixed parameter counts, version 1 and later carry NR_TRC_PARAMS per
 * block and parameters we do not know are skipped. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sy_auxtrace.h"
#include "sy_bytes.h"

#define SY_ETM_V3_PARAMS_V0 4
#define SY_ETM_V4_PARAMS_V0 7

static uint64_t sy_priv(const struct sy_ev_auxtrace_info *ev, uint64_t i)
{
	return sy_le64(ev->priv + i * 8);
}

static void sy_etm_set_param(struct sy_etm_cpu *c, uint32_t i, uint64_t v)
{
	if (c->kind == SY_ETM_KIND_V3) {
		uint64_t *p[] = { &c->etmcr, &c->etmtraceidr, &c->etmccer,
				  &c->etmidr };
		if (i < SY_ARRAY_SIZE(p))
			*p[i] = v;
		return;
	}
	/* ETE inserts TRCDEVARCH before TS_SOURCE */
	switch (i) {
	case 0: c->trcconfigr = v; break;
	case 1: c->trctraceidr = v; break;
	case 2: c->trcidr0 = v; break;
	case 3: c->trcidr1 = v; break;
	case 4: c->trcidr2 = v; break;
	case 5: c->trcidr8 = v; break;
	case 6: c->trcauthstatus = v; break;
	case 7:
		if (c->kind == SY_ETM_KIND_ETE)
			c->trcdevarch = v;
		else
			c->ts_source = (int64_t)v;
		break;
	case 8:
		if (c->kind == SY_ETM_KIND_ETE)
			c->ts_source = (int64_t)v;
		break;
	default:
		break;
	}
}

static int sy_etm_parse(struct sy_etm_info *e,
			const struct sy_ev_auxtrace_info *ev, uint64_t off,
			struct sy_diag *d)
{
	uint64_t n = ev->nr_priv, i = 3;

	if (n < 3)
		return sy_diag_set(d, off, -SY_E_BAD_AUXINFO,
				   "cs_etm AUXTRACE_INFO has %" PRIu64
				   " of 3 header words", n);
	e->version = sy_priv(ev, 0);
	e->pmu_type = (uint32_t)(sy_priv(ev, 1) >> 32);
	e->nr_cpu = (uint32_t)sy_priv(ev, 1);
	e->snapshot = sy_priv(ev, 2);
	if (e->version > 2)
		return sy_diag_set(d, off, -SY_E_BAD_AUXINFO,
				   "cs_etm header version %" PRIu64
				   " is newer than this reader (0-2)",
				   e->version);
	/* every block holds at least MAGIC and CPU */
	if (e->nr_cpu > (n - 3) / 2)
		return sy_diag_set(d, off, -SY_E_BAD_AUXINFO,
				   "cs_etm AUXTRACE_INFO claims %u CPUs in %" PRIu64
				   " words", e->nr_cpu, n);
	e->cpus = calloc(e->nr_cpu ? e->nr_cpu : 1, sizeof(*e->cpus));
	if (!e->cpus)
		return -SY_E_NOMEM;
	for (uint32_t k = 0; k < e->nr_cpu; k++) {
		struct sy_etm_cpu *c = &e->cpus[k];
		uint64_t magic, nparams;

		if (n - i < 2)
			goto short_block;
		magic = sy_priv(ev, i);
		c->cpu = (uint32_t)sy_priv(ev, i + 1);
		c->ts_source = -1;
		i += 2;
		if (magic == SY_ETM_MAGIC_V3)
			c->kind = SY_ETM_KIND_V3;
		else if (magic == SY_ETM_MAGIC_V4)
			c->kind = SY_ETM_KIND_V4;
		else if (magic == SY_ETM_MAGIC_ETE && e->version >= 1)
			c->kind = SY_ETM_KIND_ETE;
		else
			return sy_diag_set(d, off + 16 + (i - 2) * 8,
					   -SY_E_BAD_AUXINFO,
					   "cs_etm block %u has unknown magic "
					   "%#" PRIx64, k, magic);
		if (e->version == 0) {
			nparams = c->kind == SY_ETM_KIND_V3 ?
					  SY_ETM_V3_PARAMS_V0 :
					  SY_ETM_V4_PARAMS_V0;
		} else {
			if (n - i < 1)
				goto short_block;
			nparams = sy_priv(ev, i++);
		}
		if (nparams > n - i)
			goto short_block;
		c->nr_params = (uint32_t)nparams;
		for (uint64_t j = 0; j < nparams; j++)
			sy_etm_set_param(c, (uint32_t)j, sy_priv(ev, i + j));
		i += nparams;
	}
	if (i != n)
		return sy_diag_set(d, off, -SY_E_BAD_AUXINFO,
				   "cs_etm AUXTRACE_INFO has %" PRIu64
				   " words after its %u CPU blocks", n - i,
				   e->nr_cpu);
	return 0;

short_block:
	return sy_diag_set(d, off, -SY_E_BAD_AUXINFO,
			   "cs_etm AUXTRACE_INFO ends inside a CPU block");
}

static int sy_pt_parse(struct sy_pt_info *p,
		       const struct sy_ev_auxtrace_info *ev, uint64_t off,
		       struct sy_diag *d)
{
	uint64_t n = ev->nr_priv;

	/* perf writes up to TSC_BIT even in its oldest format */
	if (n < SY_PT_TSC_BIT + 1)
		return sy_diag_set(d, off, -SY_E_BAD_AUXINFO,
				   "intel_pt AUXTRACE_INFO has only %" PRIu64
				   " words", n);
	p->nr_fields = (uint32_t)(n < SY_PT_NR_FIELDS ? n : SY_PT_NR_FIELDS);
	for (uint32_t i = 0; i < p->nr_fields; i++)
		p->f[i] = sy_priv(ev, i);
	if (n > SY_PT_FILTER_STR_LEN) {
		uint64_t len = p->f[SY_PT_FILTER_STR_LEN];
		uint64_t room = (n - SY_PT_NR_FIELDS) * 8;
		/* perf writes no string at all when there is no filter
		 * (intel_pt_filter_bytes(NULL) == 0) */
		uint64_t words = !len ? 0 :
				 len < room ? (len + 1 + 7) / 8 : UINT64_MAX;

		if (words > n - SY_PT_NR_FIELDS)
			return sy_diag_set(d, off, -SY_E_BAD_AUXINFO,
					   "intel_pt filter string of %" PRIu64
					   " bytes runs past the record", len);
		if (len) {
			p->filter = calloc(1, len + 1);
			if (!p->filter)
				return -SY_E_NOMEM;
			memcpy(p->filter, ev->priv + SY_PT_NR_FIELDS * 8, len);
		}
		if (n > SY_PT_NR_FIELDS + words) {
			p->has_cap_event_trace = 1;
			p->cap_event_trace =
				sy_priv(ev, SY_PT_NR_FIELDS + words);
		}
	}
	return 0;
}

int sy_auxtrace_info_parse(struct sy_auxtrace_info *info,
			   const struct sy_ev_auxtrace_info *ev, uint64_t off,
			   struct sy_diag *diag)
{
	int err = 0;

	memset(info, 0, sizeof(*info));
	info->type = ev->type;
	if (ev->type == SY_AUXTRACE_CS_ETM)
		err = sy_etm_parse(&info->u.etm, ev, off, diag);
	else if (ev->type == SY_AUXTRACE_INTEL_PT)
		err = sy_pt_parse(&info->u.pt, ev, off, diag);
	if (err)
		sy_auxtrace_info_fini(info);
	return err;
}

void sy_auxtrace_info_fini(struct sy_auxtrace_info *info)
{
	if (!info)
		return;
	if (info->type == SY_AUXTRACE_CS_ETM)
		free(info->u.etm.cpus);
	else if (info->type == SY_AUXTRACE_INTEL_PT)
		free(info->u.pt.filter);
	memset(info, 0, sizeof(*info));
}

const char *sy_auxtrace_type_name(uint32_t type)
{
	switch (type) {
	case SY_AUXTRACE_INTEL_PT: return "intel_pt";
	case SY_AUXTRACE_INTEL_BTS: return "intel_bts";
	case SY_AUXTRACE_CS_ETM: return "cs_etm";
	case SY_AUXTRACE_ARM_SPE: return "arm_spe";
	case SY_AUXTRACE_S390_CPUMSF: return "s390_cpumsf";
	case SY_AUXTRACE_HISI_PTT: return "hisi_ptt";
	default: return "unknown";
	}
}
