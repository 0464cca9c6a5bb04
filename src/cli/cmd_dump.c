/* strobe-synth dump: header, attrs and one line per record, like
 * `perf report -D` but terse; --stats prints counts per record type. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sy_auxtrace.h"
#include "sy_bytes.h"
#include "sy_perf_reader.h"
#include "sy_perf_event.h"

struct sy_dump {
	const char *file;
	FILE *out;
	int stats_only;
	int header_only;
	int records_only;
	int quiet;		/* -q: no notes */
	int verbose;		/* -v: each record's bytes too */
	uint64_t damage; /* problems found while dumping */
	uint64_t first_unknown_id_off;
	int warned_unknown_id;
};

static void sy_dump_usage(FILE *f)
{
	fprintf(f,
		"usage: strobe-synth dump [options] FILE\n"
		"\n"
		"Prints the header, attributes and one line per record of a\n"
		"perf.data file (FILE '-' reads a pipe).\n"
		"\n"
		"  -i, --input FILE   input file (default: perf.data)\n"
		"      --stats        only print the number of records per type\n"
		"      --header       only print the header and attributes\n"
		"  -q, --quiet        no notes on stderr (damage is still reported)\n"
		"  -v, --verbose      each record's bytes in hex under its line, and\n"
		"                     the first 64 bytes of an AUXTRACE payload\n"
		"      --version      print the version\n"
		"  -h, --help         this help\n");
}

static void sy_dump_warn(void *ctx, const struct sy_diag *d)
{
	struct sy_dump *dp = ctx;

	fflush(dp->out);
	if (d->err < 0)
		dp->damage++;
	else if (dp->quiet)
		return;
	if (d->has_offset)
		fprintf(stderr, "strobe-synth: %s: offset %" PRIu64 ": %s%s\n",
			dp->file, d->offset, d->err < 0 ? "" : "note: ",
			d->msg);
	else
		fprintf(stderr, "strobe-synth: %s: %s%s\n", dp->file,
			d->err < 0 ? "" : "note: ", d->msg);
}

static const char *sy_aux_action_str(uint32_t a, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", (a & SY_AUX_ACTION_START_PAUSED) ?
						"start-paused," : "",
		 (a & SY_AUX_ACTION_PAUSE) ? "pause," : "",
		 (a & SY_AUX_ACTION_RESUME) ? "resume," : "",
		 (a & SY_AUX_ACTION_PAUSE_ARMED) ? "pause-armed," : "",
		 (a & ~15u) ? "reserved," : "");
	size_t n = strlen(buf);
	if (n)
		buf[n - 1] = 0;
	else
		snprintf(buf, len, "-");
	return buf;
}

static const char *sy_pmu_name(const struct sy_perf_features *f, uint32_t type)
{
	static const char *const builtin[] = { "hardware", "software",
					       "tracepoint", "hw_cache", "raw",
					       "breakpoint" };

	for (uint32_t i = 0; i < f->nr_pmus; i++)
		if (f->pmus[i].type == type)
			return f->pmus[i].name;
	return type < SY_ARRAY_SIZE(builtin) ? builtin[type] : "?";
}

static void sy_dump_attr(struct sy_dump *d, const struct sy_perf_features *f,
			 const struct sy_perf_attr *a)
{
	char st[256], act[64];

	fprintf(d->out,
		"# attr %u: name=%s type=%u (%s) size=%u config=%#" PRIx64
		" %s=%" PRIu64 " sample_type=%s aux_action=%s",
		a->index, a->name ? a->name : "-", a->type,
		sy_pmu_name(f, a->type), a->size, a->config,
		sy_attr_flag(a, SY_ATTR_FLAG_FREQ) ? "freq" : "period",
		a->sample_period, sy_sample_type_str(a->sample_type, st,
						     sizeof(st)),
		sy_aux_action_str(a->aux_action, act, sizeof(act)));
	if (a->read_format)
		fprintf(d->out, " read_format=%#" PRIx64, a->read_format);
	if (a->branch_sample_type)
		fprintf(d->out, " branch_sample_type=%#" PRIx64,
			a->branch_sample_type);
	fprintf(d->out, " flags=%#" PRIx64 "%s%s%s ids=%u", a->flags,
		sy_attr_flag(a, SY_ATTR_FLAG_SAMPLE_ID_ALL) ? " sample_id_all" :
							      "",
		sy_attr_flag(a, SY_ATTR_FLAG_EXCLUDE_KERNEL) ? " exclude_kernel" :
							       "",
		sy_attr_flag(a, SY_ATTR_FLAG_EXCLUDE_USER) ? " exclude_user" :
							     "",
		a->nr_ids);
	for (uint32_t i = 0; i < a->nr_ids && i < 8; i++)
		fprintf(d->out, "%s%" PRIu64, i ? "," : " [", a->ids[i]);
	if (a->nr_ids)
		fprintf(d->out, "%s]", a->nr_ids > 8 ? ",..." : "");
	fputc('\n', d->out);
}

static void sy_dump_features(struct sy_dump *d, const struct sy_perf_reader *r)
{
	const struct sy_perf_features *f = sy_perf_features(r);
	const struct sy_perf_info *in = sy_perf_info(r);

	fprintf(d->out, "# features:");
	for (int b = 0; b < SY_FEAT_BITS; b++)
		if ((in->feature_bits[b / 64] >> (b % 64)) & 1) {
			const char *n = sy_feature_name(b);
			if (n)
				fprintf(d->out, " %s", n);
			else
				fprintf(d->out, " bit%d", b);
		}
	fputc('\n', d->out);
	if (f->hostname)
		fprintf(d->out, "# hostname: %s\n", f->hostname);
	if (f->osrelease)
		fprintf(d->out, "# os release: %s\n", f->osrelease);
	if (f->version)
		fprintf(d->out, "# perf version: %s\n", f->version);
	if (f->arch)
		fprintf(d->out, "# arch: %s\n", f->arch);
	if (sy_perf_has_feature(f, SY_FEAT_NRCPUS))
		fprintf(d->out, "# nrcpus: %u online, %u available\n",
			f->nr_cpus_online, f->nr_cpus_avail);
	if (f->cpudesc)
		fprintf(d->out, "# cpudesc: %s\n", f->cpudesc);
	if (f->cpuid)
		fprintf(d->out, "# cpuid: %s\n", f->cpuid);
	if (f->total_mem)
		fprintf(d->out, "# total memory: %" PRIu64 " kB\n",
			f->total_mem);
	if (f->nr_cmdline) {
		fprintf(d->out, "# cmdline:");
		for (uint32_t i = 0; i < f->nr_cmdline; i++)
			fprintf(d->out, " %s", f->cmdline[i]);
		fputc('\n', d->out);
	}
	for (uint32_t i = 0; i < f->nr_pmus; i++)
		fprintf(d->out, "# pmu: type %u = %s\n", f->pmus[i].type,
			f->pmus[i].name);
	for (uint32_t i = 0; i < f->nr_build_ids; i++) {
		const struct sy_perf_build_id *b = &f->build_ids[i];

		fprintf(d->out, "# build-id: ");
		for (unsigned k = 0; k < b->size; k++)
			fprintf(d->out, "%02x", b->id[k]);
		fprintf(d->out, " pid %d %s\n", b->pid, b->filename);
	}
	if (sy_perf_has_feature(f, SY_FEAT_AUXTRACE))
		fprintf(d->out, "# auxtrace index: %u entries%s\n",
			f->nr_auxtrace_index,
			f->auxtrace_index_no_count ? " (simpleperf layout)" : "");
	if (sy_perf_has_feature(f, SY_FEAT_COMPRESSED))
		fprintf(d->out,
			"# compressed: type %u (%s) level %u ratio %u "
			"mmap_len %u\n",
			f->compressed.type,
			f->compressed.type == SY_COMP_ZSTD ? "zstd" : "?",
			f->compressed.level, f->compressed.ratio,
			f->compressed.mmap_len);
	if (sy_perf_has_feature(f, SY_FEAT_CLOCK_DATA))
		fprintf(d->out,
			"# clock data: clockid %u wall %" PRIu64 " ns, clock %" PRIu64
			" ns\n",
			f->clock_data.clockid, f->clock_data.wall_clock_ns,
			f->clock_data.clockid_time_ns);
	if (sy_perf_has_feature(f, SY_FEAT_SAMPLE_TIME))
		fprintf(d->out, "# sample time: %" PRIu64 " .. %" PRIu64 "\n",
			f->first_sample_time, f->last_sample_time);
}

static void sy_dump_header(struct sy_dump *d, const struct sy_perf_reader *r)
{
	const struct sy_perf_info *in = sy_perf_info(r);
	const struct sy_perf_features *f = sy_perf_features(r);

	fprintf(d->out, "# file: %s\n", d->file);
	if (in->pipe) {
		fprintf(d->out, "# format: pipe%s\n",
			in->streaming ? " (streamed)" : "");
		return;
	}
	fprintf(d->out,
		"# format: file%s, %" PRIu64 " bytes, header %" PRIu64
		", attr entry %" PRIu64 "\n",
		in->streaming ? " (streamed)" : "", in->file_size,
		in->header_size, in->attr_size);
	fprintf(d->out,
		"# attrs: %u at %#" PRIx64 "; data: %#" PRIx64 " + %" PRIu64 "\n",
		sy_perf_nr_attrs(r), in->attrs_offset, in->data_offset,
		in->data_size);
	if (!in->streaming)
		sy_dump_features(d, r);
	for (uint32_t i = 0; i < sy_perf_nr_attrs(r); i++)
		sy_dump_attr(d, f, sy_perf_attr(r, i));
}

static void sy_dump_auxtrace_info(struct sy_dump *d,
				  const struct sy_ev_auxtrace_info *ev,
				  uint64_t off)
{
	struct sy_auxtrace_info info;
	struct sy_diag diag = { 0 };
	int err = sy_auxtrace_info_parse(&info, ev, off, &diag);

	if (err) {
		sy_dump_warn(d, &diag);
		return;
	}
	if (info.type == SY_AUXTRACE_CS_ETM) {
		const struct sy_etm_info *e = &info.u.etm;

		fprintf(d->out,
			"    cs_etm: header version %" PRIu64
			", pmu type %u, %u cpus, snapshot %" PRIu64 "\n",
			e->version, e->pmu_type, e->nr_cpu, e->snapshot);
		for (uint32_t i = 0; i < e->nr_cpu; i++) {
			const struct sy_etm_cpu *c = &e->cpus[i];

			if (c->kind == SY_ETM_KIND_V3) {
				fprintf(d->out,
					"    cpu %u ETMv3: ETMCR %#" PRIx64
					" ETMTRACEIDR %#" PRIx64 "\n",
					c->cpu, c->etmcr, c->etmtraceidr);
				continue;
			}
			fprintf(d->out,
				"    cpu %u %s: %u params TRCCONFIGR %#" PRIx64
				" TRCTRACEIDR %#" PRIx64 " TRCIDR0 %#" PRIx64
				" TRCIDR1 %#" PRIx64 " TRCIDR2 %#" PRIx64
				" TRCIDR8 %#" PRIx64 " TRCAUTHSTATUS %#" PRIx64,
				c->cpu,
				c->kind == SY_ETM_KIND_ETE ? "ETE" : "ETMv4",
				c->nr_params, c->trcconfigr, c->trctraceidr,
				c->trcidr0, c->trcidr1, c->trcidr2, c->trcidr8,
				c->trcauthstatus);
			if (c->kind == SY_ETM_KIND_ETE)
				fprintf(d->out, " TRCDEVARCH %#" PRIx64,
					c->trcdevarch);
			if (c->ts_source >= 0)
				fprintf(d->out, " TS_SOURCE %" PRId64,
					c->ts_source);
			fputc('\n', d->out);
		}
	} else if (info.type == SY_AUXTRACE_INTEL_PT) {
		static const char *const names[SY_PT_NR_FIELDS] = {
			"pmu_type", "time_shift", "time_mult", "time_zero",
			"cap_user_time_zero", "tsc_bit", "noretcomp_bit",
			"have_sched_switch", "snapshot_mode", "per_cpu_mmaps",
			"mtc_bit", "mtc_freq_bits", "tsc_ctc_n", "tsc_ctc_d",
			"cyc_bit", "max_nonturbo_ratio", "filter_str_len",
		};
		const struct sy_pt_info *p = &info.u.pt;

		fprintf(d->out, "    intel_pt:");
		for (uint32_t i = 0; i < p->nr_fields; i++)
			fprintf(d->out, " %s=%#" PRIx64, names[i], p->f[i]);
		if (p->filter)
			fprintf(d->out, " filter=\"%s\"", p->filter);
		fputc('\n', d->out);
	}
	sy_auxtrace_info_fini(&info);
}

static void sy_dump_sample(struct sy_dump *d, const struct sy_record *rec)
{
	struct sy_sample s;
	struct sy_diag diag = { 0 };

	if (!rec->attr) {
		fprintf(d->out, " (no attr for this sample id)\n");
		return;
	}
	if (rec->attr->sample_type & ~SY_SAMPLE_KNOWN_MASK) {
		/* reported once, when the reader read the attr */
		fprintf(d->out, " (attr %u has unknown sample_type bits)\n",
			rec->attr->index);
		return;
	}
	if (sy_sample_parse(rec->attr, rec->data, rec->size, &s, &diag,
			    rec->offset)) {
		fputc('\n', d->out);
		sy_dump_warn(d, &diag);
		return;
	}
	if (s.type & SY_SAMPLE_TIME)
		fprintf(d->out, " time=%" PRIu64, s.time);
	if (s.type & SY_SAMPLE_CPU)
		fprintf(d->out, " cpu=%u", s.cpu);
	if (s.type & SY_SAMPLE_TID)
		fprintf(d->out, " pid=%u/%u", s.pid, s.tid);
	fprintf(d->out, " attr=%u", rec->attr->index);
	if (s.type & SY_SAMPLE_IP)
		fprintf(d->out, " ip=%#" PRIx64, s.ip);
	if (s.type & SY_SAMPLE_ADDR)
		fprintf(d->out, " addr=%#" PRIx64, s.addr);
	if (s.type & SY_SAMPLE_PERIOD)
		fprintf(d->out, " period=%" PRIu64, s.period);
	if (s.type & (SY_SAMPLE_ID | SY_SAMPLE_IDENTIFIER))
		fprintf(d->out, " id=%" PRIu64, s.id);
	if (s.type & SY_SAMPLE_CALLCHAIN) {
		fprintf(d->out, " callchain=%" PRIu64 ":", s.callchain_nr);
		for (uint64_t i = 0; i < s.callchain_nr; i++) {
			uint64_t ip = sy_sample_callchain(&s, i);

			if (ip == SY_CONTEXT_USER)
				fprintf(d->out, "%suser", i ? "," : "");
			else if (ip == SY_CONTEXT_KERNEL)
				fprintf(d->out, "%skernel", i ? "," : "");
			else if (ip >= SY_CONTEXT_MAX)
				fprintf(d->out, "%sctx%#" PRIx64, i ? "," : "",
					ip);
			else
				fprintf(d->out, "%s%#" PRIx64, i ? "," : "",
					ip);
		}
	}
	if (s.type & SY_SAMPLE_BRANCH_STACK)
		fprintf(d->out, " branches=%" PRIu64, s.branch_nr);
	if (s.type & SY_SAMPLE_RAW)
		fprintf(d->out, " raw=%u", s.raw_size);
	if (s.type & SY_SAMPLE_AUX)
		fprintf(d->out, " aux=%" PRIu64, s.aux_size);
	fputc('\n', d->out);
}

/* Kept whole (one case per record type, each a line of output in the
 * order perf script --show-*-events prints it): split, the cases would
 * only move apart from the switch that picks them. */
static void sy_dump_record(struct sy_dump *d, const struct sy_perf_reader *r,
			   const struct sy_record *rec)
{
	const char *name = sy_record_type_name(rec->type);
	struct sy_event ev;
	struct sy_diag diag = { 0 };
	FILE *o = d->out;

	fprintf(o, "%#" PRIx64 "%s %s size=%u", rec->offset,
		(rec->flags & SY_RECORD_DECOMPRESSED) ? "+z" : "",
		name ? name : "UNKNOWN", rec->size);
	if (!name)
		fprintf(o, " type=%u", rec->type);
	if (rec->type == SY_REC_SAMPLE) {
		sy_dump_sample(d, rec);
		return;
	}
	if (sy_event_parse(rec, &ev, &diag)) {
		fputc('\n', o);
		sy_dump_warn(d, &diag);
		return;
	}
	if (ev.has_sid) {
		if (ev.sid.type & SY_SAMPLE_TIME)
			fprintf(o, " time=%" PRIu64, ev.sid.time);
		if (ev.sid.type & SY_SAMPLE_CPU)
			fprintf(o, " cpu=%u", ev.sid.cpu);
		if (ev.sid.type & SY_SAMPLE_TID)
			fprintf(o, " pid=%u/%u", ev.sid.pid, ev.sid.tid);
	}
	switch (rec->type) {
	case SY_REC_MMAP:
	case SY_REC_MMAP2: {
		const struct sy_ev_mmap *m = &ev.u.mmap;

		fprintf(o, ": %u/%u [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]",
			m->pid, m->tid, m->addr, m->len, m->pgoff);
		if (m->is_mmap2)
			fprintf(o, " prot=%#x flags=%#x", m->prot, m->flags);
		if (m->has_build_id) {
			fprintf(o, " build-id=");
			for (unsigned k = 0; k < m->build_id_size; k++)
				fprintf(o, "%02x", m->build_id[k]);
		}
		fprintf(o, " %s", m->filename);
		break;
	}
	case SY_REC_COMM:
		fprintf(o, ": %u/%u %s%s", ev.u.comm.pid, ev.u.comm.tid,
			ev.u.comm.comm, ev.u.comm.exec ? " exec" : "");
		break;
	case SY_REC_FORK:
	case SY_REC_EXIT:
		fprintf(o, ": %u(%u):%u(%u)", ev.u.task.pid, ev.u.task.tid,
			ev.u.task.ppid, ev.u.task.ptid);
		break;
	case SY_REC_LOST:
		fprintf(o, ": id=%" PRIu64 " lost=%" PRIu64, ev.u.lost.id,
			ev.u.lost.lost);
		break;
	case SY_REC_LOST_SAMPLES:
		fprintf(o, ": lost=%" PRIu64, ev.u.lost_samples.lost);
		break;
	case SY_REC_AUX: {
		uint64_t fl = ev.u.aux.flags;

		fprintf(o, ": offset=%#" PRIx64 " size=%#" PRIx64 " flags=%#" PRIx64
			"%s%s%s%s%s",
			ev.u.aux.aux_offset, ev.u.aux.aux_size, fl,
			(fl & SY_AUX_FLAG_TRUNCATED) ? " truncated" : "",
			(fl & SY_AUX_FLAG_OVERWRITE) ? " overwrite" : "",
			(fl & SY_AUX_FLAG_PARTIAL) ? " partial" : "",
			(fl & SY_AUX_FLAG_COLLISION) ? " collision" : "",
			(fl & SY_AUX_FLAG_CORESIGHT_RAW) ? " raw" : "");
		break;
	}
	case SY_REC_ITRACE_START:
		fprintf(o, ": %u/%u", ev.u.itrace_start.pid,
			ev.u.itrace_start.tid);
		break;
	case SY_REC_SWITCH:
	case SY_REC_SWITCH_CPU_WIDE:
		fprintf(o, ": %s%s", ev.u.sw.out ? "out" : "in",
			ev.u.sw.preempt ? " preempt" : "");
		if (ev.u.sw.cpu_wide)
			fprintf(o, " %s %u/%u", ev.u.sw.out ? "next" : "prev",
				ev.u.sw.next_prev_pid, ev.u.sw.next_prev_tid);
		break;
	case SY_REC_AUX_OUTPUT_HW_ID: {
		uint64_t h = ev.u.hw_id.hw_id;

		fprintf(o, ": hw_id=%#" PRIx64 " (trace id %#x, sink %u, "
			   "version %u.%u)",
			h, (unsigned)(h & 0xff), (unsigned)((h >> 8) & 0xffffffff),
			(unsigned)(h >> 60), (unsigned)((h >> 56) & 0xf));
		break;
	}
	case SY_REC_AUXTRACE:
		fprintf(o, ": size=%#" PRIx64 " offset=%#" PRIx64 " ref=%#" PRIx64
			" idx=%u tid=%d cpu=%d",
			ev.u.auxtrace.size, ev.u.auxtrace.offset,
			ev.u.auxtrace.reference, ev.u.auxtrace.idx,
			(int)ev.u.auxtrace.tid, (int)ev.u.auxtrace.cpu);
		break;
	case SY_REC_AUXTRACE_INFO:
		fprintf(o, ": type=%u (%s) priv=%" PRIu64 "\n",
			ev.u.auxtrace_info.type,
			sy_auxtrace_type_name(ev.u.auxtrace_info.type),
			ev.u.auxtrace_info.nr_priv);
		sy_dump_auxtrace_info(d, &ev.u.auxtrace_info, rec->offset);
		return;
	case SY_REC_AUXTRACE_ERROR:
		fprintf(o, ": type=%u code=%u cpu=%d pid=%d tid=%d ip=%#" PRIx64
			" time=%" PRIu64 " \"%s\"",
			ev.u.auxtrace_error.type, ev.u.auxtrace_error.code,
			(int)ev.u.auxtrace_error.cpu,
			(int)ev.u.auxtrace_error.pid,
			(int)ev.u.auxtrace_error.tid, ev.u.auxtrace_error.ip,
			ev.u.auxtrace_error.time, ev.u.auxtrace_error.msg);
		break;
	case SY_REC_TIME_CONV:
		fprintf(o, ": shift=%" PRIu64 " mult=%" PRIu64 " zero=%" PRIu64,
			ev.u.time_conv.time_shift, ev.u.time_conv.time_mult,
			ev.u.time_conv.time_zero);
		if (ev.u.time_conv.has_ext)
			fprintf(o, " cycles=%" PRIu64 " mask=%#" PRIx64
				" cap_zero=%u cap_short=%u",
				ev.u.time_conv.time_cycles,
				ev.u.time_conv.time_mask,
				ev.u.time_conv.cap_user_time_zero,
				ev.u.time_conv.cap_user_time_short);
		break;
	case SY_REC_ID_INDEX:
		fprintf(o, ": nr=%" PRIu64, ev.u.id_index.nr);
		break;
	case SY_REC_THREAD_MAP:
		fprintf(o, ": nr=%" PRIu64, ev.u.thread_map.nr);
		break;
	case SY_REC_CPU_MAP:
		fprintf(o, ": type=%u", ev.u.cpu_map.type);
		break;
	case SY_REC_EVENT_UPDATE:
		fprintf(o, ": type=%" PRIu64 " id=%" PRIu64,
			ev.u.event_update.type, ev.u.event_update.id);
		break;
	case SY_REC_COMPRESSED:
	case SY_REC_COMPRESSED2:
		fprintf(o, ": data=%" PRIu64, ev.u.compressed.data_size);
		break;
	case SY_REC_HEADER_ATTR:
		fputc('\n', o);
		sy_dump_attr(d, sy_perf_features(r),
			     sy_perf_attr(r, sy_perf_nr_attrs(r) - 1));
		return;
	case SY_REC_HEADER_FEATURE:
		if (rec->size >= 16) {
			uint64_t feat = sy_le64(rec->data + 8);
			const char *fn = feat < SY_FEAT_BITS ?
						 sy_feature_name((int)feat) :
						 NULL;
			fprintf(o, ": %s", fn ? fn : "end");
		}
		break;
	default:
		break;
	}
	fputc('\n', o);
}

/* @n bytes as `perf report -D` shows them: offsets within the record, 16
 * bytes a line, in two groups of eight. */
static void sy_dump_hex(FILE *o, const char *what, const uint8_t *p,
			uint64_t n)
{
	for (uint64_t i = 0; i < n; i += 16) {
		fprintf(o, "    %s%04" PRIx64 ":", what, i);
		for (uint64_t j = i; j < i + 16 && j < n; j++)
			fprintf(o, "%s%02x", j == i + 8 ? "  " : " ", p[j]);
		fputc('\n', o);
	}
}

static void sy_dump_stats(struct sy_dump *d, const struct sy_perf_reader *r)
{
	const struct sy_perf_stats *st = sy_perf_stats(r);

	fprintf(d->out, "%-20s %12" PRIu64 "\n", "TOTAL", st->nr_records);
	for (uint32_t t = 0; t < SY_REC_TYPE_LIMIT; t++)
		if (st->nr_type[t])
			fprintf(d->out, "%-20s %12" PRIu64 "\n",
				sy_record_type_name(t), st->nr_type[t]);
	if (st->nr_unknown_type)
		fprintf(d->out, "%-20s %12" PRIu64 "\n", "unknown-type",
			st->nr_unknown_type);
	if (st->nr_unknown_id)
		fprintf(d->out, "%-20s %12" PRIu64 "\n", "unknown-id",
			st->nr_unknown_id);
}

int sy_cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stats", no_argument, NULL, 's' },
		{ "header", no_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct sy_dump d = { 0 };
	struct sy_perf_reader *r = NULL;
	struct sy_diag diag = { 0 };
	struct sy_record rec;
	int c, err, ret;

	d.out = stdout;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:hqvV", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			d.file = optarg;
			break;
		case 'q':
			d.quiet = 1;
			break;
		case 'v':
			d.verbose = 1;
			break;
		case 's':
			d.stats_only = 1;
			break;
		case 'H':
			d.header_only = 1;
			break;
		case 'h':
			sy_dump_usage(stdout);
			return SY_EXIT_OK;
		case 'V':
			sy_cli_version("dump");
			return SY_EXIT_OK;
		default:
			sy_cli_bad_option("dump", c, argv);
			return SY_EXIT_USAGE;
		}
	}
	if (d.stats_only && d.header_only) {
		sy_msg_error("dump: --stats and --header each print only one "
			     "part: give one of them");
		return SY_EXIT_USAGE;
	}
	if (optind < argc) {
		if (d.file || optind + 1 < argc) {
			sy_msg_error("dump: one input file only");
			return SY_EXIT_USAGE;
		}
		d.file = argv[optind];
	}
	if (!d.file)
		d.file = "perf.data";

	err = sy_perf_open(&r, d.file, &diag);
	if (err) {
		sy_msg_diag(d.file, &diag);
		return sy_exit_for(err);
	}
	sy_perf_set_warn(r, sy_dump_warn, &d);
	if (!d.stats_only)
		sy_dump_header(&d, r);
	if (d.header_only) {
		sy_perf_close(r);
		return SY_EXIT_OK;
	}
	while ((err = sy_perf_next(r, &rec)) == 0) {
		if ((rec.flags & SY_RECORD_UNKNOWN_ID) &&
		    !d.warned_unknown_id++) {
			struct sy_diag w = { 0 };

			sy_diag_set(&w, rec.offset, -SY_E_UNKNOWN_ID,
				    "%s record carries an event id that no "
				    "attr declares (further ones counted)",
				    sy_record_type_name(rec.type));
			sy_dump_warn(&d, &w);
		}
		if (d.stats_only)
			continue;
		sy_dump_record(&d, r, &rec);
		if (d.verbose) {
			sy_dump_hex(d.out, "", rec.data, rec.size);
			if (rec.aux && rec.aux_size)
				sy_dump_hex(d.out, "aux ", rec.aux,
					    rec.aux_size < 64 ? rec.aux_size : 64);
		}
	}
	/* streamed file mode reads its features after the data */
	if (!d.stats_only && sy_perf_info(r)->streaming &&
	    !sy_perf_info(r)->pipe && err == -SY_E_EOS)
		sy_dump_features(&d, r);
	if (d.stats_only)
		sy_dump_stats(&d, r);
	fflush(d.out);
	if (err != -SY_E_EOS) {
		sy_msg_diag(d.file, sy_perf_diag(r));
		ret = sy_exit_for(err);
	} else {
		ret = d.damage ? SY_EXIT_DAMAGED : SY_EXIT_OK;
	}
	if (ferror(d.out)) {
		sy_msg_error("dump: cannot write output");
		ret = SY_EXIT_FAILURE;
	}
	sy_perf_close(r);
	return ret;
}
