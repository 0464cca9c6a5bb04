/* BOLT's pre-aggregated profile (`perf2bolt -pa`), per binary.
 *
 * The grammar perf2bolt-19 reads (bolt/lib/Profile/DataAggregator.cpp,
 * parseAggregatedLBREntry):
 *
 *	B FROM TO COUNT MISPRED    a taken branch
 *	F START END COUNT          a fall-through range: execution went from
 *	                           START (a branch target) straight through to
 *	                           END (the next branch's source)
 *
 * Addresses are bare lowercase hex in the binary's own (link-time) address
 * space, which is what BOLT reads the ELF in: a runtime address becomes
 * file offset (runtime - mapping start + pgoff), then the vaddr of that
 * offset.  An end outside the binary is written 0 (BOLT: no function
 * there), as simpleperf writes a trace end.  Mispredictions are unknown in
 * a trace: always 0.  Records come out sorted (F, then B, by address), so
 * the output depends only on the set of samples.
 *
 * simpleperf writes the same records (`simpleperf inject --output bolt`).
 */
#ifndef SY_OUT_BOLT_H
#define SY_OUT_BOLT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sy_error.h"
#include "sy_image.h"
#include "sy_proc.h"
#include "sy_branch.h"

struct sy_bolt;

int sy_bolt_new(struct sy_bolt **out);
void sy_bolt_free(struct sy_bolt *b);

/* One branch stack (newest first) of process @pid in @snap, seen @count
 * times: a B record per entry, an F record per pair of consecutive
 * entries in the same binary.  Entries whose ends lie in no known binary
 * are skipped.  Returns 0 or -SY_E_NOMEM. */
int sy_bolt_add_stack(struct sy_bolt *b, const struct sy_proc_snap *snap,
		      uint32_t pid, const struct sy_br *stack, uint32_t n,
		      uint64_t count);

/* Binaries seen, in the order they were first seen. */
size_t sy_bolt_nr_binaries(const struct sy_bolt *b);
/* Path as recorded and the image (for its build-id); total B counts. */
const char *sy_bolt_binary_path(const struct sy_bolt *b, size_t i);
const struct sy_image *sy_bolt_binary_image(const struct sy_bolt *b,
					    size_t i);
uint64_t sy_bolt_binary_branches(const struct sy_bolt *b, size_t i);

/* Writes binary @i's records to @f.  Returns 0, -SY_E_NOMEM or
 * -SY_E_OUTPUT (a write failed). */
int sy_bolt_write(const struct sy_bolt *b, size_t i, FILE *f);

#endif
