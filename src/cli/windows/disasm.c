/* strobe-synth windows --symbols and --disasm: the function at each end
 * of a window, and the last instructions the trace ran before the pause,
 * rebuilt from the binary between the newest branches.  This is what
 * shows why a window is end-mismatch: where the trace stopped next to
 * where the pause sample says it did. */
#include <inttypes.h>
#include <stdlib.h>

#include "sy_aspace.h"
#include "sy_image.h"
#include "sy_proc.h"
#include "windows.h"

/* "func+0x10 (binary)" for a runtime address, or "?". */
static void sy_symbolize(const struct sy_window *w, uint64_t addr, char *buf,
			 size_t len)
{
	const struct sy_map *m = w->snap ?
					 sy_proc_snap_find(w->snap, w->pid, addr) :
					 NULL;
	const char *name = NULL;
	uint64_t vaddr, off = 0;

	if (!m || !m->img) {
		snprintf(buf, len, "?");
		return;
	}
	if ((m->flags & SY_MAP_KERNEL))
		vaddr = addr;
	else if (sy_image_off_to_vaddr(m->img, addr - m->start + m->pgoff,
				       &vaddr)) {
		snprintf(buf, len, "?");
		return;
	}
	if (sy_image_symbol(m->img, vaddr, &name, &off) || !name)
		snprintf(buf, len, "%#" PRIx64 " (%.200s)", vaddr, m->path);
	else if (off)
		snprintf(buf, len, "%s+%#" PRIx64, name, off);
	else
		snprintf(buf, len, "%s", name);
}

void sy_wl_symbols(struct sy_wl *c, const struct sy_window *w)
{
	char a[256], b[256];

	sy_symbolize(w, w->start_addr ? w->start_addr : w->resume_ip, a,
		     sizeof(a));
	sy_symbolize(w, w->has_pause ? w->pause_ip : w->end_addr, b, sizeof(b));
	fprintf(c->out, "    start %s -> end %s\n", a, b);
}

/* Disassembles the straight-line piece [a, b) (b inclusive when @incl). */
static size_t sy_piece(struct sy_wl *c, const struct sy_window *w, uint64_t a,
		       uint64_t b, int incl, uint64_t *addr_out,
		       char (*text)[96], size_t max)
{
	const struct sy_aspace *as = w->snap ?
					     sy_proc_snap_aspace(w->snap, w->pid) :
					     NULL;
	size_t n = 0;
	cs_insn *insn = cs_malloc(c->cs_h);

	if (!insn)
		return 0;
	while (n < max && (a < b || (incl && a == b))) {
		uint8_t code[16];
		const uint8_t *p = code;
		size_t len = sy_aspace_read(as, a, code, sizeof(code));
		uint64_t at = a;

		if (!len || !cs_disasm_iter(c->cs_h, &p, &len, &at, insn)) {
			addr_out[n] = a;
			snprintf(text[n++], 96, "(no code)");
			break;
		}
		addr_out[n] = a;
		snprintf(text[n++], 96, "%.31s %.60s", insn->mnemonic,
			 insn->op_str);
		if (a == b)
			break;
		a = at;
	}
	cs_free(insn, 1);
	return n;
}

/* The traced instructions, oldest first: the pieces between the newest
 * branches, then the last piece up to where the trace stopped.  A window
 * without a branch is one piece from its first traced address. */
static size_t sy_traced(struct sy_wl *c, const struct sy_window *w,
			uint64_t *addr, char (*text)[96], size_t max)
{
	size_t n = 0;

	if (!w->nr_stack)
		return w->insns ? sy_piece(c, w, w->start_addr, w->end_addr, 0,
					   addr, text, max) :
				  0;
	for (uint32_t i = w->nr_stack < 8 ? w->nr_stack : 8; i-- > 1;) {
		n += sy_piece(c, w, w->stack[i].to, w->stack[i - 1].from, 1,
			      addr + n, text + n, max - n);
		if (n >= max)
			return n;
	}
	return n + sy_piece(c, w, w->stack[0].to, w->end_addr, 0, addr + n,
			    text + n, max - n);
}

void sy_wl_disasm(struct sy_wl *c, const struct sy_window *w)
{
	size_t max = c->disasm + 64;
	uint64_t *addr = calloc(max, sizeof(*addr));
	char (*text)[96] = calloc(max, sizeof(*text));
	size_t n;

	if (!addr || !text || !c->cs_ok)
		goto out;
	n = sy_traced(c, w, addr, text, max);
	for (size_t i = n > c->disasm ? n - c->disasm : 0; i < n; i++)
		fprintf(c->out, "    %16" PRIx64 "  %s\n", addr[i], text[i]);
	if (n) {
		fprintf(c->out, "    %16" PRIx64 "  <- trace stops here; pause "
				"sample IP %#" PRIx64 "%s\n",
			w->end_addr, w->pause_ip,
			w->end_addr == w->pause_ip ? " (same)" : " (DIFFERENT)");
		goto out;
	}
	/* no traced instruction: for an end-mismatch window, show where
	 * the pause sample says the program was, which the trace of
	 * another window ran through */
	if (w->status != SY_ST_END_MISMATCH)
		goto out;
	n = sy_piece(c, w, w->pause_ip, w->pause_ip, 1, addr, text, max);
	fprintf(c->out, "    %16" PRIx64 "  %s  <- pause sample IP; this "
			"window traced no instruction\n",
		w->pause_ip, n ? text[0] : "(no code)");
out:
	free(addr);
	free(text);
}
