/* Private to src/io/perf_*.c: feature parsing shared by the file header and
 * pipe-mode HEADER_FEATURE records. */
#ifndef SY_PERF_FEATURE_IMPL_H
#define SY_PERF_FEATURE_IMPL_H

#include "sy_arena.h"
#include "sy_perf_reader.h"

/* One EVENT_DESC entry: names an attr by its first id. */
struct sy_event_desc {
	const char *name;
	uint64_t first_id;
	int has_id;
};

/* Mutable view of struct sy_perf_features used while parsing. */
struct sy_feat_state {
	struct sy_perf_features *f;
	struct sy_arena *arena;
	struct sy_event_desc *descs; /* EVENT_DESC entries, in arena */
	uint32_t nr_descs;
};

/* Parses the payload of feature @bit found at file offset @off.  Returns 0,
 * 1 when the feature is not one we interpret (skipped), or a negative error
 * with @diag filled. */
int sy_feat_parse(struct sy_feat_state *st, int bit, const uint8_t *p,
		  uint64_t len, uint64_t off, struct sy_diag *diag);

#endif
