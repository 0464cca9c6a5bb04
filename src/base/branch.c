#include "sy_branch.h"

const char *sy_branch_kind_name(enum sy_branch_kind kind)
{
	static const char *const names[SY_BR_NR] = {
		[SY_BR_NONE] = "none",	       [SY_BR_COND] = "cond",
		[SY_BR_JUMP] = "jump",	       [SY_BR_CALL] = "call",
		[SY_BR_IND_JUMP] = "ind-jump", [SY_BR_IND_CALL] = "ind-call",
		[SY_BR_RET] = "ret",	       [SY_BR_SYSCALL] = "syscall",
		[SY_BR_ERET] = "eret",
	};

	if ((unsigned)kind >= SY_BR_NR)
		return "?";
	return names[kind];
}
