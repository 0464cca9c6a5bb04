/* libb.so of dlreuse.c: other code than liba.so's (dlreuse-liba.c), of
 * the same segment sizes, so that ld.so maps it at the address liba.so
 * held.  A sort of a small array and a search in it. */
__attribute__((noinline)) static void sort_b(unsigned long *v, int n)
{
	for (int i = 1; i < n; i++) {
		unsigned long t = v[i];
		int j = i - 1;

		while (j >= 0 && v[j] > t) {
			v[j + 1] = v[j];
			j--;
		}
		v[j + 1] = t;
	}
}

unsigned long work(unsigned long seed, int rounds)
{
	unsigned long v[12], x = seed, s = 0;

	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < 12; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			v[i] = x >> 40;
		}
		sort_b(v, 12);
		s += v[r % 12];
	}
	return s;
}
