/* The OpenCSD C API as the ETM backend uses it (see etm_ocsd.h).
 *
 * Decoder configuration: ETMv4 sources get OCSD_BUILTIN_DCD_ETMV4I, ETE
 * sources OCSD_BUILTIN_DCD_ETE, with the ID registers of AUXTRACE_INFO,
 * profile Cortex-A and always ARCH_AA64.  perf chooses ARCH_V8 when
 * TRCIDR1.TRCARCHMIN < 4 (ETMv4.0-4.3, e.g. Juno's 0x4100F400), but
 * OpenCSD's ARCH_V8 treats the PAuth returns and branches (RETAA, BRAA,
 * BLRAA, ...) as ordinary instructions and silently decodes a wrong path;
 * ARCH_AA64 decodes every v8.0 encoding the same way and adds those, which
 * are UNDEFINED on cores that lack them.  So TRCARCHMIN is ignored.
 *
 * The C API has no packet callbacks for ETE decoders.  An ETMv4 packet
 * processor parses ETE streams packet for packet the same once its version
 * is ETE's: OpenCSD's ETE configuration takes the major and minor version
 * from TRCDEVARCH (ETEConfig::copyV4) instead of TRCIDR1, and the packet
 * processor reads nothing else of TRCIDR1 (checked against trc_pkt_lister's
 * listings of the ETE snapshots, and by the fast path's item equality on
 * them).  So a packet processor gets TRCIDR1 with those fields rewritten. */
#include <pthread.h>
#include <string.h>

#include "etm_ocsd.h"

static pthread_mutex_t etm_ocsd_mutex = PTHREAD_MUTEX_INITIALIZER;

void sy_etm_ocsd_lock(void)
{
	pthread_mutex_lock(&etm_ocsd_mutex);
}

void sy_etm_ocsd_unlock(void)
{
	pthread_mutex_unlock(&etm_ocsd_mutex);
}

dcd_tree_handle_t sy_etm_ocsd_tree(int formatted)
{
	ocsd_def_errlog_init(OCSD_ERR_SEV_NONE, 0);
	return ocsd_create_dcd_tree(formatted ? OCSD_TRC_SRC_FRAME_FORMATTED :
						OCSD_TRC_SRC_SINGLE,
				    formatted ? OCSD_DFRMTR_FRAME_MEM_ALIGN |
						OCSD_DFRMTR_RESET_ON_4X_FSYNC :
						0);
}

void sy_etm_ocsd_tree_free(dcd_tree_handle_t *dt)
{
	if (*dt != C_API_INVALID_TREE_HANDLE)
		ocsd_destroy_dcd_tree(*dt);
	*dt = C_API_INVALID_TREE_HANDLE;
}

uint8_t sy_etm_source_id(const struct sy_etm_source *s)
{
	return s->trace_id ? s->trace_id : (uint8_t)(s->trctraceidr & 0x7f);
}

static void v4_cfg(const struct sy_etm_source *s, uint8_t id,
		   ocsd_etmv4_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->reg_idr0 = s->trcidr0;
	c->reg_idr1 = s->trcidr1;
	c->reg_idr2 = s->trcidr2;
	c->reg_idr8 = s->trcidr8;
	c->reg_configr = s->trcconfigr;
	c->reg_traceidr = id;
	c->arch_ver = ARCH_AA64;
	c->core_prof = profile_CortexA;
}

ocsd_err_t sy_etm_ocsd_add_decoder(dcd_tree_handle_t dt,
				const struct sy_etm_source *s,
				unsigned char *csid)
{
	if (s->ete) {
		ocsd_ete_cfg c;

		memset(&c, 0, sizeof(c));
		c.reg_idr0 = s->trcidr0;
		c.reg_idr1 = s->trcidr1;
		c.reg_idr2 = s->trcidr2;
		c.reg_idr8 = s->trcidr8;
		c.reg_devarch = s->trcdevarch;
		c.reg_configr = s->trcconfigr;
		c.reg_traceidr = sy_etm_source_id(s);
		c.arch_ver = ARCH_AA64;
		c.core_prof = profile_CortexA;
		return ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETE,
					      OCSD_CREATE_FLG_FULL_DECODER, &c,
					      csid);
	} else {
		ocsd_etmv4_cfg c;

		v4_cfg(s, sy_etm_source_id(s), &c);
		return ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETMV4I,
					      OCSD_CREATE_FLG_FULL_DECODER, &c,
					      csid);
	}
}

void sy_etm_ocsd_decoder_cfg(const struct sy_etm_source *s, uint8_t id,
			  ocsd_etmv4_cfg *c)
{
	v4_cfg(s, id, c);
	if (s->ete) {
		/* TRCDEVARCH.REVISION [19:16] and ARCHVER [15:12] */
		uint32_t maj = (s->trcdevarch >> 12) & 0xf;
		uint32_t min = (s->trcdevarch >> 16) & 0xf;

		c->reg_idr1 = (c->reg_idr1 & ~0xff0u) | maj << 8 | min << 4;
	}
}

ocsd_err_t sy_etm_ocsd_add_pkt_proc(dcd_tree_handle_t dt,
				 const struct sy_etm_source *s, uint8_t id,
				 FnDefPktDataIn sink, const void *ctx)
{
	unsigned char csid = 0;
	ocsd_etmv4_cfg c;
	ocsd_err_t err;

	sy_etm_ocsd_decoder_cfg(s, id, &c);
	err = ocsd_dt_create_decoder(dt, OCSD_BUILTIN_DCD_ETMV4I,
				     OCSD_CREATE_FLG_PACKET_PROC, &c, &csid);
	if (err != OCSD_OK)
		return err;
	if (csid != id)
		return OCSD_ERR_INVALID_ID;
	return ocsd_dt_attach_packet_callback(dt, csid, OCSD_C_API_CB_PKT_SINK,
					      (void *)(uintptr_t)sink, ctx);
}
