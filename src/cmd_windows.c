#include "cli.h"

int sy_cmd_windows(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return SY_EXIT_FAILURE;
}
