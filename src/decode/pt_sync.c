/* Intel PT synchronisation points: where libipt can start decoding (a PSB)
 * and what the PSB+ header after it says (where it ends, its TSC), read
 * with libipt's packet decoder.  sy_decode_find_sync and
 * sy_decode_sync_end for PT, the PSB+ time the decoder names a stretch's
 * thread by after a sync (pt.c), and the trace enables an error skips
 * until the next PSB (pt_state.h, struct sy_pt_gap). */
#include <intel-pt.h>
#include <stdint.h>

#include "decoder_impl.h"
#include "pt_impl.h"
#include "pt_state.h"

#define SY_PT_PSB_SIZE 16

/* A PSB is 02 82 repeated eight times.  Where the pattern runs longer,
 * libipt's sync takes the last 16 bytes of the run (pt_sync.c,
 * pt_find_psb), so the bytes before belong to an earlier packet; only
 * that position counts here too. */
static int sy_pt_psb_at(const uint8_t *p, size_t len, size_t s)
{
	size_t i;

	for (i = 0; i < SY_PT_PSB_SIZE; i += 2)
		if (p[s + i] != 0x02 || p[s + i + 1] != 0x82)
			return 0;
	if (s + SY_PT_PSB_SIZE + 2 <= len && p[s + SY_PT_PSB_SIZE] == 0x02 &&
	    p[s + SY_PT_PSB_SIZE + 1] == 0x82)
		return 0;
	return 1;
}

int sy_pt_find_sync(const uint8_t *data, size_t len, uint64_t offset,
		    uint64_t *sync)
{
	size_t s;

	if (len < SY_PT_PSB_SIZE)
		return -SY_E_EOS;
	s = len - SY_PT_PSB_SIZE;
	if (offset < s)
		s = (size_t)offset;
	for (;;) {
		if (data[s] == 0x02 && sy_pt_psb_at(data, len, s)) {
			*sync = s;
			return 0;
		}
		if (!s)
			return -SY_E_EOS;
		s--;
	}
}

/* A PSB+ header holds a handful of packets; anything longer is not one. */
#define SY_PT_PSB_PLUS_MAX_PACKETS 32

int sy_pt_psb_header(const uint8_t *data, size_t len, uint64_t sync,
		     uint64_t *end, int *has_tsc, uint64_t *tsc)
{
	struct pt_packet_decoder *pd;
	struct pt_packet pkt;
	struct pt_config cfg;
	uint64_t off;
	int err = -SY_E_EOS;

	*has_tsc = 0;
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)(uintptr_t)data;
	cfg.end = cfg.begin + len;
	pd = pt_pkt_alloc_decoder(&cfg);
	if (!pd)
		return -SY_E_NOMEM;
	if (pt_pkt_sync_set(pd, sync) < 0)
		goto out;
	for (int i = 0; i < SY_PT_PSB_PLUS_MAX_PACKETS; i++) {
		if (pt_pkt_next(pd, &pkt, sizeof(pkt)) < 0 ||
		    (i == 0 && pkt.type != ppt_psb))
			break;
		if (pkt.type == ppt_tsc) {
			*tsc = pkt.payload.tsc.tsc;
			*has_tsc = 1;
		}
		if (pkt.type == ppt_psbend) {
			if (pt_pkt_get_offset(pd, &off) >= 0) {
				*end = off;
				err = 0;
			}
			break;
		}
	}
out:
	pt_pkt_free_decoder(pd);
	return err;
}

int sy_pt_sync_end(const uint8_t *data, size_t len, uint64_t sync,
		   uint64_t *end)
{
	uint64_t tsc;
	int has_tsc;

	return sy_pt_psb_header(data, len, sync, end, &has_tsc, &tsc);
}

int sy_pt_gap_open(struct sy_pt_gap *g, const struct pt_config *cfg,
		   uint64_t psb, uint64_t from, uint64_t to)
{
	sy_pt_gap_close(g);
	g->pd = pt_pkt_alloc_decoder(cfg);
	if (!g->pd)
		return -SY_E_NOMEM;
	g->from = from;
	g->to = to;
	g->have_ip = 0;
	g->have_tsc = 0;
	if (pt_pkt_sync_set(g->pd, psb) < 0)
		sy_pt_gap_close(g);
	return 0;
}

void sy_pt_gap_close(struct sy_pt_gap *g)
{
	pt_pkt_free_decoder(g->pd);
	g->pd = NULL;
}

/* The last IP after an IP packet's payload (Intel SDM 33.4.2.2: the
 * payload replaces the low 16, 32 or 48 bits of the last IP, or is a
 * sign-extended 48-bit or full IP; suppressed says nothing).  libipt
 * keeps its own last IP inside its decoders only. */
static void sy_pt_gap_ip(struct sy_pt_gap *g, const struct pt_packet_ip *p)
{
	uint64_t keep;

	switch (p->ipc) {
	case pt_ipc_update_16:
		keep = ~0xffffull;
		break;
	case pt_ipc_update_32:
		keep = ~0xffffffffull;
		break;
	case pt_ipc_update_48:
		keep = ~0xffffffffffffull;
		break;
	case pt_ipc_sext_48:
		g->ip = (uint64_t)((int64_t)(p->ip << 16) >> 16);
		g->have_ip = 1;
		return;
	case pt_ipc_full:
		g->ip = p->ip;
		g->have_ip = 1;
		return;
	default:
		return;
	}
	if (g->have_ip)
		g->ip = (g->ip & keep) | (p->ip & ~keep);
}

int sy_pt_gap_next(struct sy_pt_gap *g, uint64_t *off)
{
	struct pt_packet pkt;
	uint64_t at;

	while (g->pd) {
		if (pt_pkt_get_offset(g->pd, &at) < 0 || at >= g->to ||
		    pt_pkt_next(g->pd, &pkt, sizeof(pkt)) < 0)
			break;
		switch (pkt.type) {
		case ppt_psb:
			/* a PSB sets the last IP to 0: IPs after it are
			 * compressed against that */
			g->ip = 0;
			g->have_ip = 1;
			break;
		case ppt_tsc:
			g->tsc = pkt.payload.tsc.tsc;
			g->have_tsc = 1;
			break;
		case ppt_fup:
		case ppt_tip:
		case ppt_tip_pgd:
			sy_pt_gap_ip(g, &pkt.payload.ip);
			break;
		case ppt_tip_pge:
			sy_pt_gap_ip(g, &pkt.payload.ip);
			/* @from is where libipt's decoder stood when it
			 * failed: the next packet it would have read */
			if (at >= g->from) {
				*off = at;
				return 1;
			}
			break;
		default:
			break;
		}
	}
	sy_pt_gap_close(g);
	return 0;
}
