/* AUXTRACE_INFO private data: CoreSight ETM (header versions 0-2, ETMv3,
 * ETMv4 and ETE per-CPU blocks) and Intel PT.
 * Sources: tools/perf/util/cs-etm.h, intel-pt.h; perf-data.md section 4. */
#ifndef SY_AUXTRACE_H
#define SY_AUXTRACE_H

#include <stdint.h>

#include "sy_error.h"
#include "sy_perf_event.h"

#define SY_ETM_MAGIC_V3 0x3030303030303030ULL
#define SY_ETM_MAGIC_V4 0x4040404040404040ULL
#define SY_ETM_MAGIC_ETE 0x5050505050505050ULL

enum sy_etm_kind {
	SY_ETM_KIND_V3 = 3,
	SY_ETM_KIND_V4 = 4,
	SY_ETM_KIND_ETE = 5,
};

/* One trace unit.  Parameters the block does not carry are 0 and their
 * bit in @present is clear. */
struct sy_etm_cpu {
	enum sy_etm_kind kind;
	uint32_t cpu;
	uint32_t nr_params;	/* as recorded */
	/* ETMv4 / ETE */
	uint64_t trcconfigr, trctraceidr, trcidr0, trcidr1, trcidr2, trcidr8;
	uint64_t trcauthstatus, trcdevarch;
	int64_t ts_source;	/* -1 when absent */
	/* ETMv3 / PTM */
	uint64_t etmcr, etmtraceidr, etmccer, etmidr;
};

struct sy_etm_info {
	uint64_t version;	/* CS_HEADER_VERSION 0..2 */
	uint32_t pmu_type;
	uint32_t nr_cpu;
	uint64_t snapshot;
	struct sy_etm_cpu *cpus; /* nr_cpu entries */
};

/* intel_pt priv[] indices. */
enum sy_pt_field {
	SY_PT_PMU_TYPE,
	SY_PT_TIME_SHIFT,
	SY_PT_TIME_MULT,
	SY_PT_TIME_ZERO,
	SY_PT_CAP_USER_TIME_ZERO,
	SY_PT_TSC_BIT,
	SY_PT_NORETCOMP_BIT,
	SY_PT_HAVE_SCHED_SWITCH,
	SY_PT_SNAPSHOT_MODE,
	SY_PT_PER_CPU_MMAPS,
	SY_PT_MTC_BIT,
	SY_PT_MTC_FREQ_BITS,
	SY_PT_TSC_CTC_N,
	SY_PT_TSC_CTC_D,
	SY_PT_CYC_BIT,
	SY_PT_MAX_NONTURBO_RATIO,
	SY_PT_FILTER_STR_LEN,
	SY_PT_NR_FIELDS
};

struct sy_pt_info {
	uint64_t f[SY_PT_NR_FIELDS];
	uint32_t nr_fields;	/* how many of f[] the record carried */
	char *filter;		/* NULL when absent */
	uint64_t cap_event_trace;
	int has_cap_event_trace;
};

struct sy_auxtrace_info {
	uint32_t type;		/* SY_AUXTRACE_* */
	union {
		struct sy_etm_info etm;
		struct sy_pt_info pt;
	} u;
};

/* Parses @ev (the record at file offset @off).  Unknown types are accepted
 * with only @type set.  Returns 0, -SY_E_BAD_AUXINFO (details in *diag) or
 * -SY_E_NOMEM.  Free with sy_auxtrace_info_fini(). */
int sy_auxtrace_info_parse(struct sy_auxtrace_info *info,
			   const struct sy_ev_auxtrace_info *ev, uint64_t off,
			   struct sy_diag *diag);
void sy_auxtrace_info_fini(struct sy_auxtrace_info *info);

/* "cs_etm", "intel_pt", ... */
const char *sy_auxtrace_type_name(uint32_t type);

#endif
