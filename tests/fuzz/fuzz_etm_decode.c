/* libFuzzer target: arbitrary bytes as one ETM window through the ETMv4 /
 * ETE decoder, over a small code image holding every kind of A64 branch.
 *
 * Decoders are kept per configuration across inputs (reset per window is
 * the product's pattern too): OpenCSD leaks 32 bytes per decode tree, and
 * a tree per input would make libFuzzer run a full leak check after every
 * input.
 *
 * Byte 0 picks the configuration:
 *   bit 0  frame-formatted (else a raw stream)
 *   bit 1  ETE (else ETMv4)
 *   bit 2  prepend A-Sync, Trace Info, Trace On and Address with Context,
 *          so that mutations act on a synchronised decoder
 *   bit 3  timestamps and context IDs in TRCCONFIGR
 *   bit 4  item ring of one item (the OCSD_RESP_WAIT path)
 *   bit 5  no code-page cache
 *   bit 6  split the window into chunks of byte 1 + 1 bytes
 *   bit 7  formatted: the data goes through the frame formatter as two
 *          interleaved trace IDs (else the bytes are frames as they are)
 * The rest is the trace.  Besides sanitizer reports the target traps on
 * broken contracts: next() failing other than with -SY_E_EOS, an item
 * beyond the window or of an unknown kind, a decode that does not end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/etm.h"
#include "fx_etm.h"
#include "fuzz_etm_image.h"
#include "sy_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Leaks inside OpenCSD.  tests/lsan.supp names the known 32 bytes per
 * decode tree by a frame that LSan only sees with slow unwinding, which
 * costs a full stack walk per malloc and OpenCSD allocates per packet.
 * With the fast unwinder its allocations stop at libstdc++'s operator new
 * (no frame pointers there); nothing of ours calls it (the project is
 * C), so that frame names OpenCSD's leaks exactly.  This target also
 * found a second one, reproduced with the OpenCSD C API alone: 1.3.3
 * loses a P0 stack element (40 bytes) when a bad packet follows Trace On
 * and an address (TrcPktDecodeEtmV4I::decodePacket ->
 * EtmV4P0Stack::createAddrElem): a library leak per corrupt packet.
 *
 * That leak makes almost every input allocate more than it frees, and
 * libFuzzer then scans the whole heap after the input: about 60% of the
 * target's time.  tests/fuzz/run checks its leaks once, at exit, instead
 * (SY_FUZZ_LEAKS_AT_EXIT), with the same suppressions: a leak of ours
 * still fails the run, named by its allocation stack, only not by the
 * input that made it. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libstdc++.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sy_etm_source src[8][2];
	static struct sy_decoder *dec[8];
	struct sy_dec_params p;
	struct sy_dec_chunk ch[64];
	struct sy_decoder *d;
	unsigned key;
	struct sy_dec_item it;
	struct fx_buf raw, fb;
	size_t len, nch, n = 0, chunk;
	uint8_t mode;
	int err;

	if (size < 2)
		return 0;
	/* The seeds are perf.data files of up to 300 KB (tests/fuzz/run);
	 * OpenCSD throws a C++ exception per bad packet, which costs
	 * milliseconds under ASan: windows beyond 4 KB add time, not
	 * coverage (measured: 15 s at a 32 KB cap reached 869 edges at 280
	 * inputs/s, at 4 KB 895 at 1,087/s). */
	if (size > SY_FUZZ_ETM_MAX)
		size = SY_FUZZ_ETM_MAX;
	mode = data[0];
	chunk = (size_t)data[1] + 1;
	data += 2;
	size -= 2;
	img_fill();

	key = (mode & 3) | ((mode >> 1) & 4);	/* formatted, ETE, TS+CID */
	if (!dec[key]) {
		for (int k = 0; k < 2; k++) {
			struct sy_etm_source *s = &src[key][k];

			s->trace_id = (uint8_t)(0x10 + k);
			s->ete = (mode >> 1) & 1;
			s->trcconfigr = (mode & 8) ? (1u << 6 | 1u << 11) : 0;
			s->trcidr0 = 0x28000ea1;
			s->trcidr1 = s->ete ? 0x4100fff0 : 0x4100f443;
			s->trcidr2 = 0x488;
			s->trcdevarch = s->ete ? 0x47705a13 : 0;
		}
		memset(&p, 0, sizeof(p));
		p.kind = SY_TRACE_ETM;
		p.read_mem = img_read;
		p.u.etm.formatted = mode & 1;
		p.u.etm.sources = src[key];
		p.u.etm.nr_sources = (mode & 1) ? 2 : 1;
		if (sy_decoder_alloc(&dec[key], &p) < 0)
			abort();
	}
	d = dec[key];

	len = fuzz_window(data, size, mode & 4, (mode >> 1) & 1, (mode >> 3) & 1,
			  (mode & 1) && (mode & 0x80), chunk, mode & 0x40, &raw,
			  &fb, ch, &nch);
	sy_etm_set_ring(d, (mode & 0x10) ? 1 : SY_ETM_RING_DEFAULT);
	sy_etm_set_mem_cache(d, !(mode & 0x20));
	sy_decoder_reset(d, ch, nch, 0);
	while ((err = sy_decoder_next(d, &it)) == 0) {
		if (it.offset > len || it.kind < SY_DEC_BRANCH ||
		    (it.kind > SY_DEC_CONTEXT && it.kind != SY_DEC_CYCLES) || ++n > 64 * len + 1000)
			__builtin_trap();
	}
	if (err != -SY_E_EOS)
		__builtin_trap();
	fx_buf_fini(&raw);
	fx_buf_fini(&fb);
	return 0;
}
