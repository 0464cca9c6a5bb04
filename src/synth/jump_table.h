/* A64 jump tables, read from the code as BOLT's jump-table analysis reads
 * them: what targets the `br` that ends GCC's and Clang's switch lowering
 * can reach, for the plausibility checks (plausible.c).  The code comes
 * through a reader, so that this knows nothing of windows, processes or
 * their caches.
 *
 * The straight run ends in `adr xB, base; add xT, xB, wE, {s,u}xt{b,h} #s;
 * br xT`: whatever the loaded entry wE holds, only its low byte or
 * halfword counts, so the target is base + ext(wE) << s, and any other
 * target is no program's. */
#ifndef SY_SYNTH_JUMP_TABLE_H
#define SY_SYNTH_JUMP_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "insn.h"
#include "sy_branch.h"
#include "sy_image.h"

struct sy_jt_code {
	/* copies @n bytes of code at @addr: 1 when all exist */
	int (*read)(void *ctx, uint64_t addr, uint8_t *buf, size_t n);
	/* 1 when [@addr, @addr + @len) lies in one code mapping no one can
	 * write: what the file holds there is what ran */
	int (*fixed)(void *ctx, uint64_t addr, uint64_t len);
	void *ctx;
};

/* Returns 1 with @lo and @hi (inclusive) when @b ends such a run that
 * started at or before the adr (@run: the run's first address). */
int sy_jt_range(const struct sy_jt_code *k, const struct sy_br *b,
		uint64_t run, uint64_t *lo, uint64_t *hi);

/* Whether the entries of the table @b jumps through give its target: 1
 * yes or not known, 0 no.  Known only where the code bounds the index
 * itself (GCC's `cmp wI, #N; b.ls`, the taken branch @prev, with @p2 the
 * branch before it: the straight run that holds the cmp) and the table is
 * fixed (sy_jt_code.fixed). */
int sy_jt_hit(const struct sy_jt_code *k, const struct sy_br *b,
	      const struct sy_br *prev, const struct sy_br *p2);

/* x86-64 (jump_table_x86.c): whether the table the indirect jump or call
 * @b reads gives its target: 1 yes or not known, 0 no.  Known where the
 * straight run from @run (the previous branch's target) to @b bounds the
 * index itself (`cmp $N, I; ja`, or `and $M, I`), the table is fixed, and
 * its entries are absolute (`jmp *TAB(,I,8)`, `call *TAB(,I,8)`) or
 * relative to it (`lea TAB(%rip), B; movslq (B,I,4), D; add B, D; jmp *D`).
 * Absolute entries are read only where the code runs at its link-time
 * addresses (@linked): elsewhere an absolute table address may be another
 * object's.  @d decodes (capstone, x86-64, with details). */
int sy_jt_x86_hit(const struct sy_jt_code *k, struct sy_insn_decoder *d,
		  const struct sy_br *b, uint64_t run, int linked);

/* x86 tables are read from the file of the code that reads them, in its
 * segments the program cannot write (read-only data is not in the
 * recording's maps: perf records executable mappings): the reader of
 * @img's such segments, for code that runs at link-time address - @bias
 * (jump_table_x86.c). */
struct sy_jt_ro {
	const struct sy_image *img;
	uint64_t bias;		/* link-time address - runtime address */
};

struct sy_jt_code sy_jt_ro_code(struct sy_jt_ro *r);

#endif
