/* liba.so of dlreuse.c: a checksum with calls, loops and a switch.
 * libb.so (dlreuse-libb.c) is other code of the same segment sizes. */
static unsigned long mix(unsigned long x, int k)
{
	switch (k & 3) {
	case 0:
		return x * 0x100000001b3ul;
	case 1:
		return x ^ (x >> 29);
	case 2:
		return x + 0x7f4a7c15ul;
	default:
		return (x << 7) | (x >> 57);
	}
}

__attribute__((noinline)) static unsigned long round_a(unsigned long x, int r)
{
	for (int k = 0; k < 16; k++)
		x = mix(x, k + r);
	return x;
}

unsigned long work(unsigned long seed, int rounds)
{
	unsigned long x = seed;

	for (int r = 0; r < rounds; r++)
		x = round_a(x, r) ^ (unsigned long)r;
	return x;
}
