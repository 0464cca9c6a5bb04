/* Typed, bounds-checked views of perf.data record bodies.
 *
 * sy_event_parse() fills the member of struct sy_event that matches the
 * record type, plus the sample_id trailer of kernel records.  Strings and
 * arrays point into the record (valid as long as the record is).
 */
#ifndef SY_PERF_EVENT_H
#define SY_PERF_EVENT_H

#include "sy_perf_reader.h"

struct sy_ev_mmap {		/* MMAP and MMAP2 */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	int is_mmap2;
	int has_build_id;	/* MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id_size;
	uint8_t build_id[20];
	uint32_t prot, flags;
	const char *filename;	/* NUL-terminated inside the record */
};

struct sy_ev_comm {
	uint32_t pid, tid;
	const char *comm;
	int exec;		/* PERF_RECORD_MISC_COMM_EXEC */
};

struct sy_ev_task {		/* FORK and EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct sy_ev_lost {
	uint64_t id, lost;
};

struct sy_ev_throttle {
	uint64_t time, id, stream_id;
};

struct sy_ev_aux {
	uint64_t aux_offset, aux_size, flags;
};

struct sy_ev_itrace_start {
	uint32_t pid, tid;
};

struct sy_ev_switch {		/* SWITCH and SWITCH_CPU_WIDE */
	int out, preempt, cpu_wide;
	uint32_t next_prev_pid, next_prev_tid;
};

struct sy_ev_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
	const char *name;
};

struct sy_ev_text_poke {
	uint64_t addr;
	uint16_t old_len, new_len;
};

struct sy_ev_hw_id {
	uint64_t hw_id;
};

struct sy_ev_auxtrace {
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu;
};

struct sy_ev_auxtrace_info {
	uint32_t type;
	const uint8_t *priv;	/* u64 values, unaligned */
	uint64_t nr_priv;
};

struct sy_ev_auxtrace_error {
	uint32_t type, code, cpu, pid, tid, fmt;
	uint64_t ip, time;
	char msg[65];
	uint32_t machine_pid, vcpu;
};

struct sy_ev_time_conv {
	uint64_t time_shift, time_mult, time_zero;
	uint64_t time_cycles, time_mask;
	uint8_t cap_user_time_zero, cap_user_time_short;
	int has_ext;		/* the 56-byte form with cycles/mask/caps */
};

struct sy_ev_id_index {
	uint64_t nr;
	const uint8_t *entries; /* {id, idx, cpu, tid}[, {machine_pid, vcpu}] */
	int has_vcpu;
};

struct sy_ev_thread_map {
	uint64_t nr;
	const uint8_t *entries; /* {u64 pid; char comm[16]} */
};

struct sy_ev_cpu_map {
	uint16_t type;		/* 0 CPUS, 1 MASK, 2 RANGE */
	uint16_t nr;		/* CPUS: cpus; MASK: mask words */
	uint16_t start, end;	/* RANGE */
	int any_cpu;
	const uint8_t *data;
};

struct sy_ev_event_update {
	uint64_t type, id;
	const uint8_t *data;
	size_t len;
};

struct sy_ev_compressed {
	uint64_t data_size;
};

struct sy_ev_read {
	uint32_t pid, tid;
};

struct sy_event {
	uint32_t type;
	union {
		struct sy_ev_mmap mmap;
		struct sy_ev_comm comm;
		struct sy_ev_task task;
		struct sy_ev_lost lost;
		struct sy_ev_throttle throttle;
		struct sy_ev_aux aux;
		struct sy_ev_itrace_start itrace_start;
		struct sy_ev_lost lost_samples; /* id unused */
		struct sy_ev_switch sw;
		struct sy_ev_ksymbol ksymbol;
		struct sy_ev_text_poke text_poke;
		struct sy_ev_hw_id hw_id;
		struct sy_ev_auxtrace auxtrace;
		struct sy_ev_auxtrace_info auxtrace_info;
		struct sy_ev_auxtrace_error auxtrace_error;
		struct sy_ev_time_conv time_conv;
		struct sy_ev_id_index id_index;
		struct sy_ev_thread_map thread_map;
		struct sy_ev_cpu_map cpu_map;
		struct sy_ev_event_update event_update;
		struct sy_ev_compressed compressed;
		struct sy_ev_read read;
	} u;
	int has_sid;		/* sid holds the sample_id trailer */
	struct sy_sample sid;
};

/* Parses @rec.  Types without a view leave @ev->u zeroed and succeed.
 * Returns 0, or -SY_E_BAD_RECORD when the body is too short for its fixed
 * part (details in *diag, at the record's offset). */
int sy_event_parse(const struct sy_record *rec, struct sy_event *ev,
		   struct sy_diag *diag);

#endif
