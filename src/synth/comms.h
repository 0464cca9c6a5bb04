/* Process names (COMM records), for the windows' comm field and the
 * --comm filter. */
#ifndef SY_COMMS_H
#define SY_COMMS_H

#include <stddef.h>
#include <stdint.h>

struct sy_comm {
	uint32_t pid;
	char comm[16];
};

struct sy_comms {
	struct sy_comm *v;	/* sorted by pid */
	size_t nr, cap;
};

void sy_comms_init(struct sy_comms *c);
void sy_comms_fini(struct sy_comms *c);
/* Sets @pid's name.  Returns 0 or -SY_E_NOMEM. */
int sy_comms_set(struct sy_comms *c, uint32_t pid, const char *comm);
/* @pid's name, or NULL. */
const char *sy_comms_get(const struct sy_comms *c, uint32_t pid);

#endif
