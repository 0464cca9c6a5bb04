/* perf.data on-disk constants: record types, sample bits, attr flags.
 *
 * Values from include/uapi/linux/perf_event.h and tools/perf/util/event.h
 * (Linux 6.12 plus later additions); layouts in ../shared/reference/perf-data.md.
 * Only constants live here: readers and writers both use them, neither
 * overlays C structs on file bytes.
 */
#ifndef SY_PERF_ABI_H
#define SY_PERF_ABI_H

#include <stdint.h>

#define SY_PERF_MAGIC2 0x32454c4946524550ULL	  /* "PERFILE2" */
#define SY_PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL
#define SY_PERF_MAGIC1 0x454c494652455050ULL	  /* "PERFFILE" (v1) */

#define SY_PERF_FILE_HEADER_SIZE 104
#define SY_PERF_FILE_HEADER_SIZE_OLD 72
#define SY_PERF_PIPE_HEADER_SIZE 16
#define SY_PERF_EVENT_HEADER_SIZE 8
#define SY_PERF_RECORD_MAX 65535u

/* perf_event_attr sizes by ABI version. */
#define SY_ATTR_SIZE_VER0 64
#define SY_ATTR_SIZE_VER1 72
#define SY_ATTR_SIZE_VER2 80
#define SY_ATTR_SIZE_VER3 96
#define SY_ATTR_SIZE_VER4 104
#define SY_ATTR_SIZE_VER5 112
#define SY_ATTR_SIZE_VER6 120
#define SY_ATTR_SIZE_VER7 128
#define SY_ATTR_SIZE_VER8 136
/* The RFC "perf: SW strobing for AUX trace windows" (not merged) grows the
 * attr to what it names VER11 with attr.first_period as its last u64.
 * Its offset is not knowable until the ABI is merged: taken as VER8 plus
 * two more 8-byte versions (VER9, VER10) before it, in this one place. */
#define SY_ATTR_SIZE_VER11 160
/* Largest attr we interpret; larger ones have their tail ignored. */
#define SY_ATTR_SIZE_KNOWN SY_ATTR_SIZE_VER11

/* perf_event_attr field offsets. */
enum {
	SY_ATTR_OFF_TYPE = 0,
	SY_ATTR_OFF_SIZE = 4,
	SY_ATTR_OFF_CONFIG = 8,
	SY_ATTR_OFF_PERIOD = 16,
	SY_ATTR_OFF_SAMPLE_TYPE = 24,
	SY_ATTR_OFF_READ_FORMAT = 32,
	SY_ATTR_OFF_FLAGS = 40,
	SY_ATTR_OFF_WAKEUP = 48,
	SY_ATTR_OFF_BP_TYPE = 52,
	SY_ATTR_OFF_CONFIG1 = 56,
	SY_ATTR_OFF_CONFIG2 = 64,
	SY_ATTR_OFF_BRANCH_SAMPLE_TYPE = 72,
	SY_ATTR_OFF_REGS_USER = 80,
	SY_ATTR_OFF_STACK_USER = 88,
	SY_ATTR_OFF_CLOCKID = 92,
	SY_ATTR_OFF_REGS_INTR = 96,
	SY_ATTR_OFF_AUX_WATERMARK = 104,
	SY_ATTR_OFF_MAX_STACK = 108,
	SY_ATTR_OFF_AUX_SAMPLE_SIZE = 112,
	SY_ATTR_OFF_AUX_ACTION = 116,
	SY_ATTR_OFF_SIG_DATA = 120,
	SY_ATTR_OFF_CONFIG3 = 128,
	/* RFC, not merged: see SY_ATTR_SIZE_VER11 */
	SY_ATTR_OFF_FIRST_PERIOD = SY_ATTR_SIZE_VER11 - 8,
};

/* attr flag bits (u64 at offset 40). */
enum {
	SY_ATTR_FLAG_DISABLED = 0,
	SY_ATTR_FLAG_INHERIT = 1,
	SY_ATTR_FLAG_EXCLUDE_USER = 4,
	SY_ATTR_FLAG_EXCLUDE_KERNEL = 5,
	SY_ATTR_FLAG_EXCLUDE_HV = 6,
	SY_ATTR_FLAG_MMAP = 8,
	SY_ATTR_FLAG_COMM = 9,
	SY_ATTR_FLAG_FREQ = 10,
	SY_ATTR_FLAG_TASK = 13,
	SY_ATTR_FLAG_SAMPLE_ID_ALL = 18,
	SY_ATTR_FLAG_MMAP2 = 23,
	SY_ATTR_FLAG_COMM_EXEC = 24,
	SY_ATTR_FLAG_USE_CLOCKID = 25,
	SY_ATTR_FLAG_CONTEXT_SWITCH = 26,
	SY_ATTR_FLAG_AUX_OUTPUT = 31,
	SY_ATTR_FLAG_BUILD_ID = 34,
};

/* attr.aux_action bits (u32 at offset 116, Linux >= 6.13). */
#define SY_AUX_ACTION_START_PAUSED (1u << 0)
#define SY_AUX_ACTION_PAUSE (1u << 1)
#define SY_AUX_ACTION_RESUME (1u << 2)
/* RFC "perf: SW strobing for AUX trace windows" (not merged): the pause
 * event's period is armed by each overflow of the resume event in its
 * group (aux-action=pause-armed).  Taken as the next free bit until the
 * ABI is merged. */
#define SY_AUX_ACTION_PAUSE_ARMED (1u << 3)

/* sample_type bits. */
#define SY_SAMPLE_TYPES(X)           \
	X(IP, 0)                     \
	X(TID, 1)                    \
	X(TIME, 2)                   \
	X(ADDR, 3)                   \
	X(READ, 4)                   \
	X(CALLCHAIN, 5)              \
	X(ID, 6)                     \
	X(CPU, 7)                    \
	X(PERIOD, 8)                 \
	X(STREAM_ID, 9)              \
	X(RAW, 10)                   \
	X(BRANCH_STACK, 11)          \
	X(REGS_USER, 12)             \
	X(STACK_USER, 13)            \
	X(WEIGHT, 14)                \
	X(DATA_SRC, 15)              \
	X(IDENTIFIER, 16)            \
	X(TRANSACTION, 17)           \
	X(REGS_INTR, 18)             \
	X(PHYS_ADDR, 19)             \
	X(AUX, 20)                   \
	X(CGROUP, 21)                \
	X(DATA_PAGE_SIZE, 22)        \
	X(CODE_PAGE_SIZE, 23)        \
	X(WEIGHT_STRUCT, 24)

enum {
#define SY_SAMPLE_ENUM(name, bit) SY_SAMPLE_##name = 1ULL << (bit),
	SY_SAMPLE_TYPES(SY_SAMPLE_ENUM)
#undef SY_SAMPLE_ENUM
};
/* All sample_type bits this reader knows how to skip over. */
#define SY_SAMPLE_KNOWN_MASK ((uint64_t)((1ULL << 25) - 1))

/* read_format bits. */
#define SY_READ_TOTAL_TIME_ENABLED (1u << 0)
#define SY_READ_TOTAL_TIME_RUNNING (1u << 1)
#define SY_READ_ID (1u << 2)
#define SY_READ_GROUP (1u << 3)
#define SY_READ_LOST (1u << 4)

/* branch_sample_type bits that change the sample layout. */
#define SY_BRANCH_HW_INDEX (1ULL << 17)
#define SY_BRANCH_COUNTERS (1ULL << 19)

/* Callchain context markers. */
#define SY_CONTEXT_HV ((uint64_t)-32)
#define SY_CONTEXT_KERNEL ((uint64_t)-128)
#define SY_CONTEXT_USER ((uint64_t)-512)
#define SY_CONTEXT_USER_DEFERRED ((uint64_t)-640)
#define SY_CONTEXT_GUEST ((uint64_t)-2048)
#define SY_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define SY_CONTEXT_GUEST_USER ((uint64_t)-2560)
#define SY_CONTEXT_MAX ((uint64_t)-4095)

/* header.misc. */
#define SY_MISC_CPUMODE_MASK 0x7
#define SY_MISC_KERNEL 1
#define SY_MISC_USER 2
#define SY_MISC_HYPERVISOR 3
#define SY_MISC_GUEST_KERNEL 4
#define SY_MISC_GUEST_USER 5
#define SY_MISC_MMAP_DATA (1u << 13)
#define SY_MISC_COMM_EXEC (1u << 13)
#define SY_MISC_SWITCH_OUT (1u << 13)
#define SY_MISC_SWITCH_OUT_PREEMPT (1u << 14)
#define SY_MISC_MMAP_BUILD_ID (1u << 14)
#define SY_MISC_BUILD_ID_SIZE (1u << 15)

/* Record types, with the names perf prints in `perf report -D` stats. */
#define SY_RECORD_TYPES(X)                              \
	X(MMAP, 1, "MMAP")                              \
	X(LOST, 2, "LOST")                              \
	X(COMM, 3, "COMM")                              \
	X(EXIT, 4, "EXIT")                              \
	X(THROTTLE, 5, "THROTTLE")                      \
	X(UNTHROTTLE, 6, "UNTHROTTLE")                  \
	X(FORK, 7, "FORK")                              \
	X(READ, 8, "READ")                              \
	X(SAMPLE, 9, "SAMPLE")                          \
	X(MMAP2, 10, "MMAP2")                           \
	X(AUX, 11, "AUX")                               \
	X(ITRACE_START, 12, "ITRACE_START")             \
	X(LOST_SAMPLES, 13, "LOST_SAMPLES")             \
	X(SWITCH, 14, "SWITCH")                         \
	X(SWITCH_CPU_WIDE, 15, "SWITCH_CPU_WIDE")       \
	X(NAMESPACES, 16, "NAMESPACES")                 \
	X(KSYMBOL, 17, "KSYMBOL")                       \
	X(BPF_EVENT, 18, "BPF_EVENT")                   \
	X(CGROUP, 19, "CGROUP")                         \
	X(TEXT_POKE, 20, "TEXT_POKE")                   \
	X(AUX_OUTPUT_HW_ID, 21, "AUX_OUTPUT_HW_ID")     \
	X(CALLCHAIN_DEFERRED, 22, "CALLCHAIN_DEFERRED") \
	X(HEADER_ATTR, 64, "ATTR")                      \
	X(HEADER_EVENT_TYPE, 65, "EVENT_TYPE")          \
	X(HEADER_TRACING_DATA, 66, "TRACING_DATA")      \
	X(HEADER_BUILD_ID, 67, "BUILD_ID")              \
	X(FINISHED_ROUND, 68, "FINISHED_ROUND")         \
	X(ID_INDEX, 69, "ID_INDEX")                     \
	X(AUXTRACE_INFO, 70, "AUXTRACE_INFO")           \
	X(AUXTRACE, 71, "AUXTRACE")                     \
	X(AUXTRACE_ERROR, 72, "AUXTRACE_ERROR")         \
	X(THREAD_MAP, 73, "THREAD_MAP")                 \
	X(CPU_MAP, 74, "CPU_MAP")                       \
	X(STAT_CONFIG, 75, "STAT_CONFIG")               \
	X(STAT, 76, "STAT")                             \
	X(STAT_ROUND, 77, "STAT_ROUND")                 \
	X(EVENT_UPDATE, 78, "EVENT_UPDATE")             \
	X(TIME_CONV, 79, "TIME_CONV")                   \
	X(HEADER_FEATURE, 80, "FEATURE")                \
	X(COMPRESSED, 81, "COMPRESSED")                 \
	X(FINISHED_INIT, 82, "FINISHED_INIT")           \
	X(COMPRESSED2, 83, "COMPRESSED2")               \
	X(BPF_METADATA, 84, "BPF_METADATA")             \
	X(SCHEDSTAT_CPU, 85, "SCHEDSTAT_CPU")           \
	X(SCHEDSTAT_DOMAIN, 86, "SCHEDSTAT_DOMAIN")

enum {
#define SY_REC_ENUM(name, num, str) SY_REC_##name = num,
	SY_RECORD_TYPES(SY_REC_ENUM)
#undef SY_REC_ENUM
	SY_REC_TYPE_LIMIT = 128 /* counters are kept for types below this */
};

/* Header feature bits. */
#define SY_FEATURES(X)                \
	X(TRACING_DATA, 1)            \
	X(BUILD_ID, 2)                \
	X(HOSTNAME, 3)                \
	X(OSRELEASE, 4)               \
	X(VERSION, 5)                 \
	X(ARCH, 6)                    \
	X(NRCPUS, 7)                  \
	X(CPUDESC, 8)                 \
	X(CPUID, 9)                   \
	X(TOTAL_MEM, 10)              \
	X(CMDLINE, 11)                \
	X(EVENT_DESC, 12)             \
	X(CPU_TOPOLOGY, 13)           \
	X(NUMA_TOPOLOGY, 14)          \
	X(BRANCH_STACK, 15)           \
	X(PMU_MAPPINGS, 16)           \
	X(GROUP_DESC, 17)             \
	X(AUXTRACE, 18)               \
	X(STAT, 19)                   \
	X(CACHE, 20)                  \
	X(SAMPLE_TIME, 21)            \
	X(MEM_TOPOLOGY, 22)           \
	X(CLOCKID, 23)                \
	X(DIR_FORMAT, 24)             \
	X(BPF_PROG_INFO, 25)          \
	X(BPF_BTF, 26)                \
	X(COMPRESSED, 27)             \
	X(CPU_PMU_CAPS, 28)           \
	X(CLOCK_DATA, 29)             \
	X(HYBRID_TOPOLOGY, 30)        \
	X(PMU_CAPS, 31)

enum {
#define SY_FEAT_ENUM(name, bit) SY_FEAT_##name = bit,
	SY_FEATURES(SY_FEAT_ENUM)
#undef SY_FEAT_ENUM
	SY_FEAT_LAST = 32, /* HEADER_LAST_FEATURE in Linux 6.12 */
	SY_FEAT_BITS = 256
};

/* PERF_RECORD_AUX flags. */
#define SY_AUX_FLAG_TRUNCATED 0x01u
#define SY_AUX_FLAG_OVERWRITE 0x02u
#define SY_AUX_FLAG_PARTIAL 0x04u
#define SY_AUX_FLAG_COLLISION 0x08u
#define SY_AUX_FLAG_FORMAT_MASK 0xff00u
#define SY_AUX_FLAG_CORESIGHT_RAW 0x0100u

/* AUXTRACE_INFO types. */
#define SY_AUXTRACE_INTEL_PT 1
#define SY_AUXTRACE_INTEL_BTS 2
#define SY_AUXTRACE_CS_ETM 3
#define SY_AUXTRACE_ARM_SPE 4
#define SY_AUXTRACE_S390_CPUMSF 5
#define SY_AUXTRACE_HISI_PTT 6

/* Fixed part sizes of user records. */
#define SY_AUXTRACE_RECORD_SIZE 48
#define SY_AUXTRACE_INFO_FIXED 16

/* ZSTD compression type in HEADER_COMPRESSED. */
#define SY_COMP_ZSTD 1

#endif
