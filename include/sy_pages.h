/* Pages of a read-only file mapping a caller is done with.
 *
 * convert maps its input and decodes AUX payloads straight from the
 * mapping: every page it touched would stay resident, counted in the
 * process's RSS, however long the recording.  Dropping the pages of trace
 * that is decoded keeps the resident input to what is being decoded.  A
 * dropped page of a private, never-written file mapping is read again from
 * the file when touched, so dropping one that is still needed costs a
 * page fault, never data.  Never call it on anonymous memory (it would
 * read back as zeros). */
#ifndef SY_PAGES_H
#define SY_PAGES_H

#include <stddef.h>

/* Drops the whole pages inside [@p, @p + @len) from the process. */
void sy_pages_drop(const void *p, size_t len);

#endif
