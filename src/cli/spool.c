/* A pipe as input ("-"): commands may open the recording twice (convert
 * opens it again to convert the whole trace when it finds no pause
 * sample), and a pipe can be read only once.  So the pipe is copied once
 * into an unlinked temporary file that then stands in for standard input:
 * a regular file, which the reader maps and may open any number of times. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int sy_cli_spool_stdin(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	struct stat st;
	FILE *in = stdin, *out;
	char buf[1 << 16];
	size_t n;
	int fd, e = 0;

	if (!fstat(STDIN_FILENO, &st) && S_ISREG(st.st_mode))
		return 0;	/* a file already: nothing to copy */
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/strobe-synth-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0 || !(out = fdopen(fd, "w+"))) {
		sy_msg_error("-: cannot create a spool file in %s: %s", dir,
			     strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	unlink(path);
	while ((n = fread(buf, 1, sizeof(buf), in)) && fwrite(buf, 1, n, out) == n)
		;
	if (ferror(in))
		e = errno ? errno : EIO;
	if (fflush(out) && !e)
		e = errno ? errno : EIO;
	if (e || dup2(fd, STDIN_FILENO) < 0 || lseek(STDIN_FILENO, 0, SEEK_SET)) {
		sy_msg_error("-: cannot spool standard input: %s",
			     strerror(e ? e : errno));
		fclose(out);
		return -1;
	}
	fclose(out);	/* standard input holds the file now */
	return 0;
}
