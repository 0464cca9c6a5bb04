/* Decoder parameters of a queue, from the recording's metadata: which
 * trace units (ETM) or which CPU (PT) produced its bytes and how they were
 * configured.  The decoders see only these, never perf.data. */
#ifndef SY_DECPARAMS_H
#define SY_DECPARAMS_H

#include <stdint.h>

#include "sy_auxtrace.h"
#include "sy_decode.h"
#include "sy_error.h"
#include "sy_perf_reader.h"

/* CoreSight trace IDs the recording assigned (PERF_RECORD_AUX_OUTPUT_HW_ID),
 * per CPU; 0 when unknown. */
struct sy_hwids {
	uint8_t id[1024];
};

/* Intel PT: @trace_attr is the PT event's attr (for MTC frequency), @cpuid
 * family, model, stepping (0 when unknown). */
void sy_decparams_pt(struct sy_dec_params *dp, const struct sy_pt_info *pt,
		     const struct sy_perf_attr *trace_attr,
		     const uint64_t cpuid[3]);

/* ETMv4/ETE for queue @cpu ((uint32_t)-1 per thread), @raw data (TRBE:
 * one trace unit, its own CPU's).  *@sources is allocated and must
 * outlive @dp.  Returns 0, -SY_E_NOMEM, or -SY_E_UNSUPPORTED (diag set)
 * when no ETMv4/ETE unit describes the CPU. */
int sy_decparams_etm(struct sy_dec_params *dp,
		     struct sy_etm_source **sources,
		     const struct sy_etm_info *e, const struct sy_hwids *hw,
		     uint32_t cpu, int raw, enum sy_etm_decoder decoder,
		     struct sy_diag *diag);

#endif
