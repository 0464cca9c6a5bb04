/* How the ETM backend uses the OpenCSD 1.3.3 C API: trees, configurations,
 * the lock around OpenCSD's global state, trace indexes.
 *
 * Private to the ETM backend; shared by the full decoder (etm_full.c), the
 * guard (etm_guard.c) and the fast path (etm_fast.c), so that every tree
 * sees the same configuration. */
#ifndef SY_ETM_OCSD_H
#define SY_ETM_OCSD_H

#include <opencsd/c_api/opencsd_c_api.h>
#include <stdint.h>

#include "sy_decode.h"

/* The memory callback covers the address space except its last page.
 * OpenCSD 1.3.3's memory-access cache tests `addr + size <= page end`
 * without overflow: an address packet of 0xffff...fffc (corrupt trace)
 * hits a cached page and memcpy()s from far outside it (found by
 * tests/fuzz/fuzz_etm_decode.c, reproduced with the C API alone).  Outside
 * every accessor the address is simply not accessible (ADDR_NACC); no code
 * lives in the top page. */
#define ETM_MEM_TOP (UINT64_MAX - 0x1000)

/* OpenCSD 1.3.3 keeps process-wide state its C API does not lock: the list
 * of decode trees, and the default error logger, which every component of
 * a new tree registers with and every logged error writes to.  The
 * converter's workers allocate decoders concurrently, which corrupted the
 * logger's list (tests/e2e/t_convert_real_etm.sh at -j 4; ASan:
 * use-after-free in ocsdDefaultErrorLogger::RegisterErrorSource).  So trees
 * are built and destroyed under this lock, the backend's only global state,
 * and the logger is told to log nothing: errors reach us as elements and
 * datapath responses anyway, and a silent logger is not written to while
 * trees decode in parallel. */
void sy_etm_ocsd_lock(void);
void sy_etm_ocsd_unlock(void);

/* A new tree for raw (one source) or formatted (16-byte frames) data;
 * C_API_INVALID_TREE_HANDLE when out of memory.  Call under the lock. */
dcd_tree_handle_t sy_etm_ocsd_tree(int formatted);
/* Destroys *@dt if it is a tree and marks it invalid (under the lock). */
void sy_etm_ocsd_tree_free(dcd_tree_handle_t *dt);

/* The CoreSight ID of @s: sources[].trace_id when set (perf takes it from
 * PERF_RECORD_AUX_OUTPUT_HW_ID), else TRCTRACEIDR. */
uint8_t sy_etm_source_id(const struct sy_etm_source *s);

/* Adds the full decoder of @s to @dt (under the lock); *@csid gets its ID.
 * Returns OpenCSD's error code. */
ocsd_err_t sy_etm_ocsd_add_decoder(dcd_tree_handle_t dt,
				const struct sy_etm_source *s,
				unsigned char *csid);

/* Adds a packet processor for @s under ID @id to @dt, its packets going
 * to @sink(@ctx) (under the lock).  Returns OpenCSD's error code. */
ocsd_err_t sy_etm_ocsd_add_pkt_proc(dcd_tree_handle_t dt,
				 const struct sy_etm_source *s, uint8_t id,
				 FnDefPktDataIn sink, const void *ctx);

/* The configuration the decoder of @s runs with, as an ETMv4 one: for ETE,
 * the version fields of TRCIDR1 come from TRCDEVARCH as OpenCSD's ETE
 * configuration takes them. */
void sy_etm_ocsd_decoder_cfg(const struct sy_etm_source *s, uint8_t id,
			  ocsd_etmv4_cfg *c);

/* OpenCSD indexes are 32-bit: the 64-bit window offset of index @idx,
 * seen while feeding at window offset @pos (elements lie within 2 GiB of
 * it). */
static inline uint64_t etm_offset_of(uint64_t pos, ocsd_trc_index_t idx)
{
	int32_t delta = (int32_t)(uint32_t)((uint32_t)idx - (uint32_t)pos);

	if (delta < 0 && (uint64_t)-(int64_t)delta > pos)
		return 0;
	return pos + (uint64_t)(int64_t)delta;
}

#endif
