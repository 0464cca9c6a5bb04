/* dlclose frees an address and dlopen of another object takes it
 * (issue 26, the map timeline).  For tests/corpus/run: dlopen()s
 * liba.so, calls into it, dlclose()s it, dlopen()s libb.so and calls
 * into it.  The two libraries (dlreuse-liba.c, dlreuse-libb.c) have the
 * same segment sizes, so ld.so maps libb.so where liba.so was: one
 * address, two codes one after the other.  The truth must classify each
 * PC by the object mapped there at that moment, and a recording must
 * carry libb.so's MMAP2 where the program mapped it.  The libraries are
 * looked for beside the program (argv[0]'s directory).
 *
 *   dlreuse ROUNDS [GAP]
 *
 * GAP (default 20000) iterations of the program's own code run between
 * the dlclose and the next dlopen, so that no window of the corpus's
 * recordings holds code of both libraries (tests/corpus/README.md: with
 * GAP 0 one does, and strobe-synth reads one library's maps for all of
 * it).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long (*work_fn)(unsigned long seed, int rounds);

static unsigned long run_lib(const char *dir, const char *name, int rounds,
			     void **where)
{
	char path[4096];
	void *h;
	work_fn f;
	unsigned long r;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlreuse: %s\n", dlerror());
		exit(1);
	}
	f = (work_fn)dlsym(h, "work");
	if (!f) {
		fprintf(stderr, "dlreuse: %s: no work()\n", path);
		exit(1);
	}
	*where = (void *)f;
	r = f(0x9e3779b9ul, rounds);
	if (dlclose(h) != 0) {
		fprintf(stderr, "dlreuse: dlclose %s: %s\n", path, dlerror());
		exit(1);
	}
	return r;
}

/* The program's own work between the two libraries. */
__attribute__((noinline)) static unsigned long gap(long n)
{
	unsigned long x = 1;

	for (long i = 0; i < n; i++)
		x = x * 31 + (unsigned long)i;
	return x;
}

int main(int argc, char **argv)
{
	char dir[4096];
	char *slash;
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	long between = argc > 2 ? atol(argv[2]) : 20000;
	void *a, *b;
	unsigned long ra, rb, rg;

	snprintf(dir, sizeof(dir), "%s", argv[0]);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	ra = run_lib(dir, "liba.so", rounds, &a);
	rg = gap(between);
	rb = run_lib(dir, "libb.so", rounds, &b);
	printf("a %lx at %p, b %lx at %p%s, gap %lx\n", ra, a, rb, b,
	       a == b ? " (same address)" : "", rg);
	return 0;
}
