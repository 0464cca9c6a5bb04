#include "cli.h"

int sy_cmd_dump(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	sy_msg_error("dump: not implemented yet");
	return SY_EXIT_FAILURE;
}
