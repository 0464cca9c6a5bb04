/* Intel PT synchronisation points: where libipt can start decoding (a PSB)
 * and what the PSB+ header after it says (where it ends, its TSC), read
 * with libipt's packet decoder.  sy_decode_find_sync and
 * sy_decode_sync_end for PT, and the PSB+ time the decoder names a
 * stretch's thread by after a sync (pt.c). */
#include <intel-pt.h>
#include <stdint.h>

#include "decoder_impl.h"
#include "pt_impl.h"

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
