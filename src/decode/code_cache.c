/* The decoders' code-byte cache (see code_cache.h). */
#include "code_cache.h"

void sy_code_cache_init(struct sy_code_cache *c, sy_read_mem_fn read_mem,
			void *mem_ctx)
{
	c->read_mem = read_mem;
	c->mem_ctx = mem_ctx;
	c->on = 1;
	sy_code_cache_clear(c);
}

void sy_code_cache_clear(struct sy_code_cache *c)
{
	for (unsigned i = 0; i < SY_CODE_PAGES; i++)
		c->page[i].base = SY_CODE_NO_PAGE;
	memset(c->dead, 0, sizeof(c->dead));
	c->calls = 0;
}

static size_t fetch(struct sy_code_cache *c, uint32_t ctxid, uint64_t addr,
		    uint8_t *buf, size_t len)
{
	size_t got;

	c->calls++;
	got = c->read_mem(c->mem_ctx, ctxid, addr, buf, len);
	/* A callback that claims more than asked must not make us read past
	 * our buffers. */
	return got > len ? len : got;
}

/* Makes slot @i hold page @base of @ctxid from offset @off on, if
 * mapped. */
static void fill(struct sy_code_cache *c, unsigned i, uint32_t ctxid,
		 uint64_t base, unsigned off)
{
	unsigned d = (unsigned)(((base >> 12) + 7ull * ctxid) % SY_CODE_DEAD);
	struct sy_code_page *p = &c->page[i];
	size_t got;

	if ((p->base != base || p->ctxid != ctxid) &&
	    !(c->dead[d] == (base | 1) && c->dead_ctx[d] == ctxid)) {
		/* Whole page first: the common case is code well inside a
		 * mapping. */
		got = fetch(c, ctxid, base, c->data[i], SY_CODE_PAGE);
		if (!got) {
			c->dead[d] = base | 1;
			c->dead_ctx[d] = ctxid;
		}
		p->base = base;
		p->ctxid = ctxid;
		p->lo = 0;
		p->hi = (uint16_t)got;
		if (off < got || off == 0)
			return;
	}
	/* The page start is unmapped (a mapping starting mid-page) or the
	 * mapping ended before @off (the next one may start there): read from
	 * @off itself.  The entry then describes that part only. */
	got = fetch(c, ctxid, base + off, c->data[i] + off,
		    SY_CODE_PAGE - off);
	p->base = base;
	p->ctxid = ctxid;
	p->lo = (uint16_t)off;
	p->hi = (uint16_t)(off + got);
}

size_t sy_code_cache_read_slow(struct sy_code_cache *c, uint32_t ctxid,
			       uint64_t addr, uint8_t *buf, size_t len)
{
	size_t done = 0;

	if (!c->on)
		return fetch(c, ctxid, addr, buf, len);
	while (len) {
		uint64_t base = addr & ~(uint64_t)(SY_CODE_PAGE - 1);
		unsigned off = (unsigned)(addr - base);
		size_t n = SY_CODE_PAGE - off, avail;
		unsigned i = sy_code_cache_slot(ctxid, base);
		const struct sy_code_page *p = &c->page[i];

		if (n > len)
			n = len;
		if (p->base != base || p->ctxid != ctxid || off < p->lo ||
		    off + n > p->hi)
			fill(c, i, ctxid, base, off);
		avail = off >= p->lo && off < p->hi ? p->hi - off : 0;
		if (avail > n)
			avail = n;
		memcpy(buf, c->data[i] + off, avail);
		done += avail;
		if (avail < n || addr + n < addr)
			break;
		addr += n;
		buf += n;
		len -= n;
	}
	return done;
}
